// An EtcdRestore r restored the cluster; later another EtcdRestore r2 (another snapshot) restored it again; writes
// were made since. Then r is made again under its name with its snapshot (a namespace restore of the object backups,
// a GitOps tool that keeps every manifest after the advised delete). r was carried out already: a replay would drop
// the live members and roll the cluster back to r's older snapshot, losing r2's data and every write since. That the
// cluster's status names only its last restore (r2) must not make r's replay look like a new request.
import t from 'tap';
import { later, membersKept, restoredByRThenR2, rMadeAgain } from '../fixtures/restore-steps.js';

t.test('an EtcdRestore made again under its name after a later restore: not replayed', async (t) => {
  // r restored the cluster; r2, from another snapshot, restores it again.
  const { loop, r, r2 } = await restoredByRThenR2();
  t.match(r['status'], { succeeded: true }, 'r restored the cluster');
  t.match(r2['status'], { succeeded: true }, 'r2 restored the cluster');
  t.match(loop.s(), { restore: { name: 'r2', phase: 'Restored' } });
  const members = loop.pods();
  // r is made again under its name with its snapshot, a day later; the old r and r2 are gone (deleted as advised).
  const again = rMadeAgain(loop, '2026-07-03T00:00:00Z');
  await membersKept(t, loop, members, [again], {
    at: (i) => later(3600 + i * 60),
    says: "the cluster is not rolled back to r's snapshot",
  });
});
