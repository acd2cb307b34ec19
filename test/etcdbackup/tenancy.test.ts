// Backups bound to their namespace (issue 29.6): tenant A (namespace team-a, its EtcdCluster web) and tenant B
// (team-b, its EtcdCluster orders) share the backup bucket `shared`. Whatever A writes in an EtcdBackup or an
// EtcdRestore, A's backup Job and A's restore never reach B's snapshots, B's etcd, an endpoint of A's choosing, or
// the node's credentials. Each answer is what Metacontroller would act on: no Job, no CronJob, no restored pod.
// The same on real etcd and moto: test/real/etcdbackup-real.test.ts ("tenant A ...").
import t from 'tap';
import { etcdbackup, etcdrestore } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { runPure } from '../../lib/operator.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { backupRequest, etcdCluster, etcdRestore } from '../fixtures/backup.js';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const A = 'team-a';
const B = 'team-b';
const clustersA = [etcdCluster('web', A)];

/** The EtcdBackup hook as the server runs it, with the server's environment `env`. */
function backup(
  spec: Record<string, unknown>,
  env: NodeJS.ProcessEnv = {},
  clusters: KubeObject[] = clustersA,
): CompositeSyncResponse {
  return runPure(etcdbackup, 'sync', backupRequest({ namespace: A, name: 'a-backup', spec, clusters }), {
    now: FIXED_NOW,
    settings: etcdSettings({ env: { METAOPS_IMAGE: 'metaops:test', ...env } }),
  });
}

const ready = (res: CompositeSyncResponse) => (res.status as any).conditions[0];
const containerOf = (res: CompositeSyncResponse) => {
  const child = res.children[0] as any;
  const spec = child.kind === 'CronJob' ? child.spec.jobTemplate.spec : child.spec;
  return spec.template.spec.containers[0];
};
const argOf = (res: CompositeSyncResponse, flag: string) => {
  const args: string[] = containerOf(res).args;
  return args[args.indexOf(flag) + 1];
};
const own = { path: `shared/${A}/web`, awsSecret: 'a-aws' };

t.test("A's backup is refused B's prefix in a shared bucket: no Job to overwrite, no CronJob to prune", async (t) => {
  for (const interval of [0, 3600]) {
    const policy = { backupIntervalInSecond: interval, maxBackups: 1 };
    for (const path of [
      `shared/${B}/orders`,
      `shared/${B}/orders_v100_2026-01-01T00-00-00Z`,
      `shared/orders`,
      `shared/${A}`,
      `shared/${A}/`,
      `shared/${A}/../${B}/orders`,
      `shared/${A}/./x`,
      `shared/${A}//x`,
      `shared/${A}/x\\..\\y`,
      `shared/${A}/x\u0000`,
      `shared/${A}x/y`,
      `Shared/${A}/x`,
      `shared:1/${A}/x`,
    ]) {
      const res = backup({ clusterName: 'web', backupPolicy: policy, s3: { path, awsSecret: 'a-aws' } });
      t.same(res.children, [], `${interval ? 'periodic' : 'one-off'} ${JSON.stringify(path)}: nothing runs`);
      t.match(ready(res), { status: 'False', reason: 'NotAllowed', message: /spec\.s3\.path/ });
    }
    const ok = backup({ clusterName: 'web', backupPolicy: policy, s3: own });
    t.equal(ok.children.length, 1, `${interval ? 'periodic' : 'one-off'}: its own prefix is fine`);
    t.equal(argOf(ok, '--s3-path'), `shared/${A}/web`);
  }
  t.match(
    ready(backup({ clusterName: 'web', s3: { path: `shared/${B}/orders`, awsSecret: 'a' } })).message,
    `must be "shared/${A}/<key>"`,
    'the message says what the path must be',
  );
});

t.test("A's backup never dials B's etcd or an address of A's choosing", async (t) => {
  const refused = [
    `http://orders-client.${B}.svc:2379`,
    `http://orders-client.${B}:2379`,
    `http://orders-client.${B}.svc.cluster.local:2379`,
    `http://orders-0.orders.${B}.svc:2379`,
    'http://10.96.0.10:2379',
    'http://evil.example.com:2379',
    `http://web-client.${A}.svc.evil.example.com:2379`,
    `http://web-client.${A}.svc:2380`,
    `http://web-client.${A}.svc`,
    `http://x@web-client.${A}.svc:2379`,
    `http://web-client.${A}.svc:2379/v3/kv/range`,
    `http://web-client.${A}.svc:2379?x=1`,
    'unix:///var/run/etcd.sock',
    'not a url',
  ];
  for (const endpoint of refused) {
    const res = backup({ etcdEndpoints: [`http://web-client:2379`, endpoint], s3: own });
    t.same(res.children, [], `${endpoint}: no Job`);
    t.match(ready(res), { reason: 'NotAllowed', message: /spec\.etcdEndpoints\[1\]/ });
  }
  // B's cluster by name: A's namespace holds no such cluster; even if a v2 hook's related objects carry B's.
  const both = [...clustersA, etcdCluster('orders', B)];
  const byName = runPure(
    etcdbackup,
    'sync',
    {
      ...backupRequest({ namespace: A, name: 'a-backup', spec: { clusterName: 'orders', s3: own } }),
      related: objectMap(both, 'v2', ['EtcdCluster.etcd.database.coreos.com/v1beta2', 'Pod.v1']),
    },
    { now: FIXED_NOW, settings: etcdSettings({ env: {} }) },
  );
  t.same(byName.children, []);
  t.match(ready(byName), {
    reason: 'ClusterNotFound',
    message: /EtcdCluster orders, which namespace team-a does not hold/,
  });
  t.equal(byName.resyncAfterSeconds, 30, 'looked at again: the cluster may be on its way');

  // A's own cluster under any in-cluster name: dialled at its Service's fully qualified name in A's namespace.
  for (const form of [
    'http://web-client:2379',
    `http://web-client.${A}:2379`,
    `http://web-client.${A}.svc:2379`,
    `http://web-client.${A}.svc.cluster.local:2379/`,
    `HTTP://WEB-CLIENT.${A.toUpperCase()}.SVC:2379`,
  ]) {
    const res = backup({ etcdEndpoints: [form], s3: own });
    t.equal(argOf(res, '--endpoints'), `http://web-client.${A}.svc.cluster.local:2379`, `${form}: A's own cluster`);
  }
  t.equal(
    argOf(backup({ clusterName: 'web', clientTLSSecret: 'tls', s3: own }), '--endpoints'),
    `https://web-client.${A}.svc.cluster.local:2379`,
  );
  // An external etcd the admin allows: for A only, or for everyone.
  const external = 'https://etcd.example.net:2379';
  t.same(backup({ etcdEndpoints: [external], s3: own }).children, []);
  for (const entry of [`${A}=${external}`, external, `${external}/`]) {
    const res = backup({ etcdEndpoints: [external], s3: own }, { METAOPS_BACKUP_ETCD_ENDPOINTS: entry });
    t.equal(argOf(res, '--endpoints'), external, `allowed by ${entry}`);
  }
  t.same(
    backup({ etcdEndpoints: [external], s3: own }, { METAOPS_BACKUP_ETCD_ENDPOINTS: `${B}=${external}` }).children,
    [],
    "B's allowance is not A's",
  );
});

t.test("A's backup writes to no S3 endpoint of A's choosing", async (t) => {
  const moto = 'http://moto.storage.svc:5000';
  for (const endpoint of [
    moto,
    'http://169.254.169.254',
    'http://attacker.example',
    `${moto}?x`,
    'http://u:p@moto.storage.svc:5000',
  ]) {
    const res = backup({ clusterName: 'web', s3: { ...own, endpoint } });
    t.same(res.children, [], `${endpoint}: no Job`);
    t.match(ready(res), { reason: 'NotAllowed', message: /spec\.s3\.endpoint/ });
  }
  for (const entry of [moto, `${A}=${moto}`, `${moto}/`]) {
    const res = backup(
      { clusterName: 'web', s3: { ...own, endpoint: `${moto}/` } },
      { METAOPS_BACKUP_S3_ENDPOINTS: entry },
    );
    t.equal(argOf(res, '--s3-endpoint'), `${moto}/`, `allowed by ${entry}`);
  }
  t.same(
    backup({ clusterName: 'web', s3: { ...own, endpoint: moto } }, { METAOPS_BACKUP_S3_ENDPOINTS: `${B}=${moto}` })
      .children,
    [],
  );
});

t.test('without awsSecret, the node’s credentials only where a cluster admin allows them', async (t) => {
  const spec = { clusterName: 'web', s3: { path: `shared/${A}/web` } };
  const res = backup(spec);
  t.same(res.children, []);
  t.match(ready(res), {
    reason: 'NotAllowed',
    message: /spec\.s3\.awsSecret is required.*METAOPS_BACKUP_AMBIENT_CREDENTIALS/,
  });
  for (const allowed of [A, `other,${A}`, '*']) {
    const ok = backup(spec, { METAOPS_BACKUP_AMBIENT_CREDENTIALS: allowed });
    t.equal(ok.children.length, 1, `${allowed}: A may`);
    const c = containerOf(ok);
    t.notOk(c.args.includes('--aws-dir'), 'the SDK chain: ambient');
    t.same(c.env, []);
  }
  t.same(backup(spec, { METAOPS_BACKUP_AMBIENT_CREDENTIALS: B }).children, [], "B's allowance is not A's");
});

t.test("with awsSecret, the Secret's credentials and nothing else of it, never the node's", async (t) => {
  for (const interval of [0, 600]) {
    const res = backup({ clusterName: 'web', backupPolicy: { backupIntervalInSecond: interval }, s3: own });
    const c = containerOf(res);
    t.same(c.envFrom, [], 'no envFrom: NODE_OPTIONS or AWS_ENDPOINT_URL in the Secret reach nothing');
    const names = c.env.map((e: any) => e.name);
    t.same(names, [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_REGION',
      'AWS_DEFAULT_REGION',
      'AWS_EC2_METADATA_DISABLED',
      'AWS_SHARED_CREDENTIALS_FILE',
      'AWS_CONFIG_FILE',
    ]);
    for (const e of c.env.slice(0, 5))
      t.same(e.valueFrom, { secretKeyRef: { name: 'a-aws', key: e.name, optional: true } });
    t.same(
      c.env.slice(5).map((e: any) => e.value),
      ['true', '/dev/null', '/dev/null'],
    );
    t.equal(argOf(res, '--aws-dir'), '/etc/metaops/aws');
  }
});

t.test(
  "A's restore from B's snapshot: refused by the restore's hook, and the cluster hook never starts it",
  async (t) => {
    const loop = await running({ size: 3 });
    // Loop's cluster `e` lives in namespace `ns`: tenant A here; B's snapshots are under shared/team-b/.
    const before = loop.pods();
    const theirs = [
      { path: `shared/${B}/orders_v100_2026-01-01T00-00-00Z`, awsSecret: 'aws' },
      { path: 'shared/ns/../team-b/orders', awsSecret: 'aws' },
      { path: 'shared/ns/x', awsSecret: 'aws', endpoint: 'http://attacker.example' },
      { path: 'shared/ns/x' },
    ];
    for (const s3 of theirs) {
      const r = etcdRestore('steal', 'ns', 'e', s3, '2026-07-01T00:00:00Z');
      loop.related = [r];
      for (let i = 0; i < 3; i++) await loop.step();
      t.same(loop.pods(), before, `${JSON.stringify(s3)}: no member dropped`);
      t.notOk(loop.s().restore, 'no restore started');
      t.notOk(JSON.stringify(loop.children).includes('shared/'), 'no init step names the source');
      const res = runPure(
        etcdrestore,
        'sync',
        {
          controller: {},
          parent: r as any,
          related: objectMap([etcdCluster('e', 'ns', loop.s())], 'v1', [
            'EtcdCluster.etcd.database.coreos.com/v1beta2',
          ]),
        },
        { now: FIXED_NOW },
      );
      t.match((res.status as any).conditions[0], {
        status: 'False',
        reason: 'NotAllowed',
        message: /^spec\.s3\.(path|awsSecret|endpoint).*; EtcdCluster e is left as it is$/,
      });
      t.notOk('succeeded' in (res.status as object), 'not final: a corrected spec can still act');
      t.notOk(res.resyncAfterSeconds, 'nothing to wait for');
    }
    // Its own prefix: the restore goes ahead (and its hook looks again until it is over).
    const pending = runPure(
      etcdrestore,
      'sync',
      {
        controller: {},
        parent: etcdRestore('mine', 'ns', 'e', { path: 'shared/ns/e.db', awsSecret: 'aws' }) as any,
        related: objectMap([etcdCluster('e', 'ns', loop.s())], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
      },
      { now: FIXED_NOW },
    );
    t.match((pending.status as any).conditions[0], { reason: 'Pending' });
    t.equal(pending.resyncAfterSeconds, 10);
    loop.related = [
      etcdRestore(
        'mine',
        'ns',
        'e',
        { path: 'shared/ns/e_v1_2026-01-01T00-00-00Z', awsSecret: 'aws' },
        '2026-07-01T00:00:00Z',
      ),
    ];
    // Checked first (the check pod fetches its own snapshot), then the members are replaced.
    await loop.step();
    t.equal(loop.s().restore?.phase, 'Checking');
    t.match(loop.checkPod(), {
      spec: { containers: [{ args: ['etcd-restore-check', '--s3-path', 'shared/ns/e_v1_2026-01-01T00-00-00Z'] }] },
    });
    await loop.step();
    t.equal(loop.s().restore?.phase, 'Replacing');
  },
);

t.test('a restore record already final is kept whatever the policy says now', async (t) => {
  const r = { ...etcdRestore('old', 'ns', 'e', { path: 'b/elsewhere' }), status: { succeeded: true } };
  const res = runPure(etcdrestore, 'sync', { controller: {}, parent: r as any, related: {} }, { now: FIXED_NOW });
  t.match(res.status, { succeeded: true, conditions: [{ reason: 'Restored' }] });
  t.notOk(res.resyncAfterSeconds, 'over: nothing to look at again');
});
