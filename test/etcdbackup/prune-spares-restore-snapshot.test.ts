// Several resources sharing one external thing (issues 30.2 and 30.5): a periodic backup's prune never deletes the
// snapshot a restore under way is about to fetch. The hook names those snapshots to its Job (`--spare KEY`): the ones
// an unfinished EtcdRestore of its namespace names, and the one an EtcdCluster of its namespace records as the
// snapshot of a restore past its point of no return (status.restore.s3: it carries on with its EtcdRestore deleted).
// The command keeps them out of the pruning. The same through moto and the hooks' own commands:
// test/real/etcdbackup-prune-spares-restore-snapshot-real.test.ts.
import t from 'tap';
import { runBackup } from '../../hooks/etcdbackup/backup.js';
import { customize, MAX_SPARED } from '../../hooks/etcdbackup/sync.js';
import { stampOf } from '../../hooks/etcdbackup/lineage.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backupRequest, etcdCluster, etcdRestore } from '../fixtures/backup.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
const snap = (h: number) => `ns/prod_v10_${stampOf(hour(h))}`;
const SPEC = {
  clusterName: 'prod',
  backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2, timeoutInSecond: 60 },
  s3: { path: 'bucket/ns/prod', awsSecret: 'aws' },
};

/** The CronJob's container args for a backup of namespace `ns` seeing these EtcdRestores and EtcdClusters. */
function args(restores: KubeObject[], clusters: KubeObject[] = [etcdCluster('prod', 'ns')]): string[] {
  const request = backupRequest({ name: 'prod', spec: SPEC, clusters });
  request.related = {
    ...request.related,
    ...objectMap(restores, 'v1', ['EtcdRestore.etcd.database.coreos.com/v1beta2']),
  };
  const cron = backupSync(request, 'metaops:test', FIXED_NOW).children.find((c) => c.kind === 'CronJob') as any;
  return cron.spec.jobTemplate.spec.template.spec.containers[0].args;
}
const spared = (a: string[]) => a.flatMap((x, i) => (a[i - 1] === '--spare' ? [x] : []));

t.test('the CronJob spares the snapshots an unfinished EtcdRestore of the namespace names', async (t) => {
  const restore = (name: string, path: string, ns = 'ns', status?: Record<string, unknown>) => ({
    ...etcdRestore(name, ns, 'e', { path, awsSecret: 'aws' }),
    ...(status ? { status } : {}),
  });
  t.same(spared(args([])), [], 'no restore: nothing spared');
  t.same(
    spared(
      args([
        restore('b', `bucket/${snap(2)}`),
        restore('a', `bucket/${snap(1)}`),
        restore('again', `bucket/${snap(1)}`),
      ]),
    ),
    [snap(1), snap(2)],
    'each once, sorted (a stable template)',
  );
  t.same(
    spared(
      args([
        restore('done', `bucket/${snap(1)}`, 'ns', { succeeded: true }),
        restore('failed', `bucket/${snap(2)}`, 'ns', { succeeded: false }),
        restore('other-namespace', `bucket/${snap(3)}`, 'other'),
        restore('other-bucket', `elsewhere/${snap(4)}`),
        restore('one-off', 'bucket/ns/prod'),
        restore('other-path', `bucket/ns/prodx_v10_${stampOf(hour(5))}`),
      ]),
    ),
    [],
    'finished restores, another namespace, another bucket, keys no prune of this path touches: none',
  );
  const many = Array.from({ length: MAX_SPARED + 1 }, (_, h) => restore(`r${h}`, `bucket/${snap(h)}`));
  const all = args(many);
  t.same(spared(all), []);
  t.ok(all.includes('--spare-all'), `more than ${MAX_SPARED}: the Job spares every snapshot`);
  t.ok(
    args(many.slice(1)).every((a) => a !== '--spare-all'),
    `${MAX_SPARED}: each named`,
  );
});

t.test('the snapshot of a restore past its point of no return is spared with its EtcdRestore deleted', async (t) => {
  const restoring = (phase: string) =>
    etcdCluster('e', 'ns', {
      restore: { uid: 'u', name: 'r', phase, s3: { path: `bucket/${snap(1)}`, awsSecret: 'aws' } },
    });
  for (const phase of ['Replacing', 'Restoring'])
    t.same(spared(args([], [etcdCluster('prod', 'ns'), restoring(phase)])), [snap(1)], phase);
  for (const phase of ['Restored', 'Failed'])
    t.same(spared(args([], [etcdCluster('prod', 'ns'), restoring(phase)])), [], `${phase}: over`);
});

t.test(
  'customize asks for the EtcdRestores of the backup’s namespace only, by a rule that never changes',
  async (t) => {
    const parent = { metadata: { name: 'prod', namespace: 'ns', uid: 'u', generation: 1 } } as any;
    const rules = customize({ controller: {}, parent } as any).relatedResources;
    t.same(
      rules.find((r) => r.resource === 'etcdrestores'),
      { apiVersion: 'etcd.database.coreos.com/v1beta2', resource: 'etcdrestores', namespace: 'ns' },
    );
  },
);

t.test('the backup command keeps spared snapshots out of the pruning and out of the count', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  const run = (h: number, spare?: readonly string[] | 'all') =>
    runBackup({
      endpoints: [gw.url],
      path: 'bucket/ns/prod',
      periodic: true,
      maxBackups: 2,
      timeoutMs: 2000,
      s3: s3.client,
      now: () => hour(h),
      backup: { uid: 'uid-a', name: 'ns/prod' },
      ...(spare ? { spare } : {}),
    });
  for (let h = 0; h < 2; h++) await run(h);
  t.same(s3.keys('bucket', 'ns/'), [snap(0), snap(1)]);
  // A restore names the oldest: kept, and the two newest besides it.
  t.match(await run(2, [snap(0)]), { succeeded: true, pruned: [] });
  t.same(s3.keys('bucket', 'ns/'), [snap(0), snap(1), snap(2)]);
  t.match(await run(3, [snap(0)]), { succeeded: true, pruned: [snap(1)] });
  t.same(s3.keys('bucket', 'ns/'), [snap(0), snap(2), snap(3)]);
  // More restores than the hook names: nothing pruned, and that is said.
  const held = await run(4, 'all');
  t.match(held, { succeeded: true, pruned: [], pruneProblem: /^nothing pruned: more unfinished EtcdRestores/ });
  t.equal(s3.keys('bucket', 'ns/').length, 4);
  // The restore over: pruned as any other.
  t.match(await run(5), { succeeded: true, pruned: [snap(3), snap(2), snap(0)] });
  t.same(s3.keys('bucket', 'ns/'), [snap(4), snap(5)]);
});
