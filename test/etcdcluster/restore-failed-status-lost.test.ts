// No empty cluster is bootstrapped beside a failed restore (status.restore.noMembers): a
// restore failed after it dropped the old members (its EtcdRestore says succeeded: false), and Metacontroller then
// sends the EtcdCluster without its status. The record of the failure is still in Kubernetes (the EtcdRestore's
// status), yet nothing in the observed state may turn into a fresh, empty cluster that reports Available over the
// lost data. Each answer fed back as the next observed state.
import t from 'tap';
import { RESTORE_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { failedRestore, restoreObject } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);

t.test('a failed restore left no member, then the status is lost: nothing is bootstrapped', async (t) => {
  const loop = await failedRestore();
  t.match(loop.s(), { phase: 'Failed', reason: 'RestoreFailed' });
  t.same(loop.pods(), [], 'the failed restore left no member');
  // The EtcdRestore hook recorded the failure on the EtcdRestore (hooks/etcdbackup/restore.ts).
  loop.related = [
    restoreObject('r', '2026-07-01T00:00:00Z', { succeeded: false, reason: 'the snapshot could not be restored' }),
  ];
  loop.status = undefined;
  for (let i = 0; i < 3; i++) {
    loop.now = later(RESTORE_SECONDS + 60 * (i + 2));
    await loop.step();
    t.same(loop.pods(), [], `sync ${i + 1}: no member bootstrapped (${loop.pods().join(',')}, ${loop.s().phase})`);
  }
  t.not(loop.s().phase, 'Running', `not Running over the lost data: ${loop.s().phase}/${loop.s().reason}`);
});
