// A failed upgrade stops (issue 30.4), and docs/etcdcluster.md says how to roll back: "set spec.version to the version
// the cluster runs ...: any member already on the new version is moved back one at a time". An upgrade of three
// members with storage to a version whose etcd starts and hangs (its container running, its member never answering:
// a start-up deadlock). Left alone, the hook fails the upgrade after UPGRADE_MEMBER_SECONDS and gives that member
// 3.5.0 back in place (the same member, on its claim). The user who rolls back by spec.version two minutes in, as
// the docs advise, gets worse: the member on 3.5.1 is no longer the upgrade's (the spec names 3.5.0), it is neither
// crash-looping nor refused its image (plan/view.ts stuckOnImage), so it is not moved back; every change waits for it
// to be healthy (WaitingForHealthy), and after the 10-minute unhealthy limit it is removed and replaced, its claim
// (its data) deleted. Each answer is fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { images, PVC, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { UPGRADE_MEMBER_SECONDS } from '../../hooks/etcdcluster/upgrade.js';

const OLD = 'quay.io/coreos/etcd:v3.5.0';
const ON = 'quay.io/coreos/etcd:v3.5.1';
const STEP_MS = 5_000;

t.test('a roll back by spec.version moves the member hanging on the new version back in place', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  let moved: string | undefined;
  let backOnOld: number | undefined;
  for (let k = 0; k < 200; k++) {
    loop.now = new Date(FIXED_NOW.getTime() + k * STEP_MS);
    // Two minutes in, the user rolls back as the docs say.
    if (k === 24) loop.spec = { ...loop.spec, version: '3.5.0' };
    for (const [pod, img] of Object.entries(images(loop))) {
      if (img === ON) loop.etcd.up.delete(pod);
      else loop.etcd.up.add(pod);
      loop.podStatus.set(pod, {
        containerStatuses: [{ name: 'etcd', image: img, restartCount: 0, ready: img !== ON, state: { running: {} } }],
      });
    }
    await loop.step();
    moved ??= Object.entries(images(loop)).find(([, img]) => img === ON)?.[0];
    if (k >= 24 && backOnOld === undefined && moved && images(loop)[moved] === OLD) backOnOld = (k * STEP_MS) / 1000;
  }
  t.comment(`moved ${moved}; back on 3.5.0 at ${backOnOld} s; calls ${loop.etcd.calls.join(', ')}`);
  t.comment(`images ${JSON.stringify(images(loop))}; claims ${loop.claims().join(', ')}`);
  t.ok(moved, 'a member was moved to 3.5.1');
  // (Left alone, the hook gives it 3.5.0 back once it has been unhealthy UPGRADE_MEMBER_SECONDS: by about 330 s.)
  t.ok(
    backOnOld !== undefined && backOnOld <= UPGRADE_MEMBER_SECONDS + 120,
    `it runs 3.5.0 again no later than the upgrade's own failure would give it back (at ${backOnOld} s)`,
  );
  t.same(loop.etcd.calls, [], 'no membership change: the same member, back on 3.5.0');
  t.ok(loop.claims().includes(moved!), 'its claim (its data) is kept');
  t.same(Object.values(images(loop)), Array(3).fill(OLD), 'every member on 3.5.0');
});
