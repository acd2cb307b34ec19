// A failed upgrade stops (issue 30.4) and a restore checks before it acts (issue 30.5). An upgrade to 3.5.1 is under
// way: e-1 was moved and soaks (UPGRADE_SOAK_SECONDS), the last good version 3.5.0 kept on every member pod
// (etcd.metaops.io/upgrade). An EtcdRestore is made meanwhile (the reason for the upgrade: a bad write to undo). The
// restore drops every member and starts `size` new ones together, all from the target spec: every restored member
// runs 3.5.1, a version no member has soaked, and the rollout is taken as done (AtVersion, the marks gone). The
// version exits a minute after each start: every restored member exits at once, quorum is lost again and again, and
// as nothing of the upgrade is recorded any more no failed upgrade is seen and nothing is given 3.5.0 back. The
// case the upgrade already failed is handled (test/etcdcluster/restore-during-failed-upgrade.test.ts); this one,
// under way, is not. Each answer is fed back as the next observed state (test/fixtures/etcd-loop.ts).
// With storage the restored members' claims are answered first and their pods at the next sync, once the claims are
// observed as the cluster's (hooks/etcdcluster/sync.ts childrenOf): those pods too run the last good version.
import t from 'tap';
import { images, PVC, restoredServe, restoreObject, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const OLD = 'quay.io/coreos/etcd:v3.5.0';
const ON = 'quay.io/coreos/etcd:v3.5.1';
const PANIC = { terminated: { exitCode: 2, reason: 'Error' } };
/** How long etcd 3.5.1 serves after each start before it exits. */
const SERVES_MS = 60_000;
const STEP_MS = 5_000;
const backOff = (restarts: number) => Math.min(10_000 * 2 ** (restarts - 1), 300_000);

for (const storage of [false, true])
  t.test(
    `a restore while an upgrade soaks restores the members on the last good version${storage ? ' (with storage)' : ''}`,
    async (t) => {
      const loop = await running(storage ? { size: 3, pod: { persistentVolumeClaimSpec: PVC } } : { size: 3 });
      versionsFromImages(loop);
      loop.spec = { ...loop.spec, version: '3.5.1' };
      const state = new Map<string, { restarts: number; since?: number; downUntil?: number }>();
      const lostAfterRestore: number[] = [];
      let restoredImages: string[] | undefined;
      for (let k = 0; k < 120; k++) {
        const now = FIXED_NOW.getTime() + k * STEP_MS;
        loop.now = new Date(now);
        // Thirty seconds into e-1's soak, an EtcdRestore of the cluster.
        if (k === 6) loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
        let serving = 0;
        const members = loop.pods();
        for (const pod of members) {
          const img = images(loop)[pod]!;
          if (img !== ON) {
            state.delete(pod);
            serving++;
            loop.etcd.up.add(pod);
            loop.podStatus.set(pod, {
              containerStatuses: [{ name: 'etcd', image: img, restartCount: 0, state: { running: {} } }],
            });
            continue;
          }
          const s = state.get(pod) ?? { restarts: 0, since: now };
          if (s.since !== undefined && now - s.since >= SERVES_MS) {
            s.restarts++;
            s.since = undefined;
            s.downUntil = now + backOff(s.restarts);
          } else if (s.downUntil !== undefined && now >= s.downUntil) {
            s.downUntil = undefined;
            s.since = now;
          }
          state.set(pod, s);
          const last = s.restarts ? { lastState: PANIC } : {};
          if (s.since !== undefined) {
            serving++;
            loop.etcd.up.add(pod);
          } else loop.etcd.up.delete(pod);
          const etcd = s.since !== undefined ? { running: {} } : { waiting: { reason: 'CrashLoopBackOff' } };
          loop.podStatus.set(pod, {
            containerStatuses: [{ name: 'etcd', image: ON, restartCount: s.restarts, state: etcd, ...last }],
          });
        }
        if (restoredImages && serving < 2) lostAfterRestore.push((k * STEP_MS) / 1000);
        await loop.step();
        const phase = loop.s().restore?.phase;
        // The old members dropped: etcd has none; the restored members start and serve from the snapshot.
        if (phase === 'Replacing' && loop.pods().length === 0) {
          loop.etcd.members = [];
          loop.etcd.up.clear();
        }
        if (phase === 'Restoring' && loop.pods().length === 3 && loop.etcd.members.length === 0) {
          restoredImages = loop.pods().map((p) => images(loop)[p]!);
          restoredServe(loop);
        }
      }
      const upgrading = loop.s().conditions?.find((c: { type: string }) => c.type === 'Upgrading');
      t.comment(`restored on ${JSON.stringify(restoredImages)}; quorum lost after at ${lostAfterRestore.join(', ')} s`);
      t.comment(`images ${JSON.stringify(images(loop))}; Upgrading ${JSON.stringify(upgrading)}`);
      t.ok(restoredImages, 'the restore replaced the members');
      t.same(restoredImages, Array(3).fill(OLD), 'the restored members run 3.5.0, the last good version');
      t.same(lostAfterRestore, [], 'quorum never lost after the restore');
      t.same(
        loop.pods().map((p) => images(loop)[p]),
        Array(3).fill(OLD),
        'every member runs 3.5.0 at the end',
      );
    },
  );
