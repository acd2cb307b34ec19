// Issue 30.5: "Restoring has a deadline that ends in RestoreFailed". A restored member's fetch step at work is spared
// by the deadline, up to its own limit (RESTORE_STEP_SECONDS from the step's start): a fetch that hangs (a GET that
// never completes) is no longer spared past it (restore-deadline-spares-running-fetch.test.ts). The step's start is
// state.running.startedAt, stamped by the kubelet with its node's clock. Here the restored members' node runs a day
// ahead (a node whose clock is off): each hung fetch looks as if it had just started, for a day. The old members are
// dropped; the cluster has no member that serves. The deadline holds by the hook's clock, as the snapshot check's
// does ("a node's clock ahead keeps no check for ever").
import t from 'tap';
import { RESTORE_STEP_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { restoreStarted, running } from '../fixtures/etcd-loop.js';
import { fetchRunningSince } from '../fixtures/restore-steps.js';

for (const [clock, ahead] of [
  ['right', 0],
  ['a day ahead', 86_400_000],
] as const) {
  t.test(`a hung fetch on a node whose clock is ${clock} is not spared past its limit`, async (t) => {
    const loop = await running({ size: 3 });
    await restoreStarted(loop);
    const since = Date.parse(loop.s().restore.since);
    fetchRunningSince(loop, since + ahead);
    for (const hours of [0.5, 1.5, 2]) {
      loop.now = new Date(since + hours * 3600_000);
      await loop.step();
    }
    t.ok(RESTORE_STEP_SECONDS < 2 * 3600, 'the step limit is under two hours');
    t.match(
      loop.s().restore,
      { phase: 'Failed', reason: /did not serve within 15 minutes/ },
      'two hours after the drop, the restore whose fetch hangs has ended RestoreFailed',
    );
  });
}
