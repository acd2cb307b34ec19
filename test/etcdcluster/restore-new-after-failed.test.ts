// A restore failed (RestoreFailed: its members dropped, none serving); the user fixes the cause and creates a new
// EtcdRestore. While the new one's snapshot is checked, the cluster's status and conditions speak of it, not of the
// previous failure: no RestoreFailed reason, no condition naming the old EtcdRestore (kubectl get/describe show the
// new restore under way). Each answer fed back as the next observed state.
import t from 'tap';
import { RESTORE_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { failedRestore, restoreObject, type Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);

const withOldFailure = (loop: Loop) =>
  (loop.s().conditions as any[]).filter((c) => c.reason === 'RestoreFailed' || /EtcdRestore r /.test(c.message ?? ''));

t.test(
  'a new EtcdRestore after a failed one: while it is checked, status speaks of it, not of the old failure',
  async (t) => {
    const loop = await failedRestore();
    t.match(loop.s(), { phase: 'Failed', reason: 'RestoreFailed' });
    t.same(loop.pods(), [], 'the failed restore left no member');
    const r2 = restoreObject('r2', '2026-07-02T00:00:00Z');
    loop.related = [restoreObject('r', '2026-07-01T00:00:00Z'), r2];
    loop.check = 'running';
    for (let i = 0; i < 3; i++) {
      loop.now = later(RESTORE_SECONDS + 60 * (i + 2));
      await loop.step();
      const s = loop.s();
      t.match(s.restore, { name: 'r2', phase: 'Checking' }, `sync ${i + 1}: the new restore is checked`);
      t.not(s.reason, 'RestoreFailed', `sync ${i + 1}: status.reason is not the old failure`);
      t.same(withOldFailure(loop), [], `sync ${i + 1}: no condition tells the old failure`);
      const available = s.conditions.find((c: any) => c.type === 'Available');
      t.match(available, { status: 'False' }, 'no member serves');
      t.match(available.message, /EtcdRestore r2/, 'Available names the restore under way');
      t.match(
        s.conditions.find((c: any) => c.type === 'Restore'),
        { status: 'True', reason: 'CheckingSnapshot' },
      );
      t.same(loop.pods(), [], 'nothing bootstrapped while the check runs');
      t.match(s, { phase: 'Creating', reason: 'Restoring', lastMemberIndex: 5 }, 'ordinals kept');
      t.match(
        s.conditions.find((c: any) => c.type === 'Recovering'),
        { status: 'True', reason: 'Restoring' },
      );
      t.match(available, { reason: 'Restoring' });
      t.ok(loop.last.resyncAfterSeconds, 'the check is waited for');
      t.ok(loop.checkPod(), 'the check pod runs');
    }
    // Its check fails too: refused, and the status says so of r2 (no member runs; never "as it was").
    loop.check = { succeeded: false, reason: 's3://bucket/snap.db: NoSuchKey: The specified key does not exist.' };
    await loop.step();
    await loop.step();
    t.match(loop.s().restore, { name: 'r2', phase: 'Failed', refused: true });
    t.notOk(loop.s().restore.untouched, 'no member ran as it came: not recorded as a cluster left as it was');
    t.same(
      (loop.s().conditions as any[]).filter((c) => /EtcdRestore r /.test(c.message ?? '')),
      [],
      'the old restore is not named again',
    );
    t.match(
      loop.s().conditions.find((c: any) => c.type === 'Available'),
      {
        status: 'False',
        reason: 'RestoreFailed',
        message: /^EtcdRestore r2 failed \(s3:\/\/bucket\/snap.db: NoSuchKey/,
      },
    );
    t.match(
      loop.s().conditions.find((c: any) => c.type === 'Restore'),
      { reason: 'RestoreRefused', message: /no member runs/ },
    );
    for (let i = 0; i < 3; i++) {
      await loop.step();
      t.same(loop.pods(), [], `sync ${i + 1} after: still nothing bootstrapped (no cluster made empty over the loss)`);
      t.match(loop.s(), { phase: 'Failed', restore: { name: 'r2', phase: 'Failed', noMembers: true } });
    }
    t.same(loop.pods(), [], 'nothing bootstrapped over the lost data');
    // A third one, whose check passes, restores.
    loop.related = [...loop.related, restoreObject('r3', '2026-07-03T00:00:00Z')];
    loop.check = { succeeded: true };
    await loop.step();
    t.match(loop.s().restore, { name: 'r3', phase: 'Checking' });
    await loop.step();
    t.match(loop.s().restore, { name: 'r3', phase: 'Replacing' });
    t.notOk(loop.s().restore.noMembers, 'replacing: the mark goes');
    await loop.step();
    t.match(loop.s().restore, { name: 'r3', phase: 'Restoring' });
    t.same(loop.pods().length, 3, 'the restored members start');
  },
);
