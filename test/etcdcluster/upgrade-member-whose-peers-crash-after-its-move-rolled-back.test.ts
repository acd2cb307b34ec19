// A failed upgrade stops (issue 30.4). A version can fail by what it does to the others: a member moved to it sends
// the old members something they crash on (a request type, a raft entry the last good version cannot apply), and
// they keep exiting on the version they ran, from the moment the moved member joins them as the new version. The
// hook takes the others' outage as no evidence against the version moved to (upgrade.ts othersOutage: the moved
// member's clocks are paused while the others are down), and never moves members that crash on the version they
// ran: so the moved member is never given the last good version back, and the cluster stays without quorum for
// good (after 10 minutes said MajorityCrashLooping, whose message names the volume, resources or image and offers
// a restore, never the upgrade; no Upgrading condition at all), though putting the one moved member back on 3.5.0
// (in place, on its data) is all it takes. The others' outage for a few minutes is no failed upgrade
// (upgrade-not-failed-by-others-outage.test.ts: 8 minutes); one that began with the move and lasts until the hook
// itself says the quorum will not come back (MajorityCrashLooping) is: the member moved goes back to the last good
// version within the hour. Each answer is fed back as the next observed state.
import t from 'tap';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import { CRASHING, images, running, upgradeFirst, type Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (loop: Loop, type: string) => loop.s().conditions.find((c: any) => c.type === type);

t.test('the members not moved crash from the moved one’s first minute on: the moved member goes back', async (t) => {
  const loop = await running({ size: 3 });
  const { moved, i } = await upgradeFirst(loop);
  t.ok(moved, `a member is moved to 3.5.1: ${moved}`);
  const others = ['e-0', 'e-1', 'e-2'].filter((p) => p !== moved);
  // It serves 3.5.1 for a minute, then the two others crash on 3.5.0 at every start (what it sends them) and no
  // member serves (no quorum); its own etcd keeps running.
  loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
  await loop.step();
  for (const p of others) loop.podStatus.set(p, CRASHING);
  loop.etcd.up.clear();
  loop.etcd.listError = new EtcdError('no etcd endpoint answered', 'Unreachable');
  let given = -1;
  for (let m = i + 1; m < i + 60; m++) {
    loop.now = new Date(FIXED_NOW.getTime() + m * 60_000);
    await loop.step();
    if (images(loop)[moved!] === 'quay.io/coreos/etcd:v3.5.0' && given < 0) given = m - i;
    if (given >= 0) break;
  }
  t.comment(
    `Upgrading ${JSON.stringify(condition(loop, 'Upgrading'))}; Available ${JSON.stringify(condition(loop, 'Available'))}`,
  );
  t.comment(
    `images ${JSON.stringify(images(loop))}; moved pod annotations ${JSON.stringify(loop.children.find((c) => c.metadata.name === moved)?.metadata.annotations)}`,
  );
  t.ok(given >= 0, `${moved} is given 3.5.0 back within the hour (after ${given} min)`);
  t.match(condition(loop, 'Upgrading'), { status: 'False', reason: 'UpgradeFailed' }, 'the upgrade is failed');
});
