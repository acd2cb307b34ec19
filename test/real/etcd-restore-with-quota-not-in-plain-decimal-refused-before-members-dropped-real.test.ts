// Real etcd 3.6.9 + moto: the restore's quota check (restore.ts restoredQuota) read ETCD_QUOTA_BACKEND_BYTES with
// Number(); etcd reads it with Go's flag parser (strconv.ParseInt base 0): "02000000" is octal, 524288 bytes. A
// snapshot of about 1 MB "fitted" the 2000000 bytes the hook read, the live members were dropped, and the restored
// members ran with a 524288-byte quota: every write refused (NOSPACE) while the restore said Restored. Must hold, as
// for a quota written in decimal (etcd-restore-of-snapshot-over-members-quota-refused-before-members-dropped-real):
// refused before any member is dropped (a quota not in plain decimal bytes is InvalidSpec naming the field:
// hooks/etcdcluster/quota.ts), the running cluster untouched and taking writes.
import t from 'tap';
import { RestoresOnMoto } from '../fixtures/etcd-restore-moto.js';
import { EtcdKubelet } from '../fixtures/etcd-kubelet.js';
import { allReady, condition, status } from '../fixtures/etcd-status.js';

const on = new RestoresOnMoto('qto');

t.test("a snapshot over the restored members' octal-spelled quota: refused before any member is dropped", async (t) => {
  const k = new EtcdKubelet('qto', { size: 3, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  on.drive(k);
  await k.converge('size 3', allReady(3));
  const big = 'x'.repeat(100 * 1024);
  for (let i = 0; i < 8; i++) await k.put(`big-${i}`, big);
  await on.snapshot(k, 'qto-0', on.path);
  // The quota set since, as etcd reads it: 02000000 is 524288 bytes (it reaches no running member).
  k.setSpec({
    size: 3,
    version: '3.6.9',
    pod: { etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '02000000' }] },
  });
  await k.put('live', 'taking writes');
  const before = k.livePods();
  const { phases, dropped } = await on.restoreEnds(
    t,
    k,
    180_000,
    (res) => condition(res, 'Ready')?.reason === 'InvalidSpec',
  );
  const res = await k.step();
  t.comment(`phases: ${phases.join(' -> ')}; pods: ${k.livePods().join(', ')}; reason ${status(res).reason}`);
  const writable = await k.put('after', 'w').then(
    () => 'taken',
    (err: Error) => err.message.slice(0, 200),
  );
  t.comment(`a write after the restore: ${writable}`);
  t.notOk(dropped, 'no live member dropped');
  t.same(k.livePods(), before, 'the live members as they were');
  t.match(
    condition(res, 'Ready'),
    {
      status: 'False',
      reason: 'InvalidSpec',
      message: /spec\.pod\.etcdEnv\[0\] \(ETCD_QUOTA_BACKEND_BYTES\) is "02000000"/,
    },
    'refused: InvalidSpec naming the field',
  );
  t.notMatch(status(res).restore?.phase ?? '', /Replacing|Restoring|Restored/, 'no restore carried out');
  t.equal(await k.get('live').catch(() => undefined), 'taking writes', 'the data kept');
  t.equal(writable, 'taken', 'the cluster takes writes');
});
