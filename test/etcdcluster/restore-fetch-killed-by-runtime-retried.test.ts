// Issue 30.5 past the restore's point of no return, against the restarts the issue names (a container-runtime
// restart). Restored member pods run with restartPolicy Always: the kubelet runs an init step again when it ends.
// A fetch-snapshot step killed under it (the container runtime restarted: the kubelet reports the container it lost
// as ContainerStatusUnknown, exit code 137, and starts the step again; a node-pressure kill: 137 or 143 without a
// message) proves nothing against the snapshot, which the check fetched and verified minutes before. The hook reads
// any non-zero exit without a transient S3 reason as a failed restore: RestoreFailed, every restored member dropped,
// the old ones gone since the check passed, nothing started until a new EtcdRestore. Each answer fed back as the
// next observed state.
import t from 'tap';
import { restoreStarted, running } from '../fixtures/etcd-loop.js';
import { backingOff, initSteps, RESTORE_WAITING } from '../fixtures/restore-steps.js';

const KILLED = {
  'a container-runtime restart (ContainerStatusUnknown)': {
    exitCode: 137,
    reason: 'ContainerStatusUnknown',
    message: 'The container could not be located when the pod was terminated',
  },
  'a SIGTERM from the node (143)': { exitCode: 143, reason: 'Error' },
};

for (const [how, terminated] of Object.entries(KILLED))
  t.test(`a restored member whose fetch step was killed by ${how} and runs again: the restore goes on`, async (t) => {
    const loop = await running({ size: 3 });
    await restoreStarted(loop);
    t.equal(loop.s().restore.phase, 'Restoring');
    const restored = loop.pods();
    // e-3's fetch step was killed; the kubelet starts it again after its back-off (the step waits meanwhile).
    loop.podStatus.set('e-3', initSteps(backingOff('fetch-snapshot', 1, terminated), RESTORE_WAITING));
    await loop.step();
    t.comment(`restore ${JSON.stringify(loop.s().restore)}`);
    t.equal(loop.s().restore.phase, 'Restoring', 'still restoring: the kubelet fetches again');
    t.same(loop.pods(), restored, 'the restored members are kept');
  });
