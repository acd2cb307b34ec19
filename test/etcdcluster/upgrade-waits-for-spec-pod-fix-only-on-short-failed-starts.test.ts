// Issue 30: "A failed upgrade stops", and members that cannot start on the spec.pod they were made from are made again
// with the spec's once it changes, but only after FAILED_STARTS failed starts the last of them short (plan/respec.ts:
// one kill, or a kill after serving, is the kubelet's to restart in place). The two meet on a member moved in place to
// a new version whose crash loop began after spec.pod was changed: the upgrade waits for respec rather than take it
// back to the last good version first (which held the upgrade on the new spec.pod for ever). The wait is only for a
// crash loop respec can end, and is bounded.
//
// Must hold, each answer fed back as the next observed state, one sync every 10 s, with storage, spec.pod changed as
// the moved member first crashes (the new limit as good as the old: the version itself crashes):
// - short failed starts (under a minute): the member's pod is made again on its claim once, with the spec's, and the
//   upgrade is not failed before that;
// - long runs (etcd served two minutes before each kill: the version's fault, no failed start): the upgrade fails as
//   before, within UPGRADE_MEMBER_SECONDS of the first crash, every member on 3.5.0, no pod made again;
// - short failed starts that never reach FAILED_STARTS (the kubelet's back-off holds the restart count at 1): the
//   upgrade still fails once the member has been unhealthy past UPGRADE_MEMBER_SECONDS, no pod made again.
// Without storage nothing waits: a member that started is never made again (its data lives in its pod).
import t from 'tap';
import { shortCrashLoop } from '../../hooks/etcdcluster/plan/respec.js';
import { UPGRADE_MEMBER_SECONDS } from '../../hooks/etcdcluster/upgrade.js';
import { BIG_MEMORY, images, PVC, running, SMALL_MEMORY, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (loop: any, type: string) => (loop.s().conditions as any[]).find((c) => c.type === type);

/** The etcd container of a pod whose last run lasted `runMs` (by the kubelet's stamps), waiting to be restarted. */
function crashLooping(image: string, restartCount: number, runMs: number, now: Date) {
  const finishedAt = new Date(now.getTime() - 1000);
  const startedAt = new Date(finishedAt.getTime() - runMs);
  return {
    containerStatuses: [
      {
        name: 'etcd',
        image,
        restartCount,
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: {
          terminated: {
            exitCode: 137,
            reason: 'OOMKilled',
            startedAt: startedAt.toISOString(),
            finishedAt: finishedAt.toISOString(),
          },
        },
      },
    ],
  };
}

/**
 * An upgrade to 3.5.1, whose etcd crashes on every start in a pod made from the first spec.pod (its last run
 * `runMs`, its restart count growing by one a sync up to `maxRestarts`); spec.pod changed at the first crash. How
 * the syncs went.
 */
async function upgradeCrashing(o: { storage: boolean; runMs: number; maxRestarts: number }) {
  const pvc = o.storage ? { persistentVolumeClaimSpec: PVC } : {};
  const loop = await running({ size: 3, pod: { ...pvc, resources: SMALL_MEMORY } });
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  const restarts = new Map<string, number>();
  const madeAgain: string[] = [];
  let crashedAt: number | undefined;
  let failedAt: number | undefined;
  // (Until the upgrade fails or a pod is made again: what follows a remake is the other test's.)
  for (let k = 0; k < 60 && failedAt === undefined; k++) {
    const s = k * 10;
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    const byPod = images(loop);
    for (const p of loop.pods()) {
      if (byPod[p]!.endsWith(':v3.5.1')) {
        const n = Math.min((restarts.get(p) ?? 0) + 1, o.maxRestarts);
        restarts.set(p, n);
        loop.etcd.up.delete(p);
        loop.podStatus.set(p, crashLooping(byPod[p]!, n, o.runMs, loop.now));
      } else {
        loop.etcd.up.add(p);
        loop.podStatus.set(p, {
          containerStatuses: [{ name: 'etcd', image: byPod[p], restartCount: 0, state: { running: {} } }],
        });
      }
    }
    if (crashedAt === undefined && restarts.size > 0) {
      crashedAt = s;
      loop.spec = { ...loop.spec, pod: { ...pvc, resources: BIG_MEMORY } };
    }
    const before = loop.pods();
    await loop.step();
    for (const p of before.filter((n) => !loop.pods().includes(n))) madeAgain.push(`${p} at ${s}s`);
    if (loop.s().upgradeFailed) failedAt = s;
    if (madeAgain.length > 0) break;
  }
  return { loop, crashedAt, failedAt, madeAgain };
}

t.test('short failed starts: the moved member is made again with the new spec.pod, not failed first', async (t) => {
  const r = await upgradeCrashing({ storage: true, runMs: 5_000, maxRestarts: 99 });
  t.ok(r.crashedAt !== undefined, `the moved member crashed at ${r.crashedAt}s`);
  t.same(r.madeAgain.length, 1, `made again once: ${r.madeAgain.join(', ')}`);
  t.equal(r.failedAt, undefined, 'the upgrade not failed before');
  t.equal(condition(r.loop, 'Upgrading')?.status, 'True', 'still under way');
});

t.test('long runs (served, then killed): the upgrade fails as before, nothing made again', async (t) => {
  const r = await upgradeCrashing({ storage: true, runMs: 120_000, maxRestarts: 99 });
  t.same(r.madeAgain, [], 'no pod made again');
  t.ok(r.failedAt !== undefined, `the upgrade failed at ${r.failedAt}s`);
  t.ok(r.failedAt! - r.crashedAt! < UPGRADE_MEMBER_SECONDS, 'on the exit rule, not after the unhealthy limit');
  t.equal(condition(r.loop, 'Upgrading')?.reason, 'UpgradeFailed');
  t.same(Object.values(images(r.loop)), Array(3).fill('quay.io/coreos/etcd:v3.5.0'), 'every member on 3.5.0');
});

t.test('short failed starts that never reach FAILED_STARTS: the wait ends at the unhealthy limit', async (t) => {
  const r = await upgradeCrashing({ storage: true, runMs: 5_000, maxRestarts: 1 });
  t.same(r.madeAgain, [], 'no pod made again (one failed start is the kubelet’s)');
  t.ok(r.failedAt !== undefined, `the upgrade failed at ${r.failedAt}s`);
  t.ok(r.failedAt! - r.crashedAt! >= UPGRADE_MEMBER_SECONDS, 'not before the unhealthy limit');
  t.equal(condition(r.loop, 'Upgrading')?.reason, 'UpgradeFailed');
  t.same(Object.values(images(r.loop)), Array(3).fill('quay.io/coreos/etcd:v3.5.0'), 'every member on 3.5.0');
});

t.test('without storage nothing waits: the upgrade fails on the exit rule, nothing made again', async (t) => {
  const r = await upgradeCrashing({ storage: false, runMs: 5_000, maxRestarts: 99 });
  t.same(r.madeAgain, [], 'no pod made again');
  t.ok(r.failedAt !== undefined, `the upgrade failed at ${r.failedAt}s`);
  t.ok(r.failedAt! - r.crashedAt! < UPGRADE_MEMBER_SECONDS, 'on the exit rule');
});

t.test('a short crash loop is read from the etcd container alone, whatever its restart count', async (t) => {
  const now = FIXED_NOW;
  const pod = (status: Record<string, unknown>, phase = 'Running'): any => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'e-0', namespace: 'ns' },
    spec: { containers: [{ name: 'etcd' }] },
    status: { phase, ...status },
  });
  t.equal(shortCrashLoop(pod(crashLooping('x', 1, 5_000, now))), true, 'one failed start, short');
  t.equal(shortCrashLoop(pod(crashLooping('x', 7, 59_000, now))), true, 'seven, the last under a minute');
  t.equal(shortCrashLoop(pod(crashLooping('x', 7, 60_000, now))), false, 'the last a minute long: it served');
  const unknown = crashLooping('x', 2, 0, now);
  delete (unknown.containerStatuses[0]!.lastState.terminated as any).startedAt;
  t.equal(shortCrashLoop(pod(unknown)), true, 'a last run of unknown length counts as short');
  t.equal(shortCrashLoop(pod(crashLooping('x', 3, 5_000, now), 'Failed')), false, 'a finished pod: the crash rules');
  const ready = pod({ ...crashLooping('x', 3, 5_000, now), conditions: [{ type: 'Ready', status: 'True' }] });
  t.equal(shortCrashLoop(ready), false, 'a Ready pod');
  const other = crashLooping('x', 3, 5_000, now);
  other.containerStatuses[0]!.name = 'proxy';
  t.equal(shortCrashLoop(pod(other)), false, "a sidecar's crash loop");
  const image = crashLooping('x', 3, 5_000, now);
  (image.containerStatuses[0]!.state.waiting as any).reason = 'ImagePullBackOff';
  t.equal(shortCrashLoop(pod(image)), false, 'another wait');
  t.equal(shortCrashLoop(pod({})), false, 'no status yet');
});
