// A failed upgrade stops (issue 30.4), and the soak (UPGRADE_SOAK_SECONDS) is what keeps a version whose etcd serves a
// while and then exits on one member: "the next member is moved only once the one upgraded has served the new version
// steadily" (docs/etcdcluster.md). The soak is only asked of members on the image the spec names now (plan/members.ts
// upgrade: `lagging` is looked for among the members on the target image). An upgrade to 3.5.1 moved e-1, which
// soaks; meanwhile leadership moves to e-1 (an election: the old leader's disk or network hiccups), and spec.version
// is set to 3.5.2 (the next patch release came out; a pipeline that follows releases). The rollout to 3.5.2 takes the
// members off 3.5.2 by its own order, leader last: e-1, the leader, is kept for last and e-0 is moved to 3.5.2 at
// once, while e-1 still runs a 3.5.1 nothing soaked. Both releases exit on a request the clients send every two
// minutes (a bug 3.5.2 did not fix): two of three members exit at once, quorum lost.
// Each answer is fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { images, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { CrashLoop } from '../fixtures/upgrade-crash-loop.js';

const OLD = 'quay.io/coreos/etcd:v3.5.0';
const STEP_MS = 5_000;
/** The request that makes etcd 3.5.1 and 3.5.2 exit comes every two minutes (`ms` after the upgrade started). */
const requestAt = (ms: number) => ms % 120_000 === 110_000;

t.test('a new spec.version while a member moved soaks moves no second member before it soaked', async (t) => {
  const loop = await running({ size: 3 });
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  const crash = new CrashLoop((now) => requestAt(now - FIXED_NOW.getTime()));
  const lost: number[] = [];
  let mostMovedBeforeFailed = 0;
  let moved: string | undefined;
  for (let k = 0; k < 120; k++) {
    const now = FIXED_NOW.getTime() + k * STEP_MS;
    loop.now = new Date(now);
    if (k === 12 && moved) {
      // A minute into its soak: e-1 is elected leader, and the spec asks for 3.5.2.
      const m = loop.etcd.members.find((x) => x.name === moved)!;
      loop.etcd.members = [m, ...loop.etcd.members.filter((x) => x !== m)];
      loop.spec = { ...loop.spec, version: '3.5.2' };
    }
    const serving = crash.members(loop, now, (img) => img !== OLD);
    if (serving < 2) lost.push((k * STEP_MS) / 1000);
    await loop.step();
    moved ??= Object.entries(images(loop)).find(([, img]) => img !== OLD)?.[0];
    const off = Object.values(images(loop)).filter((x) => x !== OLD).length;
    if (!loop.s().upgradeFailed) mostMovedBeforeFailed = Math.max(mostMovedBeforeFailed, off);
    if (k === 13) t.comment(`after the new version: ${JSON.stringify(images(loop))}`);
  }
  t.comment(`moved first ${moved}; quorum lost at ${lost.join(', ')} s`);
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  t.equal(moved, 'e-1', 'e-1 was moved to 3.5.1 first');
  t.ok(
    mostMovedBeforeFailed <= 1,
    `no second member off 3.5.0 before one soaked (${mostMovedBeforeFailed} members off it)`,
  );
  t.same(lost, [], 'quorum never lost to members on versions whose etcd exits');
  t.match(loop.s().upgradeFailed, { version: '3.5.2', from: '3.5.0' }, 'the upgrade is failed');
  t.same(Object.values(images(loop)), Array(3).fill(OLD), 'every member back on 3.5.0');
});
