// Issue 30: "A failed upgrade stops" (halted, full strength on the last good version) and members that cannot start on
// the spec.pod they were made from are made again with the spec's once it changes (plan/respec.ts). Together: an
// upgrade whose moved member crash-loops on its pod spec (a memory limit the new version is OOMKilled under at start),
// the user raising the limit while the upgrade fails, or once it halted. Before: raised once halted, nothing happened:
// the hold is bound to the image (spec.version, spec.repository), the members kept their limit, and the upgrade stayed
// failed for ever (rolling spec.version back and forth moved a member on its old limit again, failed again); and while
// a member was made again mid-upgrade the status said no Upgrading at all.
//
// Must hold, each answer fed back as the next observed state, one sync every 10 s: the upgrade halts as documented;
// with storage the fix reaches the crash-looping member (made again on its claim, once), the cluster never loses
// quorum, the upgrade then completes on the raised limit and says it is under way throughout. Without storage (a
// member's data lives in its pod) no running member is made again: the change tries the upgrade once more, which
// halts again, quorum kept, no loop.
import t from 'tap';
import { answeredPod, images, PVC, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const small = { requests: { memory: '256Mi' }, limits: { memory: '256Mi' } };
const big = { requests: { memory: '2Gi' }, limits: { memory: '2Gi' } };
const limitOf = (loop: any, n: string): string | undefined =>
  (answeredPod(loop, n) as any)?.spec.containers.find((c: any) => c.name === 'etcd')?.resources?.limits?.memory;
const condition = (loop: any, type: string) => (loop.s().conditions as any[]).find((c) => c.type === type);

/**
 * The kubelet and etcd: a member on 3.5.1 under the small limit is OOMKilled at every start (CrashLoopBackOff, down);
 * any other serves. How many serve.
 */
function world(loop: Awaited<ReturnType<typeof running>>, restarts: Map<string, number>): number {
  let serving = 0;
  const byPod = images(loop);
  for (const p of loop.pods()) {
    const image = byPod[p]!;
    if (image.endsWith(':v3.5.1') && limitOf(loop, p) === '256Mi') {
      const n = (restarts.get(p) ?? 0) + 1;
      restarts.set(p, n);
      loop.etcd.up.delete(p);
      loop.podStatus.set(p, {
        containerStatuses: [
          {
            name: 'etcd',
            image,
            restartCount: n,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
          },
        ],
      });
    } else {
      restarts.delete(p);
      loop.etcd.up.add(p);
      loop.podStatus.set(p, { containerStatuses: [{ name: 'etcd', image, restartCount: 0, state: { running: {} } }] });
      serving++;
    }
  }
  for (const p of [...restarts.keys()]) if (!loop.pods().includes(p)) restarts.delete(p);
  return serving;
}

for (const storage of [true, false])
  for (const when of ['while it fails', 'once it halted'])
    t.test(`a limit the new version needs raised ${when}${storage ? ', with storage' : ''}`, async (t) => {
      const pvc = storage ? { persistentVolumeClaimSpec: PVC } : {};
      const loop = await running({ size: 3, pod: { ...pvc, resources: small } });
      versionsFromImages(loop);
      loop.spec = { ...loop.spec, version: '3.5.1' };
      const restarts = new Map<string, number>();
      const lost: string[] = [];
      const madeAgain = new Map<string, number>();
      const silent: number[] = [];
      const failures = new Set<string>();
      let crashed: string | undefined;
      let fixedAt: number | undefined;
      for (let k = 0; k < 240; k++) {
        const s = k * 10;
        loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
        if (world(loop, restarts) < 2) lost.push(`${s}s`);
        crashed ??= [...restarts.keys()][0];
        const halted = loop.s().upgradeFailed !== undefined;
        if (halted && fixedAt === undefined)
          t.same(
            Object.values(images(loop)),
            Array(3).fill('quay.io/coreos/etcd:v3.5.0'),
            'halted as documented: every member on 3.5.0',
          );
        if (fixedAt === undefined && (when === 'once it halted' ? halted : crashed !== undefined)) {
          fixedAt = s;
          loop.spec = { ...loop.spec, pod: { ...pvc, resources: big } };
        }
        const before = loop.pods();
        await loop.step();
        if (loop.s().quorum?.ok === false) lost.push(`${s}s (status)`);
        if (loop.s().upgradeFailed) failures.add(JSON.stringify(loop.s().upgradeFailed.podSpec ?? null));
        if (fixedAt === undefined) continue;
        for (const p of before.filter((n) => !loop.pods().includes(n))) madeAgain.set(p, (madeAgain.get(p) ?? 0) + 1);
        const at = condition(loop, 'Upgrading');
        if (!at) silent.push(s);
        if (at?.reason === 'AtVersion') break;
      }
      t.ok(crashed, `a member crash-looped on 3.5.1 under the small limit: ${crashed}`);
      t.ok(fixedAt !== undefined, `spec.pod fixed at ${fixedAt}s`);
      t.same(lost, [], 'quorum never lost');
      t.same(silent, [], 'Upgrading said at every sync after the fix');
      for (const [p, n] of madeAgain) t.ok(n <= 1, `${p} made again ${n} time(s): never in a loop`);
      if (storage) {
        t.equal(madeAgain.get(crashed!), 1, `the fix reaches ${crashed} once`);
        t.equal(condition(loop, 'Upgrading')?.reason, 'AtVersion', 'the upgrade completes');
        t.notOk(loop.s().upgradeFailed, 'no failure held');
        for (const p of loop.pods()) {
          t.equal(images(loop)[p], 'quay.io/coreos/etcd:v3.5.1', `${p} runs 3.5.1`);
          t.equal(limitOf(loop, p), '2Gi', `${p} runs with the raised limit`);
        }
      } else {
        t.same(madeAgain.size, 0, 'no running member is made again without storage');
        t.equal(condition(loop, 'Upgrading')?.reason, 'UpgradeFailed', 'the upgrade halts again');
        t.ok(failures.size <= 2, `at most one more failure after the fix: ${[...failures].join(' ')}`);
        t.same(
          Object.values(images(loop)),
          Array(3).fill('quay.io/coreos/etcd:v3.5.0'),
          'every member on 3.5.0, at full strength',
        );
        t.equal(condition(loop, 'Available')?.reason, 'QuorumAvailable');
      }
    });
