// A restore checks before it acts (issue 30.5), on real etcd 3.6.9 and moto: a snapshot taken while the cluster's
// NOSPACE alarm was raised (periodic backups go on during it: a snapshot is a read) carries the alarm in its backend.
// `etcdutl snapshot restore` keeps it, under the member ID of the member that raised it, which no restored member
// has: the restored members start with the alarm active and refuse every write ("etcdserver: mvcc: database space
// exceeded"), whatever quota they run with, while /readyz answers ok. The restore check (the check's etcd Ready)
// passes, the live members are dropped, and the cluster that comes back is read-only for every client until someone
// finds the stale alarm and disarms it by hand. An alarm of a member that is not in the restored cluster was raised by
// no restored member: the restored cluster should accept writes (or the check should refuse before anything is
// dropped, saying why).
import t from 'tap';
import { RestoresOnMoto } from '../fixtures/etcd-restore-moto.js';
import { EtcdKubelet } from '../fixtures/etcd-kubelet.js';
import { allReady, status } from '../fixtures/etcd-status.js';

const on = new RestoresOnMoto('nsp');

t.test('a snapshot taken under the NOSPACE alarm restores into a cluster that takes writes', async (t) => {
  const quota = { etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: String(2 * 1024 * 1024) }] };
  const spec = { size: 3, version: '3.6.9', pod: quota };
  const k = new EtcdKubelet('nsp', spec);
  t.teardown(() => k.shutdown());
  on.drive(k);
  await k.converge('size 3', allReady(3));
  for (let i = 0; i < 10; i++) await k.put(`key-${i}`, 'in the snapshot');
  // Filled past its quota: etcd raises NOSPACE.
  const big = 'x'.repeat(100 * 1024);
  let refused = '';
  for (let i = 0; i < 60 && !refused; i++)
    await k.put(`fill-${i}`, big).catch((err: Error) => {
      refused = err.message;
    });
  t.match(refused, /database space exceeded/, 'the NOSPACE alarm is raised');
  // The periodic backup of the moment.
  await on.snapshot(k, 'nsp-0', on.path);

  // Later the cluster is restored from it, its members given the default quota.
  k.setSpec({ size: 3, version: '3.6.9' });
  on.setAwsSecret(k, 'aws');
  k.nodeEnv = {};
  const r = on.restore('r', '2026-07-01T00:00:00Z', { path: on.path, awsSecret: 'aws' });
  k.related = [r];
  const phases: string[] = [];
  await k.converge(
    'the restore ends',
    (res) => {
      const phase = status(res).restore?.phase;
      if (phase && phases.at(-1) !== phase) phases.push(phase);
      return phase === 'Restored' || phase === 'Failed';
    },
    180_000,
  );
  t.comment(`phases: ${phases.join(' -> ')}`);
  t.equal(status(await k.step()).restore?.phase, 'Restored', 'restored');
  t.equal(await k.get('key-0'), 'in the snapshot', 'the snapshot restored');
  // Given time to settle (a write tried at each sync for 30 s).
  let write = '';
  for (const start = Date.now(); write !== 'ok' && Date.now() - start < 30_000;) {
    const res = await k.step();
    write = await k.put('after-restore', 'written').then(
      () => 'ok',
      (err: Error) => err.message,
    );
    if (write !== 'ok') t.comment(`${status(res).reason ?? status(res).phase}: ${write}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  t.equal(write, 'ok', 'the restored cluster takes writes');
  const after = status(await k.step());
  t.not(after.reason, 'NoSpace', `no NOSPACE said of members that never raised it`);
  t.ok(allReady(3)(await k.step()), 'every restored member Ready');
});
