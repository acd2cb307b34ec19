// Real etcd 3.5.21 + moto: a snapshot taken while the cluster's CORRUPT alarm was raised (etcd's corruption check
// found members that disagree; writes refused, reads and the maintenance API still answer, members stay Ready, so
// periodic backups go on) carries the alarm in its backend, and `etcdutl snapshot restore` keeps it under the old
// member's ID. The admin resolves the alarm on the live cluster; later a restore names that snapshot. Before, the
// restored members started with CORRUPT active under a member ID none of them has: every write refused, the cluster
// said `QuorumLost` "0 of 3", the restore `Restoring` until its deadline. Now a member reporting CORRUPT has the
// cluster's alarms listed and those of no member disarmed (as NOSPACE's: hooks/etcdcluster/alarms.ts): every restored
// member is made from the one snapshot, so they agree by construction, and the alarm names a member that is gone.
// The restored cluster takes writes, every key of the snapshot there. (Found by the issue 30 attack.)
import t from 'tap';
import { RestoresOnMoto } from '../fixtures/etcd-restore-moto.js';
import { EtcdKubelet, maintenance, memberAlarm } from '../fixtures/etcd-kubelet.js';
import { allReady, status } from '../fixtures/etcd-status.js';

const on = new RestoresOnMoto('crp');

t.test(
  'a snapshot that carries a CORRUPT alarm of its old member: restored, the alarm disarmed, writes taken',
  async (t) => {
    const k = new EtcdKubelet('crp', { size: 3, version: '3.5.21' });
    t.teardown(() => k.shutdown());
    on.drive(k);
    await k.converge('size 3', allReady(3));
    for (let i = 0; i < 10; i++) await k.put(`key-${i}`, 'in the snapshot');
    // etcd raises CORRUPT, as its corruption check does (under the member ID it found disagreeing).
    const ep = k.endpoint('crp-1');
    await memberAlarm(ep);
    const refused = await k.put('x', 'y').then(
      () => '',
      (err: Error) => err.message,
    );
    t.match(refused, /corrupt/i, 'the CORRUPT alarm is raised: writes refused');
    // The periodic backup of the moment, then the alarm resolved on the live cluster.
    await on.snapshot(k, 'crp-0', on.path);
    await memberAlarm(ep, 'CORRUPT', 'DEACTIVATE');
    await k.put('live', 'written after the alarm was resolved');

    const { phases, dropped } = await on.restoreEnds(t, k, 150_000);
    const res = await k.step();
    const available = status(res).conditions?.find((c: any) => c.type === 'Available');
    t.comment(`phases: ${phases.join(' -> ')}; pods: ${k.livePods().join(', ')}; ${JSON.stringify(available)}`);
    t.ok(dropped, 'the live members were replaced by the restored ones');
    const write = await k.put('after-restore', 'w').then(
      () => 'ok',
      (err: Error) => err.message,
    );
    t.equal(write, 'ok', `the restored cluster takes writes (${write})`);
    t.equal(status(res).restore?.phase, 'Restored', 'and the restore says it restored');
    t.match(available, { status: 'True' }, 'available, not QuorumLost');
    for (let i = 0; i < 10; i++) t.equal(await k.get(`key-${i}`), 'in the snapshot', `key-${i} restored`);
    const left = await maintenance(k.endpoint(k.livePods()[0]!), 'alarm', { action: 'GET' });
    t.notOk(left.alarms?.length, `no alarm left (${JSON.stringify(left.alarms ?? [])})`);
  },
);
