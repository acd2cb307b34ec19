// Issue 30.5, a slow S3: a restore's check reads the whole snapshot before any member is dropped. Once the check's
// container runs (its image pulled, its pod scheduled, its Secret found), it is fetching: a large snapshot (etcd
// allows 8 GiB) through a slow S3 (an on-premises store over a WAN link) takes longer than RESTORE_CHECK_SECONDS.
// The restored members' own fetch of the same bytes is spared while it runs (RESTORE_STEP_SECONDS, "a large snapshot
// through a slow S3"); a check at work is no evidence against the restore either. Refusing it at ten minutes makes
// such a snapshot impossible to restore, whatever the user does: every EtcdRestore is refused the same way.
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { rfc3339 } from '../../lib/index.js';
import {
  checkFetchSeen,
  checkVerdict,
  RESTORE_CHECK_SECONDS,
  RESTORE_STEP_SECONDS,
} from '../../hooks/etcdcluster/restore.js';
import { restoreObject, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);

t.test('a check still fetching a large snapshot at the check deadline is not refused', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  t.equal(loop.s().restore.phase, 'Checking');
  t.ok(loop.checkPod(), 'the check pod is asked for');
  // Its container started a minute later and reads the snapshot since.
  const started = later(60).toISOString();
  loop.podStatus.set('e-restore-check', {
    phase: 'Running',
    containerStatuses: [{ name: 'check', restartCount: 0, state: { running: { startedAt: started } } }],
  });
  for (const at of [RESTORE_CHECK_SECONDS - 1, RESTORE_CHECK_SECONDS + 1, RESTORE_CHECK_SECONDS + 600]) {
    loop.now = later(at);
    await loop.step();
    t.equal(loop.s().restore.phase, 'Checking', `${at} s after it began, fetching for ${at - 60} s: still checked`);
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the cluster untouched meanwhile');
  }
  t.ok(RESTORE_CHECK_SECONDS + 600 < RESTORE_STEP_SECONDS, 'well within what a restored member may fetch for');
  // The check passes: the restore goes ahead.
  loop.check = { succeeded: true };
  loop.podStatus.delete('e-restore-check');
  loop.now = later(RESTORE_CHECK_SECONDS + 700);
  await loop.step();
  t.equal(loop.s().restore.phase, 'Replacing', 'the snapshot checked: the restore goes ahead');
});

t.test(
  'a running check is spared for RESTORE_STEP_SECONDS from when the hook first saw it run, and no longer',
  async (t) => {
    const since = FIXED_NOW.toISOString();
    const runningSince = (startedAt: unknown) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'e-restore-check', uid: 'check-uid' },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'other', state: { running: { startedAt: since } } },
          { name: 'check', containerID: 'containerd://c1', restartCount: 0, state: { running: { startedAt } } },
        ],
      },
    });
    const id = 'check-uid|containerd://c1|0';
    const seen = { id, seen: later(120).toISOString() };
    const limit = 120 + RESTORE_STEP_SECONDS;
    // The start its node stamped is not read: whatever it says (behind, ahead, unreadable), the hook's sight counts.
    for (const startedAt of [later(120).toISOString(), later(-86400).toISOString(), later(86400).toISOString(), 'x']) {
      t.same(
        checkVerdict(runningSince(startedAt), since, later(limit), seen),
        { state: 'waiting' },
        `started ${startedAt}, at its limit: still fetching`,
      );
      t.same(
        checkVerdict(runningSince(startedAt), since, later(limit + 1), seen),
        {
          state: 'failed',
          reason: `the snapshot check was still fetching the snapshot ${RESTORE_STEP_SECONDS / 60} minutes after its container was first seen running`,
        },
        `started ${startedAt}, past it: refused, saying so`,
      );
    }
    // Another container (a check pod made again, or its container started again) is not the one seen: its own sight
    // starts now; still bounded from the check's own start.
    const cap = RESTORE_CHECK_SECONDS + RESTORE_STEP_SECONDS;
    const other = { id: 'old-uid|containerd://c0|0', seen: later(60).toISOString() };
    t.same(checkVerdict(runningSince(since), since, later(cap), other), { state: 'waiting' }, 'another: seen now');
    t.match(checkVerdict(runningSince(since), since, later(cap + 1), other), { state: 'failed' }, 'capped');
    t.same(checkFetchSeen(runningSince(since), other, since, later(300)), { id, seen: rfc3339(later(300)) });
    t.same(checkFetchSeen(runningSince(since), seen, since, later(300)), seen, 'the same container keeps its sight');
    // A sight recorded ahead of now reads as now; one before the check began is not known: now.
    const ahead = { id, seen: later(86400).toISOString() };
    t.same(checkFetchSeen(runningSince(since), ahead, since, later(300)), { id, seen: rfc3339(later(300)) });
    const before = { id, seen: later(-60).toISOString() };
    t.same(checkFetchSeen(runningSince(since), before, since, later(300)), { id, seen: rfc3339(later(300)) });
    // Only the check container running counts (another container running is not the fetch).
    const waiting = runningSince(since);
    (waiting.status.containerStatuses[1] as any).state = { waiting: { reason: 'ContainerCreating' } };
    t.same(checkVerdict(waiting, since, later(RESTORE_CHECK_SECONDS + 1), seen), {
      state: 'failed',
      reason: 'the snapshot check did not finish within 10 minutes (check: ContainerCreating)',
    });
    t.equal(checkFetchSeen(waiting, seen, since, later(300)), undefined, 'nothing runs: no sight');
  },
);

t.test('a check at work on a node whose clock runs behind is not refused at the check deadline', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  t.equal(loop.s().restore.phase, 'Checking');
  // Its container starts a minute later; its node's clock is two hours behind.
  loop.now = later(60);
  loop.podStatus.set('e-restore-check', {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'check',
        containerID: 'containerd://c1',
        restartCount: 0,
        state: { running: { startedAt: later(60 - 7200).toISOString() } },
      },
    ],
  });
  await loop.step();
  for (const at of [RESTORE_CHECK_SECONDS + 1, RESTORE_CHECK_SECONDS + 600]) {
    loop.now = later(at);
    await loop.step();
    t.equal(loop.s().restore.phase, 'Checking', `${at} s after it began, fetching since 60 s: still checked`);
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the cluster untouched meanwhile');
  }
  // A hung fetch is still bounded: RESTORE_STEP_SECONDS from when the hook first saw it run.
  loop.now = later(60 + RESTORE_STEP_SECONDS + 30);
  await loop.step();
  t.match(loop.s().restore, { phase: 'Failed', refused: true }, 'past its limit: refused');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the cluster untouched');
});
