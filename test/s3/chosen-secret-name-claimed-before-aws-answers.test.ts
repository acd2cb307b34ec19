// S3 resources `b` and `c` both name `spec.secretName: app-credentials` (two teams' manifests following one
// convention). `b` is made first; its first sync meets an AWS that does not answer (Throttling on every call: the same
// as an outage, TooManyBuckets, or a namespace waiting for its share). Customize never asks for every S3 resource of a
// namespace (each would be sent with every sync), so `c`, made a minute later, cannot see b's spec; before, b's answer
// carried no Secret until its IAM user, bucket and key were made, the name was free, and c took it: b's workload then
// read c's bucket with c's keys, and b said SecretNameTaken (finding 2 of issue 31's reverted first fix). Now the answer
// of every sync of an S3 resource that has never answered its Secret claims the name (hooks/s3/sync.ts claimOf): the
// Secret, pending, without keys. c finds it by name and is held, naming b, making nothing in AWS; b's next sync with
// AWS answering puts its keys into the same Secret.
import t from 'tap';
import '../../main/operators.js';
import { s3 } from '../../hooks/s3/index.js';
import { AwsError } from '../../hooks/s3/api.js';
import { PENDING_ANNOTATION } from '../../hooks/s3/plan.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { FakeAws, viewOf } from '../fixtures/fake-aws.js';
import { NS, relatedFor, rulesOf } from '../fixtures/held-names.js';
import { created } from '../fixtures/parents-made-together.js';
import { s3Sync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { S3_DEFAULTS } from '../fixtures/s3.js';

const s3Parent = (name: string, made: string): ParentObject =>
  ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name, namespace: NS, uid: `uid-s3-${name}`, generation: 1, creationTimestamp: made },
    spec: { ...S3_DEFAULTS, bucketName: `shop-${name}-bucket`, secretName: 'app-credentials' },
  }) as ParentObject;
const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
const secretOf = (res: any) =>
  res.children.find((c: any) => c.kind === 'Secret' && c.metadata.name === 'app-credentials');
const made = (aws: FakeAws) => aws.calls.filter((c) => /^create/i.test(c));

t.test('an S3 resource claims its chosen Secret name at its first sync, whatever AWS answers', async (t) => {
  const b = s3Parent('b', '2026-01-02T03:00:00Z');
  const c = s3Parent('c', '2026-01-02T03:01:00Z');
  const awsB = new FakeAws();
  const silent = viewOf(awsB, (method) => {
    throw new AwsError('Throttling', `Rate exceeded (${method})`, method);
  });
  const first = await s3Sync({ controller: {}, parent: b, children: {}, related: {} }, silent, FIXED_NOW);
  t.match(ready(first), { status: 'False' }, 'b is not Ready: AWS did not answer');
  const claim = secretOf(first);
  t.ok(claim, 'b answers Secret app-credentials all the same');
  t.notOk(claim?.data?.AWS_ACCESS_KEY_ID ?? claim?.data?.AWS_SECRET_ACCESS_KEY, 'without keys: none is made yet');
  t.match(claim?.metadata?.annotations ?? {}, { [PENDING_ANNOTATION]: /not made yet/ }, 'marked pending');
  t.same(made(awsB), [], 'nothing made in AWS');

  // Metacontroller creates it; c's first sync finds it by name (its customize asks for its Secret name).
  const secret = created(claim, b as KubeObject);
  const aws = new FakeAws();
  const res = await s3Sync(
    {
      controller: {},
      parent: c,
      children: {},
      related: relatedFor(rulesOf(s3, c), [b as KubeObject, secret]),
    },
    aws,
    FIXED_NOW,
  );
  t.comment(`c: Ready=${ready(res).status} ${ready(res).reason}; answered ${res.children.map((x) => x.metadata.name)}`);
  t.notOk(secretOf(res), 'c does not answer Secret app-credentials, which b claimed');
  t.same(made(aws), [], 'c makes no IAM user, bucket, policy or key for a Secret name it cannot keep');
  t.match(ready(res), { status: 'False', reason: 'SecretNameTaken' }, 'c says why');
  t.match(ready(res).message, /Secret app-credentials belongs to S3 b \(uid uid-s3-b\)/, 'naming S3 b');

  // AWS answers again: b's next sync puts its keys into the Secret it claimed, updated in place.
  const next = await s3Sync(
    {
      controller: {},
      parent: { ...b, status: first.status } as ParentObject,
      children: objectMap([secret]),
      related: {},
    },
    awsB,
    FIXED_NOW,
  );
  t.match(ready(next), { status: 'True' }, 'b is Ready');
  t.ok(secretOf(next)?.data?.AWS_ACCESS_KEY_ID, 'its Secret now holds its access key');
  t.notOk(secretOf(next)?.metadata?.annotations?.[PENDING_ANNOTATION], 'and is no longer marked pending');
});

t.test(
  'a resource that answered its keys once claims nothing: its Secret deleted by hand waits as before',
  async (t) => {
    const b = s3Parent('b', '2026-01-02T03:00:00Z');
    const aws = new FakeAws();
    const first = await s3Sync({ controller: {}, parent: b, children: {}, related: {} }, aws, FIXED_NOW);
    t.match(ready(first), { status: 'True' }, 'b is Ready with its key');
    // The Secret deleted by hand a moment later: IAM's key is younger than the grace period, so the sync waits.
    const again = await s3Sync(
      { controller: {}, parent: { ...b, status: first.status } as ParentObject, children: {}, related: {} },
      aws,
      FIXED_NOW,
    );
    t.match(ready(again), { status: 'False', reason: 'SecretPending' }, 'b waits for its Secret (SecretPending)');
    t.notOk(secretOf(again), 'and answers no pending Secret over a name whose keys may be in a Secret not seen yet');
    // The same when the status lost the key (the status write of the first answer failed): IAM's young key may be in a
    // Secret Metacontroller's cache does not show yet.
    const { accessKeyId: _lost, ...withoutKey } = first.status as Record<string, unknown>;
    const lost = await s3Sync(
      { controller: {}, parent: { ...b, status: withoutKey } as ParentObject, children: {}, related: {} },
      aws,
      FIXED_NOW,
    );
    t.match(ready(lost), { status: 'False', reason: 'SecretPending' }, 'its status without the key: it waits too');
    t.notOk(secretOf(lost), 'and claims nothing over a Secret that may hold its young key');
  },
);
