// Issue 30.5 ("Restoring has a deadline") against a slow but working S3: the deadline (RESTORE_SECONDS, 15 minutes
// from the moment the old members were dropped) ends the restore whatever the restored members are doing. A
// snapshot the check needed 6 minutes to read whole (the check may take up to 10) is then fetched by every restored
// member at once, through the same S3 bandwidth: 3 members need about 18 minutes. At 15 minutes the hook declares
// RestoreFailed and drops the members whose fetch step is running and making progress; the old members are already
// gone, so the cluster is left with no member at all, and a new EtcdRestore of the same snapshot fails the same way
// (the deadline does not depend on the snapshot, the check's duration or the fetch's progress). The failure also
// names the wrong step ("restore-snapshot: PodInitializing", the step that waits for the fetch).
// Never destroy on doubt: a fetch step that runs is no evidence the restore failed.
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { RESTORE_SECONDS, RESTORE_STEP_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { restoreObject, restoreStarted, running } from '../fixtures/etcd-loop.js';
import { fetchRunningSince, initSteps, RESTORE_WAITING } from '../fixtures/restore-steps.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);

t.test('restored members whose fetch step is still running are not dropped at the Restoring deadline', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  // The check reads the snapshot whole: 6 minutes on this S3.
  loop.check = 'running';
  loop.now = later(0);
  await loop.step();
  loop.now = later(360);
  await loop.step();
  t.equal(loop.s().restore.phase, 'Checking', 'the check still reads the snapshot after 6 minutes');
  loop.check = { succeeded: true };
  loop.now = later(361);
  await loop.step();
  t.equal(loop.s().restore.phase, 'Replacing', 'the check passed: the old members are dropped');
  loop.etcd.members = [];
  loop.etcd.up.clear();
  const dropped = 362;
  loop.now = later(dropped);
  await loop.step();
  t.equal(loop.s().restore.phase, 'Restoring');
  const restored = loop.pods();
  t.same(restored, ['e-3', 'e-4', 'e-5'], 'the restored members start');
  // Each restored member fetches the snapshot: its fetch step runs (it started, it has not failed, it is not waiting).
  for (const p of restored)
    loop.podStatus.set(
      p,
      initSteps(
        { name: 'fetch-snapshot', restartCount: 0, state: { running: { startedAt: '2026-01-02T03:10:10Z' } } },
        RESTORE_WAITING,
      ),
    );
  for (const at of [RESTORE_SECONDS - 1, RESTORE_SECONDS + 1, RESTORE_SECONDS + 60]) {
    loop.now = later(dropped + at);
    await loop.step();
    t.not(loop.s().phase, 'Failed', `${at} s after the drop: the restore is not failed while its fetch runs`);
    t.same(loop.pods(), restored, `${at} s after the drop: the members fetching the snapshot are kept`);
  }
});

t.test('a fetch step that runs past its own limit (a hung GET) is no longer spared by the deadline', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  const since = Date.parse(loop.s().restore.since);
  fetchRunningSince(loop, since);
  loop.now = new Date(since + (RESTORE_STEP_SECONDS - 1) * 1000);
  await loop.step();
  t.equal(loop.s().restore.phase, 'Restoring', 'spared while its run is within the limit');
  loop.now = new Date(since + (RESTORE_STEP_SECONDS + 1) * 1000);
  await loop.step();
  t.match(loop.s().restore, { phase: 'Failed', reason: /did not serve within 15 minutes/ });
});
