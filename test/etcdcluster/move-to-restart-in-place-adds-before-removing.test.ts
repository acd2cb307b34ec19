// Issue 30.1 for clusters made before restart in place, without storage, on etcd with learners: each member made
// with restartPolicy Never is replaced by adding its replacement first (a learner, promoted once it caught up) and
// removing it only then, so the voters never number fewer than the spec's size; a replacement that keeps exiting is
// cancelled, and after three such failures none is added (the member stays as it is, the cluster at full strength)
// until the user acts. Each answer fed back as the next observed state.
import t from 'tap';
import { CRASHING, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const voters = (loop: Awaited<ReturnType<typeof running>>) => loop.etcd.members.filter((m) => !m.isLearner).length;
const policies = (loop: Awaited<ReturnType<typeof running>>) =>
  loop.children.filter((c) => c.kind === 'Pod').map((p: any) => `${p.metadata.name}: ${p.spec.restartPolicy}`);

t.test('each member made with restartPolicy Never is replaced by a member added first', async (t) => {
  const loop = await running({ size: 3 });
  for (const p of loop.children.filter((c) => c.kind === 'Pod')) (p as any).spec.restartPolicy = 'Never';
  let fewest = voters(loop);
  for (let s = 0; s < 120; s++) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 60_000);
    for (const p of loop.pods()) loop.etcd.up.add(p); // a new member's pod starts within the minute
    await loop.step();
    fewest = Math.min(fewest, voters(loop));
  }
  t.comment(`calls ${loop.etcd.calls.join(' ')}`);
  t.same(policies(loop), ['e-3: Always', 'e-4: Always', 'e-5: Always'], 'every member restarts in place');
  t.equal(fewest, 3, 'never fewer than 3 voters: the fault tolerance of 3 members throughout');
  t.same(
    loop.etcd.calls.map((c) => c.split(' ')[0]),
    ['add', 'promote', 'remove', 'add', 'promote', 'remove', 'add', 'promote', 'remove'],
    'each move: add (a learner), promote, then remove',
  );
  t.same(
    loop.etcd.calls.filter((c) => c.startsWith('remove')).sort(),
    ['remove 1', 'remove 2', 'remove 3'],
    'only the members made with Never are removed',
  );
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Available'),
    { status: 'True', reason: 'QuorumAvailable' },
  );
});

t.test('a replacement that keeps exiting: cancelled, three times at most; the member stays', async (t) => {
  const loop = await running({ size: 3 });
  for (const p of loop.children.filter((c) => c.kind === 'Pod')) (p as any).spec.restartPolicy = 'Never';
  const original = new Set(loop.pods());
  for (let s = 0; s < 180; s++) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 60_000);
    for (const p of loop.pods()) if (!original.has(p)) loop.podStatus.set(p, CRASHING); // never starts
    await loop.step();
  }
  const adds = loop.etcd.calls.filter((c) => c.startsWith('add'));
  t.comment(`calls ${loop.etcd.calls.join(' ')}`);
  t.equal(adds.length, 3, `three replacements tried in 3 hours, then none (${adds.join(', ')})`);
  t.notOk(
    loop.etcd.calls.some((c) => ['remove 1', 'remove 2', 'remove 3'].includes(c)),
    'no member made with Never removed',
  );
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the three members stay');
  t.equal(voters(loop), 3);
  const recovering = loop.s().conditions.find((c: any) => c.type === 'Recovering');
  t.match(recovering, { status: 'False', reason: 'MoveToRestartInPlaceFailed', message: /failed 3 times/ });
  t.match(loop.s().additionsFailed, { members: adds.map((c) => c.split(' ')[1]) }, 'the failures are recorded');
});
