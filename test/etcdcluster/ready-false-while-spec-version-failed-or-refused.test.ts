// An EtcdCluster's Ready condition says whether the cluster is what its spec asks for. An upgrade that failed (a
// member exited at every start on the new version: rolled back, the upgrade halted, Upgrading=False UpgradeFailed)
// leaves every member healthy on the old version while spec.version names the new one, at the generation
// Ready's observedGeneration names. Ready=True then tells `kubectl wait --for=condition=Ready` (and every tool that
// reads Ready with observedGeneration, as kstatus does for Flux and Argo CD) that the upgrade succeeded. Ready is
// False naming the failed upgrade until spec.version is one the members run (set back, or a version that works);
// then Ready=True again.
import t from 'tap';
import { CRASHING, images, running, upgradeToLast } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (s: any, type: string) => (s.conditions ?? []).find((c: any) => c.type === type);

t.test('an upgrade that failed and was rolled back is not Ready; set back, it is', async (t) => {
  const loop = await running({ size: 3 });
  t.match(condition(loop.s(), 'Ready'), { status: 'True' }, 'Ready before the upgrade');
  const { last, i: next } = await upgradeToLast(loop, (last) => {
    loop.etcd.up.delete(last);
    loop.podStatus.set(last, CRASHING);
  });
  let i = next;
  for (let k = 0; k < 30; k++, i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
    if (images(loop)[last!] === 'quay.io/coreos/etcd:v3.5.0') {
      loop.podStatus.delete(last!);
      loop.etcd.up.add(last!);
    }
  }
  t.match(condition(loop.s(), 'Upgrading'), { status: 'False', reason: 'UpgradeFailed' }, 'the upgrade failed');
  t.equal(loop.s().currentVersion, '3.5.0', 'the members run 3.5.0');
  t.equal(loop.spec['version'], '3.5.1', 'spec.version is 3.5.1');
  const ready = condition(loop.s(), 'Ready');
  t.equal(ready?.status, 'False', `not Ready while spec.version failed (Ready: ${JSON.stringify(ready)})`);
  t.match(ready, { reason: 'UpgradeFailed' }, 'Ready names the failed upgrade');
  // Set back to the version the members run: Ready again.
  loop.spec = { ...loop.spec, version: '3.5.0' };
  for (let k = 0; k < 20; k++, i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
  }
  t.match(condition(loop.s(), 'Ready'), { status: 'True' }, 'Ready once spec.version is the one the members run');
});

// A spec.version refused outright (a downgrade, or a skip of a minor version: Upgrading=False UpgradeRefused) is the
// same: the members stay on what they run, which is not what the generation asks for. MySQLCluster answers a
// downgrade Ready=False InvalidSpec; an EtcdCluster is not Ready=True on it.
for (const [version, why] of [
  ['3.4.0', 'a downgrade'],
  ['3.7.0', 'a minor version skipped'],
]) {
  t.test(`spec.version ${version} (${why}) refused: not Ready`, async (t) => {
    const loop = await running({ size: 3 });
    loop.spec = { ...loop.spec, version };
    for (let k = 0; k < 3; k++) await loop.step();
    t.match(condition(loop.s(), 'Upgrading'), { status: 'False', reason: 'UpgradeRefused' }, 'the version is refused');
    const ready = condition(loop.s(), 'Ready');
    t.equal(ready?.status, 'False', `not Ready (Ready: ${JSON.stringify(ready)})`);
    t.match(ready, { reason: /UpgradeRefused|InvalidSpec/ }, 'Ready says the version is refused');
  });
}
