// The hook's clock ran ahead when it moved the first member to the new version (a replica on a node whose clock was
// off, corrected since), so the member's upgraded-at record lies in the future of the next syncs. The new version's
// etcd keeps exiting. A time recorded ahead of now reads as now (docs/etcdcluster.md, "What fails at once, what
// waits"): the upgrade fails within about 30 seconds of the first exit seen, not once the wall clock has caught up
// with the record, while the cluster runs without fault tolerance.
import t from 'tap';
import { CRASHING, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';

for (const ahead of [0, 3600]) {
  t.test(`a member moved by a clock ${ahead} s ahead, its etcd exiting, fails the upgrade in time`, async (t) => {
    const loop = await running({ size: 3 });
    const { moved, i } = await upgradeFirst(loop, ahead * 1000);
    t.ok(moved, `a member is upgraded in place: ${moved}`);
    // The clock is right again (the syncs after the move, by the wall clock); the new version's etcd keeps exiting.
    loop.etcd.up.delete(moved!);
    loop.podStatus.set(moved!, { containerStatuses: [{ ...CRASHING.containerStatuses[0], image: ON }] });
    let k = 0;
    for (; k < 12 && !loop.s().upgradeFailed; k++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000 + k * 10_000);
      await loop.step();
    }
    t.ok(loop.s().upgradeFailed, `the upgrade is failed within two minutes of its first exit seen (${k} syncs)`);
  });
}
