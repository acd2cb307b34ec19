// Real etcd 3.6.9 + moto: a restore whose snapshot (4 MiB) holds more than the restored members' backend quota
// (spec.pod.etcdEnv ETCD_QUOTA_BACKEND_BYTES 2 MiB, which reaches only pods made after it: the running members were
// made before it). Before, the check (its etcd on an empty directory) passed, the live members were dropped, and the
// restored members refused every write (NOSPACE under their own IDs) while the restore said Restored. Now the check's
// reported size is compared with the quota the restored members run with: refused before any member is dropped
// (`succeeded: false`, both numbers said), the running cluster untouched and taking writes. (Found by the issue 30
// attack.)
import t from 'tap';
import { RestoresOnMoto } from '../fixtures/etcd-restore-moto.js';
import { EtcdKubelet } from '../fixtures/etcd-kubelet.js';
import { allReady, status } from '../fixtures/etcd-status.js';

const on = new RestoresOnMoto('qta');

t.test("a snapshot over the restored members' quota: refused before any member is dropped", async (t) => {
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
  const { phases, dropped } = await on.restoreEnds(t, k, 180_000);
  const res = await k.step();
  t.comment(`phases: ${phases.join(' -> ')}; pods: ${k.livePods().join(', ')}; reason ${status(res).reason}`);
  t.notOk(dropped, 'no live member dropped');
  t.equal(status(res).restore?.phase, 'Failed', 'refused');
  t.match(JSON.stringify(status(res)), /bytes.*backend quota of 2097152 bytes/, 'the snapshot size and the quota said');
  t.equal(await k.get('live'), 'taking writes', 'the running cluster untouched');
  await k.put('after-refusal', 'w');
  t.equal(await k.get('after-refusal'), 'w', 'and taking writes');
});
