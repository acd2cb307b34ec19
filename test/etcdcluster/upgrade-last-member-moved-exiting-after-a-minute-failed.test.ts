// A failed upgrade stops (issue 30.4), also when the member that fails is the last one moved: the rollout keeps the
// last good version recorded (the upgrade-mark on every member pod, the move on the member) until that member has
// soaked (UPGRADE_SOAK_SECONDS), not only until it served a few seconds. An upgrade of three members to a version
// whose etcd exits a minute after each start on one member only (the leader, moved last: a code path only the leader
// runs, a lease revocation or a compaction it schedules): the two moved first serve it, the last one exits again and
// again. Its exits are the version's failure: the upgrade is failed, that member back on 3.5.0 in place, quorum kept.
import t from 'tap';
import { images, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { CrashLoop, servingMember } from '../fixtures/upgrade-crash-loop.js';

const OLD = 'quay.io/coreos/etcd:v3.5.0';
const ON = 'quay.io/coreos/etcd:v3.5.1';
/** How long etcd 3.5.1 serves on the member moved last after each start before it exits. */
const SERVES_MS = 60_000;
const STEP_MS = 5_000;

t.test('the last member moved exits a minute after each start: upgrade failed, it is back on 3.5.0', async (t) => {
  const loop = await running({ size: 3 });
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  const order: string[] = [];
  const crash = new CrashLoop((now, since) => now - since >= SERVES_MS);
  const lost: number[] = [];
  let afterLastMove: { reason?: string; marks: Array<string | undefined> } | undefined;
  for (let k = 0; k < 480; k++) {
    const now = FIXED_NOW.getTime() + k * STEP_MS;
    loop.now = new Date(now);
    let serving = 0;
    for (const [pod, img] of Object.entries(images(loop))) {
      if (img === ON && !order.includes(pod)) order.push(pod);
      const crashes = img === ON && order.length === 3 && pod === order[2];
      if (!crashes) {
        servingMember(loop, pod, img, crash.state.get(pod)?.restarts ?? 0);
        serving++;
      } else if (crash.step(loop, pod, ON, now)) serving++;
    }
    if (serving < 2) lost.push(k);
    await loop.step();
    // The sync after the last move, before its first exit: the rollout is not done while that member soaks.
    if (order.length === 3 && crash.exits === 0 && !afterLastMove) {
      const upgrading = loop.s().conditions?.find((c: { type: string }) => c.type === 'Upgrading');
      const marks = loop.children
        .filter((c) => c.kind === 'Pod')
        .map((p) => p.metadata.annotations?.['etcd.metaops.io/upgrade']);
      afterLastMove = { reason: upgrading?.reason, marks };
    }
  }
  const last = order[2];
  t.comment(`moved in order ${order.join(', ')}; ${crash.exits} exits of ${last}`);
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  t.equal(order.length, 3, 'every member was moved');
  t.ok(crash.exits > 0, 'the member moved last exited on 3.5.1');
  t.match(afterLastMove, { reason: 'WaitingForMember' }, 'while the member moved last soaks the rollout is under way');
  t.same(afterLastMove?.marks, Array(3).fill('3.5.0->3.5.1'), 'the last good version kept on every member pod');
  t.same(lost, [], 'quorum never lost');
  t.match(loop.s().upgradeFailed, { version: '3.5.1', from: '3.5.0', member: last }, 'the upgrade is failed');
  t.equal(images(loop)[last!], OLD, 'the member moved last is back on 3.5.0');
  const upgrading = loop.s().conditions?.find((c: { type: string }) => c.type === 'Upgrading');
  t.match(upgrading, { status: 'False', reason: 'UpgradeFailed' }, 'Upgrading says the upgrade failed');
});
