// A bootstrap whose pod admission refuses (Pod Security, a quota) never makes a member: its ordinal carries no member
// ID, so a status read before the hook's last write (Metacontroller's cache behind, or status lost) starts the same
// bootstrap again under the same name, not under a new ordinal at every such read. The headless Service keeps only
// ordinals of members seen to exist (docs/etcdcluster.md). Each answer fed back as the next observed state, the
// refused pod never observed.
import t from 'tap';
import { FakeEtcd, Loop } from '../fixtures/etcd-loop.js';

t.test('a bootstrap whose pod is refused keeps its name when the status is read stale', async (t) => {
  const loop = new Loop({ size: 1 }, new FakeEtcd());
  await loop.step();
  t.same(loop.pods(), ['e-0'], 'the bootstrap answers e-0');
  for (let i = 0; i < 3; i++) {
    loop.lose('e-0'); // admission refused it: Metacontroller never observes it
    loop.status = undefined; // the status read is one from before the hook's last write
    await loop.step();
    t.same(loop.pods(), ['e-0'], `read ${i + 1}: still e-0, no new ordinal`);
    t.equal(loop.s().lastMemberIndex, 0, 'lastMemberIndex 0');
  }
});

t.test('a member seen to exist keeps its ordinal past a lost status', async (t) => {
  const loop = new Loop({ size: 1 }, new FakeEtcd());
  await loop.step();
  await loop.step(); // e-0 observed
  loop.lose('e-0');
  loop.status = undefined;
  await loop.step();
  t.notOk(loop.pods().includes('e-0'), `a member that existed is not made again under its name (${loop.pods()})`);
});
