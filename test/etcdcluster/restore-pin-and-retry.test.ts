// A restore checks before it acts, and what it checked is what it acts on (issue 30.5), beyond the attacks' own
// cases: the pin the check reports is recorded with the source and reaches every restored member's fetch step (and
// only pins this hook named: a termination message cannot steer the fetch elsewhere); a check pod its node ended (a
// drain's eviction) is checked again, not taken as the snapshot's failure; a cluster made together with its
// EtcdRestore starts nothing empty while the check runs; and a same-second EtcdRestore does not slip in after one
// that did replace the cluster. Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { FakeEtcd, Loop, restoreObject, running } from '../fixtures/etcd-loop.js';
import { pinOf, RESTORE_CHECK_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const SHA = 'ab'.repeat(32);
const fetchArgs = (pod: any): string[] =>
  (pod.spec.initContainers ?? []).find((c: any) => c.name === 'fetch-snapshot')?.args ?? [];
const arg = (args: string[], name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const restoredPods = (loop: Loop) => loop.children.filter((c: any) => c.kind === 'Pod' && fetchArgs(c).length > 0);

async function untilRestored(loop: Loop): Promise<any[]> {
  let pods: any[] = [];
  for (let i = 0; i < 4 && pods.length === 0; i++) {
    await loop.step();
    pods = restoredPods(loop);
  }
  return pods;
}

t.test('the pin the check reports is recorded and given to every restored member', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  t.same(arg((loop.checkPod() as any).spec.containers[0].args, '--pin-path'), 'bucket/ns/snap.db.restore-uid-r');
  // The message names another place for the copy: only the path this hook named is used.
  loop.check = { succeeded: true, sha256: SHA, pinned: true, pinnedPath: 'other/elsewhere.db' } as any;
  await loop.step();
  t.same(loop.s().restore.snapshot, { sha256: SHA, pinnedPath: 'bucket/ns/snap.db.restore-uid-r' });
  const pods = await untilRestored(loop);
  t.equal(pods.length, 3);
  for (const p of pods) {
    const args = fetchArgs(p);
    t.equal(arg(args, '--sha256'), SHA, `${p.metadata.name} fetches only the bytes checked`);
    t.equal(arg(args, '--pinned-path'), 'bucket/ns/snap.db.restore-uid-r', `${p.metadata.name} fetches the copy`);
    t.equal(arg(args, '--s3-path'), 'bucket/ns/snap.db');
    t.notOk(JSON.stringify(p).includes('elsewhere'));
  }
  // The status lost after the members were made: they are the restore's result (their path is the one checked).
  loop.status = undefined;
  await loop.step();
  t.same(restoredPods(loop).length, 3, 'the restored members are kept');
});

t.test('a version the check reports is fetched; malformed pins are none', async (t) => {
  const loop = await running({ size: 1 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  loop.check = { succeeded: true, sha256: SHA, versionId: 'v-1.2_3', pinned: true } as any;
  await loop.step();
  t.same(loop.s().restore.snapshot, { sha256: SHA, versionId: 'v-1.2_3' }, 'a version, so no copy is named');
  const [pod] = await untilRestored(loop);
  t.equal(arg(fetchArgs(pod), '--version-id'), 'v-1.2_3');
  t.equal(arg(fetchArgs(pod), '--pinned-path'), undefined);

  const source = { s3: { path: 'b/k' }, image: 'i' };
  const ended = (message: string) => ({
    metadata: { name: 'e-restore-check' },
    status: { containerStatuses: [{ name: 'check', state: { terminated: { exitCode: 0, message } } }] },
  });
  t.equal(pinOf(ended('not json') as any, source, 'u'), undefined);
  t.equal(pinOf(ended(JSON.stringify({ succeeded: true, sha256: 'XYZ' })) as any, source, 'u'), undefined);
  t.same(
    pinOf(ended(JSON.stringify({ succeeded: true, sha256: SHA, versionId: 'a b;rm' })) as any, source, 'u'),
    { sha256: SHA },
    'a version id that is no plain token is dropped',
  );
  t.equal(pinOf(undefined, source, 'u'), undefined);
});

t.test('a check pod evicted by a drain is checked again, within the check deadline', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  const evicted = {
    phase: 'Failed',
    reason: 'Evicted',
    message: 'The node was low on resource: memory.',
    containerStatuses: [{ name: 'check', state: { terminated: { exitCode: 137, reason: 'Error' } } }],
  };
  loop.podStatus.set('e-restore-check', evicted);
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'not refused for the node doing');
  t.notOk(loop.s().restore.untouched);
  t.notOk(loop.checkPod(), 'the evicted check pod is dropped');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the cluster runs meanwhile');
  loop.podStatus.delete('e-restore-check');
  await loop.step();
  t.ok(loop.checkPod(), 'a new check pod checks');
  // A disruption the pod's conditions name (a drain's DisruptionTarget) is the node's doing too.
  loop.podStatus.set('e-restore-check', {
    phase: 'Failed',
    conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }],
    containerStatuses: [{ name: 'check', state: { terminated: { exitCode: 143 } } }],
  });
  await loop.step();
  t.notOk(loop.checkPod(), 'dropped again');
  t.match(loop.s().restore, { phase: 'Checking' });
  // Evicted again past the deadline: the restore is refused, naming the time; the cluster untouched.
  loop.podStatus.set('e-restore-check', evicted);
  loop.now = new Date(FIXED_NOW.getTime() + (RESTORE_CHECK_SECONDS + 1) * 1000);
  await loop.step();
  await loop.step();
  t.match(loop.s().restore, { phase: 'Failed', untouched: true, refused: true });
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
});

t.test(
  'a cluster made with its EtcdRestore: nothing starts empty while the check runs, nor after it fails',
  async (t) => {
    const loop = new Loop({ size: 3 }, new FakeEtcd('e'));
    loop.related = [restoreObject('r', '2026-06-01T00:00:00Z')];
    loop.check = 'running';
    for (let i = 0; i < 3; i++) {
      await loop.step();
      t.same(loop.pods(), [], `sync ${i + 1}: no member bootstrapped beside the check`);
      t.match(loop.s().restore, { phase: 'Checking', noMembers: true });
    }
    loop.check = { succeeded: false, reason: 's3://bucket/ns/snap.db: NoSuchKey: The specified key does not exist.' };
    await loop.step();
    await loop.step();
    t.match(loop.s().restore, { phase: 'Failed', refused: true });
    t.notOk(loop.s().restore.untouched, 'no cluster "as it was" to speak of');
    t.same(loop.pods(), []);
    const refusedCondition = loop.s().conditions.find((c: any) => c.type === 'Restore');
    t.match(refusedCondition, { reason: 'RestoreRefused', message: /no member runs/ });
    t.notMatch(refusedCondition.message, /as it was/);
  },
);

t.test('an EtcdRestore of the same second as one that replaced the cluster does not act', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  loop.check = { succeeded: true };
  await loop.step();
  t.match(loop.s().restore, { uid: 'uid-r', phase: 'Replacing' });
  // Another EtcdRestore, another UID, the very same second, appears while the first restores.
  loop.related = [
    restoreObject('r', '2026-07-01T00:00:00Z'),
    restoreObject('twin', '2026-07-01T00:00:00Z', undefined, 'uid-twin'),
  ];
  await untilRestored(loop);
  await loop.step();
  t.match(loop.s().restore, { uid: 'uid-r' }, 'the restore under way is not replaced by its twin');
  loop.related = [restoreObject('twin', '2026-07-01T00:00:00Z', undefined, 'uid-twin')];
  await loop.step();
  t.match(loop.s().restore, { uid: 'uid-r' }, 'nor once the first is deleted: it dropped members');
});
