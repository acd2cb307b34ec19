// Issue 30.5 against S3 that half-works, past the restore's point of no return. Restored member pods run with
// restartPolicy Always, so the kubelet runs a failed init step again (with a back-off). The hook ends the restore
// at the first failed run of any member's fetch step, whatever S3 said: a transient error on one of the three
// parallel GETs of the snapshot (S3's 503 SlowDown, a connection reset in the middle of the body, which the SDK does
// not retry) ends the restore RestoreFailed and drops every restored member, while the kubelet is already fetching
// again. The old members were dropped when the check passed: the cluster is left with no member, and the outcome of
// a restore depends on one request of one member. Worse, the hook reads a step's failure from lastState too
// (plan.ts failedInitStep), which the kubelet keeps for as long as the pod lives: a member whose fetch failed once
// and then succeeded on the kubelet's retry still ends the restore. Never destroy on doubt: a failure S3 itself calls transient (503,
// a reset) is no evidence against the restore; a permanent one (AccessDenied, NoSuchKey, SnapshotChanged) still is.
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { RESTORE_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { restoreStarted, running } from '../fixtures/etcd-loop.js';
import {
  backingOff,
  fetchEndedUnderNever,
  fetchFailed,
  initSteps,
  RESTORE_WAITING,
} from '../fixtures/restore-steps.js';

const FETCHING = (lastFailure?: string) =>
  initSteps(
    {
      name: 'fetch-snapshot',
      restartCount: lastFailure ? 1 : 0,
      state: { running: { startedAt: '2026-01-02T03:05:00Z' } },
      ...(lastFailure ? { lastState: { terminated: fetchFailed(lastFailure, 'Error') } } : {}),
    },
    RESTORE_WAITING,
  );

for (const transient of [
  'SlowDown: Please reduce your request rate.',
  's3://bucket/ns/snap.db: socket hang up (ECONNRESET)',
]) {
  t.test(`a restored member whose fetch failed once (${transient}) and runs again: the restore goes on`, async (t) => {
    const loop = await running({ size: 3 });
    await restoreStarted(loop);
    t.equal(loop.s().restore.phase, 'Restoring');
    const restored = loop.pods();
    t.same(restored, ['e-3', 'e-4', 'e-5']);
    // e-3's first GET failed; the kubelet runs its fetch step again (it runs now); e-4 and e-5 fetch.
    loop.podStatus.set('e-3', FETCHING(transient));
    loop.podStatus.set('e-4', FETCHING());
    loop.podStatus.set('e-5', FETCHING());
    for (let i = 0; i < 3; i++) {
      await loop.step();
      t.equal(loop.s().restore.phase, 'Restoring', `sync ${i + 1}: still restoring`);
      t.same(loop.pods(), restored, `sync ${i + 1}: the restored members kept while the kubelet fetches again`);
    }
  });
}

t.test('a restored member whose fetch failed once and then succeeded: the restore goes on', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  const restored = loop.pods();
  // e-3's first fetch failed (SlowDown), the kubelet's second one succeeded; its snapshot is being restored.
  // The kubelet keeps the first run's exit in lastState for as long as the pod lives.
  loop.podStatus.set(
    'e-3',
    initSteps(
      {
        name: 'fetch-snapshot',
        restartCount: 1,
        state: { terminated: { exitCode: 0, reason: 'Completed' } },
        lastState: { terminated: fetchFailed('SlowDown: Please reduce your request rate.', 'Error') },
      },
      { name: 'restore-snapshot', restartCount: 0, state: { running: { startedAt: '2026-01-02T03:06:00Z' } } },
    ),
  );
  loop.podStatus.set('e-4', FETCHING());
  loop.podStatus.set('e-5', FETCHING());
  await loop.step();
  t.equal(loop.s().restore.phase, 'Restoring', 'still restoring: the fetch that failed was retried and succeeded');
  t.same(loop.pods(), restored, 'the restored members kept');
});

t.test(
  'a transient fetch failure the kubelet backs off from waits for the deadline; a permanent one ends at once',
  async (t) => {
    const loop = await running({ size: 3 });
    await restoreStarted(loop);
    const fetchBackingOff = (reason: string) => initSteps(backingOff('fetch-snapshot', 2, fetchFailed(reason)));
    loop.podStatus.set('e-3', fetchBackingOff('ServiceUnavailable: Service Unavailable'));
    await loop.step();
    t.equal(loop.s().restore.phase, 'Restoring', 'a 503 in back-off: the kubelet tries again');
    t.same(loop.pods(), ['e-3', 'e-4', 'e-5']);
    loop.now = new Date(loop.now.getTime() + (RESTORE_SECONDS + 1) * 1000);
    await loop.step();
    t.match(
      loop.s().restore,
      { phase: 'Failed', reason: /did not serve within 15 minutes \(e-3: fetch-snapshot: CrashLoopBackOff/ },
      'a transient failure that never clears ends at the deadline, naming the step',
    );
    const denied = await running({ size: 3 });
    await restoreStarted(denied);
    denied.podStatus.set('e-4', fetchBackingOff('NoSuchKey: The specified key does not exist.'));
    await denied.step();
    t.match(denied.s().restore, {
      phase: 'Failed',
      reason: 'fetch-snapshot: NoSuchKey: The specified key does not exist.',
    });
    // Under restartPolicy Never nothing retries: even a transient failure ends it.
    const never = await running({ size: 3 });
    await restoreStarted(never);
    fetchEndedUnderNever(never, 'e-5', fetchFailed('SlowDown: reduce'));
    await never.step();
    t.match(never.s().restore, { phase: 'Failed', reason: 'fetch-snapshot: SlowDown: reduce' });
  },
);
