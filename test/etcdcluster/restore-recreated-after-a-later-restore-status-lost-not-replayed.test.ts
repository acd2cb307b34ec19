// An EtcdRestore r restored the cluster; later another EtcdRestore r2 (another snapshot) restored it again, and both
// were deleted as advised. Then the EtcdCluster's status is lost and r is made again under its name with its snapshot
// (a namespace restore of object backups, a GitOps tool that keeps every manifest): the live members carry r2's
// restore record, none carries r's, and the status's history of restores carried out is gone with the status. r was
// carried out already (before r2): a replay would drop r2's members and roll the cluster back to r's older snapshot,
// losing r2's data and every write since. Members restored by another restore are no proof that r is new.
import t from 'tap';
import { later, membersKept, restoredByRThenR2, rMadeAgain } from '../fixtures/restore-steps.js';

t.test('an EtcdRestore made again under its name after a later restore and a lost status: not replayed', async (t) => {
  // r restored the cluster; r2, from another snapshot, restores it again.
  const { loop, r, r2 } = await restoredByRThenR2();
  t.match(r['status'], { succeeded: true }, 'r restored the cluster');
  t.match(r2['status'], { succeeded: true }, 'r2 restored the cluster');
  t.match(loop.s(), { restore: { name: 'r2', phase: 'Restored' } });
  const members = loop.pods();
  // The cluster's status is lost; r is made again under its name with its snapshot, a day later (r and r2 deleted).
  loop.status = undefined;
  const again = rMadeAgain(loop, '2026-07-03T00:00:00Z');
  await membersKept(t, loop, members, [again], {
    at: (i) => later(3600 + i * 60),
    says: "the cluster is not rolled back to r's snapshot",
  });
});
