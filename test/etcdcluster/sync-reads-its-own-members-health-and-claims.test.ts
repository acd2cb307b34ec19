// What one EtcdCluster sync reads of etcd and of its observed children (observe.ts), its functions called directly
// against a stub etcd client: which pods are dialled and in what order, which member list and which health answers
// count (only this cluster's, by cluster and member ID), what a failed list says, and the claims and terminating
// children it reports. Fast: no server, no sockets.
import t from 'tap';
import { EtcdError, type EtcdClient, type MemberHealth, type MemberListAnswer } from '../../hooks/etcdcommon/etcd.js';
import { clusterIdOf, initialMemberId } from '../../hooks/etcdcommon/identity.js';
import {
  MAX_DIALLED_PODS,
  MAX_MEMBER_NAMES,
  memberWindow,
  observe,
  podsToDial,
} from '../../hooks/etcdcluster/observe.js';
import { MAX_SIZE } from '../../hooks/etcdcluster/schema.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';

const CLUSTER_ID = '1234567890';
const OTHER_ID = '987654321';

const pod = (name: string, extra: Record<string, unknown> = {}): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', ...extra },
    status: { phase: 'Running' },
  }) as KubeObject;
const claim = (name: string, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'ns', ...extra } }) as KubeObject;
const byName = (objs: KubeObject[]) => Object.fromEntries(objs.map((o) => [o.metadata.name!, o]));
const gone = { deletionTimestamp: '2026-01-01T00:00:00Z' };

const parent = (status?: Record<string, unknown>, spec: Record<string, unknown> = {}): ParentObject => {
  const p: ParentObject = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns', uid: 'uid-e', generation: 1 },
    spec: { size: 3, version: '3.5.0', ...spec },
  };
  if (status) p.status = status;
  return p;
};
const request = (p: ParentObject, pods: KubeObject[], claims?: KubeObject[]) =>
  ({
    controller: {},
    parent: p,
    children: {
      'Pod.v1': byName(pods),
      ...(claims ? { 'PersistentVolumeClaim.v1': byName(claims) } : {}),
    },
  }) as any;

const url = (pod: string) => `http://${pod}.e.ns.svc:2379`;
const member = (pod: string, id: string, peer = `http://${pod}.e.ns.svc:2380`) => ({
  id,
  name: pod,
  peerURLs: peer ? [peer] : [],
  clientURLs: [url(pod)],
  isLearner: false,
});

/** A stub etcd: its member list (or the error it fails with), each client URL's health; the calls it got. */
class Stub implements EtcdClient {
  lists: string[][] = [];
  dialled: string[] = [];
  constructor(
    private readonly list: MemberListAnswer | Error,
    private readonly healths: Record<string, MemberHealth> = {},
  ) {}
  async memberList(endpoints: string[]): Promise<MemberListAnswer> {
    this.lists.push(endpoints);
    if (this.list instanceof Error) throw this.list;
    return this.list;
  }
  async health(clientURL: string): Promise<MemberHealth> {
    this.dialled.push(clientURL);
    return this.healths[clientURL] ?? { healthy: false, error: 'no answer' };
  }
  async memberAdd(): Promise<never> {
    throw new Error('not called');
  }
  async memberRemove(): Promise<never> {
    throw new Error('not called');
  }
  async memberPromote(): Promise<never> {
    throw new Error('not called');
  }
}
const healthy = (memberId: string, clusterId = CLUSTER_ID): MemberHealth => ({
  healthy: true,
  version: '3.5.0',
  clusterId,
  memberId,
});
const names = (pods: KubeObject[]) => pods.map((p) => p.metadata.name);

t.test('podsToDial: the known members first, then the ordinals given out newest first, then the others', async (t) => {
  const pods = ['e-0', 'e-1', 'e-2', 'e-3', 'e-4', 'e-5', 'e-6', 'other', 'e-x'].map((n) => pod(n));
  const status = { memberList: [{ name: 'e-5' }, null, { name: 'e-1' }, 'e-6'], lastMemberIndex: 3 };
  t.same(names(podsToDial('e', pods, status)), ['e-1', 'e-5', 'e-3', 'e-2', 'e-0', 'e-4', 'e-6']);
  // The ordinal last given out is one given out.
  t.same(names(podsToDial('e', [pod('e-4'), pod('e-3')], { lastMemberIndex: 3 })), ['e-3', 'e-4']);
  // No status: lowest first. A lastMemberIndex that is no number says nothing.
  t.same(names(podsToDial('e', [pod('e-2'), pod('e-0'), pod('e-1')], {})), ['e-0', 'e-1', 'e-2']);
  t.same(names(podsToDial('e', [pod('e-2'), pod('e-0'), pod('e-1')], { lastMemberIndex: '2' })), ['e-0', 'e-1', 'e-2']);
  // A member list that is no list says nothing.
  t.same(names(podsToDial('e', [pod('e-2'), pod('e-0')], { memberList: { name: 'e-2' } })), ['e-0', 'e-2']);
});

t.test('podsToDial: every member of the largest cluster and three more are dialled, no more', async (t) => {
  t.equal(MAX_DIALLED_PODS, MAX_SIZE + 3);
  const many = Array.from({ length: 40 }, (_, i) => pod(`e-${39 - i}`));
  const dialled = names(podsToDial('e', many, { lastMemberIndex: 30 }));
  t.equal(dialled.length, MAX_SIZE + 3);
  t.same(
    dialled,
    Array.from({ length: MAX_SIZE + 3 }, (_, i) => `e-${30 - i}`),
    'the newest given out',
  );
  const exact = Array.from({ length: MAX_SIZE + 3 }, (_, i) => pod(`e-${i}`));
  t.equal(podsToDial('e', exact, {}).length, MAX_SIZE + 3);
});

t.test('memberWindow: children without names or metadata are left out and counted, not read', async (t) => {
  const req = {
    controller: {},
    parent: parent(),
    children: {
      'Pod.v1': { a: { apiVersion: 'v1', kind: 'Pod' }, b: { metadata: { name: 7 } }, 'e-0': pod('e-0') },
      'PersistentVolumeClaim.v1': { c: { apiVersion: 'v1' }, 'e-0': claim('e-0'), 'e-1': claim('e-1') },
    },
  } as any;
  const { request: r, ignored } = memberWindow(req, 'e', { lastMemberIndex: 0 });
  t.same(Object.keys(r.children!['Pod.v1']!), ['e-0']);
  t.same(Object.keys(r.children!['PersistentVolumeClaim.v1']!), ['e-0']);
  t.same(ignored, { pods: 2, claims: 2 });
});

t.test('memberWindow: a claim the status knows counts, whatever its ordinal; one past the last does not', async (t) => {
  const req = request(parent(), [], [claim('e-9'), claim('e-3'), claim('e-2'), claim('e-4')]);
  const { request: r, ignored } = memberWindow(req, 'e', {
    memberList: [{ name: 'e-9' }, null],
    lastMemberIndex: 3,
  });
  t.same(Object.keys(r.children!['PersistentVolumeClaim.v1']!).sort(), ['e-2', 'e-3', 'e-9']);
  t.equal(ignored.claims, 1);
  // A lastMemberIndex that is no number: the status lost, every claim a candidate.
  const lost = memberWindow(req, 'e', { lastMemberIndex: 'x' });
  t.equal(Object.keys(lost.request.children!['PersistentVolumeClaim.v1']!).length, 4);
});

t.test('memberWindow: ranks as podsToDial does, and keeps the restore check pod beyond the bound', async (t) => {
  const many = Array.from({ length: MAX_MEMBER_NAMES + 10 }, (_, i) => pod(`e-${i}`));
  const req = request(parent(), [...many, pod('e-restore-check')]);
  const { request: r, ignored } = memberWindow(req, 'e', { memberList: [{ name: 'e-20' }], lastMemberIndex: 5 });
  const kept = Object.keys(r.children!['Pod.v1']!);
  t.ok(kept.includes('e-restore-check'));
  t.ok(kept.includes('e-20'), 'a known member beyond the lowest ordinals');
  for (let i = 0; i <= 5; i++) t.ok(kept.includes(`e-${i}`), `e-${i}, given out`);
  t.equal(kept.length, MAX_MEMBER_NAMES + 1);
  t.equal(ignored.pods, 10);
  // Of the others the lowest ordinals: e-6 onwards, without e-20.
  t.ok(kept.includes('e-6') && !kept.includes(`e-${MAX_MEMBER_NAMES + 1}`));
  // No pods at all in the request: nothing kept, nothing counted.
  const none = memberWindow({ controller: {}, parent: parent() } as any, 'e', {});
  t.same(Object.keys(none.request.children!['Pod.v1']!), []);
  t.same(none.ignored, { pods: 0, claims: 0 });
});

t.test('observe: the member list and health of this cluster are read from its live members only', async (t) => {
  const p = parent({ clusterID: CLUSTER_ID, lastMemberIndex: 2 });
  const list: MemberListAnswer = {
    clusterId: CLUSTER_ID,
    clusterVersion: '3.5.0',
    members: [member('e-0', '11'), member('e-1', '12'), member('e-2', '13')],
  };
  const etcd = new Stub(list, {
    [url('e-0')]: healthy('11'),
    [url('e-1')]: healthy('12'),
    [url('e-2')]: { healthy: false, error: 'down' },
  });
  const pods = [pod('e-0'), pod('e-1'), pod('e-2'), pod('e-3', gone), pod('e-restore-check')];
  const obs = await observe(p, request(p, pods), etcd, p.spec as any, []);
  t.same(names(obs.pods), ['e-0', 'e-1', 'e-2']);
  t.same(obs.terminating, ['e-3']);
  t.same(obs.etcd, { members: list.members, clusterVersion: '3.5.0' });
  t.equal(obs.clusterId, CLUSTER_ID);
  t.equal(obs.etcdError, undefined);
  t.same(obs.health, {
    'e-0': healthy('11'),
    'e-1': healthy('12'),
    'e-2': { healthy: false, error: 'down' },
  });
  t.same(obs.foreign, []);
  t.equal(obs.undialled, 0);
  t.equal(obs.restoreCheck?.metadata.name, 'e-restore-check', 'the check pod is seen apart');
  t.same(etcd.dialled.sort(), [url('e-0'), url('e-1'), url('e-2')], 'neither the check pod nor a terminating pod');
  t.same(etcd.lists, [[url('e-2'), url('e-1'), url('e-0')]], 'the list asked of every dialled pod, newest first');
  t.equal(obs.claims, undefined, 'claims not observed: assumed');
  t.equal(obs.invalidList, undefined);
  t.equal(obs.tls, undefined);
});

t.test('observe: a member list without a cluster version says none', async (t) => {
  const p = parent({ clusterID: CLUSTER_ID });
  const etcd = new Stub({ clusterId: CLUSTER_ID, members: [member('e-0', '11')] }, { [url('e-0')]: healthy('11') });
  const obs = await observe(p, request(p, [pod('e-0')]), etcd, p.spec as any, []);
  t.ok(obs.etcd);
  t.notOk('clusterVersion' in obs.etcd!);
  t.same(obs.etcd!.members, [member('e-0', '11')]);
});

t.test('observe: a terminating restore check pod is not the check', async (t) => {
  const p = parent({ clusterID: CLUSTER_ID });
  const etcd = new Stub({ clusterId: CLUSTER_ID, members: [] });
  const obs = await observe(p, request(p, [pod('e-restore-check', gone)]), etcd, p.spec as any, []);
  t.equal(obs.restoreCheck, undefined);
  t.same(obs.terminating, [], 'the check pod is no member, terminating or not');
  t.same(obs.pods, []);
});

t.test('observe: no pod, nothing dialled, no error said', async (t) => {
  const p = parent();
  const etcd = new Stub(new EtcdError('unreachable', 'Unreachable'));
  const obs = await observe(p, request(p, []), etcd, p.spec as any, []);
  t.same(etcd.lists, []);
  t.same(etcd.dialled, []);
  t.equal(obs.etcdError, undefined);
  t.equal(obs.etcd, undefined);
  t.same(obs.health, {});
  t.equal(obs.undialled, 0);
});

t.test('observe: a member list of another cluster is not read, and says so', async (t) => {
  const p = parent({ clusterID: CLUSTER_ID });
  const etcd = new Stub(
    { clusterId: OTHER_ID, clusterVersion: '3.5.0', members: [member('e-0', '11')] },
    { [url('e-0')]: healthy('11') },
  );
  const obs = await observe(p, request(p, [pod('e-0')]), etcd, p.spec as any, []);
  t.equal(obs.etcd, undefined);
  t.equal(obs.clusterId, undefined);
  t.equal(obs.etcdError, 'the member list came from another etcd cluster');
  // Without a list, the health answer of this cluster's recorded ID counts.
  t.same(obs.health['e-0'], healthy('11'));
});

t.test('observe: the cluster ID this cluster made counts without any status', async (t) => {
  const peer = (i: number) => `http://e-${i}.e.ns.svc:2380`;
  const ids = [0, 1, 2].map((i) => initialMemberId([peer(i)], 'uid-e'));
  const made = clusterIdOf(ids);
  const p = parent();
  const list = { clusterId: made, members: ids.map((id, i) => member(`e-${i}`, id)) };
  const etcd = new Stub(list, Object.fromEntries(ids.map((id, i) => [url(`e-${i}`), healthy(id, made)])));
  const obs = await observe(p, request(p, [pod('e-0'), pod('e-1'), pod('e-2')]), etcd, p.spec as any, []);
  t.equal(obs.clusterId, made);
  t.same(obs.etcd?.members, list.members);
  t.same(obs.foreign, []);
  // Seen only from its highest pod's ordinal: a window that starts below it.
  const two = await observe(p, request(p, [pod('e-2')]), new Stub(list), p.spec as any, []);
  t.equal(two.clusterId, made);
  // Made with another token (another cluster's UID): not this cluster's.
  const q = { ...p, metadata: { ...p.metadata, uid: 'uid-other' } };
  const other = await observe(q, request(q, [pod('e-0'), pod('e-1'), pod('e-2')]), new Stub(list), p.spec as any, []);
  t.equal(other.etcd, undefined);
  t.equal(other.etcdError, 'the member list came from another etcd cluster');
  // Without a UID the name is the token.
  const byNameIds = [0, 1, 2].map((i) => initialMemberId([peer(i)], 'e'));
  const r = { ...p, metadata: { name: 'e', namespace: 'ns' } };
  const named = await observe(
    r,
    request(r, [pod('e-0'), pod('e-1'), pod('e-2')]),
    new Stub({ clusterId: clusterIdOf(byNameIds), members: [] }),
    p.spec as any,
    [],
  );
  t.equal(named.clusterId, clusterIdOf(byNameIds));
  // Made with a cluster domain the server knows of (the domains given), not the spec's.
  const domainIds = [0, 1, 2].map((i) => initialMemberId([`http://e-${i}.e.ns.svc.cluster.local:2380`], 'uid-e'));
  const withDomain = await observe(
    p,
    request(p, [pod('e-0'), pod('e-1'), pod('e-2')]),
    new Stub({ clusterId: clusterIdOf(domainIds), members: [] }),
    p.spec as any,
    ['cluster.local'],
  );
  t.equal(withDomain.clusterId, clusterIdOf(domainIds));
  const withoutDomain = await observe(
    p,
    request(p, [pod('e-0'), pod('e-1'), pod('e-2')]),
    new Stub({ clusterId: clusterIdOf(domainIds), members: [] }),
    p.spec as any,
    [],
  );
  t.equal(withoutDomain.clusterId, undefined);
  // The status's lastMemberIndex counts as much as the pods seen: e-2's window found from e-0 alone.
  const fromStatus = parent({ lastMemberIndex: 2 });
  const later = [3, 4, 5].map((i) => initialMemberId([peer(i)], 'uid-e'));
  const seenLow = await observe(
    fromStatus,
    request(fromStatus, [pod('e-0')]),
    new Stub({ clusterId: clusterIdOf(later.slice(0, 1)), members: [] }),
    p.spec as any,
    [],
  );
  t.equal(seenLow.clusterId, undefined, 'a window starting past the last ordinal given out is not this cluster');
  const fromTwo = [2, 3].map((i) => initialMemberId([peer(i)], 'uid-e'));
  const seenFromStatus = await observe(
    fromStatus,
    request(fromStatus, [pod('e-0')]),
    new Stub({ clusterId: clusterIdOf(fromTwo), members: [] }),
    p.spec as any,
    [],
  );
  t.equal(seenFromStatus.clusterId, clusterIdOf(fromTwo));
  // A recorded clusterID that is no string is no record.
  const bad = parent({ clusterID: Number(CLUSTER_ID) });
  const notRecorded = await observe(
    bad,
    request(bad, [pod('e-0')]),
    new Stub({ clusterId: CLUSTER_ID, members: [] }),
    p.spec as any,
    [],
  );
  t.equal(notRecorded.clusterId, undefined);
});

t.test('observe: a health answer is this cluster member’s only by both IDs', async (t) => {
  const p = parent({ clusterID: CLUSTER_ID });
  const list: MemberListAnswer = {
    clusterId: CLUSTER_ID,
    members: [
      member('e-0', '11'),
      member('e-1', '12'),
      member('e-2', '13'),
      // Not started yet: no name, found by its peer URL.
      { ...member('e-3', '14'), name: '' },
      // No peer URL: found by its name.
      member('e-4', '15', ''),
    ],
  };
  const etcd = new Stub(list, {
    [url('e-0')]: healthy('11'),
    [url('e-1')]: healthy('99'),
    [url('e-2')]: healthy('13', OTHER_ID),
    [url('e-3')]: healthy('14'),
    [url('e-4')]: healthy('15'),
    [url('e-5')]: { healthy: true, version: '3.5.0' },
    [url('e-6')]: { healthy: false, error: 'refused' },
    [url('e-7')]: healthy('77'),
  });
  const pods = ['e-7', 'e-6', 'e-5', 'e-4', 'e-3', 'e-2', 'e-1', 'e-0'].map((n) => pod(n));
  const obs = await observe(p, request(p, pods), etcd, p.spec as any, []);
  t.same(obs.health['e-0'], healthy('11'));
  t.same(obs.health['e-1'], {
    healthy: false,
    error: 'answered as a member of another etcd cluster, or as another member',
  });
  t.same(obs.health['e-2'], obs.health['e-1']);
  t.same(obs.health['e-3'], healthy('14'));
  t.same(obs.health['e-4'], healthy('15'));
  t.same(obs.health['e-5'], { healthy: false, error: 'its identity could not be confirmed' });
  t.same(obs.health['e-6'], { healthy: false, error: 'refused' }, 'an unhealthy answer without identity as it is');
  t.same(obs.health['e-7'], healthy('77'), 'a member the list does not know yet: its cluster ID is enough');
  t.same(obs.foreign, ['e-1', 'e-2'], 'named, by ordinal');
});

t.test('observe: without a member list, the member IDs the status recorded are expected', async (t) => {
  const p = parent({
    clusterID: CLUSTER_ID,
    memberList: [
      { name: 'e-0', id: '11' },
      { name: 'e-1', id: 12 },
      null,
      { name: 5, id: '13' },
      { name: 'e-3', id: 'x' },
    ],
  });
  const etcd = new Stub(new EtcdError('timed out', 'Timeout'), {
    [url('e-0')]: healthy('11'),
    [url('e-1')]: healthy('21'),
    [url('e-2')]: healthy('22', OTHER_ID),
    [url('e-3')]: healthy('23'),
  });
  const obs = await observe(
    p,
    request(
      p,
      ['e-3', 'e-2', 'e-1', 'e-0'].map((n) => pod(n)),
    ),
    etcd,
    p.spec as any,
    [],
  );
  t.equal(obs.etcdError, 'timed out');
  t.equal(obs.etcd, undefined);
  t.same(obs.health['e-0'], healthy('11'));
  t.equal(obs.health['e-1']!.healthy, false, 'another member ID than the recorded number');
  t.equal(obs.health['e-2']!.healthy, false, 'another cluster');
  t.same(obs.health['e-3'], healthy('23'), 'a recorded ID that is no ID expects nothing');
  t.same(obs.foreign, ['e-1', 'e-2']);
  t.equal(obs.tls, undefined);
  t.equal(obs.invalidList, undefined);
});

t.test('observe: what a failed member list says', async (t) => {
  const p = parent({ clusterID: CLUSTER_ID });
  const pods = ['e-10', 'e-2', 'e-1'].map((n) => pod(n));
  const foreign = await observe(p, request(p, pods), new Stub(new EtcdError('foreign', 'Foreign')), p.spec as any, []);
  t.same(foreign.foreign, ['e-1', 'e-2', 'e-10'], 'every dialled pod, by ordinal');
  t.equal(foreign.etcdError, 'foreign');
  // Some answered as another cluster's members already: those are named, not every pod.
  const some = await observe(
    p,
    request(p, pods),
    new Stub(new EtcdError('foreign', 'Foreign'), {
      [url('e-10')]: healthy('1', OTHER_ID),
      [url('e-2')]: healthy('2'),
    }),
    p.spec as any,
    [],
  );
  t.same(some.foreign, ['e-10']);
  const invalid = await observe(
    p,
    request(p, pods),
    new Stub(new EtcdError('too many members', 'Invalid')),
    p.spec as any,
    [],
  );
  t.equal(invalid.invalidList, 'too many members');
  t.same(invalid.foreign, []);
  t.equal(invalid.tls, undefined);
  const tls = await observe(p, request(p, pods), new Stub(new EtcdError('bad certificate', 'TLS')), p.spec as any, []);
  t.equal(tls.tls, 'bad certificate');
  t.equal(tls.invalidList, undefined);
  t.same(tls.foreign, []);
  // A failure that is no EtcdError says only its message.
  const plain = await observe(p, request(p, pods), new Stub(new Error('Foreign')), p.spec as any, []);
  t.equal(plain.etcdError, 'Foreign');
  t.same(plain.foreign, []);
  t.equal(plain.tls, undefined);
  t.equal(plain.invalidList, undefined);
});

t.test('observe: pods beyond the dial bound are counted, not dialled', async (t) => {
  const p = parent({ clusterID: CLUSTER_ID, lastMemberIndex: 20 });
  const pods = Array.from({ length: MAX_DIALLED_PODS + 4 }, (_, i) => pod(`e-${i}`));
  const etcd = new Stub({ clusterId: CLUSTER_ID, members: [] });
  const obs = await observe(p, request(p, pods), etcd, p.spec as any, []);
  t.equal(obs.undialled, 4);
  t.equal(etcd.dialled.length, MAX_DIALLED_PODS);
  t.equal(Object.keys(obs.health).length, MAX_DIALLED_PODS);
  t.equal(obs.pods.length, MAX_DIALLED_PODS + 4);
});

t.test('observe: a cluster with client TLS is dialled over https', async (t) => {
  const spec = { TLS: { static: { member: { serverSecret: 's', peerSecret: 'p' } } } };
  const p = parent({ clusterID: CLUSTER_ID }, spec);
  const etcd = new Stub({ clusterId: CLUSTER_ID, members: [] });
  await observe(p, request(p, [pod('e-0')]), etcd, p.spec as any, []);
  t.same(etcd.dialled, ['https://e-0.e.ns.svc:2379']);
});

t.test('observe: the member claims observed, and those being deleted', async (t) => {
  const p = parent({ clusterID: CLUSTER_ID });
  const etcd = new Stub({ clusterId: CLUSTER_ID, members: [] });
  const obs = await observe(p, request(p, [pod('e-0')], [claim('e-1', gone), claim('e-0')]), etcd, p.spec as any, []);
  t.same(obs.claims, ['e-0', 'e-1']);
  t.same(obs.terminatingClaims, ['e-1']);
  const none = await observe(p, request(p, [pod('e-0')], []), etcd, p.spec as any, []);
  t.same(none.claims, []);
  t.same(none.terminatingClaims, []);
});

t.test('observe: a parent without status reads as one with an empty status', async (t) => {
  const p = parent();
  const etcd = new Stub({ clusterId: CLUSTER_ID, members: [] }, { [url('e-0')]: healthy('11') });
  const obs = await observe(p, request(p, [pod('e-0')]), etcd, p.spec as any, []);
  t.equal(obs.etcdError, 'the member list came from another etcd cluster');
  t.same(obs.health['e-0'], {
    healthy: false,
    error: 'answered as a member of another etcd cluster, or as another member',
  });
});

t.test('memberWindow: a child sent as null is left out and counted', async (t) => {
  const req = {
    controller: {},
    parent: parent(),
    children: {
      'Pod.v1': { a: null, 'e-0': pod('e-0') },
      'PersistentVolumeClaim.v1': { b: null, 'e-0': claim('e-0') },
    },
  } as any;
  const { request: r, ignored } = memberWindow(req, 'e', {});
  t.same(Object.keys(r.children!['Pod.v1']!), ['e-0']);
  t.same(Object.keys(r.children!['PersistentVolumeClaim.v1']!), ['e-0']);
  t.same(ignored, { pods: 1, claims: 1 });
});

t.test('memberWindow: of more ordinals given out than the window holds, the newest are kept', async (t) => {
  const many = Array.from({ length: 40 }, (_, i) => pod(`e-${i}`));
  const { request: r } = memberWindow(request(parent(), many), 'e', { lastMemberIndex: 30 });
  const kept = Object.keys(r.children!['Pod.v1']!).sort((a, b) => Number(a.slice(2)) - Number(b.slice(2)));
  t.same(
    kept,
    Array.from({ length: MAX_MEMBER_NAMES }, (_, i) => `e-${31 - MAX_MEMBER_NAMES + i}`),
  );
});

t.test('observe: the pods named foreign are in ordinal order, whatever order they were dialled in', async (t) => {
  // Given out up to e-10: dialled newest first.
  const p = parent({ clusterID: CLUSTER_ID, lastMemberIndex: 10 });
  const pods = ['e-1', 'e-2', 'e-10'].map((n) => pod(n));
  const etcd = new Stub(new EtcdError('foreign', 'Foreign'));
  const all = await observe(p, request(p, pods), etcd, p.spec as any, []);
  t.same(etcd.lists, [[url('e-10'), url('e-2'), url('e-1')]]);
  t.same(all.foreign, ['e-1', 'e-2', 'e-10']);
  const answered = await observe(
    p,
    request(p, pods),
    new Stub(new EtcdError('foreign', 'Foreign'), {
      [url('e-1')]: healthy('1', OTHER_ID),
      [url('e-2')]: healthy('2', OTHER_ID),
      [url('e-10')]: healthy('3', OTHER_ID),
    }),
    p.spec as any,
    [],
  );
  t.same(answered.foreign, ['e-1', 'e-2', 'e-10']);
});

t.test(
  'observe: with a member list read, a member answering with another accepted cluster ID is foreign',
  async (t) => {
    // The status recorded one ID; the list answered comes from a cluster this one made since (its UID, its names).
    const peer = (i: number) => `http://e-${i}.e.ns.svc:2380`;
    const ids = [0, 1].map((i) => initialMemberId([peer(i)], 'uid-e'));
    const made = clusterIdOf(ids);
    const p = parent({ clusterID: CLUSTER_ID });
    const etcd = new Stub(
      { clusterId: made, members: ids.map((id, i) => member(`e-${i}`, id)) },
      { [url('e-0')]: healthy(ids[0]!, made), [url('e-1')]: healthy(ids[1]!, CLUSTER_ID) },
    );
    const obs = await observe(p, request(p, [pod('e-0'), pod('e-1')]), etcd, p.spec as any, []);
    t.equal(obs.clusterId, made);
    t.same(obs.health['e-0'], healthy(ids[0]!, made));
    t.equal(obs.health['e-1']!.healthy, false, 'the recorded cluster’s answer is not this list’s member');
    t.same(obs.foreign, ['e-1']);
  },
);

t.test('observe: a pod not named as a member does not hide the cluster ID this cluster made', async (t) => {
  const peer = (i: number) => `http://e-${i}.e.ns.svc:2380`;
  const ids = [0, 1, 2].map((i) => initialMemberId([peer(i)], 'uid-e'));
  const made = clusterIdOf(ids);
  const p = parent();
  const obs = await observe(
    p,
    request(p, [pod('e-0'), pod('e-1'), pod('e-2'), pod('other')]),
    new Stub({ clusterId: made, members: [] }),
    p.spec as any,
    [],
  );
  t.equal(obs.clusterId, made);
});

t.test('observe: a cluster ID of members past the highest ordinal seen is not this cluster’s', async (t) => {
  // A cluster bootstrapped from e-1 alone, while only e-0 (and a pod not named as a member) is seen and the status
  // says nothing: no window of this cluster's starts past e-0.
  const fromOne = clusterIdOf([initialMemberId(['http://e-1.e.ns.svc:2380'], 'uid-e')]);
  for (const status of [undefined, { lastMemberIndex: 'x' }]) {
    const p = parent(status);
    const obs = await observe(
      p,
      request(p, [pod('e-0'), pod('other')]),
      new Stub({ clusterId: fromOne, members: [] }),
      p.spec as any,
      [],
    );
    t.equal(obs.etcdError, 'the member list came from another etcd cluster');
  }
  // Seen from e-1: it is.
  const p = parent();
  const seen = await observe(
    p,
    request(p, [pod('e-1')]),
    new Stub({ clusterId: fromOne, members: [] }),
    p.spec as any,
    [],
  );
  t.equal(seen.clusterId, fromOne);
});

t.test('memberWindow: a pod not named as a member is left out, however few pods there are', async (t) => {
  const { request: r, ignored } = memberWindow(request(parent(), [pod('e-0'), pod('other')]), 'e', {});
  t.same(Object.keys(r.children!['Pod.v1']!), ['e-0']);
  t.equal(ignored.pods, 1);
});

t.test('memberWindow: without a status, the lowest ordinals are kept', async (t) => {
  const many = Array.from({ length: 30 }, (_, i) => pod(`e-${29 - i}`));
  const { request: r } = memberWindow(request(parent(), many), 'e', {});
  const kept = Object.keys(r.children!['Pod.v1']!).sort((a, b) => Number(a.slice(2)) - Number(b.slice(2)));
  t.same(
    kept,
    Array.from({ length: MAX_MEMBER_NAMES }, (_, i) => `e-${i}`),
  );
});

t.test('observe: a request without children is read as one with none', async (t) => {
  const p = parent({ clusterID: CLUSTER_ID });
  const etcd = new Stub({ clusterId: CLUSTER_ID, members: [] });
  const obs = await observe(p, { controller: {}, parent: p } as any, etcd, p.spec as any, []);
  t.same(obs.pods, []);
  t.equal(obs.claims, undefined);
  t.same(etcd.lists, []);
});

t.test(
  'observe: a member ID the status recorded is not undone by a later entry of the same name without one',
  async (t) => {
    const p = parent({
      clusterID: CLUSTER_ID,
      memberList: [
        { name: 'e-0', id: '11' },
        { name: 'e-0', id: 'x' },
      ],
    });
    const etcd = new Stub(new EtcdError('timed out', 'Timeout'), { [url('e-0')]: healthy('99') });
    const obs = await observe(p, request(p, [pod('e-0')]), etcd, p.spec as any, []);
    t.equal(obs.health['e-0']!.healthy, false);
    t.same(obs.foreign, ['e-0']);
  },
);
