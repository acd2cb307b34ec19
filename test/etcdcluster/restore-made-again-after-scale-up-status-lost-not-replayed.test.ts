// An EtcdRestore r restored the cluster of three; the cluster is then scaled up to four (the new member joins the
// restored cluster: no restore record on its pod). The EtcdCluster's status is lost and r is made again under its
// name with its snapshot, or r's own status does not say it succeeded yet: the members serving are r's result and
// one that joined since: nothing is dropped, nothing restored again over the writes made since.
import tap, { type Test } from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import type { Loop } from '../fixtures/etcd-loop.js';
import { later, membersKept, restoredByR, rMadeAgain, syncUntilSettled } from '../fixtures/restore-steps.js';

/** The syncs checked after the status is lost: an hour on, a minute apart. */
const afterAnHour = (i: number) => later(3600 + (i + 1) * 60);
/** A restore started again, its check included. */
const RESTORING = /^(Checking|Replacing|Restoring)$/;

async function restoredThenScaledUp(t: Test, recordSuccess: boolean): Promise<{ loop: Loop; r: KubeObject }> {
  const { loop, r } = await restoredByR(recordSuccess);
  const rs = recordSuccess ? [r] : [];
  t.match(loop.s().restore, { name: 'r', phase: 'Restored' }, 'r restored the cluster');
  loop.spec = { ...loop.spec, size: 4 };
  await syncUntilSettled(loop, rs, () => !(loop.pods().length < 4 || loop.s().phase !== 'Running'));
  t.equal(loop.pods().length, 4, `four members serve (${loop.pods().join(',')})`);
  t.equal(loop.s().phase, 'Running', 'the cluster runs');
  return { loop, r };
}

tap.test('an EtcdRestore made again under its name after a scale-up and a lost status: not replayed', async (t) => {
  const { loop } = await restoredThenScaledUp(t, true);
  const members = loop.pods();
  loop.status = undefined;
  const again = rMadeAgain(loop);
  await membersKept(t, loop, members, [again], { at: afterAnHour, says: 'not restored again', phases: RESTORING });
  t.match(again['status'], { succeeded: false }, 'the EtcdRestore made again ends, not carried out');
});

tap.test('a restored and scaled-up cluster whose EtcdRestore does not say succeeded, its status lost', async (t) => {
  const { loop, r } = await restoredThenScaledUp(t, false);
  const members = loop.pods();
  loop.status = undefined;
  await membersKept(t, loop, members, [r], { at: afterAnHour, says: 'not restored again', phases: RESTORING });
  t.match(r['status'], { succeeded: true }, 'r says it restored the cluster');
});

tap.test('members of two restores beside each other: an EtcdRestore made again is refused, none dropped', async (t) => {
  const { loop } = await restoredThenScaledUp(t, true);
  // The member that joined carries another restore's record (nothing explains it): doubt.
  const joined = loop.children.find(
    (c) => c.kind === 'Pod' && !c.metadata.annotations?.['etcd.metaops.io/restored-by'],
  )!;
  joined.metadata.annotations = { ...joined.metadata.annotations, 'etcd.metaops.io/restored-by': 'uid-other' };
  const members = loop.pods();
  loop.status = undefined;
  const again = rMadeAgain(loop);
  await membersKept(t, loop, members, [again], { at: afterAnHour, says: 'not restored again' });
  t.match(again['status'], { succeeded: false }, 'the EtcdRestore made again is refused');
  t.match(String((again['status'] as any)?.reason), /not carried out again/, 'with the reason');
});
