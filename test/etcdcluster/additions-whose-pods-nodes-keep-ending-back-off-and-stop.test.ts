// New members whose pods their nodes end before their etcd runs (refused at admission, evicted) are no failed
// additions (additions.ts), but nodes that end them for ever must not have members added without end: the next is
// added only after a back-off (10 s, doubled each time, at most 5 minutes), and after MAX_ENDED_ADDITIONS in a row
// no member is added until the user acts (Scaling=False ScaleUpFailed naming the node's reason), the running
// members kept. A change of the spec (the user fixed the nodes or the resources) starts afresh. Each answer is fed back as the next observed state.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { MAX_ENDED_ADDITIONS } from '../../hooks/etcdcluster/additions.js';

const HEALTHY = ['e-0', 'e-1', 'e-2'];

t.test('nodes that reject every new member for ever: additions back off, then stop', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, size: 4 };
  const made = new Set<string>();
  const endAll = () => {
    for (const p of loop.pods())
      if (!HEALTHY.includes(p)) {
        made.add(p);
        loop.podStatus.set(p, { phase: 'Failed', reason: 'OutOfcpu', message: 'Pod was rejected: OutOfcpu' });
      }
  };
  let s = 0;
  for (; s <= 600; s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    endAll();
    await loop.step();
  }
  // Without a back-off a member would be added every other sync (60 in ten minutes).
  t.ok(made.size <= 7, `members added in ten minutes: ${made.size}`);
  const scaling = () => (loop.s().conditions as any[]).find((c) => c.type === 'Scaling');
  t.notMatch(scaling(), { reason: 'ScaleUpFailed' }, 'not stopped within ten minutes');
  for (; s <= 7200; s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    endAll();
    await loop.step();
  }
  t.equal(made.size, MAX_ENDED_ADDITIONS, 'no member added past the limit');
  t.match(scaling(), {
    status: 'False',
    reason: 'ScaleUpFailed',
    message: /nodes ended the pods of 8 new members.*OutOfcpu/,
  });
  t.equal(loop.etcd.members.length, 3, 'the running members kept');
  // The user changes the spec: additions start afresh, and the cluster grows once the nodes take the pod.
  loop.spec = { ...loop.spec, pod: { labels: { fixed: 'yes' } } };
  for (s += 5; s <= 8000 && loop.etcd.members.filter((m) => !m.isLearner).length < 4; s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    for (const p of loop.pods()) if (!HEALTHY.includes(p) && !made.has(p)) loop.etcd.up.add(p);
    await loop.step();
  }
  t.equal(loop.etcd.members.filter((m) => !m.isLearner).length, 4, 'the cluster reaches its size after the change');
  const at = (loop.s().additionsFailed as any)?.ended;
  t.equal(at, undefined, 'the count of ended pods goes once a member joined');
});
