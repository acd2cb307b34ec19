// EtcdCluster decisions on observations built by hand; the real behaviour is in etcdcluster-real.test.ts.
import t from 'tap';
import { EtcdError, type EtcdClient, type EtcdMember, type MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { clusterOf, memberPod, peerURL } from '../../hooks/etcdcluster/members.js';
import { decide, supportsLearners, type Observation } from '../../hooks/etcdcluster/plan.js';
import { finalize } from '../../hooks/etcdcluster/sync.js';
import { etcdSync as sync } from '../fixtures/hooks.js';
import type { KubeObject, ObservedObject, ParentObject } from '../../lib/metacontroller.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { etcdClusterId, upAs } from '../fixtures/etcd.js';

function parent(spec: Record<string, unknown>, status?: Record<string, unknown>): ParentObject {
  const p: ParentObject = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns', uid: 'uid-e', generation: 1 },
    spec: { repository: 'quay.io/coreos/etcd', paused: false, ...spec },
  };
  if (status) p.status = status;
  return p;
}
const spec = (s: Record<string, unknown>) =>
  ({ repository: 'quay.io/coreos/etcd', paused: false, version: '3.5.0', ...s }) as any;
const c = clusterOf(parent({}), spec({}));
const pod = (i: number, phase = 'Running', version = '3.5.0'): ObservedObject =>
  asObserved(
    memberPod({ parent: parent({}), spec: spec({ version }), name: `e-${i}`, initialCluster: '', state: 'existing' }),
    { phase },
  );
const member = (i: number, started = true, learner = false): EtcdMember => ({
  id: String(1000 + i),
  name: started ? `e-${i}` : '',
  peerURLs: [peerURL(c, `e-${i}`)],
  clientURLs: started ? [`http://e-${i}.e.ns.svc:2379`] : [],
  isLearner: learner,
});
const healthy = (v = '3.5.0', leader = '1000'): MemberHealth => ({ healthy: true, version: v, leader });
const names = (pods: KubeObject[]) => pods.map((p) => p.metadata.name);

t.test('an empty cluster bootstraps its initial members together, all with --initial-cluster-state=new', async (t) => {
  const d = decide(parent({ size: 3 }), spec({ size: 3 }), { pods: [], terminating: [], health: {} });
  t.same(names(d.pods), ['e-0', 'e-1', 'e-2']);
  for (const p of d.pods) {
    const cmd = (p['spec'] as any).containers[0].command as string[];
    t.ok(cmd.includes('--initial-cluster-state=new'));
    t.ok(
      cmd.includes(
        '--initial-cluster=e-0=http://e-0.e.ns.svc:2380,e-1=http://e-1.e.ns.svc:2380,e-2=http://e-2.e.ns.svc:2380',
      ),
    );
  }
  t.equal(d.lastMemberIndex, 2);
  t.equal(d.phase, 'Creating');
  t.notOk(d.action);
});

t.test('every pod gone after the cluster ran: Failed, nothing invented', async (t) => {
  const d = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), {
    pods: [],
    terminating: [],
    health: {},
  });
  t.same(d.pods, []);
  t.equal(d.phase, 'Failed');
  t.equal(d.reason, 'AllMembersLost');
});

t.test('etcd does not answer: every pod kept, quorum lost reported with the members down', async (t) => {
  const obs: Observation = {
    pods: [pod(0), pod(1), pod(2)],
    terminating: [],
    health: { 'e-0': healthy() },
    etcdError: 'timeout',
  };
  const d = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), obs);
  t.same(names(d.pods), ['e-0', 'e-1', 'e-2']);
  t.match(d.conditions[0], { type: 'Available', status: false, reason: 'QuorumLost', message: /e-1, e-2/ });
  t.same(d.quorum?.down, ['e-1', 'e-2']);
  t.notOk(d.action);
});

t.test('a pod that is not a member is dropped; a learner added whose pod is missing gets it back', async (t) => {
  const obs: Observation = {
    pods: [pod(0), pod(7)],
    terminating: [],
    health: { 'e-0': healthy() },
    etcd: { members: [member(0), member(1, false, true)], clusterVersion: '3.5.0' },
  };
  const d = decide(parent({ size: 2 }), spec({ size: 2 }), obs);
  t.same(names(d.pods), ['e-0', 'e-1'], 'e-7 dropped, e-1 recreated');
  const cmd = (d.pods[1]!['spec'] as any).containers[0].command as string[];
  t.ok(cmd.includes('--initial-cluster-state=existing'));
  t.equal(d.lastMemberIndex, 7, 'ordinals never go back');
});

t.test('scale up adds a learner on 3.4+, a voting member before (from two started members)', async (t) => {
  const obs = (v: string, n = 1): Observation => ({
    pods: Array.from({ length: n }, (_, i) => pod(i)),
    terminating: [],
    health: Object.fromEntries(Array.from({ length: n }, (_, i) => [`e-${i}`, healthy(v)])),
    etcd: { members: Array.from({ length: n }, (_, i) => member(i)), clusterVersion: v },
  });
  const d = decide(parent({ size: 2 }), spec({ size: 2 }), obs('3.5.0'));
  t.match(d.action, { type: 'add', pod: 'e-1', learner: true, peerURL: 'http://e-1.e.ns.svc:2380' });
  t.same(names(d.pods), ['e-0', 'e-1']);
  t.match(decide(parent({ size: 3 }), spec({ size: 3 }), obs('3.3.0', 2)).action, {
    type: 'add',
    pod: 'e-2',
    learner: false,
  });
  const refused = decide(parent({ size: 2 }), spec({ size: 2 }), obs('3.3.0'));
  t.equal(refused.action, undefined, 'no voter added to a one-member cluster before 3.4');
  t.same(names(refused.pods), ['e-0']);
  t.ok(supportsLearners('3.4.0'));
  t.notOk(supportsLearners('3.3.9'));
  t.notOk(supportsLearners(undefined));
});

t.test('a started learner is promoted; one not yet started is waited for', async (t) => {
  const base: Observation = {
    pods: [pod(0), pod(1)],
    terminating: [],
    health: { 'e-0': healthy() },
    etcd: { members: [member(0), member(1, true, true)], clusterVersion: '3.5.0' },
  };
  t.match(decide(parent({ size: 2 }), spec({ size: 2 }), base).conditions[1], { reason: 'WaitingForLearner' });
  base.health['e-1'] = healthy();
  t.match(decide(parent({ size: 2 }), spec({ size: 2 }), base).action, { type: 'promote', id: '1001' });
});

t.test('scale down removes the highest ordinal that is not the leader', async (t) => {
  const obs: Observation = {
    pods: [pod(0), pod(1), pod(2)],
    terminating: [],
    health: { 'e-0': healthy('3.5.0', '1002'), 'e-1': healthy('3.5.0', '1002'), 'e-2': healthy('3.5.0', '1002') },
    etcd: { members: [member(0), member(1), member(2)], clusterVersion: '3.5.0' },
  };
  const d = decide(parent({ size: 2 }), spec({ size: 2 }), obs);
  t.match(d.action, { type: 'remove', pod: 'e-1' }, 'e-2 leads, so e-1 goes');
  t.same(names(d.pods), ['e-0', 'e-2']);
});

t.test('upgrade: the leader last, and never two at once', async (t) => {
  const health = { 'e-0': healthy('3.5.0', '1000'), 'e-1': healthy('3.5.0', '1000') };
  const obs: Observation = {
    pods: [pod(0), pod(1)],
    terminating: [],
    health,
    etcd: { members: [member(0), member(1)], clusterVersion: '3.5.0' },
  };
  const d = decide(parent({ size: 2, version: '3.6.0' }), spec({ size: 2, version: '3.6.0' }), obs);
  const images = d.pods.map((p: any) => p.spec.containers[0].image);
  t.same(images, ['quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.6.0'], 'e-1 first: e-0 leads');
  t.equal(d.targetVersion, '3.6.0');
  // e-1 runs the new image but still reports 3.5.0: wait.
  const waiting = decide(parent({ size: 2, version: '3.6.0' }), spec({ size: 2, version: '3.6.0' }), {
    ...obs,
    pods: [pod(0), pod(1, 'Running', '3.6.0')],
  });
  t.same(
    waiting.pods.map((p: any) => p.spec.containers[0].image),
    ['quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.6.0'],
  );
  t.match(waiting.conditions[1], { type: 'Upgrading', reason: 'WaitingForMember' });
});

class FailingClient implements EtcdClient {
  async memberList() {
    return { members: [member(0)], clusterVersion: '3.5.0', clusterId: etcdClusterId(1) };
  }
  async memberAdd(): Promise<EtcdMember> {
    throw new EtcdError('etcdserver: unhealthy cluster', 'Rejected');
  }
  async memberRemove() {}
  async memberPromote() {}
  async health() {
    return upAs(0, etcdClusterId(1), healthy());
  }
}

t.test('a failed membership call keeps the pods as they are and backs off', async (t) => {
  const p = parent({ size: 2, version: '3.5.0' }, { lastMemberIndex: 0 });
  const res = await sync(
    { controller: {}, parent: p, children: objectMap([pod(0)], 'v1', ['Pod.v1', 'Service.v1']) },
    {
      etcd: new FailingClient(),
      now: FIXED_NOW,
    },
  );
  t.same(
    res.children.filter((c) => c.kind === 'Pod').map((c) => c.metadata.name),
    ['e-0'],
  );
  t.equal(res.resyncAfterSeconds, 10);
  const s = res.status as any;
  t.equal(s.lastMemberIndex, 0, 'the ordinal is not used up');
  t.match(
    s.conditions.find((x: any) => x.type === 'Synced'),
    { status: 'False', reason: 'EtcdCallFailed', message: /unhealthy cluster/ },
  );
});

t.test('an invalid version is refused and the cluster left alone', async (t) => {
  const p = parent({ size: 3, version: 'latest' });
  const res = await sync(
    { controller: {}, parent: p, children: objectMap([pod(0)]) },
    { etcd: new FailingClient(), now: FIXED_NOW },
  );
  // Its running member kept as it is, and the members' NetworkPolicy (network.ts withMemberPolicy).
  t.same(
    res.children.map((c) => c.metadata.name),
    ['e-0', 'e-members'],
  );
  t.match((res.status as any).conditions[0], { reason: 'InvalidSpec', message: /spec\.version is "latest"/ });
});

t.test('finalize waits until nothing is left', async (t) => {
  const p = parent({ size: 1 });
  t.match(finalize({ controller: {}, parent: p, children: objectMap([pod(0)]) }), { finalized: false, children: [] });
  t.match(finalize({ controller: {}, parent: p, children: { 'Pod.v1': {}, 'Service.v1': {} } }), { finalized: true });
});

t.test('pod policy reaches the pods', async (t) => {
  const s = spec({
    size: 1,
    pod: {
      labels: { team: 'a', app: 'not-etcd' },
      nodeSelector: { disk: 'ssd' },
      antiAffinity: true,
      etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '4294967296' }],
      clusterDomain: 'cluster.local',
      persistentVolumeClaimSpec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
    TLS: { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'op' } },
  });
  const p = memberPod({ parent: parent({}), spec: s, name: 'e-0', initialCluster: 'x', state: 'new' }) as any;
  t.equal(p.metadata.labels.team, 'a');
  t.equal(p.metadata.labels.app, 'etcd', 'the selector labels win');
  t.same(p.spec.nodeSelector, { disk: 'ssd' });
  t.ok(p.spec.affinity.podAntiAffinity);
  t.same(p.spec.volumes[0], { name: 'etcd-data', persistentVolumeClaim: { claimName: 'e-0' } });
  const cmd = p.spec.containers[0].command as string[];
  t.ok(cmd.includes('--advertise-client-urls=https://e-0.e.ns.svc.cluster.local:2379'));
  t.ok(cmd.includes('--peer-client-cert-auth=true'));
  t.ok(cmd.includes('--client-cert-auth=true'));
  t.match(p.spec.containers[0].env, [{ name: 'ETCDCTL_API' }, { name: 'ETCD_QUOTA_BACKEND_BYTES' }]);
});
