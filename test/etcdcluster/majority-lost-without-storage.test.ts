// (issue 30.1, not listed case): members whose pods reach phase Failed in a cluster without storage. With
// restartPolicy Always a container that exits is restarted, but a pod the kubelet ends (graceful node shutdown:
// "Pod was terminated in response to imminent node shutdown", eviction) is Failed for good: it never runs again and
// its emptyDir goes with it. When that is a majority, plan.ts keeps the Failed pods and answers, at every sync
// forever, QuorumLost "No membership change until they return" (resync 5 s): a permanent loss told as a transient
// one, with no word of the EtcdRestore that is the only way out. The same when the two pods are deleted (gone with
// their emptyDir); only when all three are gone does the hook say AllMembersLost. Each answer fed back as the next
// observed state.
import t from 'tap';
import { PVC, restoreObject, running, type Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('a majority of member pods Failed without storage: status says they will not return', async (t) => {
  const loop = await running({ size: 3 });
  for (const p of ['e-1', 'e-2']) {
    loop.etcd.up.delete(p);
    loop.phase.set(p, 'Failed');
    loop.podStatus.set(p, {
      reason: 'Terminated',
      message: 'Pod was terminated in response to imminent node shutdown.',
    });
  }
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 3600_000);
    await loop.step();
  }
  const available = loop.s().conditions.find((c: any) => c.type === 'Available');
  t.notMatch(available.message, /until they return/, `after 3 hours: ${available.reason}: ${available.message}`);
  t.match(available.message, /Failed|lost|restore/i, 'the message names the Failed pods or the way out');
});

t.test('a majority of member pods deleted without storage: status says they will not return', async (t) => {
  const loop = await running({ size: 3 });
  loop.lose('e-1', 'e-2');
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 3600_000);
    await loop.step();
  }
  const available = loop.s().conditions.find((c: any) => c.type === 'Available');
  t.notMatch(available.message, /until they return/, `after 3 hours: ${available.reason}: ${available.message}`);
});

const condition = (loop: Loop, type: string) => loop.s().conditions.find((c: any) => c.type === type);

t.test('a majority lost without storage: Failed/MajorityLost on every sync, the pods kept, no change', async (t) => {
  const loop = await running({ size: 3 });
  loop.etcd.up.delete('e-1');
  loop.phase.set('e-1', 'Failed');
  loop.lose('e-2');
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
    const res = await loop.step();
    t.equal(loop.s().phase, 'Failed', `sync ${i + 1}`);
    t.equal(loop.s().reason, 'MajorityLost');
    t.match(condition(loop, 'Recovering'), { status: 'True', reason: 'MajorityLost' });
    t.match(condition(loop, 'Available'), {
      status: 'False',
      reason: 'MajorityLost',
      message:
        '2 of 3 members lost with their data (e-1: pod Failed, e-2: pod deleted; no storage): quorum cannot come back; restore from a backup (EtcdRestore) or delete and recreate the EtcdCluster',
    });
    t.same(loop.pods(), ['e-0', 'e-1'], 'the pods left are kept as they are');
    t.equal(res.resyncAfterSeconds, undefined, 'nothing to wait for');
  }
  t.same(loop.etcd.calls, [], 'no membership change');
});

t.test('a majority lost while etcd does not answer at all: MajorityLost too', async (t) => {
  const loop = await running({ size: 3 });
  for (const p of ['e-1', 'e-2']) {
    loop.etcd.up.delete(p);
    loop.phase.set(p, 'Failed');
  }
  loop.etcd.listError = new Error('etcdserver: request timed out');
  await loop.step();
  t.match(loop.s(), { phase: 'Failed', reason: 'MajorityLost' });
  t.match(condition(loop, 'Available'), {
    status: 'False',
    reason: 'MajorityLost',
    message: /^2 of 3 members lost with their data \(e-1: pod Failed, e-2: pod Failed; no storage\)/,
  });
  t.match(condition(loop, 'Recovering'), { status: 'True', reason: 'MajorityLost' });
  t.equal(loop.last.resyncAfterSeconds, undefined, 'nothing to wait for');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the pods kept');
  t.same(loop.etcd.calls, []);
});

t.test('not a majority lost: a minority Failed is replaced; with storage a Failed majority restarts', async (t) => {
  const minority = await running({ size: 3 });
  minority.etcd.up.delete('e-2');
  minority.phase.set('e-2', 'Failed');
  await minority.step();
  t.not(minority.s().reason, 'MajorityLost');
  t.not(condition(minority, 'Available')?.reason, 'MajorityLost');
  t.match(minority.etcd.calls, ['remove 3'], 'the Failed member is replaced while quorum holds');

  const stored = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  for (const p of ['e-1', 'e-2']) {
    stored.etcd.up.delete(p);
    stored.phase.set(p, 'Failed');
  }
  await stored.step();
  t.not(stored.s().reason, 'MajorityLost', 'with storage the data is on the claims');
  t.same(stored.pods(), ['e-0'], 'the Failed pods are dropped, to be made again on their claims');
  t.same(stored.claims(), ['e-0', 'e-1', 'e-2']);

  // Pods down but there (running, not answering): they may come back.
  const waiting = await running({ size: 3 });
  for (const p of ['e-1', 'e-2']) waiting.etcd.up.delete(p);
  await waiting.step();
  t.equal(waiting.s().reason, 'QuorumLost');
  t.match(condition(waiting, 'Available'), { message: /until they return/ });
});

t.test('an EtcdRestore takes a cluster out of MajorityLost', async (t) => {
  const loop = await running({ size: 3 });
  loop.lose('e-1', 'e-2');
  await loop.step();
  t.equal(loop.s().reason, 'MajorityLost');
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  for (let i = 0; i < 4; i++) await loop.step();
  t.match(loop.s().restore, { uid: 'uid-r' });
  t.equal(loop.s().restore.phase, 'Restoring', 'its snapshot checked, the members dropped, restored members started');
  t.not(loop.s().reason, 'MajorityLost');
});
