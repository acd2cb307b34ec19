// MySQLCluster `shop` and S3 resource `pay` (`spec.secretName: shop-mysql`, the cluster's own Secret name) are made
// together (one `kubectl apply` of a folder: the same second; the MySQLCluster has the lower uid, so it is the one made
// first by lib/ownership.ts firstMade). Neither first sync sees the other (as test/fixtures/parents-made-together.ts
// plays it), and Metacontroller creates the S3 resource's Secret first; the cluster's StatefulSet and Services after.
// Played as Metacontroller applies answers, four rounds after the first. The rule (issue 31): the first parent
// keeps working, the second says why it does not. Before, the MySQLCluster stayed SecretNameTaken for good while its
// StatefulSet mounted a Secret holding the S3 resource's AWS keys, and the S3 resource was Ready and said nothing
// (finding of branch a-work5). Now the S3 resource, seeing the cluster made before it held for its Secret
// (wantedByFirst), releases the Secret and is held naming the cluster (hooks/s3/sync.ts yieldedSecret); the cluster
// makes its Secret and carries on.
import t from 'tap';
import '../../main/operators.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { mysqlSync, s3Sync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { ready } from '../fixtures/parents-made-together.js';
import { named, simpleWorld } from '../fixtures/applied-world.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { S3_DEFAULTS } from '../fixtures/s3.js';

const now = FIXED_NOW;

t.test(
  'an S3 resource made with a MySQLCluster (the cluster first), its Secret made first, does not keep the first from working',
  async (t) => {
    const my = request('mysqlcluster', { size: 3, version: '8.0' });
    named(my.parent, {
      name: 'shop',
      namespace: 'shop',
      uid: 'uid-a-mysqlcluster',
      creationTimestamp: '2026-01-02T03:00:00Z',
    });
    const pay = {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: {
        name: 'pay',
        namespace: 'shop',
        uid: 'uid-b-s3',
        generation: 1,
        creationTimestamp: '2026-01-02T03:00:00Z',
      },
      spec: { ...S3_DEFAULTS, bucketName: 'shop-pay', secretName: 'shop-mysql' },
    } as unknown as ParentObject;
    const { world, ownerUid, apply, mine, others } = simpleWorld();
    const aws = new FakeAws();
    const s0 = await s3Sync({ controller: {}, parent: pay, children: {}, related: {} }, aws, now);
    const m0 = mysqlSync({ ...my, children: {}, related: {} }, now);
    apply(s0, pay);
    apply(m0, my.parent);
    t.equal(ownerUid(world.get('Secret/shop-mysql')!), 'uid-b-s3', "the S3 resource's Secret was created first");
    let myNow = { ...my.parent, status: m0.status } as ParentObject;
    let payNow = { ...pay, status: s0.status } as ParentObject;
    let s!: CompositeSyncResponse;
    let m!: CompositeSyncResponse;
    for (let round = 0; round < 4; round++) {
      m = mysqlSync(
        {
          ...my,
          parent: myNow,
          children: objectMap(mine(my.parent)),
          related: objectMap([...others(my.parent), payNow as KubeObject]),
        },
        now,
      );
      apply(m, my.parent);
      myNow = { ...myNow, status: m.status } as ParentObject;
      s = await s3Sync(
        {
          controller: {},
          parent: payNow,
          children: objectMap(mine(pay)),
          related: objectMap([...others(pay), myNow as KubeObject]),
        },
        aws,
        now,
      );
      apply(s, pay);
      payNow = { ...payNow, status: s.status } as ParentObject;
    }
    t.comment(`MySQLCluster: ${ready(m)?.reason}: ${ready(m)?.message}`);
    t.comment(`S3: ${ready(s)?.reason}: ${ready(s)?.message}`);
    t.not(ready(m)?.reason, 'SecretNameTaken', 'the MySQLCluster, made first, is not held for its own Secret for good');
    t.equal(
      ownerUid(world.get('Secret/shop-mysql')!),
      'uid-a-mysqlcluster',
      "Secret shop-mysql is the cluster's in the end",
    );
    t.match(ready(s), { status: 'False', reason: 'SecretNameTaken' }, 'the S3 resource, made second, is held');
    t.match(ready(s)?.message ?? '', /MySQLCluster shop/, 'and says why, naming the MySQLCluster');
    t.notOk(
      (s.status as { secretName?: unknown }).secretName,
      "its status.secretName no longer names the cluster's Secret as its credentials",
    );
    t.ok(aws.users.size > 0, 'its IAM user is kept (nothing deleted in AWS for the yield)');
  },
);
