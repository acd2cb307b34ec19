// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane): parents side by side in one
// namespace whose children would collide (lib/ownership.ts). Of two kinds: a MySQLCluster `shop` (write Service
// shop-mysql) and then an EtcdCluster `shop-mysql` (coreos's peer Service is named after the cluster); of one kind:
// two S3 resources naming one Secret. Each time the first keeps working, the second says why it does not (a
// `<Kind>NameTaken` reason naming the owner) and makes nothing (no pod, no IAM key), and no Service selects the
// other's pods. Nothing here depends on the Metacontroller release: only children, related objects and status.
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { secs, condition, type Scenario } from './common.js';

const NS = 'side-by-side';

export const collisions: Scenario = {
  name: 'Parents side by side: a MySQLCluster and an EtcdCluster, two S3 resources, whose children would collide: the first keeps working, the second says why',
  async run(k) {
    const notes: string[] = [];
    await k.kubectl(['create', 'namespace', NS]);
    const apply = (obj: unknown) => k.kubectl(['apply', '-n', NS, '-f', '-'], JSON.stringify(obj));
    const get = (...args: string[]) => k.getOrUndefined(['-n', NS, ...args]);

    // Two kinds: the MySQLCluster first.
    let t0 = Date.now();
    await apply({
      apiVersion: 'database.example.com/v1alpha1',
      kind: 'MySQLCluster',
      metadata: { name: 'shop' },
      spec: { size: 1, version: '8.0' },
    });
    const write = await waitFor('MySQLCluster shop\u2019s write Service shop-mysql', () =>
      get('service', 'shop-mysql'),
    );
    await waitFor('its StatefulSet', () => get('statefulset', 'shop-mysql'));
    const mysqlUids = async () =>
      Promise.all(
        [
          ['statefulset', 'shop-mysql'],
          ['service', 'shop-mysql'],
          ['service', 'shop-mysql-read'],
          ['service', 'shop-mysql-headless'],
          ['secret', 'shop-mysql'],
        ].map(async (args) => ((await get(...args)) as any)?.metadata.uid as string | undefined),
      );
    const before = await mysqlUids();
    assert.ok(before.every(Boolean), 'the MySQLCluster has its children');

    await apply({
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdCluster',
      metadata: { name: 'shop-mysql' },
      spec: { size: 3, version: '3.5.17' },
    });
    const etcd = await waitFor('EtcdCluster shop-mysql to say why it does not start', async () => {
      const e = await get('etcdcluster', 'shop-mysql');
      // Its first member pod (shop-mysql-0) is the MySQLCluster's pod too: PodNameTaken or ServiceNameTaken.
      if (/^(Pod|Service)NameTaken$/.test(condition(e, 'Ready')?.reason ?? '')) return e;
      throw new Error(`status: ${JSON.stringify(e?.status ?? null).slice(0, 600)}`);
    });
    const why = condition(etcd, 'Ready');
    assert.equal(why.status, 'False');
    assert.match(why.message, /Service shop-mysql belongs to MySQLCluster shop \(uid [0-9a-f-]+\)/);
    assert.match(why.message, /Pod shop-mysql-0 belongs to StatefulSet shop-mysql/);
    notes.push(`EtcdCluster shop-mysql: Ready=False ${why.reason} in ${secs(t0)}: ${why.message.slice(0, 90)}...`);
    const described = await k.kubectl(['describe', 'etcdcluster', '-n', NS, 'shop-mysql']);
    assert.match(described, /NameTaken/, '`kubectl describe` shows why');

    // The second made nothing: no member pod, no client Service, no budget.
    const etcdPods = await k.json(['get', 'pods', '-n', NS, '-l', 'etcd_cluster=shop-mysql']);
    assert.equal(etcdPods.items.length, 0, 'no etcd member pod');
    assert.equal(await get('service', 'shop-mysql-client'), undefined, 'no client Service');
    assert.equal(await get('poddisruptionbudget', 'shop-mysql'), undefined, 'no budget');
    // The first keeps working: the same children, its Service still its own, selecting its own pods only.
    const service = await get('service', 'shop-mysql');
    assert.equal(service.metadata.uid, write.metadata.uid);
    assert.equal(service.metadata.ownerReferences[0].kind, 'MySQLCluster');
    assert.equal(service.metadata.ownerReferences[0].name, 'shop');
    assert.deepEqual(service.spec.selector, {
      'app.kubernetes.io/name': 'mysql',
      'app.kubernetes.io/instance': 'shop',
      'mysqlcluster.metaops.io/instance': 'shop',
      'statefulset.kubernetes.io/pod-name': 'shop-mysql-0',
    });
    assert.deepEqual(await mysqlUids(), before, 'no child of the MySQLCluster was replaced');
    const mysql = await get('mysqlcluster', 'shop');
    assert.doesNotMatch(condition(mysql, 'Ready')?.reason ?? '', /NameTaken/);
    notes.push('MySQLCluster shop keeps its five children, unchanged; its Service selects only its pods');

    // One kind: two S3 resources naming one Secret.
    t0 = Date.now();
    const s3 = (name: string) => ({
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name },
      spec: { bucketName: `side-by-side-${name}`, secretName: 'shared-credentials' },
    });
    await apply(s3('first'));
    await waitFor('S3 first Ready', async () => condition(await get('s3', 'first'), 'Ready')?.status === 'True');
    const secret = await get('secret', 'shared-credentials');
    const keyId = Buffer.from(secret.data['AWS_ACCESS_KEY_ID'], 'base64').toString();
    await apply(s3('second'));
    const second = await waitFor('S3 second to say why', async () => {
      const r = await get('s3', 'second');
      return condition(r, 'Ready')?.reason === 'SecretNameTaken' ? r : undefined;
    });
    assert.match(condition(second, 'Ready').message, /^Secret shared-credentials belongs to S3 first/);
    notes.push(`S3 second: Ready=False SecretNameTaken in ${secs(t0)}`);

    // Its resyncs come and go (E2E_RESYNC_SECONDS): nothing changes, no key is made.
    notes.push(
      await k.assertQuiet({
        namespace: NS,
        parents: ['mysqlclusters/shop', 'etcdclusters/shop-mysql', 's3s/first', 's3s/second'],
        // Each hook's own parents: one MySQLCluster, one EtcdCluster, two S3s.
        hooks: [
          { hook: 'mysqlcluster/sync', parents: 1 },
          { hook: 'etcdcluster/sync', parents: 1 },
          { hook: 's3/sync', parents: 2 },
        ],
      }),
    );
    const after = await get('secret', 'shared-credentials');
    assert.equal(after.metadata.uid, secret.metadata.uid);
    assert.equal(
      Buffer.from(after.data['AWS_ACCESS_KEY_ID'], 'base64').toString(),
      keyId,
      'the first\u2019s key, never rotated',
    );
    const { IAMClient, ListUsersCommand } = await import('@aws-sdk/client-iam');
    const { S3Client, HeadBucketCommand } = await import('@aws-sdk/client-s3');
    const iam = new IAMClient({ endpoint: k.moto!.endpoint, region: k.moto!.region, credentials: k.moto!.admin });
    const users = ((await iam.send(new ListUsersCommand({}))).Users ?? []).map((u) => u.UserName ?? '');
    assert.ok(
      users.some((u) => u.startsWith(`metaops-${NS}-first-`)),
      'the first has its IAM user',
    );
    assert.ok(!users.some((u) => u.startsWith(`metaops-${NS}-second-`)), 'the second has none, so no key');
    const admin = new S3Client({
      endpoint: k.moto!.endpoint,
      region: k.moto!.region,
      forcePathStyle: true,
      credentials: k.moto!.admin,
    });
    await assert.rejects(
      admin.send(new HeadBucketCommand({ Bucket: 'side-by-side-second' })),
      'no bucket for the second',
    );
    assert.equal(condition(await get('s3', 'first'), 'Ready')?.status, 'True', 'the first stays Ready');
    notes.push('the first S3 keeps its Secret and key; the second made no IAM user, key or bucket');

    for (const [kind, name] of [
      ['s3', 'second'],
      ['s3', 'first'],
      ['etcdcluster', 'shop-mysql'],
      ['mysqlcluster', 'shop'],
    ])
      await k.kubectl(['delete', kind!, name!, '-n', NS, '--wait=true', '--timeout=60s']);
    await k.kubectl(['delete', 'namespace', NS, '--wait=false']);
    return notes;
  },
};
