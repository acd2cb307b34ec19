// Attack (issue 30, a-etcd3), real etcd 3.6.9 + moto: a restore whose snapshot holds more than the restored members'
// backend quota (spec.pod.etcdEnv ETCD_QUOTA_BACKEND_BYTES, which reaches only pods made after it: the running
// members were made before it). The check reports the snapshot's size and starts its etcd on an empty directory: it
// passes; the live members are dropped; the restored members start over their quota and refuse every write (etcd
// raises NOSPACE under their own IDs, which the hook's disarm leaves). A restore checks before it acts (size
// included): refused before any member is dropped (succeeded: false, saying why, the running cluster untouched and
// taking writes), or the restored cluster takes writes.
import t from 'tap';
import { RestoresOnMoto } from '../fixtures/etcd-restore-moto.js';
import { EtcdKubelet } from '../fixtures/etcd-kubelet.js';
import { allReady, status } from '../fixtures/etcd-status.js';

const on = new RestoresOnMoto('qta');

t.test(
  'a snapshot over the restored members quota: refused before any member is dropped, or restored taking writes',
  async (t) => {
    const k = new EtcdKubelet('qta', { size: 3, version: '3.6.9' });
    t.teardown(() => k.shutdown());
    on.drive(k);
    await k.converge('size 3', allReady(3));
    const big = 'x'.repeat(100 * 1024);
    for (let i = 0; i < 40; i++) await k.put(`big-${i}`, big);
    await on.snapshot(k, 'qta-0', on.path);
    // The quota set since (it reaches no running member), then the restore.
    k.setSpec({
      size: 3,
      version: '3.6.9',
      pod: { etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: String(2 * 1024 * 1024) }] },
    });
    await k.put('live', 'taking writes');
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
        180_000,
      )
      .catch((err: Error) => t.comment(err.message.slice(0, 300)));
    const res = await k.step();
    t.comment(`phases: ${phases.join(' -> ')}; pods: ${k.livePods().join(', ')}; reason ${status(res).reason}`);
    if (dropped) {
      let write = '';
      for (const start = Date.now(); write !== 'ok' && Date.now() - start < 20_000;) {
        await k.step();
        write = await k.put('after-restore', 'w').then(
          () => 'ok',
          (err: Error) => err.message,
        );
        await new Promise((r) => setTimeout(r, 1000));
      }
      t.equal(write, 'ok', `the members were dropped: the restored cluster takes writes (${write})`);
      t.equal(await k.get('big-0'), big, 'the snapshot restored');
    } else {
      t.equal(status(res).restore?.phase, 'Failed', 'refused before any member is dropped');
      t.equal(await k.get('live'), 'taking writes', 'the running cluster untouched');
    }
  },
);
