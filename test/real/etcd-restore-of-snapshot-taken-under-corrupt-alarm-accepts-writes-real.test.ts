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
import { call } from '../../lib/http.js';
import { RestoresOnMoto } from '../fixtures/etcd-restore-moto.js';
import { EtcdKubelet } from '../fixtures/etcd-kubelet.js';
import { allReady, status } from '../fixtures/etcd-status.js';

const on = new RestoresOnMoto('crp');

const alarm = async (ep: string, action: 'ACTIVATE' | 'DEACTIVATE', memberID: string) =>
  call(new URL(ep + '/v3/maintenance/alarm'), {
    method: 'POST',
    body: JSON.stringify({ action, memberID, alarm: 'CORRUPT' }),
    timeoutMs: 3000,
    timeoutError: () => new Error('timed out'),
  });

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
    const st = JSON.parse(
      (
        await call(new URL(ep + '/v3/maintenance/status'), {
          method: 'POST',
          body: '{}',
          timeoutMs: 3000,
          timeoutError: () => new Error('timed out'),
        })
      ).body,
    );
    const member = String(st.header.member_id);
    await alarm(ep, 'ACTIVATE', member);
    const refused = await k.put('x', 'y').then(
      () => '',
      (err: Error) => err.message,
    );
    t.match(refused, /corrupt/i, 'the CORRUPT alarm is raised: writes refused');
    // The periodic backup of the moment, then the alarm resolved on the live cluster.
    await on.snapshot(k, 'crp-0', on.path);
    await alarm(ep, 'DEACTIVATE', member);
    await k.put('live', 'written after the alarm was resolved');
    const before = k.livePods();

    on.setAwsSecret(k, 'aws');
    k.nodeEnv = {};
    k.related = [on.restore('r', '2026-07-01T00:00:00Z', { path: on.path, awsSecret: 'aws' })];
    const phases: string[] = [];
    let dropped = false;
    await k
      .converge(
        'the restore ends',
        (res) => {
          const phase = status(res).restore?.phase;
          if (phase && phases.at(-1) !== phase) phases.push(phase);
          if (!before.every((p) => k.livePods().includes(p))) dropped = true;
          return phase === 'Restored' || phase === 'Failed';
        },
        150_000,
      )
      .catch((err: Error) => t.comment(err.message.slice(0, 300)));
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
    const left = JSON.parse(
      (
        await call(new URL(k.endpoint(k.livePods()[0]!) + '/v3/maintenance/alarm'), {
          method: 'POST',
          body: '{"action":"GET"}',
          timeoutMs: 3000,
          timeoutError: () => new Error('timed out'),
        })
      ).body,
    );
    t.notOk(left.alarms?.length, `no alarm left (${JSON.stringify(left.alarms ?? [])})`);
  },
);
