// A failed upgrade stops (issue 30.4) with the cluster at full strength, and the soak (UPGRADE_SOAK_SECONDS) keeps a
// version whose etcd serves a while and then exits on one member: "the next member is moved only once the one
// upgraded has served the new version steadily" (docs/etcdcluster.md). One change of the spec asks for both a new
// version and more members (one GitOps commit: 3.5.0 -> 3.5.1, size 3 -> 5). The members added come first
// (scaleUp before upgrade), made from the target spec: two members on 3.5.1 that nothing has soaked. They are not
// moved in place, so they carry no move records and are never held to the soak: the next sync moves a member on
// 3.5.0 to 3.5.1 at once. Three of five members then run a version that exits on a request its clients send every
// minute (the docs' own example), and its first such request takes three of five down: quorum lost.
// Each answer is fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { images, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { CrashLoop } from '../fixtures/upgrade-crash-loop.js';

const OLD = 'quay.io/coreos/etcd:v3.5.0';
const ON = 'quay.io/coreos/etcd:v3.5.1';
const STEP_MS = 5_000;
/** The request that makes etcd 3.5.1 exit comes every minute (`ms` after the change), half a minute past. */
const requestAt = (ms: number) => ms % 60_000 === 30_000;

t.test('a new version and more members asked at once: no more than one member on a version not soaked', async (t) => {
  const loop = await running({ size: 3 });
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1', size: 5 };
  const crash = new CrashLoop((now) => requestAt(now - FIXED_NOW.getTime()));
  const lost: string[] = [];
  let mostOnNewBeforeFailed = 0;
  for (let k = 0; k < 120; k++) {
    const now = FIXED_NOW.getTime() + k * STEP_MS;
    loop.now = new Date(now);
    crash.members(loop, now, (img) => img === ON);
    // (Learners count for no quorum: the voters are what must keep one.)
    const voters = loop.etcd.members.filter((m) => !m.isLearner).map((m) => m.name || '');
    const votersUp = voters.filter((n) => loop.etcd.up.has(n)).length;
    if (votersUp < Math.floor(voters.length / 2) + 1)
      lost.push(`${(k * STEP_MS) / 1000} s (${votersUp} of ${voters.length})`);
    await loop.step();
    const onNew = Object.values(images(loop)).filter((x) => x === ON).length;
    if (!loop.s().upgradeFailed) mostOnNewBeforeFailed = Math.max(mostOnNewBeforeFailed, onNew);
  }
  t.comment(`quorum lost at ${lost.join(', ')}; calls ${loop.etcd.calls.join(', ')}`);
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  t.same(lost, [], 'quorum never lost to members on a version whose etcd exits');
  t.ok(
    mostOnNewBeforeFailed <= 1,
    `no second member on 3.5.1 before one on it soaked (${mostOnNewBeforeFailed} members on it)`,
  );
  t.match(loop.s().upgradeFailed, { version: '3.5.1', from: '3.5.0' }, 'the upgrade is failed');
  t.equal(loop.etcd.members.length, 5, 'the cluster grew to five members');
  t.same(Object.values(images(loop)), Array(5).fill(OLD), 'every member on 3.5.0');
});
