// The member claims name a StorageClass the request does not carry. A new claim of a class that does not exist binds
// any pre-made PersistentVolume naming it, so none is made; but the class may well exist: after metaops is upgraded to
// a version whose customize asks for the class, Metacontroller keeps its cached customize answer (v4.17.2: up to 20
// minutes; v1.5.20: until the parent's generation changes), and sends no class. An existing, healthy cluster must not
// be answered InvalidSpec for that (its whole answer withheld): what exists (member pods, their claims) is kept and
// synced as before, and only what is new (a bootstrap, an addition) waits, with a condition that says why.
// Metacontroller deletes every observed child the answer leaves out (docs/metacontroller.md, "Sync"), so every
// existing child must stay in the answer.
import t from 'tap';
import { clusterOf, peerURL } from '../../hooks/etcdcluster/members.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { FakeEtcd, Loop, PVC, restoreObject } from '../fixtures/etcd-loop.js';
import { fastClass as fast } from '../fixtures/storage-classes.js';

const spec = (size: number) => ({ size, pod: { persistentVolumeClaimSpec: { ...PVC, storageClassName: 'fast' } } });

const conditions = (loop: Loop): Array<Record<string, string>> => loop.s()?.conditions ?? [];
const reasons = (loop: Loop) => conditions(loop).map((c) => c['reason']);
const heldCondition = (loop: Loop) => conditions(loop).find((c) => c['type'] === 'ClaimsHeld');

/** A cluster of `size` members made while its class was sent: running, every pod answering, at rest. */
async function runningWithClass(size: number): Promise<Loop> {
  const etcd = new FakeEtcd();
  const loop = new Loop(spec(size), etcd);
  loop.related = [fast];
  const c = clusterOf(loop.parent(), loop.parent().spec as any);
  for (let i = 0; i < size; i++) {
    etcd.members.push({
      id: String(1 + i),
      name: `e-${i}`,
      peerURLs: [peerURL(c, `e-${i}`)],
      clientURLs: [],
      isLearner: false,
    });
    etcd.up.add(`e-${i}`);
  }
  for (let i = 0; i < 4 && loop.s()?.phase !== 'Running'; i++) await loop.step();
  await loop.step();
  await loop.step();
  return loop;
}

t.test('an existing cluster whose class is not sent keeps its members and claims, and its status', async (t) => {
  const loop = await runningWithClass(3);
  t.equal(loop.s().phase, 'Running');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'made with its claims');
  const children = structuredClone(loop.children);
  const status = structuredClone(loop.s());
  // Metaops upgraded: Metacontroller's cached customize answer asks for no class, and sends none.
  loop.related = [];
  for (let i = 0; i < 3; i++) await loop.step();
  t.notOk(reasons(loop).includes('InvalidSpec'), `not InvalidSpec (${JSON.stringify(reasons(loop))})`);
  t.same(loop.children, children, 'every pod, claim, Service and the budget answered as before');
  t.same(loop.s(), status, 'the status as before: nothing waits, nothing is said');
  t.same(loop.etcd.calls, [], 'no membership change');
});

t.test('a member pod gone while the class is not sent starts again on its own claim', async (t) => {
  const loop = await runningWithClass(3);
  loop.related = [];
  loop.lose('e-1');
  await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'e-1 made again under its name');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'on its claim; no other claim');
  t.notOk(heldCondition(loop), 'nothing new waits');
});

t.test('a new cluster whose class is not sent waits with the reason, and starts once the class is seen', async (t) => {
  const loop = new Loop(spec(3), new FakeEtcd());
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.pods(), [], 'no member pod');
  t.same(loop.claims(), [], 'no claim');
  t.notOk(reasons(loop).includes('InvalidSpec'), `not InvalidSpec (${JSON.stringify(reasons(loop))})`);
  t.match(heldCondition(loop), {
    status: 'True',
    reason: 'StorageClassNotSeen',
    message: /spec\.pod\.persistentVolumeClaimSpec\.storageClassName "fast": no StorageClass of that name was seen/,
  });
  t.match(
    conditions(loop).find((c) => c['type'] === 'Available'),
    { status: 'False', reason: 'StorageClassNotSeen' },
  );
  t.equal(loop.s().lastMemberIndex, -1, 'no ordinal given out while it waits');
  t.ok(
    loop.children.some((c) => c.kind === 'Service'),
    'its Services are made (no claim)',
  );
  loop.related = [fast];
  await loop.step();
  // Their claims first; each pod once its claim is observed as the cluster's (the next sync).
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'the initial members get their claims');
  t.notOk(heldCondition(loop), 'nothing waits any more');
  await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the initial members start under the first ordinals');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2']);
});

t.test('a scale-up waits for the class without touching the existing members', async (t) => {
  const loop = await runningWithClass(3);
  const pods = structuredClone(loop.children.filter((c) => c.kind === 'Pod'));
  const claims = structuredClone(loop.children.filter((c) => c.kind === 'PersistentVolumeClaim'));
  loop.related = [];
  loop.spec = spec(5);
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.etcd.calls, [], 'no member added');
  t.same(
    loop.children.filter((c) => c.kind === 'Pod'),
    pods,
    'the member pods as they were',
  );
  t.same(
    loop.children.filter((c) => c.kind === 'PersistentVolumeClaim'),
    claims,
    'the claims as they were, no new one',
  );
  t.notOk(reasons(loop).includes('InvalidSpec'));
  t.match(heldCondition(loop), { status: 'True', reason: 'StorageClassNotSeen' });
  t.match(
    conditions(loop).find((c) => c['type'] === 'Available'),
    { status: 'True' },
    'still available',
  );
  t.equal(loop.s().lastMemberIndex, 2, 'no ordinal given out');
  loop.related = [fast];
  await loop.step();
  t.same(loop.etcd.calls, ['add e-3'], 'the class seen: the next member is added');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2', 'e-3']);
});

t.test('a restore does not drop the running members while its restored members could get no claim', async (t) => {
  const loop = await runningWithClass(3);
  const pods = structuredClone(loop.children.filter((c) => c.kind === 'Pod'));
  const claims = structuredClone(loop.children.filter((c) => c.kind === 'PersistentVolumeClaim'));
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  for (let i = 0; i < 3; i++) await loop.step();
  t.equal(loop.s().restore?.phase, 'Checking', 'the snapshot is checked, and the restore goes no further');
  t.same(
    loop.children.filter((c) => c.kind === 'Pod' && c.metadata.name !== 'e-restore-check'),
    pods,
    'the running members are kept as they were',
  );
  t.same(
    loop.children.filter((c) => c.kind === 'PersistentVolumeClaim'),
    claims,
    'with their claims',
  );
  t.ok(loop.checkPod(), 'the check pod that passed is kept');
  t.match(heldCondition(loop), { status: 'True', reason: 'StorageClassNotSeen' });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z'), fast];
  await loop.step();
  t.equal(loop.s().restore?.phase, 'Replacing', 'the class seen: the restore carries on');
});

t.test('a class that is sent and provisions nothing is still refused for a new cluster', async (t) => {
  const loop = new Loop(spec(1), new FakeEtcd());
  loop.related = [{ ...fast, provisioner: 'kubernetes.io/no-provisioner' } as KubeObject];
  await loop.step();
  t.same(loop.claims(), []);
  t.ok(reasons(loop).includes('InvalidSpec'));
});
