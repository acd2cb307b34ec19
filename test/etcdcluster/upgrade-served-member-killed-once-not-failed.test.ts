// An upgrade of three members: the first member upgraded serves the new version (its upgraded-from record goes) and
// the rollout moves on; then that member's etcd is killed once (an OOM kill, a container-runtime restart), seen by
// one sync in the kubelet's back-off, and serves again. One kill is no failed version: the upgrade goes on.
import t from 'tap';
import { images, OOM_KILLED, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';

t.test('a member that served the new version, killed once while the rollout goes on, does not fail it', async (t) => {
  const loop = await running({ size: 3 });
  const up = await upgradeFirst(loop);
  const first = up.moved!;
  let i = up.i;
  t.ok(first, `a member is upgraded in place: ${first}`);
  // It serves 3.5.1 (the kubelet reports the image it runs); the rollout moves to a second member.
  const serving = { containerStatuses: [{ name: 'etcd', image: ON, restartCount: 0, state: { running: {} } }] };
  loop.podStatus.set(first, serving);
  for (let k = 0; k < 10 && Object.values(images(loop)).filter((x) => x === ON).length < 2; k++, i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
  }
  t.equal(Object.values(images(loop)).filter((x) => x === ON).length, 2, 'a second member is upgraded');
  t.notOk(loop.s().upgradeFailed);
  // The first member's etcd is killed once: one sync sees it in the kubelet's back-off.
  loop.etcd.up.delete(first);
  loop.podStatus.set(first, {
    containerStatuses: [{ ...OOM_KILLED.containerStatuses[0], image: ON }],
  });
  loop.now = new Date(FIXED_NOW.getTime() + i * 60_000 + 5_000);
  await loop.step();
  t.notOk(loop.s().upgradeFailed, 'one kill seen once fails no upgrade');
  // It is back and serves 3.5.1.
  loop.etcd.up.add(first);
  loop.podStatus.set(first, {
    containerStatuses: [
      {
        name: 'etcd',
        image: ON,
        restartCount: 1,
        state: { running: {} },
        lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
      },
    ],
  });
  for (let k = 0; k < 25; k++, i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
    await loop.step();
  }
  const upgrading = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
  t.comment(`images ${JSON.stringify(images(loop))}; Upgrading ${JSON.stringify(upgrading)}`);
  t.notOk(loop.s().upgradeFailed, 'no failed upgrade recorded for one kill');
  t.same(Object.values(images(loop)), [ON, ON, ON], 'the upgrade went on: every member runs 3.5.1');
});
