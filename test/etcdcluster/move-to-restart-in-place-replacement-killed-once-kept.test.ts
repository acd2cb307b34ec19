// Issue 30.1: the replacement added (a learner) to move a member made with restartPolicy Never to restart in place is
// a new member like any other: killed once while it catches up (its memory limit reached while it receives the
// leader's snapshot), the kubelet restarts it in place after its back-off (10 s, the etcd container waiting
// CrashLoopBackOff meanwhile) and it then serves. It is kept, the move goes on, and no failed addition is recorded:
// an exit cancels a new member only once it has lasted 20 s (pods.ts exitLasted, the upgrade's rule). Each answer
// fed back as the next observed state.
import t from 'tap';
import { CRASHING, OOM_KILLED, running, STARTING } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const SERVING_AFTER_KILL = {
  containerStatuses: [
    {
      name: 'etcd',
      restartCount: 1,
      state: { running: {} },
      lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
    },
  ],
};

async function moving() {
  const loop = await running({ size: 3 });
  for (const p of loop.children.filter((c) => c.kind === 'Pod')) (p as any).spec.restartPolicy = 'Never';
  let s = 0;
  const tick = async () => {
    s += 5;
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    await loop.step();
  };
  for (let k = 0; k < 6 && !loop.pods().includes('e-3'); k++) await tick();
  return { loop, tick };
}

t.test('the replacement of a move killed once, then serving, is kept and the move goes on', async (t) => {
  const { loop, tick } = await moving();
  t.ok(loop.pods().includes('e-3'), `a replacement is made: ${loop.pods().join(', ')}`);
  t.same(loop.etcd.calls, ['add e-3'], 'added first, as a learner');
  loop.podStatus.set('e-3', STARTING);
  await tick();
  loop.podStatus.set('e-3', OOM_KILLED); // one sync sees the kubelet's back-off
  await tick();
  loop.podStatus.set('e-3', SERVING_AFTER_KILL);
  loop.etcd.up.add('e-3');
  for (let k = 0; k < 4; k++) await tick();
  t.comment(`calls ${JSON.stringify(loop.etcd.calls)}; pods ${loop.pods().join(', ')}`);
  t.notOk(loop.etcd.calls.includes('remove 100'), 'the replacement is never removed');
  t.ok(loop.etcd.calls.includes('promote 100'), 'it is promoted once it caught up');
  t.ok(loop.pods().includes('e-3'), 'its pod is kept');
  t.notOk(loop.s().additionsFailed, 'no failed addition recorded for one exit');
});

t.test('the replacement of a move whose etcd stays exited is cancelled once that lasts 20 s', async (t) => {
  const { loop, tick } = await moving();
  loop.podStatus.set('e-3', CRASHING);
  await tick(); // first seen exited: its clock starts
  await tick(); // 5 s
  await tick(); // 10 s
  await tick(); // 15 s
  t.same(loop.etcd.calls, ['add e-3'], 'not cancelled within 20 s of the first exit seen');
  await tick(); // 20 s
  t.same(loop.etcd.calls, ['add e-3', 'remove 100'], 'cancelled once the exit has lasted 20 s');
  t.match(loop.s().additionsFailed, { members: ['e-3'] }, 'counted as a failed addition');
});
