// Issue 30: "Members restart in place: a crashed member comes back as itself with its data ... remove + replace only
// for pods that are gone or stay unhealthy past the stated limit". A member just added (the replacement of a lost
// member, a learner catching up) whose etcd is killed once (its memory limit reached while it receives the leader's
// snapshot, a container-runtime restart) is restarted in place by the kubelet, which reports the etcd container
// waiting `CrashLoopBackOff` for the back-off (10 s) before it starts it again; the member then catches up and
// serves. The upgrade has this guard (an exit fails it only once its exits have lasted 20 s:
// upgrade-member-killed-once-then-serving-not-failed.test.ts); an addition has none: the one exit seen during the
// back-off cancels it at once (removed from etcd, its pod deleted) and records a failed addition, of which three stop
// additions (ScaleUpFailed) until a person acts.
// Must hold: one exit of a new member that then starts and serves is no failed addition: it is not removed, its pod
// is kept, nothing recorded. Each answer fed back as the next observed state.
import t from 'tap';
import { OOM_KILLED, running, STARTING } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('the replacement of a lost member killed once, then serving, is kept as the member it is', async (t) => {
  const loop = await running({ size: 3 });
  loop.lose('e-1');
  let s = 0;
  const tick = async () => {
    s += 5;
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    await loop.step();
  };
  // The lost member is removed and its replacement added (a learner), its pod made.
  for (let k = 0; k < 6 && !loop.pods().includes('e-3'); k++) await tick();
  t.ok(loop.pods().includes('e-3'), `a replacement is made: ${loop.pods().join(', ')}`);
  t.same(loop.etcd.calls, ['remove 2', 'add e-3'], 'the lost member removed, the new one added');
  loop.podStatus.set('e-3', STARTING);
  await tick();
  // Killed once while catching up: the kubelet's back-off, seen by one sync.
  loop.podStatus.set('e-3', OOM_KILLED);
  await tick();
  // Restarted in place: it starts, catches up and serves.
  loop.podStatus.set('e-3', {
    containerStatuses: [
      {
        name: 'etcd',
        restartCount: 1,
        state: { running: {} },
        lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
      },
    ],
  });
  loop.etcd.up.add('e-3');
  for (let k = 0; k < 10; k++) await tick();
  t.comment(`calls ${JSON.stringify(loop.etcd.calls)}; pods ${loop.pods().join(', ')}`);
  t.same(
    loop.etcd.calls.filter((c) => c.startsWith('remove ')),
    ['remove 2'],
    'the new member is never removed',
  );
  t.ok(loop.pods().includes('e-3'), 'its pod is kept: it comes back as itself');
  t.notOk(loop.s().additionsFailed, 'no failed addition recorded for one exit');
});
