// A failed upgrade stops (issue 30.4): a member that fails on the target version marks the upgrade failed, the
// rollout halts, and membership stays at full strength on the last good version. An upgrade of three members to a
// version whose etcd serves for a minute after each start and then exits (a panic on a request its clients send
// every minute, on a lease or compaction that comes round after startup): the kubelet restarts it with its growing
// back-off (10 s, 20 s, 40 s, ...). The rollout takes a member that served 20 s (UPGRADE_FAIL_SECONDS) for one that
// works, and moves the next: every member ends on the version whose etcd keeps exiting, quorum lost again and again.
import t from 'tap';
import { images, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { CrashLoop } from '../fixtures/upgrade-crash-loop.js';

const OLD = 'quay.io/coreos/etcd:v3.5.0';
const ON = 'quay.io/coreos/etcd:v3.5.1';
/** How long etcd 3.5.1 serves after each start before it exits. */
const SERVES_MS = 60_000;
const STEP_MS = 5_000;

t.test('a member on the new version that exits a minute after each start: rollout halted, quorum kept', async (t) => {
  const loop = await running({ size: 3 });
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  // Each member on 3.5.1: its restarts, and since when it serves (or until when it waits out its back-off).
  const crash = new CrashLoop((now, since) => now - since >= SERVES_MS);
  const lost: number[] = [];
  let mostOnNew = 0;
  const moves: string[] = [];
  for (let k = 0; k < 180; k++) {
    const now = FIXED_NOW.getTime() + k * STEP_MS;
    loop.now = new Date(now);
    const serving = crash.members(loop, now, (img) => img === ON);
    if (serving < 2) lost.push(k);
    await loop.step();
    const onNew = Object.values(images(loop)).filter((x) => x === ON).length;
    if (onNew > mostOnNew) moves.push(`${onNew} on 3.5.1 at ${(k * STEP_MS) / 1000}s`);
    mostOnNew = Math.max(mostOnNew, onNew);
  }
  t.comment(`moves: ${moves.join(', ')}; first exit at ${SERVES_MS / 1000}s after a member's start`);
  t.comment(`Available: ${JSON.stringify(loop.s().conditions?.find((c: any) => c.type === 'Available'))}`);
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  t.same(lost, [], 'quorum never lost to members on a version whose etcd keeps exiting');
  t.ok(mostOnNew <= 1, `no second member moved while the first keeps exiting (at most ${mostOnNew} on 3.5.1)`);
  t.match(loop.s().upgradeFailed, { version: '3.5.1', from: '3.5.0' }, 'the upgrade is failed');
  t.same(Object.values(images(loop)), Array(3).fill(OLD), 'every member back on 3.5.0');
});
