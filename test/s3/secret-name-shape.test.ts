// An S3 spec.secretName the API server refuses as a
// Secret name (not a DNS-1123 subdomain: "a..b", "a.-b", "a-.b") must be InvalidSpec naming spec.secretName before
// any IAM user, policy or access key is made; otherwise the Secret is never created, and once the key's grace period
// is over every sync rotates the key (KeyRotated churn) for a Secret that can never exist.
import t from 'tap';
import { S3Spec } from '../../hooks/s3/schema.js';
import { Value } from '@sinclair/typebox/value';
import type { ParentObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { objectMap } from '../fixtures/requests.js';

for (const secretName of ['creds..x', 'creds.-x', 'creds-.x', '.creds', 'creds.', '-creds']) {
  t.test(`S3 spec.secretName ${secretName}: InvalidSpec before any AWS call, no key made or rotated`, async (t) => {
    // The CRD's pattern (the same schema) refuses it; an object stored before the CRD had that pattern still reaches
    // the hook, which checks the same schema.
    const spec = { bucketName: 'tenant-a-data', deletionPolicy: 'Retain', secretName };
    t.notOk(Value.Check(S3Spec, Value.Default(S3Spec, structuredClone(spec))), 'the CRD schema refuses the name');
    const aws = new FakeAws();
    const parent: ParentObject = {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name: 'data', namespace: 'tenant-a', uid: 'uid-a', generation: 1 },
      spec,
    };
    const request = { controller: {}, parent, children: objectMap([], 'v1', ['Secret.v1']) };
    let res = await sync(request, aws, new Date('2026-01-02T03:04:05Z'));
    const ready = () =>
      ((res.status?.['conditions'] ?? []) as Array<Record<string, unknown>>).find((c) => c['type'] === 'Ready');
    t.equal(ready()?.['reason'], 'InvalidSpec', 'Ready=False InvalidSpec');
    t.match(String(ready()?.['message']), /secretName/, 'the message names spec.secretName');
    t.notOk(
      res.children.some((c) => c.kind === 'Secret'),
      'no Secret the API server would refuse is answered',
    );
    t.same(
      aws.calls.filter((c) => /createAccessKey|createUser/.test(c)),
      [],
      'no IAM user or access key made for a Secret that cannot exist',
    );
    // A later sync (the Secret never appeared: the API server refused it) past the grace period rotates nothing.
    aws.now = new Date('2026-01-02T03:10:05Z');
    const before = aws.calls.length;
    res = await sync(request, aws, new Date('2026-01-02T03:10:05Z'));
    t.same(
      aws.calls.slice(before).filter((c) => /createAccessKey/.test(c)).length,
      0,
      'no KeyRotated churn for a Secret that never appears',
    );
  });
}
