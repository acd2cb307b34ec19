// The EtcdRestore hook's side of a running restore whose record the cluster's status lost: EtcdRestore r dropped the
// old members (its own status said Replacing or Restoring), then the cluster's record names a newer EtcdRestore r2
// that its check refused (a status written over, or r2 checked once before r's record was found again from its
// restored members, plan/restore-rebuilt.ts). r2 took nothing from r: r is not ended NotTaken ("nothing was
// restored"), it waits for its record to come back. One that never got past its point of no return still is.
import t from 'tap';
import { restoreObject, restoreStatus } from '../fixtures/etcd-loop.js';

const refusedNewer = {
  uid: 'uid-r2',
  name: 'r2',
  phase: 'Failed',
  refused: true,
  created: '2026-07-02T00:00:00Z',
};

const withOwnReason = (reason: string) => {
  const r = restoreObject('r', '2026-07-01T00:00:00Z');
  r['status'] = { conditions: [{ type: 'Ready', status: 'False', reason, message: `EtcdCluster e: ${reason}` }] };
  return r;
};

t.test('a restore past its point of no return is not ended by a newer record its check refused', async (t) => {
  for (const reason of ['Replacing', 'Restoring']) {
    const s = restoreStatus(withOwnReason(reason), { restore: refusedNewer }, '2026-06-01T00:00:00Z') as any;
    t.equal(s.succeeded, undefined, `${reason}: not over`);
    t.not(s.conditions[0].reason, 'NotTaken', `${reason}: not ended NotTaken`);
  }
  for (const reason of ['Pending', 'Checking']) {
    const s = restoreStatus(withOwnReason(reason), { restore: refusedNewer }, '2026-06-01T00:00:00Z') as any;
    t.match(s, { succeeded: false, conditions: [{ reason: 'NotTaken' }] }, `${reason}: ended NotTaken, as before`);
  }
});
