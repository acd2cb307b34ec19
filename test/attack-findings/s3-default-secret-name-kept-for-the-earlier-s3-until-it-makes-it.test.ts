// Attack finding (issue 31, "two resources that want one in-cluster thing, of one kind"): S3 resource `a` is made
// first; its Secret is its default `a-credentials`, which it answers only once its first sync has made its IAM user,
// bucket, policy and key (seconds of AWS calls; for as long as it waits on AWS: Throttled, TooManyBuckets,
// BucketPlacePending, an outage). S3 resource `b`, made a minute later, names `spec.secretName: a-credentials` (a
// copy of a's manifest, a typo). b's customize asks for no S3 resource (S3 declares its Secret shape as `chosen`
// only, lib/holders.ts, so a holder of its own kind is asked for only as b's status.heldBy records it, and b has no
// record), so b's sync never sees that `a`, made before it, wants the name: it makes an IAM user, a bucket and a key,
// and answers Secret `a-credentials` with b's keys. Metacontroller creates it; a's next sync finds its own Secret
// name held by b: `a`, the first, is SecretNameTaken for good, and a's workload, which mounts `a-credentials`, reads
// and writes b's bucket with b's keys (issue 31 case 2, the other way round).
// The rule (issue 31): "the first parent keeps working, the second says why not"; lib/ownership.ts keptByEarlier
// keeps a free name for a parent made before that wants it, as it does when the earlier parent is a MySQLCluster
// (control below). Expected: b held SecretNameTaken naming a, nothing made in AWS, no Secret answered.
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
  },
);

t.test(
  'control: the same when the earlier parent is a MySQLCluster (its Secret shop-mysql not made yet)',
  async (t) => {
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
    t.match(
      ready(res),
      { status: 'False', reason: 'SecretNameTaken' },
      'held: kept for MySQLCluster shop, made before',
    );
    t.same(made(aws), [], 'nothing made in AWS');
  },
);
