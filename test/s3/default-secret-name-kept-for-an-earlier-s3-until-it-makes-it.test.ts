// S3 resource `a` is made first; its Secret is its default `a-credentials`, which it answers only once its sync has
// made its IAM user, bucket, policy and key (seconds of AWS calls, or for as long as it waits on AWS: Throttled,
// TooManyBuckets, BucketPlacePending, an outage). S3 resource `b`, made a minute later, names
// `spec.secretName: a-credentials` (a copy of a's manifest). S3 declares the shape of its default name
// (`<name>-credentials`, hooks/s3/index.ts nameShapes), so b's customize asks for S3 `a` by name whatever b's status,
// and `a`, made before b and wanting the name, keeps it (lib/ownership.ts keptByEarlier): b is SecretNameTaken naming
// a, makes nothing in AWS and answers no Secret, and a's workload never reads b's bucket with b's keys (issue 31: "the
// first parent keeps working, the second says why not"). The same when the earlier parent is a MySQLCluster.
import t from 'tap';
import '../../main/operators.js';
import { s3 } from '../../hooks/s3/index.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { NS, relatedFor, rulesOf } from '../fixtures/held-names.js';
import { s3Sync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { S3_DEFAULTS } from '../fixtures/s3.js';

const s3Parent = (name: string, spec: Record<string, unknown>, made: string): ParentObject =>
  ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name, namespace: NS, uid: `uid-s3-${name}`, generation: 1, creationTimestamp: made },
    spec: { ...S3_DEFAULTS, bucketName: `shop-${name}-bucket`, ...spec },
  }) as ParentObject;
const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
const made = (aws: FakeAws) => aws.calls.filter((c) => /^create/i.test(c));

t.test(
  'a later S3 resource does not take the default Secret name of an earlier one that has not made it yet',
  async (t) => {
    const a = s3Parent('a', {}, '2026-01-02T03:00:00Z');
    const b = s3Parent('b', { secretName: 'a-credentials' }, '2026-01-02T03:01:00Z');
    // What Metacontroller sends b: the objects b's customize asks for, found in the namespace (a exists; no Secret yet).
    const aws = new FakeAws();
    const res = await s3Sync(
      { controller: {}, parent: b, children: {}, related: relatedFor(rulesOf(s3, b), [a as unknown as KubeObject]) },
      aws,
      FIXED_NOW,
    );
    t.comment(
      `b: Ready=${ready(res).status} ${ready(res).reason}; answered ${res.children.map((c) => c.metadata.name)}`,
    );
    t.notOk(
      res.children.some((c) => c.kind === 'Secret' && c.metadata.name === 'a-credentials'),
      'b does not answer Secret a-credentials, which S3 a (made before it) wants',
    );
    t.same(made(aws), [], 'b makes no IAM user, bucket, policy or key for a Secret name it cannot keep');
    t.match(ready(res), { status: 'False', reason: 'SecretNameTaken' }, 'b says why: the name is kept for S3 a');
    t.match(ready(res).message, /Secret a-credentials belongs to S3 a .*made before this S3/, 'naming S3 a');
    // Whatever status the customize answer was asked with (Metacontroller keeps one per generation), S3 a is sent.
    const synced = { ...b, status: res.status } as ParentObject;
    t.ok(
      rulesOf(s3, synced).some((r) => r.resource === 's3s' && (r.names ?? []).includes('a')),
      'b, synced, still asks for S3 a by name (the default name has a shape)',
    );
    // a, made first, is not kept from its name by b: its sync makes its Secret.
    const awsA = new FakeAws();
    const resA = await s3Sync(
      { controller: {}, parent: a, children: {}, related: relatedFor(rulesOf(s3, a), [b as unknown as KubeObject]) },
      awsA,
      FIXED_NOW,
    );
    t.ok(
      resA.children.some((c) => c.kind === 'Secret' && c.metadata.name === 'a-credentials'),
      'a, made first, answers its Secret a-credentials',
    );
  },
);

t.test('the same when the earlier parent is a MySQLCluster (its Secret shop-mysql not made yet)', async (t) => {
  const req = request('mysqlcluster', { size: 3, version: '8.0' });
  const shop = {
    ...req.parent,
    metadata: { ...req.parent.metadata, name: 'shop', namespace: NS, uid: 'uid-shop', generation: 1 },
  } as KubeObject;
  shop.metadata.creationTimestamp = '2026-01-02T03:00:00Z';
  const pay = s3Parent('pay', { secretName: 'shop-mysql' }, '2026-01-02T03:01:00Z');
  const aws = new FakeAws();
  const res = await s3Sync(
    { controller: {}, parent: pay, children: {}, related: relatedFor(rulesOf(s3, pay), [shop]) },
    aws,
    FIXED_NOW,
  );
  t.match(ready(res), { status: 'False', reason: 'SecretNameTaken' }, 'held: kept for MySQLCluster shop, made before');
  t.same(made(aws), [], 'nothing made in AWS');
});
