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
import { CrashLoop } from '../fixtures/upgrade-crash-loop.js';

const OLD = 'quay.io/coreos/etcd:v3.5.0';
const ON = 'quay.io/coreos/etcd:v3.5.1';
/** How long etcd 3.5.1 serves after each start before it exits. */
const SERVES_MS = 60_000;
const STEP_MS = 5_000;

for (const storage of [false, true])
  t.test(
    `a restore while an upgrade soaks restores the members on the last good version${storage ? ' (with storage)' : ''}`,
    async (t) => {
      const loop = await running(storage ? { size: 3, pod: { persistentVolumeClaimSpec: PVC } } : { size: 3 });
      versionsFromImages(loop);
      loop.spec = { ...loop.spec, version: '3.5.1' };
      const crash = new CrashLoop((now, since) => now - since >= SERVES_MS);
      const lostAfterRestore: number[] = [];
      let restoredImages: string[] | undefined;
      for (let k = 0; k < 120; k++) {
        const now = FIXED_NOW.getTime() + k * STEP_MS;
        loop.now = new Date(now);
        // Thirty seconds into e-1's soak, an EtcdRestore of the cluster.
        if (k === 6) loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
        const serving = crash.members(loop, now, (img) => img === ON, loop.pods());
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
