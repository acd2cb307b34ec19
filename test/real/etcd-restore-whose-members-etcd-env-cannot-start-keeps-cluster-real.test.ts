// Issue 30.5 on real etcd 3.6.9 and moto: "a restore checks before it acts ... a restore that cannot proceed ends
// succeeded: false with the reason, and the running cluster is untouched". The check runs the restored members'
// images and resolves their etcdEnv's Secrets and ConfigMaps, but never starts etcd with the spec's etcdEnv values.
// spec.pod.etcdEnv reaches only member pods made after it is set (docs/etcdcluster.md): a value etcd refuses (a snapshot count
// written `8G`, where etcd takes a number: "invalid value", exit 1) added to a running cluster changes nothing, until a
// restore. Then the check passes, every running member is dropped, and the restored members exit at start: the
// cluster is gone at the moment it was to be recovered (its data only in the snapshot), the restore Restoring
// until its deadline.
//
// Must hold: a restore whose restored members' etcd cannot start on the spec of the moment is refused before any
// member is dropped (succeeded: false naming why), the running members kept and every key readable.
import t from 'tap';
import { RestoresOnMoto } from '../fixtures/etcd-restore-moto.js';
import { status } from '../fixtures/etcd-status.js';

const on = new RestoresOnMoto('envr');

t.test("a restore whose members' etcd exits on the spec's etcdEnv keeps the running cluster", async (t) => {
  const k = await on.snapshotted(t, 20);
  on.setAwsSecret(k, 'aws');
  // A tuning value etcd refuses, added while the cluster runs: its running members keep their pods.
  k.setSpec({ ...k.spec, pod: { etcdEnv: [{ name: 'ETCD_SNAPSHOT_COUNT', value: '8G' }] } });
  for (let i = 0; i < 3; i++) await k.step();
  const members = status(await k.step()).memberList.map((m: any) => `${m.name}=${m.id}`);
  t.equal(members.length, 3, 'the cluster runs on');

  const r = on.restore('r1', '2026-07-01T00:00:00Z', { path: on.path, awsSecret: 'aws' });
  k.related = [r];
  let dropped = '';
  await k
    .converge(
      'the restore is decided',
      (res) => {
        const pods = res.children
          .filter((c) => c.kind === 'Pod' && c.metadata.name !== 'envr-restore-check')
          .map((p) => p.metadata.name)
          .sort();
        if (pods.join() !== 'envr-0,envr-1,envr-2') dropped ||= `${status(res).restore?.phase}: pods ${pods.join()}`;
        return dropped !== '' || (r['status'] as any)?.succeeded === false;
      },
      60_000,
    )
    .catch((e) => t.fail(String(e).slice(0, 400)));
  t.equal(dropped, '', `no running member dropped for a restore whose members cannot start (${dropped})`);
  if (dropped) {
    // What came of it: the restored members exit at start.
    for (let i = 0; i < 10; i++) await k.step();
    t.comment(`after: ${JSON.stringify(status(await k.step()).restore)}; ${k.logs().slice(-600)}`);
    return;
  }
  t.match(r['status'], { succeeded: false });
  for (let i = 0; i < 20; i++) t.equal(await k.get(`key-${i}`), 'in the snapshot', `key-${i} readable`);
});
