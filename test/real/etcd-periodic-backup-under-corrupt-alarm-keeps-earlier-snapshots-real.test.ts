// Real etcd 3.5.21 + moto: etcd raises a CORRUPT alarm (its corruption check found members that disagree: every
// write refused from then on). Members before 3.6 stay Ready under it (their readiness probe is `etcdctl alarm
// list`; from 3.6 `/readyz?exclude=data_corruption`), so periodic backups go on: the maintenance API and reads still
// answer, so each run succeeds and proves the same history. Before, with maxBackups 2 the snapshots taken before the
// alarm were pruned for snapshots of a cluster etcd itself calls corrupt. Never destroy on doubt: a run under a
// CORRUPT alarm takes its snapshot (the alarm recorded in its metadata, `etcd-alarms`) and prunes nothing, saying so.
// (Found by the issue 30 attack.)
import t from 'tap';
import { BackupsOnMoto } from '../fixtures/backup-lineage.js';
import { EtcdKubelet, maintenance, memberAlarm } from '../fixtures/etcd-kubelet.js';

const on = new BackupsOnMoto(['backups']);
const { objects, periodic, fire } = on;

/** A one-member EtcdCluster of the test kubelet on `version`, converged with its cluster ID recorded. */
async function cluster(name: string, version: string): Promise<EtcdKubelet> {
  const k = new EtcdKubelet(name, { size: 1, version });
  await k.converge(name, (res) => {
    const s = res.status as any;
    return s.members.ready.length === 1 && s.members.unready.length === 0 && !!s.clusterID;
  });
  return k;
}

t.test('a periodic backup of a cluster under a CORRUPT alarm prunes no snapshot taken before the alarm', async (t) => {
  const path = 'backups/default/sick/snap';
  const k = await cluster('sick', '3.5.21');
  t.teardown(() => k.shutdown());
  const cron = on.rig.hook(periodic(path, 2, 'sick'), { clusters: ['sick'] }).children[0]!;
  for (let i = 0; i < 20; i++) await k.put(`k${i}`, `v${i}`);
  for (let i = 0; i < 2; i++) t.match(await fire(k, cron), { succeeded: true }, `good backup ${i + 1}`);
  const good = await objects('backups', 'default/sick/');
  t.equal(good.size, 2);

  // etcd raises CORRUPT (as its corruption check does: the member ID it found disagreeing).
  const ep = k.endpoint(k.livePods()[0]!);
  await memberAlarm(ep);
  t.match(
    await maintenance(ep, 'alarm', { action: 'GET' }),
    { alarms: [{ alarm: 'CORRUPT' }] },
    'etcd holds a CORRUPT alarm',
  );
  let refused = '';
  try {
    await k.put('after', 'x');
  } catch (err) {
    refused = (err as Error).message;
  }
  t.match(refused, /corrupt/i, 'every write refused');

  const results = [];
  for (let i = 0; i < 2; i++) results.push(await fire(k, cron, undefined, false));
  t.comment(JSON.stringify(results.map((r) => ({ succeeded: r.succeeded, reason: r.reason, pruned: r.pruned }))));
  const after = await objects('backups', 'default/sick/');
  for (const [key, etag] of good) t.equal(after.get(key), etag, `${key}, taken before the alarm, survives`);
  for (const r of results) t.match(r, { pruned: [], pruneProblem: /CORRUPT alarm.*nothing pruned/ }, 'said why');
  t.equal(after.size, 4, 'every snapshot kept');
});
