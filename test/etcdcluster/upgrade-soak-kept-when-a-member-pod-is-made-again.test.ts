// A failed upgrade stops (issue 30.4), and the soak (UPGRADE_SOAK_SECONDS) is what keeps a version whose etcd serves a
// while and then exits on one member: "the next member is moved only once the one upgraded has served the new version
// steadily for 5 minutes" (docs/etcdcluster.md). A member pod lost in the soak (a node drained or gone: the
// PodDisruptionBudget lets one Ready member go) is made again on its claim, and that pod is a member on the new
// version too: made again from the target spec, it carries none of the move's records (upgraded-from, the soak's
// serving-since), so it is neither held to the soak nor counted against it.
// - Another member's pod (still on the last good version) lost while the first one moved soaks: it is made again on
//   the new version, a second member on a version nothing has soaked.
// - The same without storage (the seed's default): the member lost is replaced (remove + add), and its replacement
//   is added on the new version, again a second member on it.
// - Every member pod lost in the soak (with storage: their claims kept; a zone outage, a node pool replaced): all
//   three are made again on the new version at once and the rollout is taken as done (AtVersion, the last good
//   version forgotten), so their exits are no failed upgrade and nothing is given 3.5.0 back.
// - The member moved itself lost in its soak: made again on the new version without its move's records, it is taken
//   as done at the next sync and the next member is moved at once.
// The version here exits on a request its clients send every minute (the docs' own example): every member that runs
// it exits at once, so two members on it lose quorum. Each answer is fed back as the next observed state.
import t, { type Test } from 'tap';
import { images, PVC, running, type Loop, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { CrashLoop } from '../fixtures/upgrade-crash-loop.js';

const OLD = 'quay.io/coreos/etcd:v3.5.0';
const ON = 'quay.io/coreos/etcd:v3.5.1';
const STEP_MS = 5_000;
/** The request that makes etcd 3.5.1 exit comes every minute (`ms` after the upgrade started), half a minute past. */
const requestAt = (ms: number) => ms % 60_000 === 30_000;

/**
 * An upgrade of three members (with storage unless `storage` is false) to 3.5.1 run sync by sync for `steps` syncs;
 * `lose(k, moved)` names the pods lost before sync k (moved: the first member moved to 3.5.1, once one is).
 */
async function upgradeLosing(lose: (k: number, moved: string | undefined) => string[], storage = true, steps = 240) {
  const loop: Loop = await running(storage ? { size: 3, pod: { persistentVolumeClaimSpec: PVC } } : { size: 3 });
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  const crash = new CrashLoop((now) => requestAt(now - FIXED_NOW.getTime()));
  const lost: number[] = [];
  let moved: string | undefined;
  let mostOnNewBeforeFailed = 0;
  for (let k = 0; k < steps; k++) {
    const now = FIXED_NOW.getTime() + k * STEP_MS;
    loop.now = new Date(now);
    for (const pod of lose(k, moved)) {
      loop.lose(pod);
      crash.state.delete(pod);
    }
    const serving = crash.members(loop, now, (img) => img === ON);
    // (The outage itself aside: counted once every member has a pod again.)
    if (Object.keys(images(loop)).length === 3 && serving < 2) lost.push((k * STEP_MS) / 1000);
    await loop.step();
    moved ??= Object.entries(images(loop)).find(([, img]) => img === ON)?.[0];
    const onNew = Object.values(images(loop)).filter((x) => x === ON).length;
    if (!loop.s().upgradeFailed) mostOnNewBeforeFailed = Math.max(mostOnNewBeforeFailed, onNew);
  }
  return { loop, lost, mostOnNewBeforeFailed, moved };
}

/**
 * What every case asserts: no second member on 3.5.1 before the one moved soaked (`said`: how), quorum never lost,
 * the upgrade failed, and every member back on 3.5.0.
 */
function heldAndFailed(
  t: Test,
  { loop, lost, mostOnNewBeforeFailed }: { loop: Loop; lost: number[]; mostOnNewBeforeFailed: number },
  said = (n: number) => `no second member on 3.5.1 before the one moved soaked (${n} members on it)`,
): void {
  t.ok(mostOnNewBeforeFailed <= 1, said(mostOnNewBeforeFailed));
  t.same(lost, [], 'quorum never lost to members on a version whose etcd exits');
  t.match(loop.s().upgradeFailed, { version: '3.5.1', from: '3.5.0' }, 'the upgrade is failed');
  t.same(Object.values(images(loop)), Array(3).fill(OLD), 'every member back on 3.5.0');
}

t.test('a member pod lost while the member moved soaks is not made again on the new version', async (t) => {
  // Five seconds after the first member moved (and serves), the node of another member is drained.
  let victim: string | undefined;
  const { loop, lost, mostOnNewBeforeFailed, moved } = await upgradeLosing((k, moved) => {
    if (k !== 2 || !moved) return [];
    victim = ['e-0', 'e-1', 'e-2'].find((p) => p !== moved && p !== 'e-0');
    return [victim!];
  });
  t.comment(`moved ${moved}, lost ${victim}; quorum lost at ${lost.join(', ')} s`);
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  t.ok(victim, 'a member on 3.5.0 was lost while the one moved soaked');
  heldAndFailed(t, { loop, lost, mostOnNewBeforeFailed });
});

t.test('the member moved, its pod lost in its soak and made again, soaks before the next is moved', async (t) => {
  // Twenty seconds after its move, the node of the member moved goes; its pod is made again on its claim.
  let victim: string | undefined;
  const { loop, lost, mostOnNewBeforeFailed } = await upgradeLosing((k, moved) => {
    if (k !== 4 || !moved) return [];
    victim = moved;
    return [moved];
  });
  t.comment(`lost ${victim}; quorum lost at ${lost.join(', ')} s`);
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  t.ok(victim, 'the member moved was lost in its soak');
  heldAndFailed(
    t,
    { loop, lost, mostOnNewBeforeFailed },
    (n) => `no second member moved before the one made again soaked (${n} members on 3.5.1)`,
  );
});

t.test('without storage, a member lost while the member moved soaks is not replaced on the new version', async (t) => {
  let victim: string | undefined;
  const { loop, lost, mostOnNewBeforeFailed, moved } = await upgradeLosing((k, moved) => {
    if (k !== 2 || !moved) return [];
    victim = ['e-0', 'e-1', 'e-2'].find((p) => p !== moved && p !== 'e-0');
    return [victim!];
  }, false);
  t.comment(`moved ${moved}, lost ${victim}; calls ${loop.etcd.calls.join(', ')}; quorum lost at ${lost.join(', ')} s`);
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  t.ok(victim, 'a member on 3.5.0 was lost while the one moved soaked');
  heldAndFailed(t, { loop, lost, mostOnNewBeforeFailed });
});

t.test('every member pod lost in the soak: none made again on a version not soaked', async (t) => {
  const { loop, lost, mostOnNewBeforeFailed } = await upgradeLosing((k, moved) =>
    k === 4 && moved ? ['e-0', 'e-1', 'e-2'] : [],
  );
  const upgrading = loop.s().conditions?.find((c: { type: string }) => c.type === 'Upgrading');
  t.comment(`quorum lost at ${lost.join(', ')} s; Upgrading ${JSON.stringify(upgrading)}`);
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  heldAndFailed(t, { loop, lost, mostOnNewBeforeFailed });
});
