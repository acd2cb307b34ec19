// The hook's clock ran an hour behind when it moved the first member to the new version (a replica on a node whose
// clock was off, stepped right by NTP since, or the next sync answered by another replica whose clock is right): the
// member's upgraded-at record lies an hour in the past of the next syncs. The member does what any member moved does:
// its etcd is stopped, its new image pulled (30 seconds), then it serves the new version. Nothing failed: the
// upgrade must not be failed at once on the record's age (it is not the member's time on the new version).
import t from 'tap';
import { images, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';
const PULLING = {
  containerStatuses: [
    { name: 'etcd', image: ON, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
  ],
};

for (const behind of [0, 3600]) {
  t.test(
    `a member moved by a clock ${behind} s behind, pulling its image then serving: no failed upgrade`,
    async (t) => {
      const loop = await running({ size: 3 });
      const { moved, i } = await upgradeFirst(loop, -behind * 1000);
      t.ok(moved, `a member is upgraded in place: ${moved}`);
      const at = FIXED_NOW.getTime() + (i - 1) * 60_000;
      // Its new image is pulled for 30 seconds (syncs 5 seconds apart, by the right clock), then it serves 3.5.1.
      loop.etcd.up.delete(moved!);
      loop.podStatus.set(moved!, PULLING);
      for (let s = 5; s <= 30; s += 5) {
        loop.now = new Date(at + s * 1000);
        await loop.step();
        t.notOk(loop.s().upgradeFailed, `${s} s after the move, its image pulled: no failed upgrade`);
        if (s === 5) t.comment(JSON.stringify(loop.s().upgradeFailed));
      }
      loop.etcd.up.add(moved!);
      loop.podStatus.set(moved!, {
        containerStatuses: [{ name: 'etcd', image: ON, restartCount: 0, state: { running: {} } }],
      });
      for (let s = 35; s <= 60; s += 5) {
        loop.now = new Date(at + s * 1000);
        await loop.step();
      }
      t.notOk(loop.s().upgradeFailed, 'it serves 3.5.1: no failed upgrade');
      t.equal(images(loop)[moved!], ON, 'it runs 3.5.1');
    },
  );
}
