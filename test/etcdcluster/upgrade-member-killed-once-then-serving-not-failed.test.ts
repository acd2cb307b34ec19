// Issue 30.4: "a member that fails on the target version marks the upgrade failed"; docs/etcdcluster.md: "its etcd
// keeps exiting". Members restart in place (restartPolicy Always): an etcd container killed once (its memory limit
// reached while it catches up after the image change, a container-runtime restart) is restarted by the kubelet,
// which reports CrashLoopBackOff for the back-off before it. The member then starts and serves the target version.
// One exit is no version that crashes: the upgrade should go on. Each answer fed back as the next observed state.
import t from 'tap';
import { images, OOM_KILLED, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('an upgraded member killed once that then serves the target does not fail the upgrade', async (t) => {
  const loop = await running({ size: 3 });
  const up = await upgradeFirst(loop);
  const moved = up.moved;
  let i = up.i;
  t.ok(moved, `a member is upgraded in place: ${moved}`);
  // One exit, seen during the kubelet's back-off (10 s), then its etcd runs again and serves 3.5.1.
  loop.etcd.up.delete(moved!);
  loop.podStatus.set(moved!, OOM_KILLED);
  loop.now = new Date(FIXED_NOW.getTime() + i * 60_000 + 5_000);
  await loop.step();
  loop.etcd.up.add(moved!);
  loop.podStatus.set(moved!, {
    containerStatuses: [
      {
        name: 'etcd',
        // (The kubelet reports the image the container runs.)
        image: 'quay.io/coreos/etcd:v3.5.1',
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
  t.notOk(loop.s().upgradeFailed, 'no failed upgrade recorded for one exit');
  t.same(
    Object.values(images(loop)),
    ['quay.io/coreos/etcd:v3.5.1', 'quay.io/coreos/etcd:v3.5.1', 'quay.io/coreos/etcd:v3.5.1'],
    'the upgrade went on: every member runs 3.5.1',
  );
});
