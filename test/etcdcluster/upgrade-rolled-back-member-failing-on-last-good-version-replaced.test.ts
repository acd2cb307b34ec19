// Issue 30.4, "a failed upgrade stops ... membership stays at full strength on the last good version". A member
// upgraded in place whose etcd exits marks the upgrade failed, and is given the image it ran back, in place. When it
// keeps exiting there too (its data damaged by the crash on the new version, or a cause that was never the
// version's: its disk, its node), the hold exempts it from replacement for as long as spec.version names the failed
// version: the cluster sits at 2 of 3, one failure from losing quorum, while the status says the member "runs 3.5.0
// again". Any other member unhealthy that long is replaced (UNHEALTHY_REPLACE_SECONDS). Each answer fed back as the
// next observed state.
import t from 'tap';
import { CRASHING, images, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test(
  'a member rolled back after a failed upgrade that keeps exiting on the version it ran is replaced',
  async (t) => {
    const loop = await running({ size: 3 });
    const up = await upgradeFirst(loop);
    const moved = up.moved;
    let i = up.i;
    t.ok(moved, `a member is upgraded in place: ${moved}`);
    const id = loop.etcd.members.find((m) => m.name === moved)?.id;
    // Its etcd exits on 3.5.1, and again on 3.5.0 once it is given that image back.
    loop.etcd.up.delete(moved!);
    loop.podStatus.set(moved!, CRASHING);
    let failed = false;
    for (let k = 0; k < 120; k++, i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
      failed ||= loop.s().upgradeFailed?.member === moved;
      // A new member starts and serves.
      for (const p of loop.pods()) if (!['e-0', 'e-1', 'e-2'].includes(p)) loop.etcd.up.add(p);
    }
    t.ok(failed, 'the upgrade was marked failed on that member');
    t.equal(images(loop)[moved!] ?? 'quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0', 'given back 3.5.0');
    const available = loop.s().conditions.find((c: any) => c.type === 'Available');
    t.comment(`after 2 hours: calls ${loop.etcd.calls.join(' ') || 'none'}; Available ${JSON.stringify(available)}`);
    t.ok(loop.etcd.calls.includes(`remove ${id}`), `the member that cannot start on the last good version is removed`);
    const healthy = loop.s().memberList.filter((m: any) => m.healthy).length;
    t.equal(healthy, 3, 'the cluster is back at full strength (3 healthy members)');
    t.match(available, { status: 'True', reason: 'QuorumAvailable' }, 'Available: every member healthy again');
  },
);
