// An EtcdRestore r restored the cluster; its members serve and take writes; r is deleted as advised. Then one
// restored member is lost (its node drained) and replaced the usual way: removed, a new member added that joins the
// running cluster (no restore steps, no restore record on its pod). Then the EtcdCluster's status is lost and r is
// made again under its name with its snapshot (a namespace restored from a Kubernetes backup). The members serving
// are still r's result (two of three carry its restore, the third joined them): a replay would drop them and roll
// the cluster back over every write since.
import tap, { type Test } from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import type { Loop } from '../fixtures/etcd-loop.js';
import { later, membersKept, restoredByR, rMadeAgain, syncUntilSettled } from '../fixtures/restore-steps.js';

/** r restored the cluster and succeeded; then one of its members is lost and replaced by a member that joined. */
async function restoredThenMemberReplaced(t: Test, recordSuccess: boolean): Promise<{ loop: Loop; r: KubeObject }> {
  const { loop, r } = await restoredByR(recordSuccess);
  const rs = recordSuccess ? [r] : [];
  t.match(loop.s().restore, { name: 'r', phase: 'Restored' }, 'r restored the cluster');
  if (recordSuccess) t.match(r['status'], { succeeded: true }, 'r says so');
  const [lost] = loop.pods();
  loop.lose(lost!);
  // A member added joins and serves.
  await syncUntilSettled(
    loop,
    rs,
    () => !(loop.pods().includes(lost!) || loop.pods().length < 3 || loop.s().phase !== 'Running'),
  );
  t.equal(loop.pods().length, 3, `three members serve (${loop.pods().join(',')})`);
  t.notOk(loop.pods().includes(lost!), `${lost} was replaced`);
  t.equal(loop.s().phase, 'Running', 'the cluster runs');
  return { loop, r };
}

tap.test(
  'an EtcdRestore made again under its name after a member was replaced and the cluster status lost: not replayed',
  async (t) => {
    const { loop } = await restoredThenMemberReplaced(t, true);
    const members = loop.pods();
    loop.status = undefined;
    const again = rMadeAgain(loop);
    loop.check = { succeeded: true };
    await membersKept(t, loop, members, [again], {
      at: (i) => later(3600 + (i + 1) * 60),
      says: "the cluster is not rolled back to r's snapshot",
    });
    t.not(
      (again['status'] as any)?.succeeded,
      true,
      'the EtcdRestore made again is not reported as restoring the cluster',
    );
  },
);

tap.test(
  'a restored cluster whose EtcdRestore does not say succeeded yet, a member replaced, its status lost: not restored again',
  async (t) => {
    // r's own status lags (its controller restarted, or its status lost with the cluster's): it is still unfinished.
    const { loop, r } = await restoredThenMemberReplaced(t, false);
    t.notOk(typeof (r['status'] as any)?.succeeded === 'boolean', 'r does not say it finished');
    const members = loop.pods();
    loop.status = undefined;
    // Only the cluster syncs: r's hook is not run.
    await membersKept(t, loop, members, [], {
      at: (i) => later(3600 + (i + 1) * 60),
      says: "the cluster is not restored again from r's snapshot",
    });
  },
);
