// A failed upgrade stops, and `Available` (and the status as a whole) tells the truth (issue 30.4). While a member
// runs the version moved to and the others are down (quorum lost), the upgrade is still under way: one member on
// 3.5.1, the upgrade-mark `3.5.0->3.5.1` on every pod, the moved member's clocks paused. The status drops every
// word of it: no Upgrading condition, no targetVersion, only QuorumLost (and after 10 minutes MajorityCrashLooping,
// whose way out names the volume, resources, the image, or a restore). Whoever reads the status to decide what to do
// about a lost quorum is not told that one member was just moved to another version, the first thing to roll back.
// Expected: while the upgrade is under way the status keeps saying so (Upgrading, naming the member moved and the
// version, whatever its status; targetVersion 3.5.1). Each answer is fed back as the next observed state.
import t from 'tap';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import { CRASHING, images, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('the members not moved down mid-upgrade: the status still says a member was moved to 3.5.1', async (t) => {
  const loop = await running({ size: 3 });
  const { moved, i } = await upgradeFirst(loop);
  t.ok(moved, `a member is moved to 3.5.1: ${moved}`);
  loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
  await loop.step();
  const before = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
  t.match(before, { status: 'True' }, 'Upgrading says the upgrade is under way while quorum is kept');
  t.equal(loop.s().targetVersion, '3.5.1', 'targetVersion 3.5.1 while quorum is kept');
  // The two others go down (their etcd exits at every start); no member serves.
  for (const p of ['e-0', 'e-1', 'e-2'].filter((p) => p !== moved)) loop.podStatus.set(p, CRASHING);
  loop.etcd.up.clear();
  loop.etcd.listError = new EtcdError('no etcd endpoint answered', 'Unreachable');
  for (let m = i + 1; m <= i + 3; m++) {
    loop.now = new Date(FIXED_NOW.getTime() + m * 60_000);
    await loop.step();
    t.equal(images(loop)[moved!], 'quay.io/coreos/etcd:v3.5.1', `minute ${m}: ${moved} still runs 3.5.1`);
    const upgrading = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
    t.ok(upgrading, `minute ${m}: an Upgrading condition (${JSON.stringify(upgrading)})`);
    t.match(
      upgrading?.message ?? '',
      new RegExp(`${moved}.*3\\.5\\.1|3\\.5\\.1.*${moved}`),
      'naming the member moved and the version',
    );
    t.equal(loop.s().targetVersion, '3.5.1', `minute ${m}: targetVersion 3.5.1`);
  }
});
