// The hook's clock ran an hour ahead when it moved the first member to the new version (a replica on a node whose
// clock was off, corrected since): the member's upgraded-at record lies in the future of the next syncs, and is
// recorded again as now (docs/etcdcluster.md). The member's node has the right clock: its etcd container started as
// the upgrade moved it, before that rewritten record. Its container runtime reports the image it runs by its digest
// (as runtimes may: the Kubernetes API says containerStatuses[].image may not match the pod spec's). The member
// serves the target version without a break for ten minutes: its upgrade is done, and the rollout goes on.
import t from 'tap';
import { images, running, servingSince, untilSecondMoved, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';
const DIGEST = 'sha256:6f1b9b0c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c';

for (const ahead of [0, 3600]) {
  t.test(`a member moved by a clock ${ahead} s ahead serves steadily: the rollout goes on`, async (t) => {
    const loop = await running({ size: 3 });
    const { moved, i } = await upgradeFirst(loop, ahead * 1000);
    t.ok(moved, `a member is upgraded in place: ${moved}`);
    // Its etcd started (by its node's right clock) a few seconds after the move, and runs without a break.
    loop.podStatus.set(moved!, servingSince(DIGEST, FIXED_NOW.getTime() + (i - 1) * 60_000 + 5_000));
    await untilSecondMoved(loop, i, 30_000);
    t.comment(JSON.stringify((loop.s().conditions as any[]).find((c) => c.type === 'Upgrading')));
    t.notOk(loop.s().upgradeFailed, 'no failed upgrade');
    t.equal(
      Object.values(images(loop)).filter((x) => x === ON).length,
      2,
      'a second member is upgraded once the first served steadily (ten minutes of syncs saw it serve 3.5.1)',
    );
  });
}
