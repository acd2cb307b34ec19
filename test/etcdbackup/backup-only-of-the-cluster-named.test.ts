// A backup snapshots only the etcd cluster its EtcdBackup names: the EtcdCluster's etcd cluster ID must be recorded
// (status.clusterID, read by its hook from its own members) and the cluster not held by another parent for its
// pod names (status.heldBy: its client Service may then select another's pods); else the backup waits, saying what to
// do. The Job is given the ID and refuses an endpoint whose etcd answers with another before anything is uploaded:
// the snapshot of another cluster never enters this EtcdBackup's lineage, nor prunes by it.
import t from 'tap';
import { runBackup } from '../../hooks/etcdbackup/backup.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backupOptionsOf } from '../../main/cli.js';
import { backupRequest, etcdCluster } from '../fixtures/backup.js';
import { podTemplateOf } from '../fixtures/backup-kubelet.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const OURS = '1311768467463790320'; // 0x1234567890abcdf0
const THEIRS = '2459565876494606882'; // 0x2222222222222222
const hex = (decimal: string) => BigInt(decimal).toString(16);

const PERIODIC = {
  clusterName: 'example',
  backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 },
  s3: { path: 'bucket/ns/snap', awsSecret: 'aws' },
};

function sync(spec: Record<string, unknown>, clusters: KubeObject[]) {
  return backupSync(backupRequest({ spec, clusters }), 'metaops:test', FIXED_NOW);
}
const ready = (res: { status?: unknown }) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');

t.test('a cluster whose etcd cluster ID is not recorded yet: the backup waits, no Job', async (t) => {
  for (const status of [undefined, { phase: 'Creating' }, { clusterID: '' }, { clusterID: 'not-a-number' }]) {
    const cluster = etcdCluster('example', 'ns');
    if (status) cluster['status'] = status;
    else delete cluster['status'];
    const r = sync(PERIODIC, [cluster]);
    t.match(ready(r), { status: 'False', reason: 'ClusterIDUnknown', message: /EtcdCluster example.*clusterID/ });
    t.same(r.children, [], `no CronJob (status ${JSON.stringify(status)})`);
    t.ok(r.resyncAfterSeconds, 'looked at again');
  }
});

t.test('a cluster held by another parent for its pod names: the backup waits, naming the holder', async (t) => {
  const held = etcdCluster('example', 'ns', {
    clusterID: OURS,
    heldBy: [
      {
        child: { apiVersion: 'v1', kind: 'Pod', name: 'example-0' },
        holder: { apiVersion: 'apps.jicki.cn/v1alpha1', kind: 'PodSet', name: 'example', uid: 'u' },
      },
    ],
  });
  for (const spec of [PERIODIC, { ...PERIODIC, backupPolicy: { backupIntervalInSecond: 0 } }]) {
    const r = sync(spec, [held]);
    t.match(ready(r), { status: 'False', reason: 'ClusterHeld', message: /PodSet example/ });
    t.same(r.children, [], 'no Job or CronJob');
  }
  // The same through etcdEndpoints naming its client Service.
  const byEndpoint = sync(
    { ...PERIODIC, clusterName: undefined, etcdEndpoints: ['http://example-client.ns.svc:2379'] },
    [held],
  );
  t.match(ready(byEndpoint), { reason: 'ClusterHeld' });
});

t.test('the Job is told the recorded ID, and refuses an etcd that answers with another', async (t) => {
  const r = sync(PERIODIC, [etcdCluster('example', 'ns', { clusterID: OURS })]);
  const cron = r.children.find((c) => c.kind === 'CronJob')!;
  t.ok(cron, 'a CronJob once the ID is recorded');
  const args = podTemplateOf(cron).spec.containers[0].args as string[];
  const endpoint = 'http://example-client.ns.svc.cluster.local:2379';
  t.ok(args.includes(`${endpoint}=${hex(OURS)}`), `the Job gets ${endpoint}=${hex(OURS)}: ${args.join(' ')}`);

  const s3 = new FakeS3();
  const other = await fakeGateway(t, { revision: 900, clusterId: THEIRS });
  // The client Service's name answered by another cluster (a Service held, a name that resolves elsewhere).
  const options = backupOptionsOf(args);
  const at = (url: string) => ({
    ...options,
    endpoints: [url],
    clusterIds: Object.fromEntries(Object.values(options.clusterIds ?? {}).map((id) => [url, id])),
    timeoutMs: 2000,
    s3: s3.client,
    now: () => FIXED_NOW,
  });
  const refused = await runBackup(at(other.url));
  t.match(refused, { succeeded: false, reason: new RegExp(`${hex(THEIRS)}.*${hex(OURS)}`) });
  t.same(s3.keys('bucket'), [], 'nothing uploaded');
  t.notOk(other.posts.includes('/v3/maintenance/snapshot'), 'no snapshot asked of it');

  const ours = await fakeGateway(t, { revision: 10, clusterId: OURS });
  const taken = await runBackup(at(ours.url));
  t.match(taken, { succeeded: true, clusterId: hex(OURS) });
  t.equal(s3.keys('bucket').length, 1);

  // An etcd that answers with no cluster ID proves nothing: refused too.
  const bare = await fakeGateway(t, { revision: 11 });
  t.match(await runBackup(at(bare.url)), { succeeded: false, reason: /unknown/ });
});

t.test(
  'endpoints a cluster admin allows (METAOPS_BACKUP_ETCD_ENDPOINTS) are no EtcdCluster: no ID to check',
  async (t) => {
    const { etcdbackup } = await import('../../hooks/etcdbackup/index.js');
    const { etcdSettings } = await import('../../hooks/etcdcommon/index.js');
    const { runPure } = await import('../../lib/operator.js');
    const res = runPure(
      etcdbackup,
      'sync',
      backupRequest({
        spec: { ...PERIODIC, clusterName: undefined, etcdEndpoints: ['http://etcd.example.org:2379'] },
        clusters: [],
      }),
      {
        now: FIXED_NOW,
        settings: etcdSettings({
          env: { METAOPS_IMAGE: 'metaops:test', METAOPS_BACKUP_ETCD_ENDPOINTS: 'http://etcd.example.org:2379' },
        }),
      },
    );
    const cron = res.children.find((c) => c.kind === 'CronJob')!;
    t.ok(cron, 'a CronJob');
    t.notOk((podTemplateOf(cron).spec.containers[0].args as string[]).includes('--cluster-id'));
  },
);
