// docs/etcdcluster.md: "The rollout stays under way (`Upgrading=True`, `WaitingForMember`, ...) until the last member
// moved has soaked too". Members restart in place (issue 30): the member just moved to the target version is down
// for a moment (its etcd exited once, the kubelet restarts it) while the other two keep quorum. Seen on real etcd
// (the test kubelet: an image whose etcd serves ~8 s then exits): at each sync that found the moved member down the
// status had no Upgrading condition at all, and Scaling=True / WaitingForHealthy (no scaling asked: size 3, 3
// members). The upgrade is still under way; the status should say so. Each answer fed back as the next observed state.
import t from 'tap';
import { OOM_KILLED, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const cond = (loop: { s(): any }, type: string) => loop.s().conditions.find((c: any) => c.type === type);

t.test('an upgrade whose moved member is down for a moment is still said to be under way', async (t) => {
  const loop = await running({ size: 3 });
  const up = await upgradeFirst(loop);
  const moved = up.moved;
  t.ok(moved, `a member is upgraded in place: ${moved}`);
  loop.now = new Date(FIXED_NOW.getTime() + up.i * 60_000);
  await loop.step();
  t.match(cond(loop, 'Upgrading'), { status: 'True' }, 'under way while the moved member serves');
  // Its etcd exits once: down, the kubelet's back-off before the restart.
  loop.etcd.up.delete(moved!);
  loop.podStatus.set(moved!, OOM_KILLED);
  for (let k = 1; k <= 3; k++) {
    loop.now = new Date(FIXED_NOW.getTime() + up.i * 60_000 + k * 5_000);
    await loop.step();
    t.comment(JSON.stringify(loop.s().conditions.map((c: any) => [c.type, c.status, c.reason])));
    t.match(
      cond(loop, 'Upgrading'),
      { status: 'True' },
      `sync ${k} with ${moved} down: Upgrading=True (the rollout is under way)`,
    );
    t.not(cond(loop, 'Scaling')?.status, 'True', `sync ${k}: no scaling is under way (size 3, 3 members)`);
    t.notOk(loop.s().upgradeFailed, 'not failed (yet)');
  }
});
