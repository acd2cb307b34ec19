// Issue 30.5 past the restore's point of no return: a restored member's restore step killed under it (a container
// runtime restart, a node's SIGTERM, an OOM kill) is run again by the kubelet and does not end the restore
// (restore-fetch-killed-by-runtime-retried.test.ts). It may not wait for ever: a step killed at every run ends the
// restore at its deadline (RESTORE_SECONDS), naming the step and its last exit. A run that ended with the CLI's own
// verdict is no kill, whatever its exit code; under restartPolicy Never nothing runs it again. Each answer fed back
// as the next observed state.
import t from 'tap';
import { RESTORE_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { restoreStarted, running } from '../fixtures/etcd-loop.js';
import { backingOff, fetchEndedUnderNever, initSteps } from '../fixtures/restore-steps.js';

const killedAgain = (terminated: Record<string, unknown>, step = 'fetch-snapshot') =>
  initSteps(backingOff(step, 5, terminated));

t.test('a restore step killed at every run ends the restore at its deadline, naming its last exit', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  loop.podStatus.set('e-3', killedAgain({ exitCode: 137, reason: 'OOMKilled' }));
  await loop.step();
  t.equal(loop.s().restore.phase, 'Restoring', 'an OOM kill: the kubelet runs the step again');
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members kept');
  loop.now = new Date(loop.now.getTime() + (RESTORE_SECONDS + 1) * 1000);
  await loop.step();
  t.match(
    loop.s().restore,
    {
      phase: 'Failed',
      reason: /did not serve within 15 minutes \(e-3: fetch-snapshot: CrashLoopBackOff \(last exit 137 OOMKilled\)/,
    },
    'at the deadline it ends, naming the step and how it last ended',
  );
});

t.test('the restore step (etcdutl) killed by a SIGTERM is run again too', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  loop.podStatus.set('e-4', killedAgain({ exitCode: 143, reason: 'Error' }, 'restore-snapshot'));
  await loop.step();
  t.equal(loop.s().restore.phase, 'Restoring');
});

t.test("a run that ended with the CLI's own verdict is a failure, whatever its exit code", async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  loop.podStatus.set(
    'e-3',
    killedAgain({
      exitCode: 137,
      reason: 'Error',
      message: JSON.stringify({ succeeded: false, reason: 'AccessDenied: Access Denied' }),
    }),
  );
  await loop.step();
  t.match(loop.s().restore, { phase: 'Failed', reason: 'fetch-snapshot: AccessDenied: Access Denied' });
});

t.test('under restartPolicy Never a killed step is not run again: the restore ends', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  fetchEndedUnderNever(loop, 'e-5', {
    exitCode: 137,
    reason: 'ContainerStatusUnknown',
    message: 'The container could not be located',
  });
  await loop.step();
  t.match(loop.s().restore, { phase: 'Failed', reason: /^fetch-snapshot: / });
});
