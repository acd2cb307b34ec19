// Members restart in place (issue 30): "a crashed member comes back as itself with its data, with or without a
// claim". Under an etcd alarm (NOSPACE: a backend at its quota, lasting until someone compacts, defragments every
// member and disarms; CORRUPT) no membership change is made, but the members etcd lists keep their pods, as while the
// quorum is lost (plan/members.ts underAlarm): a member whose pod vanished (a node drained or replaced) with its claim
// intact is made again on its claim, a member pod evicted (Failed) with storage is dropped to be made again, and
// (etcd < 3.4) a voter added whose pod went missing before it started gets its pod. Making a member's pod again adds
// nothing to the cluster's data and no member. Before, the alarm's answer kept the pods observed and made none again:
// the cluster ran on 2 of 3 (4 voters, 3 needed) without fault tolerance for as long as the alarm lasted, and
// NOSPACE's way out ("defragment every member") could not reach the member that was gone. (Found by the issue 30
// attack; real etcd 3.6.9: test/real/etcd-member-pod-lost-with-storage-under-nospace-comes-back-real.test.ts.)
import t from 'tap';
import { PVC, running, withAlarms } from '../fixtures/etcd-loop.js';

const REASON: Record<string, string> = { NOSPACE: 'NoSpace', CORRUPT: 'DataCorrupt' };
const available = (loop: { s(): Record<string, unknown> }) =>
  (loop.s().conditions as Array<{ type: string }>).find((c) => c.type === 'Available');

for (const alarm of ['NOSPACE', 'CORRUPT'])
  t.test(`under ${alarm}, a member pod lost with its claim kept is made again on its claim`, async (t) => {
    const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
    withAlarms(loop.etcd, [{ memberId: loop.etcd.members[0]!.id, alarm }]);
    await loop.step();
    loop.lose('e-2');
    for (let i = 0; i < 4; i++) await loop.step();
    t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'every claim kept');
    t.ok(loop.pods().includes('e-2'), `e-2 made again on its claim: pods ${loop.pods().join(', ')}`);
    t.same(loop.etcd.calls, [], 'no membership change');
    t.match(available(loop), { status: 'False', reason: REASON[alarm] }, 'the alarm still said');
  });

for (const alarm of ['NOSPACE', 'CORRUPT'])
  t.test(`under ${alarm}, a member pod evicted (Failed) with storage is made again on its claim`, async (t) => {
    const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
    withAlarms(loop.etcd, [{ memberId: loop.etcd.members[0]!.id, alarm }]);
    await loop.step();
    // The kubelet evicted it (node pressure): the pod stays, Failed; its etcd is gone, its claim intact.
    loop.phase.set('e-2', 'Failed');
    loop.podStatus.set('e-2', { reason: 'Evicted' });
    loop.etcd.up.delete('e-2');
    let dropped = false;
    for (let i = 0; i < 4; i++) {
      await loop.step();
      if (!loop.pods().includes('e-2')) {
        dropped = true;
        loop.phase.delete('e-2');
        loop.podStatus.delete('e-2');
      }
    }
    t.ok(dropped, 'the Failed pod dropped to be made again (as without the alarm)');
    t.equal(loop.phase.get('e-2'), undefined, 'e-2 runs again on its claim');
    t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'every claim kept');
    t.same(loop.etcd.calls, [], 'no membership change');
    t.match(available(loop), { status: 'False', reason: REASON[alarm] }, 'the alarm still said');
  });

t.test('under NOSPACE, a voter added on etcd 3.3 whose pod is missing gets its pod back', async (t) => {
  // Before 3.4 an addition is a voter: 4 voters, 3 needed, while its member never starts.
  const loop = await running({ size: 3, version: '3.3.25' });
  loop.etcd.version = '3.3.25';
  loop.etcd.clusterVersion = '3.3.0';
  await loop.step();
  loop.spec = { ...loop.spec, size: 4 };
  for (let i = 0; i < 3 && !loop.etcd.calls.includes('add e-3'); i++) await loop.step();
  t.same(loop.etcd.calls, ['add e-3'], 'e-3 added as a voter');
  // Its pod is gone before it started (its node went; a create the API server lost), then NOSPACE is raised.
  loop.lose('e-3');
  withAlarms(loop.etcd, [{ memberId: loop.etcd.members[0]!.id, alarm: 'NOSPACE' }]);
  for (let i = 0; i < 3; i++) await loop.step();
  t.ok(loop.pods().includes('e-3'), `e-3 gets its pod back: pods ${loop.pods().join(', ')}`);
  t.same(loop.etcd.calls, ['add e-3'], 'no other membership change');
});
