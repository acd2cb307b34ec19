// Issue 30.5, a slow S3: a restore's check reads the whole snapshot before any member is dropped. Once the check's
// container runs (its image pulled, its pod scheduled, its Secret found), it is fetching: a large snapshot (etcd
// allows 8 GiB) through a slow S3 (an on-premises store over a WAN link) takes longer than RESTORE_CHECK_SECONDS.
// The restored members' own fetch of the same bytes is spared while it runs (RESTORE_STEP_SECONDS, "a large snapshot
// through a slow S3"); a check at work is no evidence against the restore either. Refusing it at ten minutes makes
// such a snapshot impossible to restore, whatever the user does: every EtcdRestore is refused the same way.
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { checkVerdict, RESTORE_CHECK_SECONDS, RESTORE_STEP_SECONDS } from '../../hooks/etcdcluster/restore.js';
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

t.test('a running check is spared for RESTORE_STEP_SECONDS from its start, and no longer', async (t) => {
  const since = FIXED_NOW.toISOString();
  const runningSince = (startedAt: unknown) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'e-restore-check' },
    status: {
      phase: 'Running',
      containerStatuses: [
        { name: 'other', state: { running: { startedAt: since } } },
        { name: 'check', state: { running: { startedAt } } },
      ],
    },
  });
  const started = later(120).toISOString();
  const limit = 120 + RESTORE_STEP_SECONDS;
  t.same(
    checkVerdict(runningSince(started), since, later(limit)),
    { state: 'waiting' },
    'at its limit: still fetching',
  );
  t.same(
    checkVerdict(runningSince(started), since, later(limit + 1)),
    {
      state: 'failed',
      reason: `the snapshot check was still fetching the snapshot ${RESTORE_STEP_SECONDS / 60} minutes after its container started`,
    },
    'past it: refused, saying so',
  );
  // A node whose clock runs ahead reports a start in the future: the check is still bounded from its own start.
  const ahead = later(10 * 365 * 86400).toISOString();
  const cap = RESTORE_CHECK_SECONDS + RESTORE_STEP_SECONDS;
  t.same(checkVerdict(runningSince(ahead), since, later(cap)), { state: 'waiting' }, 'within the cap');
  t.match(checkVerdict(runningSince(ahead), since, later(cap + 1)), { state: 'failed' }, 'a start ahead: capped');
  // Only the check container's start counts (another container running is not the fetch), and only a real date.
  const other = runningSince(started);
  (other.status.containerStatuses[1] as any).state = { waiting: { reason: 'ContainerCreating' } };
  t.same(checkVerdict(other, since, later(RESTORE_CHECK_SECONDS + 1)), {
    state: 'failed',
    reason: 'the snapshot check did not finish within 10 minutes (check: ContainerCreating)',
  });
  for (const bad of [undefined, 'yesterday', 12])
    t.match(checkVerdict(runningSince(bad), since, later(RESTORE_CHECK_SECONDS + 1)), { state: 'failed' }, String(bad));
});
