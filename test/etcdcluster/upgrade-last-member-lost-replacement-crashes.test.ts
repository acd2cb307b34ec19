// An upgrade that fails stops: the last member is upgraded in place and its pod is lost at
// that moment (node gone, no storage), so the upgrade record (etcd.metaops.io/upgraded-from) goes with it. The
// replacement member is made on the target version, where etcd exits at every start. The two upgraded members
// serve the target, so no failed upgrade is seen: the replacement is cancelled and added again, over and over,
// the cluster without fault tolerance for good — the loop issue 30.4 names. Each answer fed back as the next
// observed state.
import t from 'tap';
import { CRASHING, images, running, upgradeToLast } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test(
  'the last member lost as it is upgraded; its replacement crashes on the target: the upgrade stops',
  async (t) => {
    const loop = await running({ size: 3 });
    const original = new Set(['e-0', 'e-1', 'e-2']);
    const { last, i: next } = await upgradeToLast(loop, (last) => loop.lose(last)); // its node is gone with it
    let i = next;
    t.ok(last, `the last member moved to 3.5.1 and was lost: ${last}`);
    const adds = () => loop.etcd.calls.filter((c) => c.startsWith('add')).length;
    for (let k = 0; k < 120; k++, i++) {
      // Every new member's etcd exits at every start on 3.5.1; on 3.5.0 it starts and serves.
      for (const p of loop.pods())
        if (!original.has(p) && images(loop)[p] === 'quay.io/coreos/etcd:v3.5.1') {
          loop.etcd.up.delete(p);
          loop.podStatus.set(p, CRASHING);
        } else if (!original.has(p)) {
          loop.podStatus.delete(p);
          loop.etcd.up.add(p);
        }
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
    }
    const upgrading = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
    t.comment(
      `after 2 hours: ${adds()} member adds, calls ${loop.etcd.calls.join(' ')}; Upgrading ${JSON.stringify(upgrading)}`,
    );
    t.ok(adds() <= 2, `the failing version is not added again and again (${adds()} adds)`);
    t.match(upgrading, { status: 'False', reason: 'UpgradeFailed' }, 'the upgrade says it failed');
  },
);
