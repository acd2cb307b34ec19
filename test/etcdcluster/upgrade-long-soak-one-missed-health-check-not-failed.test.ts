// A failed upgrade stops (issue 30.4): a member moved to a new version fails the upgrade when its etcd keeps
// exiting, or when it "stays unhealthy past UPGRADE_MEMBER_SECONDS" (5 minutes; docs/etcdcluster.md). With the soak
// set longer than that (METAOPS_ETCD_UPGRADE_SOAK_SECONDS, up to 3600: "longer catches versions that fail later"),
// a member that has served the new version for 15 minutes and misses one health check (a timeout on a busy node,
// a network blip; its etcd never exited, the next sync finds it serving) is taken as unhealthy since it was moved:
// the upgrade's own clock (upgrade.ts failingSince -> upgradeClock, the move's time) stands in for the unhealthy
// clock the status has not recorded yet, it is over 5 minutes old, and the upgrade fails at once ("unhealthy since
// <the move>"), that member rolled back. With the default five-minute soak the same happens to a member whose soak
// started again after one OOM kill (docs: "one exit within the soak (an OOM kill) restarts the soak, a second one
// fails the upgrade"): one missed health check six minutes after its move, no second exit, fails the upgrade.
// Each answer is fed back as the next observed state (the first case through the hook set to a one-hour soak).
import t from 'tap';
import { FIXED_NOW } from '../fixtures/requests.js';
import { images, type Loop, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { stepWithSoak } from '../fixtures/upgrade-crash-loop.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';
const SOAK_SECONDS = 3600;
const STEP_MS = 5_000;
/** When, after the move, the member misses its one health check. */
const BLIP_MS = 15 * 60_000;

/** The loop's sync through a hook server set to METAOPS_ETCD_UPGRADE_SOAK_SECONDS=3600. */
const step = (loop: Loop) => stepWithSoak(loop, SOAK_SECONDS);

t.test('with a one-hour soak, a member that misses one health check 15 minutes in is no failed upgrade', async (t) => {
  const loop = await running({ size: 3 });
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  let movedAt: number | undefined;
  let blips = 0;
  for (let k = 0; k < (20 * 60_000) / STEP_MS; k++) {
    const now = FIXED_NOW.getTime() + k * STEP_MS;
    loop.now = new Date(now);
    for (const [pod, img] of Object.entries(images(loop))) {
      if (img === ON) movedAt ??= now;
      // Its etcd runs all along (one container, never restarted); one sync finds its health check timed out.
      const blip = img === ON && now - movedAt! === BLIP_MS;
      if (blip) blips++;
      if (blip) loop.etcd.up.delete(pod);
      else loop.etcd.up.add(pod);
      loop.podStatus.set(pod, {
        containerStatuses: [
          {
            name: 'etcd',
            image: img,
            restartCount: 0,
            containerID: `containerd://${pod}-${img}`,
            state: { running: {} },
          },
        ],
      });
    }
    await step(loop);
  }
  const upgrading = loop.s().conditions?.find((c: { type: string }) => c.type === 'Upgrading');
  t.comment(`Upgrading ${JSON.stringify(upgrading)}`);
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  t.equal(blips, 1, 'the member moved missed one health check, 15 minutes after its move');
  t.equal(loop.s().upgradeFailed, undefined, 'no failed upgrade');
  t.match(upgrading, { status: 'True', reason: 'WaitingForMember' }, 'the rollout goes on: the member soaks');
  t.equal(Object.values(images(loop)).filter((x) => x === ON).length, 1, 'the member moved still runs 3.5.1');
});

t.test(
  'the default soak: one OOM kill, then one missed health check six minutes in, is no failed upgrade',
  async (t) => {
    const loop = await running({ size: 3 });
    versionsFromImages(loop);
    loop.spec = { ...loop.spec, version: '3.5.1' };
    let movedAt: number | undefined;
    for (let k = 0; k < (9 * 60_000) / STEP_MS; k++) {
      const now = FIXED_NOW.getTime() + k * STEP_MS;
      loop.now = new Date(now);
      for (const [pod, img] of Object.entries(images(loop))) {
        if (img === ON) movedAt ??= now;
        const since = img === ON ? now - movedAt! : -1;
        // Two minutes in, its etcd is killed for memory once (restarted 10 s later: its soak starts again); six
        // minutes in, one health check times out.
        const killed = since >= 120_000 && since < 130_000;
        const restartCount = since >= 120_000 ? 1 : 0;
        if (killed || since === 360_000) loop.etcd.up.delete(pod);
        else loop.etcd.up.add(pod);
        loop.podStatus.set(pod, {
          containerStatuses: [
            {
              name: 'etcd',
              image: img,
              restartCount,
              containerID: `containerd://${pod}-${img}-${restartCount}`,
              state: killed ? { waiting: { reason: 'CrashLoopBackOff' } } : { running: {} },
              ...(restartCount ? { lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } } } : {}),
            },
          ],
        });
      }
      await loop.step();
    }
    const upgrading = loop.s().conditions?.find((c: { type: string }) => c.type === 'Upgrading');
    t.comment(`Upgrading ${JSON.stringify(upgrading)}`);
    t.equal(loop.s().upgradeFailed, undefined, 'no failed upgrade');
    t.ok(Object.values(images(loop)).includes(ON), 'the member moved still runs 3.5.1');
  },
);
