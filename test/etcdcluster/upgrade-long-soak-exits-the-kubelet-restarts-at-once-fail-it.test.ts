// A failed upgrade stops (issue 30.4). The soak is a server setting, METAOPS_ETCD_UPGRADE_SOAK_SECONDS (20 to 3600),
// documented as "longer catches versions that fail later after each start" and "a member that exits again within
// it fails the upgrade" (docs/operating.md). The hook counts an exit only when it sees the etcd container waiting
// in CrashLoopBackOff (or its pod ended: pods.ts etcdExited). The kubelet restarts a container at once, without a
// back-off, when its last restart is over 10 minutes old (twice the 5-minute maximum back-off: its back-off entry
// has expired); it shows CrashLoopBackOff only for exits closer together than that. With the soak set to an hour,
// a version whose etcd exits 15 minutes after each start (a leak that runs it out of memory, a compaction it panics
// on) is restarted at once every time: the hook sees a new container each time (restartCount, lastState: exit code
// 2), starts the soak again, and never counts an exit. The upgrade never fails and never ends: `Upgrading=True`
// WaitingForMember for good, that member exiting every 15 minutes (its etcd back before the next sync each time).
// Each answer is fed back as the next observed state, through the hook set to a one-hour soak.
import t from 'tap';
import { FIXED_NOW } from '../fixtures/requests.js';
import { images, type Loop, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { stepWithSoak } from '../fixtures/upgrade-crash-loop.js';

const OLD = 'quay.io/coreos/etcd:v3.5.0';
const ON = 'quay.io/coreos/etcd:v3.5.1';
const SOAK_SECONDS = 3600;
/** How long etcd 3.5.1 serves after each start before it exits. */
const SERVES_MS = 15 * 60_000;
const STEP_MS = 5_000;

/** The loop's sync through a hook server set to METAOPS_ETCD_UPGRADE_SOAK_SECONDS=3600. */
const step = (loop: Loop) => stepWithSoak(loop, SOAK_SECONDS);

t.test('with a one-hour soak, a member on the new version that exits every 15 minutes fails the upgrade', async (t) => {
  const loop = await running({ size: 3 });
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  // Each member on 3.5.1: its restarts and when its current etcd started.
  const state = new Map<string, { restarts: number; since: number }>();
  let exits = 0;
  let mostOnNew = 0;
  for (let k = 0; k < (2 * 3600_000) / STEP_MS; k++) {
    const now = FIXED_NOW.getTime() + k * STEP_MS;
    loop.now = new Date(now);
    for (const [pod, img] of Object.entries(images(loop))) {
      if (img !== ON) {
        state.delete(pod);
        loop.etcd.up.add(pod);
        loop.podStatus.set(pod, {
          containerStatuses: [{ name: 'etcd', image: img, restartCount: 0, state: { running: {} } }],
        });
        continue;
      }
      const s = state.get(pod) ?? { restarts: 0, since: now };
      // It exits; its last restart is over 10 minutes old, so the kubelet starts it again at once.
      if (now - s.since >= SERVES_MS) {
        exits++;
        s.restarts++;
        s.since = now;
      }
      state.set(pod, s);
      // (Its etcd is back within seconds, before the next sync: no sync finds it down. A sync that did would fail the
      // upgrade at once for another reason: test/etcdcluster/upgrade-long-soak-one-missed-health-check-not-failed.)
      loop.etcd.up.add(pod);
      const last = s.restarts ? { lastState: { terminated: { exitCode: 2, reason: 'Error' } } } : {};
      loop.podStatus.set(pod, {
        containerStatuses: [
          {
            name: 'etcd',
            image: ON,
            restartCount: s.restarts,
            containerID: `containerd://${pod}-${s.restarts}`,
            state: { running: {} },
            ...last,
          },
        ],
      });
    }
    await step(loop);
    mostOnNew = Math.max(mostOnNew, Object.values(images(loop)).filter((x) => x === ON).length);
  }
  const upgrading = loop.s().conditions?.find((c: { type: string }) => c.type === 'Upgrading');
  t.comment(`${exits} exits on 3.5.1 in two hours; Upgrading ${JSON.stringify(upgrading)}`);
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  t.ok(exits >= 2, 'the member moved exited more than once within the soak');
  t.equal(mostOnNew, 1, 'no second member moved (the soak held)');
  t.match(loop.s().upgradeFailed, { version: '3.5.1', from: '3.5.0' }, 'the upgrade is failed');
  t.match(upgrading, { status: 'False', reason: 'UpgradeFailed' }, 'Upgrading says it failed');
  t.same(Object.values(images(loop)), Array(3).fill(OLD), 'every member back on 3.5.0');
});
