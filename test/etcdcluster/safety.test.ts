// EtcdCluster and EtcdRestore promises that span syncs: each answer (children and status)
// is fed back as the next observed state, as Metacontroller does, for several syncs. etcd is a stand-in whose
// member list and health the test sets; the real-etcd proofs are in etcdcluster-real.test.ts.
import t from 'tap';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import { clusterOf, peerURL } from '../../hooks/etcdcluster/members.js';
import { restoreSync as syncRestore } from '../fixtures/hooks.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';
import {
  FakeEtcd,
  GROUPS,
  Loop,
  PVC,
  restoreHook,
  restoreObject,
  restoreStarted,
  running,
} from '../fixtures/etcd-loop.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

t.test('all pods lost without storage: Failed/AllMembersLost on every sync, never a new empty cluster', async (t) => {
  const loop = await running({ size: 3 });
  t.equal(loop.s().phase, 'Running');
  loop.lose('e-0', 'e-1', 'e-2');
  for (let i = 0; i < 5; i++) {
    const res = await loop.step();
    t.equal(loop.s().phase, 'Failed', `sync ${i + 1}: Failed`);
    t.equal(loop.s().reason, 'AllMembersLost');
    t.same(loop.pods(), [], `sync ${i + 1}: no pod bootstrapped`);
    t.match(condition(res, 'Available'), { status: 'False', reason: 'AllMembersLost' });
  }
  t.same(
    loop.s().memberList.map((m: any) => m.name),
    ['e-0', 'e-1', 'e-2'],
    'the lost members are still reported',
  );
});

t.test('all pods lost with storage: every claim kept, every member back under its name', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2']);
  loop.lose('e-0', 'e-1', 'e-2');
  const res = await loop.step();
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'no claim deleted');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the same members, same names');
  t.notOk(loop.etcd.calls.length, 'no membership change');
  t.match(condition(res, 'Recovering'), { status: 'True', reason: 'RestartingMembers' });
  // The pods are back but etcd has not answered yet: claims stay, nothing else changes.
  for (let i = 0; i < 3; i++) {
    await loop.step();
    t.same(loop.claims(), ['e-0', 'e-1', 'e-2']);
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  }
  for (const p of ['e-0', 'e-1', 'e-2']) loop.etcd.up.add(p);
  await loop.step();
  await loop.step();
  t.equal(condition(loop.last, 'Available').status, 'True');
  t.same(
    loop.etcd.members.map((m) => m.id),
    ['1', '2', '3'],
    'same member IDs',
  );
  t.same(loop.etcd.calls, []);
});

t.test('two of three pods lost with storage and no quorum: claims kept, the two come back as themselves', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.lose('e-1', 'e-2');
  loop.etcd.listError = new EtcdError('no quorum', 'Timeout');
  for (let i = 0; i < 3; i++) {
    await loop.step();
    t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: every claim kept`);
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: the lost members' pods recreated`);
    t.equal(loop.s().reason, 'QuorumLost');
  }
  t.same(loop.etcd.calls, []);
});

t.test('one pod lost with storage, etcd answering: the same member comes back, no remove + add', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.lose('e-2');
  const res = await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2']);
  t.match(condition(res, 'Recovering'), { reason: 'RestartingMember' });
  loop.etcd.up.add('e-2');
  await loop.step();
  await loop.step();
  t.same(loop.etcd.calls, [], 'no membership change');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
});

t.test('a crashed member pod with storage is dropped, then recreated as the same member', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.phase.set('e-1', 'Failed');
  loop.etcd.up.delete('e-1');
  await loop.step();
  t.same(loop.pods(), ['e-0', 'e-2'], 'the finished pod goes');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'its claim stays');
  loop.phase.delete('e-1');
  await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'back under its name');
  t.same(loop.etcd.calls, []);
});

t.test('etcd silent, status fed back: the claims of members whose pod is gone are kept', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.etcd.listError = new EtcdError('timed out', 'Timeout');
  for (let i = 0; i < 4; i++) {
    await loop.step();
    t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}`);
  }
  t.same(
    loop.s().memberList.map((m: any) => m.name),
    ['e-0', 'e-1', 'e-2'],
  );
});

t.test("scale down: the removed member's claim goes with it, and stays gone", async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.spec = { ...loop.spec, size: 2 };
  await loop.step();
  t.same(loop.etcd.calls, ['remove 3']);
  t.same(loop.claims(), ['e-0', 'e-1']);
  for (let i = 0; i < 3; i++) {
    await loop.step();
    t.same(loop.claims(), ['e-0', 'e-1'], `sync ${i + 1}: not back`);
  }
});

t.test('finalize drops the claims (the one other way a claim goes)', async (t) => {
  const { finalize } = await import('../../hooks/etcdcluster/sync.js');
  const loop = await running({ size: 1, pod: { persistentVolumeClaimSpec: PVC } });
  const res = finalize({ controller: {}, parent: loop.parent(), children: objectMap(loop.observed(), 'v1', GROUPS) });
  t.same(res.children, []);
});

t.test('an old restore never fires again: finished, or older than the cluster', async (t) => {
  // A finished restore, and a cluster whose status has no record of it (recreated, or status lost).
  const finished = await running({ size: 3 });
  finished.related = [restoreObject('old', '2026-07-01T00:00:00Z', { succeeded: true })];
  for (let i = 0; i < 3; i++) {
    await finished.step();
    t.same(finished.pods(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: every pod kept`);
    t.notOk(finished.s().restore);
  }
  const failed = await running({ size: 3 });
  failed.related = [restoreObject('old', '2026-07-01T00:00:00Z', { succeeded: false, reason: 'x' })];
  await failed.step();
  t.same(failed.pods(), ['e-0', 'e-1', 'e-2'], 'a failed restore does not act either');
  // Not finished, but older than the cluster (created 2026-06-01): left alone too.
  const older = await running({ size: 3 });
  older.related = [restoreObject('older', '2026-05-01T00:00:00Z')];
  await older.step();
  t.same(older.pods(), ['e-0', 'e-1', 'e-2'], 'a restore older than the cluster does not act');
  // A new one does.
  const fresh = await running({ size: 3 });
  fresh.related = [restoreObject('new', '2026-07-01T00:00:00Z')];
  await fresh.step();
  t.match(fresh.s().restore, { name: 'new', phase: 'Checking' }, 'its snapshot checked first');
  t.same(fresh.pods(), ['e-0', 'e-1', 'e-2'], 'the cluster untouched meanwhile');
  await fresh.step();
  t.same(fresh.pods(), [], 'a new restore replaces the cluster');
  t.match(fresh.s().restore, { name: 'new', phase: 'Replacing' });
});

/** The restored members answer: etcd lists them and every pod is up. */
function restoredUp(loop: Loop) {
  const c = clusterOf(loop.parent(), loop.parent().spec as any);
  loop.etcd.members = loop
    .pods()
    .map((p, i) => ({ id: String(500 + i), name: p, peerURLs: [peerURL(c, p)], clientURLs: [], isLearner: false }));
  loop.etcd.up = new Set(loop.pods());
}

t.test(
  'two unfinished EtcdRestores: the newer acts once, the older is superseded and never acts, even without its status',
  async (t) => {
    const loop = await running({ size: 3 });
    const a = restoreObject('a', '2026-07-01T00:00:00Z');
    const b = restoreObject('b', '2026-07-02T00:00:00Z');
    loop.related = [a, b];
    await loop.step();
    t.match(loop.s().restore, { name: 'b', phase: 'Checking', created: '2026-07-02T00:00:00Z' }, 'the newest');
    await loop.step();
    t.match(loop.s().restore, { name: 'b', phase: 'Replacing', created: '2026-07-02T00:00:00Z' }, 'the newest acts');
    t.match(
      restoreHook(loop, a),
      { succeeded: false, reason: /newer EtcdRestore b/ },
      'the older one ends, superseded',
    );
    delete a['status']; // and even if its status is lost, it never acts
    loop.etcd.members = [];
    loop.etcd.up.clear();
    await loop.step();
    t.same(loop.pods(), ['e-3', 'e-4', 'e-5']);
    restoredUp(loop);
    for (let i = 0; i < 3 && loop.s().restore.phase !== 'Restored'; i++) await loop.step();
    t.equal(loop.s().restore.phase, 'Restored');
    t.equal(restoreHook(loop, b)['succeeded'], true);
    for (let i = 0; i < 4; i++) {
      await loop.step();
      t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], `sync ${i + 1} after: the restored cluster is kept`);
      t.match(loop.s().restore, { name: 'b', phase: 'Restored' });
    }
    t.same(
      loop.etcd.calls.filter((c) => c.startsWith('remove')),
      [],
      'no member removed',
    );
    // A third EtcdRestore, newer still, does act: restores stay possible.
    loop.related = [a, b, restoreObject('c', '2026-07-03T00:00:00Z')];
    await loop.step();
    await loop.step();
    t.match(loop.s().restore, { name: 'c', phase: 'Replacing' });
  },
);

t.test('the EtcdRestore keeps its verdict when the cluster forgets it', async (t) => {
  const restore = restoreObject('r', '2026-07-01T00:00:00Z', { succeeded: true });
  const cluster = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns' },
    status: {},
  };
  const res = syncRestore(
    {
      controller: {},
      parent: restore as ParentObject,
      related: objectMap([cluster], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
    },
    FIXED_NOW,
  );
  t.equal((res.status as any).succeeded, true);
});

t.test('a restore whose snapshot cannot be fetched ends succeeded: false, and a new one recovers', async (t) => {
  const loop = await running({ size: 3 });
  const first = restoreObject('bad', '2026-07-01T00:00:00Z');
  loop.related = [first];
  await loop.step(); // Checking: the snapshot is there (the pods' own fetch fails later: credentials changed)
  await loop.step(); // Replacing: old members dropped
  for (const p of ['e-0', 'e-1', 'e-2']) loop.etcd.up.delete(p);
  loop.etcd.members = [];
  await loop.step(); // every member restored from the snapshot, started together
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5']);
  for (const p of loop.children.filter((c) => c.kind === 'Pod')) {
    t.ok(
      (p as any).spec.containers[0].command.includes(
        // A restore makes a new cluster: its members are named fully qualified (member names: identity.ts).
        '--initial-cluster=e-3=http://e-3.e.ns.svc.cluster.local:2380,e-4=http://e-4.e.ns.svc.cluster.local:2380,e-5=http://e-5.e.ns.svc.cluster.local:2380',
      ),
    );
  }
  t.equal(loop.s().restore.phase, 'Restoring');
  loop.phase.set('e-3', 'Failed');
  const message = JSON.stringify({
    succeeded: false,
    reason: 'InvalidAccessKeyId: The AWS Access Key Id you provided does not exist',
  });
  loop.podStatus.set('e-3', {
    initContainerStatuses: [{ name: 'fetch-snapshot', state: { terminated: { exitCode: 1, message } } }],
  });
  for (let i = 0; i < 4; i++) {
    await loop.step();
    t.equal(loop.s().restore.phase, 'Failed', `sync ${i + 1}`);
    t.equal(loop.s().phase, 'Failed');
    t.equal(loop.s().reason, 'RestoreFailed');
    t.same(loop.pods(), [], 'nothing bootstrapped over the failed restore');
  }
  t.match(loop.s().restore.reason, /InvalidAccessKeyId/);
  // The EtcdRestore reports it, and is final.
  const cluster = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns' },
    status: loop.s(),
  };
  const rs = syncRestore(
    {
      controller: {},
      parent: first as ParentObject,
      related: objectMap([cluster], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
    },
    FIXED_NOW,
  );
  t.equal((rs.status as any).succeeded, false);
  t.match((rs.status as any).reason, /InvalidAccessKeyId/);
  first['status'] = rs.status;
  // The user fixes the credentials and creates a new EtcdRestore.
  loop.related = [first, restoreObject('fixed', '2026-07-02T00:00:00Z')];
  loop.phase.clear();
  loop.podStatus.clear();
  await loop.step();
  t.match(loop.s().restore, { name: 'fixed', phase: 'Checking' });
  await loop.step();
  t.match(loop.s().restore, { name: 'fixed', phase: 'Replacing' });
  await loop.step();
  t.same(loop.pods(), ['e-6', 'e-7', 'e-8']);
  t.match(loop.s().restore, { name: 'fixed', phase: 'Restoring' });
});

t.test('a bootstrap with a wrong version starts over once the spec is fixed', async (t) => {
  const etcd = new FakeEtcd();
  const loop = new Loop({ size: 3, version: '3.5.99' }, etcd);
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  for (const p of ['e-0', 'e-1', 'e-2']) loop.phase.set(p, 'Pending'); // the image cannot be pulled
  await loop.step();
  t.equal(loop.s().phase, 'Creating');
  loop.spec = { ...loop.spec, version: '3.5.0' };
  await loop.step();
  t.same(loop.pods(), [], 'the stuck members go');
  await loop.step();
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'new members with the fixed spec');
  const images = loop.children.filter((c) => c.kind === 'Pod').map((p: any) => p.spec.containers[0].image);
  t.same(images, ['quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0']);
});

t.test('a crashed seed member during bootstrap is replaced, not waited on forever', async (t) => {
  const loop = new Loop({ size: 1 }, new FakeEtcd());
  await loop.step();
  t.same(loop.pods(), ['e-0']);
  loop.phase.set('e-0', 'Failed');
  await loop.step();
  await loop.step();
  t.same(loop.pods(), ['e-1']);
});

t.test('a learner that never starts is cancelled when the size is lowered or its pod fails', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, size: 4 };
  await loop.step();
  t.same(loop.etcd.calls, ['add e-3']);
  t.ok(loop.etcd.members.find((m) => m.id === '100')?.isLearner, 'added as a learner');
  await loop.step();
  t.match(condition(loop.last, 'Scaling'), { reason: 'WaitingForLearner' });
  loop.spec = { ...loop.spec, size: 3 };
  await loop.step();
  t.same(loop.etcd.calls, ['add e-3', 'remove 100'], 'the pending learner is removed');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  loop.spec = { ...loop.spec, size: 4 };
  await loop.step();
  loop.phase.set('e-4', 'Failed');
  await loop.step();
  t.same(loop.etcd.calls.slice(2), ['add e-4', 'remove 101'], 'a learner whose pod failed is removed too');
});

t.test('etcd < 3.4: a one-member cluster is never grown with a voter that could cost its quorum', async (t) => {
  const loop = await running({ size: 1, version: '3.2.13' });
  loop.etcd.clusterVersion = '3.2.0';
  loop.etcd.version = '3.2.13';
  await loop.step();
  const settled = structuredClone(loop.status);
  loop.spec = { ...loop.spec, size: 3 };
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.etcd.calls, [], 'no member add');
  t.same(loop.pods(), ['e-0']);
  t.match(condition(loop.last, 'Scaling'), {
    status: 'False',
    reason: 'ScaleUpRefused',
    message: /3\.2\.0 has no learners.*Upgrade to 3\.4.*EtcdRestore/,
  });
  t.match(condition(loop.last, 'Available'), { status: 'True' });
  t.not(
    loop.last.resyncAfterSeconds !== undefined && loop.last.resyncAfterSeconds < 30,
    true,
    'no fast resync while refused',
  );
  const again = structuredClone(loop.status);
  await loop.step();
  t.same(loop.status, again, 'the refusal is quiet: the same status every sync');
  t.not((settled as any).conditions, undefined);
  // The version unknown (/version did not answer): no add either, until it is known.
  loop.etcd.clusterVersion = undefined;
  await loop.step();
  t.same(loop.etcd.calls, []);
  t.match(condition(loop.last, 'Scaling'), { status: 'False', reason: 'WaitingForVersion' });
  // Two started members: the third is added as a voter (the quorum of three holds with the two).
  loop.etcd.clusterVersion = '3.2.0';
  loop.spec = { ...loop.spec, size: 1 };
  const two = await running({ size: 2, version: '3.2.13' });
  two.etcd.clusterVersion = '3.2.0';
  two.spec = { ...two.spec, size: 3 };
  await two.step();
  t.same(two.etcd.calls, ['add e-2']);
  t.equal(two.etcd.members.find((m) => m.id === '100')?.isLearner, false, 'a voter: 3.2 has no learners');
  // From 3.4 on, a one-member cluster grows with a learner.
  const learner = await running({ size: 1 });
  learner.spec = { ...learner.spec, size: 2 };
  await learner.step();
  t.same(learner.etcd.calls, ['add e-1']);
  t.equal(learner.etcd.members.find((m) => m.id === '100')?.isLearner, true);
});

t.test('an addition whose member never starts is cancelled after 10 minutes, then tried again', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, size: 4 };
  const start = loop.now.getTime();
  await loop.step();
  t.same(loop.etcd.calls, ['add e-3']);
  loop.phase.set('e-3', 'Pending');
  loop.podStatus.set('e-3', {
    containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ImagePullBackOff', message: 'x' } } }],
  });
  loop.now = new Date(start + 60_000);
  await loop.step();
  const since = loop.s().memberList.find((m: any) => m.name === 'e-3')?.pendingSince;
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
  t.equal(since, iso(start + 60_000), 'pending since it was first seen in the member list');
  loop.now = new Date(start + 9 * 60_000);
  await loop.step();
  t.same(loop.etcd.calls, ['add e-3'], 'not cancelled within 10 minutes');
  t.match(condition(loop.last, 'Scaling'), { reason: 'WaitingForLearner' });
  t.equal(loop.s().memberList.find((m: any) => m.name === 'e-3')?.pendingSince, since, 'kept as first seen: no churn');
  loop.now = new Date(start + 10 * 60_000);
  await loop.step();
  t.same(loop.etcd.calls, ['add e-3'], 'not cancelled at exactly 10 minutes');
  loop.now = new Date(start + 12 * 60_000);
  await loop.step();
  t.same(loop.etcd.calls, ['add e-3', 'remove 100'], 'cancelled after 10 minutes');
  t.match(condition(loop.last, 'Scaling'), {
    reason: 'CancellingAddition',
    message: /e-3 did not start within 10 minutes \(ImagePullBackOff\)/,
  });
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  await loop.step();
  t.same(loop.etcd.calls, ['add e-3', 'remove 100', 'add e-4'], 'a new member is added');
  loop.now = new Date(start + 13 * 60_000);
  await loop.step();
  t.same(
    loop
      .s()
      .memberList.filter((m: any) => m.pendingSince)
      .map((m: any) => [m.name, m.pendingSince]),
    [['e-4', iso(start + 13 * 60_000)]],
    'the new addition has its own clock; started members have none',
  );
  // Once it starts, it is promoted and the clock goes.
  loop.etcd.up.add('e-4');
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.etcd.calls.slice(3), ['promote 101']);
  t.same(
    loop.s().memberList.filter((m: any) => m.pendingSince),
    [],
  );
});

t.test('the member list error of the moment never reaches status: no churn', async (t) => {
  const loop = await running({ size: 3 });
  const errors = [
    new EtcdError(
      'no etcd endpoint answered (http://e-0.e.ns.svc:2379: getaddrinfo ENOTFOUND e-0.e.ns.svc)',
      'Unreachable',
    ),
    new EtcdError('timed out after 1500ms', 'Timeout'),
  ];
  for (const p of ['e-1', 'e-2']) loop.etcd.up.delete(p);
  const seen: string[] = [];
  for (let i = 0; i < 4; i++) {
    loop.etcd.listError = errors[i % 2];
    await loop.step();
    seen.push(JSON.stringify(loop.s().conditions));
  }
  t.equal(new Set(seen.slice(1)).size, 1, 'the same status whichever error came');
  t.notMatch(seen[1], /ENOTFOUND|timed out/);
});

t.test('objects named constructor, __proto__ or toString: answered, never a crash', async (t) => {
  for (const name of ['constructor', '__proto__', 'toString']) {
    const loop = new Loop({ size: 1, TLS: { static: { operatorSecret: name } } }, new FakeEtcd(name), name);
    await t.resolves(loop.step(), `EtcdCluster ${name}`);
    const restore: KubeObject = {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdRestore',
      metadata: { name, namespace: 'ns', uid: 'u' },
      spec: { etcdCluster: { name }, backupStorageType: 'S3', s3: { path: 'b/ns/k', awsSecret: 'aws' } },
    };
    const res = syncRestore(
      {
        controller: {},
        parent: restore as ParentObject,
        related: { 'EtcdCluster.etcd.database.coreos.com/v1beta2': {} },
      },
      FIXED_NOW,
    );
    t.match((res.status as any).conditions[0], { reason: 'ClusterNotFound' }, `EtcdRestore naming ${name}`);
  }
});

t.test('upgrades etcd cannot make in place are refused with a condition, nothing changed', async (t) => {
  for (const [target, why] of [
    ['3.4.0', /downgrade/],
    ['3.7.0', /one minor version at a time/],
    ['4.0.0', /major/],
  ] as const) {
    const loop = await running({ size: 3 });
    const before = loop.children.filter((c) => c.kind === 'Pod').map((p: any) => p.spec.containers[0].image);
    loop.spec = { ...loop.spec, version: target, size: 4 };
    for (let i = 0; i < 3; i++) await loop.step();
    const images = loop.children.filter((c) => c.kind === 'Pod').map((p: any) => p.spec.containers[0].image);
    t.same(images.slice(0, 3), before, `${target}: no member's image changed`);
    t.ok(
      images.every((i: string) => i === 'quay.io/coreos/etcd:v3.5.0'),
      `${target}: a new member takes the running version`,
    );
    t.match(condition(loop.last, 'Upgrading'), { status: 'False', reason: 'UpgradeRefused', message: why });
    t.notOk(loop.s().targetVersion, 'no target reported');
  }
  // One minor up, or a patch change, goes ahead.
  const ok = await running({ size: 3 });
  ok.spec = { ...ok.spec, version: '3.6.0' };
  await ok.step();
  t.match(condition(ok.last, 'Upgrading'), { status: 'True', reason: 'UpgradingMember' });
});

t.test('a member with the NOSPACE alarm is reported as such, not as quorum lost', async (t) => {
  const loop = await running({ size: 3 });
  const health = loop.etcd.health.bind(loop.etcd);
  loop.etcd.health = async (url: string) => {
    const h = await health(url);
    return { ...h, healthy: false, alarm: 'NOSPACE' as const };
  };
  loop.spec = { ...loop.spec, size: 5 };
  const res = await loop.step();
  t.match(condition(res, 'Available'), { status: 'False', reason: 'NoSpace', message: /NOSPACE/ });
  t.equal(loop.s().reason, 'NoSpace');
  t.equal(loop.s().quorum.ok, true, 'the members still count for quorum');
  t.match(loop.s().memberList, [{ alarm: 'NOSPACE' }, { alarm: 'NOSPACE' }, { alarm: 'NOSPACE' }]);
  t.same(loop.etcd.calls, [], 'no membership change while out of space');
});

t.test('a PodDisruptionBudget keeps a quorum of the desired size through drains', async (t) => {
  for (const [size, min] of [
    [1, 1],
    [3, 2],
    [5, 3],
  ] as const) {
    const loop = await running({ size });
    const pdb = loop.children.find((c) => c.kind === 'PodDisruptionBudget') as any;
    t.equal(pdb?.apiVersion, 'policy/v1');
    t.same(
      pdb?.spec,
      {
        minAvailable: min,
        selector: { matchLabels: { app: 'etcd', etcd_cluster: 'e', 'etcdcluster.metaops.io/instance': 'e' } },
        // A member that is not Ready may always be evicted (it serves no quorum): its node can be drained.
        unhealthyPodEvictionPolicy: 'AlwaysAllow',
      },
      `size ${size}`,
    );
  }
});

t.test('with storage, a member whose pod and claim are both gone is replaced (its data is gone)', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.children = loop.children.filter((c) => c.metadata.name !== 'e-2' || c.kind === 'Service');
  loop.etcd.up.delete('e-2');
  const res = await loop.step();
  t.same(loop.etcd.calls, ['remove 3'], 'removed, not restarted empty');
  t.match(condition(res, 'Recovering'), { reason: 'ReplacingDeadMember' });
  t.same(loop.claims(), ['e-0', 'e-1'], 'no empty claim recreated for it');
  await loop.step();
  t.same(loop.etcd.calls, ['remove 3', 'add e-3'], 'a new member takes its place');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-3']);
});

t.test('quiet at rest: once converged, more syncs give the same status and children', async (t) => {
  const states: Array<[string, () => Promise<Loop>]> = [
    ['running, with storage', () => running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } })],
    [
      'all members lost',
      async () => {
        const l = await running({ size: 3 });
        l.lose('e-0', 'e-1', 'e-2');
        await l.step();
        return l;
      },
    ],
    [
      'quorum lost, with storage',
      async () => {
        const l = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
        l.etcd.listError = new EtcdError('timed out after 1500ms', 'Timeout');
        l.etcd.up.delete('e-1');
        l.etcd.up.delete('e-2');
        await l.step();
        return l;
      },
    ],
    [
      'upgrade refused',
      async () => {
        const l = await running({ size: 3 });
        l.spec = { ...l.spec, version: '3.7.1' };
        await l.step();
        return l;
      },
    ],
  ];
  for (const [name, make] of states) {
    const loop = await make();
    await loop.step();
    const first = JSON.stringify({ status: loop.status, children: loop.children });
    for (let i = 0; i < 3; i++) {
      await loop.step();
      t.equal(
        JSON.stringify({ status: loop.status, children: loop.children }),
        first,
        `${name}: sync ${i + 2} unchanged`,
      );
    }
  }
});

t.test(
  'a member that stays unhealthy for over 10 minutes, its pod still there, is replaced (quorum kept)',
  async (t) => {
    const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
    loop.etcd.up.delete('e-2'); // its pod Running, its etcd never answers again
    await loop.step();
    const since = loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince;
    t.equal(since, '2026-01-02T03:04:05Z', 'first seen recorded');
    for (const minutes of [1, 5, 9]) {
      loop.now = new Date(FIXED_NOW.getTime() + minutes * 60_000);
      await loop.step();
      t.equal(
        loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince,
        since,
        `${minutes} min: the same time kept (no churn)`,
      );
    }
    t.same(loop.etcd.calls, [], 'no change within 10 minutes');
    t.same(loop.claims(), ['e-0', 'e-1', 'e-2']);
    loop.now = new Date(FIXED_NOW.getTime() + 11 * 60_000);
    const res = await loop.step();
    t.same(loop.etcd.calls, ['remove 3']);
    t.match(condition(res, 'Recovering'), { reason: 'ReplacingUnhealthyMember', message: new RegExp(since) });
    t.same(loop.claims(), ['e-0', 'e-1'], 'its claim goes with the recorded decision');
    await loop.step();
    t.same(loop.etcd.calls, ['remove 3', 'add e-3']);
    // A member that becomes healthy again loses its mark.
    const back = await running({ size: 3 });
    back.etcd.up.delete('e-1');
    await back.step();
    t.ok(back.s().memberList.find((m: any) => m.name === 'e-1').unhealthySince);
    back.etcd.up.add('e-1');
    await back.step();
    t.notOk(back.s().memberList.find((m: any) => m.name === 'e-1').unhealthySince);
  },
);

// Attack round on issue 16 (each of these lost data or acted wrongly before its fix).

const READY = { conditions: [{ type: 'Ready', status: 'True' }] };
const budget = (loop: Loop) => (loop.children.find((c) => c.kind === 'PodDisruptionBudget') as any).spec.minAvailable;

t.test(
  'a formed cluster the hook cannot reach is never bootstrapped again: spec change, crash, all pods lost',
  async (t) => {
    const etcd = new FakeEtcd();
    etcd.listError = new EtcdError('TLS handshake failed', 'Unreachable'); // a wrong operatorSecret
    const loop = new Loop({ size: 3, pod: { persistentVolumeClaimSpec: PVC } }, etcd);
    await loop.step(); // the claims; the pods once the claims are observed
    await loop.step();
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
    await loop.step();
    t.equal(loop.s().phase, 'Creating', 'not Ready yet: still a bootstrap');
    for (const p of loop.pods()) loop.podStatus.set(p, READY); // etcd serves: the readiness probe passes
    await loop.step();
    t.match(loop.s(), { phase: 'Running', reason: 'EtcdUnreachable' });
    t.match(condition(loop.last, 'Available'), {
      status: 'False',
      reason: 'EtcdUnreachable',
      message: /operatorSecret/,
    });
    loop.spec = { ...loop.spec, version: '3.5.1' };
    loop.phase.set('e-2', 'Failed');
    loop.podStatus.set('e-2', {});
    for (let i = 0; i < 3; i++) {
      await loop.step();
      // (The crashed e-2 is dropped and recreated on its claim in turn: the harness keeps telling it Failed.)
      t.ok(
        loop.pods().every((p) => ['e-0', 'e-1', 'e-2'].includes(p)) &&
          loop.pods().includes('e-0') &&
          loop.pods().includes('e-1'),
        `sync ${i + 1}: no bootstrap over the formed cluster`,
      );
      t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: every claim kept`);
    }
    loop.phase.delete('e-2');
    // Every pod lost: the members start again on their claims, under their names; no new empty members.
    loop.lose('e-0', 'e-1', 'e-2');
    for (let i = 0; i < 3; i++) {
      await loop.step();
      t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1} after all pods lost: the claims kept`);
      t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: the members start again on their claims`);
    }
  },
);

t.test('status lost: the observed claims are kept, and nothing is bootstrapped over them', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  // (a) Status lost, two pods gone, etcd silent.
  loop.status = undefined;
  loop.lose('e-1', 'e-2');
  loop.etcd.listError = new EtcdError('no quorum', 'Unreachable');
  for (let i = 0; i < 3; i++) {
    await loop.step();
    t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: the claims of the lost pods are kept`);
    t.notSame(loop.s().phase, 'Creating');
  }
  // (b) Status lost again, with pods Failed: never taken for a failed bootstrap.
  const b = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  b.status = undefined;
  b.etcd.listError = new EtcdError('no quorum', 'Unreachable');
  b.phase.set('e-1', 'Failed');
  b.phase.set('e-2', 'Failed');
  for (let i = 0; i < 4; i++) {
    await b.step();
    t.same(b.claims(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: claims kept`);
    t.ok(b.pods().includes('e-0'), `sync ${i + 1}: the live member kept`);
    t.notMatch(b.s().conditions, [{ reason: 'RestartingBootstrap' }]);
  }
});

t.test('a restore whose members vanish, or whose EtcdRestore is deleted, never ends as an empty cluster', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  await restoreStarted(loop);
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5']);
  await loop.step(); // the pods made
  loop.lose('e-3', 'e-4', 'e-5'); // a drain during the snapshot fetch
  await loop.step(); // their claims; the pods once the claims are observed
  await loop.step();
  t.same(loop.pods(), ['e-6', 'e-7', 'e-8'], 'started again');
  t.ok(
    loop.children.filter((c) => c.kind === 'Pod').every((p: any) => (p.spec.initContainers ?? []).length > 0),
    'from the snapshot (restore steps)',
  );
  t.equal(loop.s().restore.phase, 'Restoring', 'not Restored');
  t.not(restoreHook(loop, loop.related[0]!)['succeeded'], true);
  // The EtcdRestore deleted while Replacing, the old members gone: past the point of no return, the restore
  // carries on from the snapshot it checked (status.restore.s3); nothing is bootstrapped empty.
  const d = await running({ size: 3 });
  d.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await d.step();
  await d.step();
  d.related = [];
  d.etcd.members = [];
  d.etcd.up.clear();
  for (let i = 0; i < 3; i++) {
    await d.step();
    t.same(d.pods(), ['e-3', 'e-4', 'e-5'], `sync ${i + 1}: the restored members`);
    t.ok(
      d.children
        .filter((c) => c.kind === 'Pod')
        .every((p: any) =>
          p.spec.initContainers.some((x: any) => x.name === 'fetch-snapshot' && x.args.includes('bucket/ns/snap.db')),
        ),
      `sync ${i + 1}: no empty cluster: each from the checked snapshot`,
    );
    t.match(d.s(), { phase: 'Creating', restore: { phase: 'Restoring' } });
  }
});

t.test('a long restore is Restored once a quorum serves; a crash later is not a failed restore', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  await restoreStarted(loop);
  restoredUp(loop);
  loop.etcd.up.delete('e-5'); // never healthy: no node for it
  loop.phase.set('e-5', 'Pending');
  await loop.step();
  t.equal(loop.s().restore.phase, 'Restored', 'two of three serve the snapshot');
  // Later: etcd silent for a sync and a member crashes (its restore steps had succeeded).
  loop.etcd.listError = new EtcdError('timeout', 'Timeout');
  loop.phase.set('e-3', 'Failed');
  loop.podStatus.set('e-3', {
    initContainerStatuses: [{ name: 'fetch-snapshot', state: { terminated: { exitCode: 0 } } }],
  });
  for (let i = 0; i < 3; i++) {
    await loop.step();
    t.same(loop.claims(), ['e-3', 'e-4', 'e-5'], `sync ${i + 1}: claims kept`);
    t.not(loop.s().phase, 'Failed');
  }
  // Restoring (not yet Restored) is no different: a crashed member after its restore steps is not a failure.
  const r2 = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  await restoreStarted(r2);
  r2.phase.set('e-3', 'Failed');
  r2.podStatus.set('e-3', {
    initContainerStatuses: [{ name: 'fetch-snapshot', state: { terminated: { exitCode: 0 } } }],
  });
  await r2.step();
  t.equal(r2.s().restore.phase, 'Restoring');
  t.same(r2.claims(), ['e-3', 'e-4', 'e-5']);
});

t.test('the PodDisruptionBudget follows the voters during a scale-down', async (t) => {
  const loop = await running({ size: 5 });
  t.equal(budget(loop), 3, 'at rest: a quorum of 5');
  loop.spec = { ...loop.spec, size: 3 };
  await loop.step();
  t.equal(loop.etcd.members.length, 4);
  t.equal(budget(loop), 3, 'four voters (quorum 3) and four pods: one may go, not two');
  for (let i = 0; i < 4; i++) await loop.step();
  t.equal(loop.etcd.members.length, 3);
  t.equal(budget(loop), 2, 'at rest at 3');
});

t.test('a refused downgrade is not applied when no member answers', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  t.equal(loop.s().currentVersion, '3.5.0');
  loop.spec = { ...loop.spec, version: '3.3.0' };
  await loop.step();
  t.match(condition(loop.last, 'Upgrading'), { reason: 'UpgradeRefused' });
  loop.lose('e-0', 'e-1', 'e-2');
  for (let i = 0; i < 3; i++) await loop.step();
  const images = loop.children.filter((c) => c.kind === 'Pod').map((p: any) => p.spec.containers[0].image);
  t.same(
    images,
    ['quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0'],
    'they come back at the version they ran',
  );
});

// Second attack round on issue 16.

t.test(
  'an EtcdRestore of another namespace never acts on this cluster; customize asks for this namespace only',
  async (t) => {
    const loop = await running({ size: 3 });
    const foreign = restoreObject('x', '2026-07-01T00:00:00Z');
    foreign.metadata.namespace = 'other-team';
    (foreign['spec'] as any).s3.path = 'theirbucket/snap.db';
    loop.related = [foreign];
    for (let i = 0; i < 3; i++) await loop.step();
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
    t.notOk(loop.s().restore);
    const { etcdcluster } = await import('../../hooks/etcdcluster/index.js');
    const rules = (etcdcluster.customize as any)({ controller: {}, parent: loop.parent() }, {}).relatedResources;
    t.ok(rules.length > 0 && rules.every((r: any) => r.namespace === 'ns'), 'every related rule names the namespace');
  },
);

t.test(
  'a restore the hook cannot follow (etcd unreachable) is Restored once a restored member is Ready; lost pods then keep their data',
  async (t) => {
    const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
    loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
    await loop.step();
    await loop.step();
    loop.etcd.members = [];
    loop.etcd.up.clear();
    loop.etcd.listError = new EtcdError('TLS handshake failed', 'Unreachable');
    await loop.step(); // the restored members' claims; their pods once the claims are observed
    await loop.step();
    t.same(loop.pods(), ['e-3', 'e-4', 'e-5']);
    for (const p of loop.pods()) loop.podStatus.set(p, READY);
    await loop.step();
    t.equal(loop.s().restore.phase, 'Restored', 'Ready members serve the snapshot');
    t.equal(restoreHook(loop, loop.related[0]!)['succeeded'], true);
    // Clients wrote to the restored cluster; then every pod is lost.
    loop.lose('e-3', 'e-4', 'e-5');
    for (let i = 0; i < 3; i++) {
      await loop.step();
      t.same(loop.claims(), ['e-3', 'e-4', 'e-5'], `sync ${i + 1}: the restored members' claims kept`);
      t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], `sync ${i + 1}: back on their claims, not restored again`);
      t.ok(
        loop.children
          .filter((c) => c.kind === 'Pod')
          .every((p: any) =>
            p.spec.initContainers.every((x: any) => x.name === 'check-dns' || x.name === 'check-data'),
          ),
        'no restore step (the DNS wait, and on a claim the data check, only)',
      );
    }
  },
);

t.test('an upgrade to an image that cannot be pulled is undone by fixing the spec, even without quorum', async (t) => {
  for (const size of [1, 3]) {
    const loop = await running({ size });
    loop.spec = { ...loop.spec, version: '3.5.99' };
    await loop.step();
    const upgraded = loop.children.find((c: any) => c.kind === 'Pod' && c.spec.containers[0].image.endsWith('3.5.99'))!;
    t.ok(upgraded, `size ${size}: one member moved to 3.5.99`);
    const name = upgraded.metadata.name!;
    loop.etcd.up.delete(name);
    loop.phase.set(name, 'Pending');
    loop.podStatus.set(name, {
      containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ImagePullBackOff' } } }],
    });
    if (size === 1) loop.etcd.listError = new EtcdError('no quorum', 'Unreachable');
    await loop.step();
    loop.spec = { ...loop.spec, version: '3.5.1' };
    await loop.step();
    const pod = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === name) as any;
    t.equal(
      pod.spec.containers[0].image,
      'quay.io/coreos/etcd:v3.5.1',
      `size ${size}: the fixed image is put back in place`,
    );
    t.same(
      loop.etcd.calls.filter((c) => c.startsWith('remove')),
      [],
      `size ${size}: no member removed`,
    );
  }
});

t.test('restored members partly lost before any served start again from the snapshot', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5']);
  await loop.step(); // the pods exist (PodsCreated)
  loop.lose('e-4', 'e-5');
  await loop.step();
  await loop.step();
  t.same(loop.pods(), ['e-6', 'e-7', 'e-8'], 'all started again from the snapshot');
  t.equal(loop.s().restore.phase, 'Restoring');
});

t.test('bootstrap pods that vanish before the cluster formed start the bootstrap again', async (t) => {
  const loop = new Loop({ size: 3 }, new FakeEtcd());
  await loop.step();
  await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  loop.lose('e-1', 'e-2');
  await loop.step();
  await loop.step();
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5']);
  // Pods refused by admission (never created) do not: no hot loop of new names.
  const refused = new Loop({ size: 3 }, new FakeEtcd(), 'r');
  await refused.step();
  refused.children = refused.children.filter((c) => c.kind !== 'Pod');
  for (let i = 0; i < 3; i++) await refused.step();
  t.same(
    refused.children
      .filter((c) => c.kind === 'Pod')
      .map((p) => p.metadata.name)
      .sort(),
    ['r-0', 'r-1', 'r-2'],
    'the same names answered',
  );
});

t.test('with the member IDs never known, lost and crashed pods come back on their claims', async (t) => {
  const etcd = new FakeEtcd();
  etcd.listError = new EtcdError('TLS handshake failed', 'Unreachable');
  const loop = new Loop({ size: 3, pod: { persistentVolumeClaimSpec: PVC } }, etcd);
  await loop.step();
  await loop.step();
  for (const p of loop.pods()) loop.podStatus.set(p, READY);
  await loop.step();
  t.equal(loop.s().reason, 'EtcdUnreachable');
  loop.lose('e-1');
  loop.phase.set('e-2', 'Failed');
  loop.podStatus.set('e-2', {});
  await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1'], 'e-1 back under its name; the crashed e-2 dropped, to be recreated');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'its claim kept');
  loop.phase.delete('e-2'); // Metacontroller deleted the Failed pod; the next one it creates runs
  await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'e-2 back on its claim');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2']);
  const e1 = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-1') as any;
  t.ok(e1.spec.containers[0].command.includes('--initial-cluster-state=existing'), 'rejoins as the member it was');
});

t.test('no unhealthy clock runs while quorum is lost', async (t) => {
  const loop = await running({ size: 3 });
  loop.etcd.up.delete('e-1');
  loop.etcd.up.delete('e-2');
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(loop.now.getTime() + 20 * 60_000);
    await loop.step();
    t.same(
      loop.s().memberList.filter((m: any) => m.unhealthySince),
      [],
      `sync ${i + 1}: no clock during the outage`,
    );
  }
  loop.etcd.up.add('e-1'); // quorum back; e-2 slower
  await loop.step();
  t.same(loop.etcd.calls, [], 'e-2 not replaced at once');
});

t.test(
  'an EtcdRestore older than its cluster ends OlderThanCluster; one applied with the cluster still acts',
  async (t) => {
    const restore = restoreObject('r', '2026-05-01T00:00:00Z');
    const cluster = {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdCluster',
      metadata: { name: 'e', namespace: 'ns', creationTimestamp: '2026-06-01T00:00:00Z' },
      status: {},
    };
    const res = syncRestore(
      {
        controller: {},
        parent: restore as ParentObject,
        related: objectMap([cluster], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
      },
      FIXED_NOW,
    );
    t.match(res.status, { succeeded: false, reason: /made before EtcdCluster e/ });
    // Applied together: the restore stamped a second before the cluster (created 2026-06-01T00:00:00Z).
    const loop = await running({ size: 3 });
    loop.related = [restoreObject('together', '2026-05-31T23:59:58Z')];
    await loop.step();
    await loop.step();
    t.match(loop.s().restore, { name: 'together', phase: 'Replacing' });
  },
);
