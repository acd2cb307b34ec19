// Every branch of the EtcdCluster plan (hooks/etcdcluster/plan.ts), each with its whole decision: the action,
// the pods asked for and the flags their etcd starts with, the phase, the reason, every condition with its
// message (what `kubectl describe` shows a user), the member reports, the quorum, the claims kept and whether
// another step follows. The other plan tests check one promise across many states; these check that each state
// is told and acted on exactly, so that a changed word, flag or boundary in the plan is seen.
import t from 'tap';
import type { MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { memberImage } from '../../hooks/etcdcluster/members.js';
import {
  compareVersions,
  decide,
  PENDING_ADD_SECONDS,
  sanitize,
  supportsLearners,
  upgradeRefusal,
  type Decision,
  type Observation,
} from '../../hooks/etcdcluster/plan.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import {
  down,
  etcdHealthy,
  etcdInitialCluster,
  etcdKnown,
  etcdMember,
  etcdParent,
  etcdPeerURL,
  etcdPod,
  etcdCheck,
  etcdSnapshot,
  etcdSpec,
  etcdStarted,
  etcdStorage,
  up,
} from '../fixtures/etcd.js';
import { FIXED_NOW, readyPod } from '../fixtures/requests.js';

const parent = etcdParent;
const spec = etcdSpec;
const pod = etcdPod;
const member = etcdMember;
const url = etcdPeerURL;
const known = etcdKnown;
const cluster = etcdInitialCluster;
const started = etcdStarted;
const healthy = etcdHealthy;
const STORAGE = etcdStorage;
const SNAPSHOT = etcdSnapshot;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

const names = (d: Decision) => d.pods.map((p) => p.metadata.name).sort();

t.test('no pods, one still terminating: wait for it, nothing started', async (t) => {
  const d = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), {
    pods: [],
    terminating: ['e-1', 'e-2'],
    health: {},
  });
  t.same(d.pods, []);
  t.equal(d.phase, 'Creating');
  t.same(d.conditions, [
    { type: 'Scaling', status: true, reason: 'WaitingForTermination', message: 'waiting for e-1, e-2 to go' },
  ]);
  t.equal(d.converging, true);
  t.equal(d.lastMemberIndex, 2);
  t.notOk(d.action);
});

t.test('no pods, no status, no claims: the initial members bootstrap together as a new cluster', async (t) => {
  const d = decide(parent({ size: 3 }), spec({ size: 3 }), { pods: [], terminating: [], health: {} });
  t.same(
    d.pods.map(started),
    range(3).map((i) => ({
      name: `e-${i}`,
      cluster: cluster(0, 1, 2),
      state: 'new',
      image: 'quay.io/coreos/etcd:v3.5.0',
    })),
  );
  t.equal(d.phase, 'Creating');
  t.notOk(d.reason);
  t.same(d.conditions, [
    { type: 'Available', status: false, reason: 'Bootstrapping', message: 'starting members e-0, e-1, e-2' },
    { type: 'Scaling', status: true, reason: 'Bootstrapping', message: '3 initial members' },
  ]);
  t.equal(d.lastMemberIndex, 2);
  t.same(d.members, []);
  t.equal(d.converging, true);
  // Ordinals only grow: after members up to e-4 were seen, a new bootstrap starts at e-5.
  const again = decide(parent({ size: 1 }, { lastMemberIndex: 4 }), spec({ size: 1 }), {
    pods: [],
    terminating: [],
    health: {},
  });
  t.same(names(again), ['e-5']);
  t.equal(again.lastMemberIndex, 5);
  t.equal(started(again.pods[0]!).cluster, cluster(5));
});

t.test('every pod gone after the cluster ran, without storage: Failed/AllMembersLost, nothing started', async (t) => {
  const message =
    'every member pod is gone and with them the data; restore from a backup (EtcdRestore) or delete and recreate the EtcdCluster';
  for (const status of [
    { phase: 'Running', lastMemberIndex: 2 },
    // Its own verdict fed back (phase Failed): still no bootstrap over it.
    { phase: 'Failed', reason: 'AllMembersLost', lastMemberIndex: 2 },
    // Members known from the status, whatever the phase says.
    { phase: 'Creating', lastMemberIndex: 2, memberList: known(0, 1, 2) },
  ]) {
    const d = decide(parent({ size: 3 }, status), spec({ size: 3 }), { pods: [], terminating: [], health: {} });
    t.same(d.pods, [], JSON.stringify(status));
    t.equal(d.phase, 'Failed');
    t.equal(d.reason, 'AllMembersLost');
    t.same(d.conditions, [
      { type: 'Available', status: false, reason: 'AllMembersLost', message },
      { type: 'Recovering', status: true, reason: 'AllMembersLost', message },
    ]);
    t.equal(d.converging, false);
    t.equal(d.lastMemberIndex, 2);
  }
});

t.test('every pod gone with storage: known members restart on their volumes, as existing members', async (t) => {
  const d = decide(
    parent({ size: 3, pod: STORAGE }, { phase: 'Running', lastMemberIndex: 2, memberList: known(0, 1, 2) }),
    spec({ size: 3, pod: STORAGE }),
    { pods: [], terminating: [], health: {}, claims: ['e-0', 'e-1', 'e-2'] },
  );
  t.same(
    d.pods.map(started).map(({ name, cluster: all, state }) => ({ name, all, state })),
    range(3).map((i) => ({ name: `e-${i}`, all: cluster(0, 1, 2), state: 'existing' })),
  );
  const message = 'every member pod is gone; restarting e-0, e-1, e-2 on their volumes';
  t.equal(d.phase, 'Running');
  t.equal(d.reason, 'MembersRestarting');
  t.same(d.conditions, [
    { type: 'Available', status: false, reason: 'MembersRestarting', message },
    { type: 'Recovering', status: true, reason: 'RestartingMembers', message },
  ]);
  t.same(
    d.members.map((m) => [m.name, m.healthy]),
    [
      ['e-0', false],
      ['e-1', false],
      ['e-2', false],
    ],
  );
  t.same(d.keepClaims, ['e-0', 'e-1', 'e-2'], 'etcd silent: every member claim seen is kept');
  t.equal(d.converging, true);
});

t.test('every pod gone with storage and no status: each claim starts again on its volume under its name', async (t) => {
  const d = decide(parent({ size: 3, pod: STORAGE }), spec({ size: 3, pod: STORAGE }), {
    pods: [],
    terminating: [],
    health: {},
    claims: ['e-3', 'e-4', 'other-0', 'e-5'],
    terminatingClaims: ['e-5'],
  });
  t.same(
    d.pods.map(started).map(({ name, cluster: all, state }) => ({ name, all, state })),
    [3, 4].map((i) => ({ name: `e-${i}`, all: cluster(3, 4), state: 'new' })),
    'the claims being deleted and claims of other names are not members',
  );
  const message = 'every member pod is gone; starting e-3, e-4 again on their volumes';
  t.equal(d.reason, 'MembersRestarting');
  t.same(d.conditions, [
    { type: 'Available', status: false, reason: 'MembersRestarting', message },
    { type: 'Recovering', status: true, reason: 'RestartingMembers', message },
  ]);
  t.same(d.members, []);
  t.same(d.keepClaims, ['e-3', 'e-4']);
});

t.test('pods but etcd silent, after the cluster ran: QuorumLost, every pod kept, the members down named', async (t) => {
  const d = decide(
    parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2, memberList: known(0, 1, 2) }),
    spec({ size: 3 }),
    { pods: [pod(0), pod(1)], terminating: [], health: { 'e-0': up(), 'e-1': down } },
  );
  t.same(names(d), ['e-0', 'e-1']);
  const message = 'etcd does not answer: 2 of 3 members down (e-1, e-2); no membership change until a quorum is back';
  t.equal(d.phase, 'Running');
  t.equal(d.reason, 'QuorumLost');
  t.same(d.conditions, [
    { type: 'Available', status: false, reason: 'QuorumLost', message },
    { type: 'Recovering', status: true, reason: 'QuorumLost', message },
  ]);
  t.same(d.quorum, { members: 3, healthy: 1, needed: 2, ok: false, down: ['e-1', 'e-2'] });
  t.same(
    d.members.map((m) => [m.name, m.id, m.healthy]),
    [
      ['e-0', '1000', true],
      ['e-1', '1001', false],
      ['e-2', '1002', false],
    ],
  );
  t.equal(d.converging, true);
  t.notOk(d.action);
});

t.test('pods Ready but etcd unreachable: EtcdUnreachable, and with storage lost members restart', async (t) => {
  const ready = { ...readyPod };
  const d = decide(
    parent({ size: 3, pod: STORAGE }, { phase: 'Running', lastMemberIndex: 2, memberList: known(0, 1, 2) }),
    spec({ size: 3, pod: STORAGE }),
    {
      pods: [pod(0, ready, { pod: STORAGE }), pod(1, ready, { pod: STORAGE })],
      terminating: [],
      health: {},
      claims: ['e-0', 'e-1', 'e-2'],
    },
  );
  t.same(names(d), ['e-0', 'e-1', 'e-2']);
  const e2 = d.pods.find((p) => p.metadata.name === 'e-2')!;
  t.same(started(e2).state, 'existing');
  t.same(started(e2).cluster, cluster(0, 1, 2));
  const message =
    'members are Ready but the hook cannot reach etcd; no membership change until it can (check TLS.static.operatorSecret and network policies); restarting e-2 on their volumes';
  t.equal(d.reason, 'EtcdUnreachable');
  t.same(d.conditions, [
    { type: 'Available', status: false, reason: 'EtcdUnreachable', message },
    { type: 'Recovering', status: true, reason: 'EtcdUnreachable', message },
  ]);
  t.same(d.keepClaims, ['e-0', 'e-1', 'e-2']);
  t.same(d.quorum, { members: 3, healthy: 0, needed: 2, ok: false, down: ['e-0', 'e-1', 'e-2'] });
});

t.test('pods while bootstrapping and etcd not yet answering: Creating, waiting for the first members', async (t) => {
  const d = decide(parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2 }), spec({ size: 3 }), {
    pods: range(3).map((i) => pod(i, { phase: 'Pending' })),
    terminating: [],
    health: {},
  });
  t.same(names(d), ['e-0', 'e-1', 'e-2']);
  t.equal(d.phase, 'Creating');
  t.notOk(d.reason);
  const message = 'waiting for the first members to answer';
  t.same(d.conditions, [
    { type: 'Available', status: false, reason: 'Bootstrapping', message },
    { type: 'Scaling', status: true, reason: 'Bootstrapping', message },
  ]);
  t.equal(d.converging, true);
  // A member of that bootstrap failed: it starts over, claims and all (nothing was stored in it).
  const failed = decide(
    parent({ size: 3, pod: STORAGE }, { phase: 'Creating', lastMemberIndex: 2 }),
    spec({ size: 3, pod: STORAGE }),
    {
      pods: [pod(0, { phase: 'Failed' }, { pod: STORAGE }), pod(1, {}, { pod: STORAGE }), pod(2, {}, { pod: STORAGE })],
      terminating: [],
      health: {},
      claims: ['e-0', 'e-1', 'e-2'],
    },
  );
  const restart = 'a member of the bootstrap failed or the spec changed: starting the bootstrap again';
  t.same(failed.pods, []);
  t.same(failed.keepClaims, []);
  t.equal(failed.phase, 'Creating');
  t.same(failed.conditions, [
    { type: 'Available', status: false, reason: 'Bootstrapping', message: restart },
    { type: 'Scaling', status: true, reason: 'RestartingBootstrap', message: restart },
  ]);
  // A Ready pod means the cluster formed: never a bootstrap again, even with status saying Creating.
  const formed = decide(parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2 }), spec({ size: 3 }), {
    pods: [pod(0, readyPod), pod(1, { phase: 'Failed' })],
    terminating: [],
    health: {},
  });
  t.equal(formed.reason, 'EtcdUnreachable');
  t.same(names(formed), ['e-0', 'e-1']);
});

t.test('quorum lost while etcd answers: no change, every pod kept, a dead member recreated with storage', async (t) => {
  const obs: Observation = {
    pods: [pod(0, {}, { pod: STORAGE })],
    terminating: [],
    health: { 'e-0': up() },
    etcd: { members: range(3).map((i) => member(i)), clusterVersion: '3.5.0' },
    claims: ['e-0', 'e-1', 'e-2'],
  };
  const d = decide(
    parent({ size: 3, pod: STORAGE }, { phase: 'Running', lastMemberIndex: 2 }),
    spec({ size: 3, pod: STORAGE }),
    obs,
  );
  const message = '1 of 3 members healthy, 2 needed; down: e-1, e-2. No membership change until they return.';
  t.equal(d.reason, 'QuorumLost');
  t.same(d.conditions, [
    { type: 'Available', status: false, reason: 'QuorumLost', message },
    { type: 'Recovering', status: true, reason: 'QuorumLost', message },
  ]);
  t.same(
    d.pods.map(started).map(({ name, state }) => [name, state]),
    [
      ['e-0', 'existing'],
      ['e-1', 'existing'],
      ['e-2', 'existing'],
    ],
    'the pod left is kept, the two lost come back as existing members',
  );
  t.equal(started(d.pods[1]!).cluster, cluster(0, 1, 2), 'a recreated member knows every started member');
  t.same(d.keepClaims, [], 'etcd answered: claims follow the members');
  t.notOk(d.action);
  t.equal(d.converging, true);
});

t.test('NOSPACE: reported as such, pods kept, no change', async (t) => {
  const obs = healthy(3);
  obs.health['e-1'] = { healthy: false, alarm: 'NOSPACE', version: '3.5.0' } as MemberHealth;
  const d = decide(parent({ size: 5 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 5 }), obs);
  const message =
    'etcd raised the NOSPACE alarm (e-1): writes are refused until space is freed (compact and defragment, or raise --quota-backend-bytes through pod.etcdEnv) and the alarm is disarmed; no membership change meanwhile';
  t.equal(d.reason, 'NoSpace');
  t.same(d.conditions, [
    { type: 'Available', status: false, reason: 'NoSpace', message },
    { type: 'Recovering', status: true, reason: 'NoSpace', message },
  ]);
  t.same(d.quorum, { members: 3, healthy: 3, needed: 2, ok: true, down: [] });
  t.equal(d.members[1]!.alarm, 'NOSPACE');
  t.notOk(d.members[1]!.unhealthySince, 'an alarm is not an unhealthy member');
  t.notOk(d.action);
});

t.test('paused: no change, not converging', async (t) => {
  const d = decide(
    parent({ size: 5, paused: true }, { phase: 'Running' }),
    spec({ size: 5, paused: true }),
    healthy(3),
  );
  t.same(d.conditions, [
    {
      type: 'Available',
      status: true,
      // (3 members of the 5 asked for: fewer failures tolerated, said so.)
      reason: 'Degraded',
      message:
        '3 of 3 members healthy: 1 more failure tolerated; 2 of the 5 members asked for missing: tolerating 1 failure where 5 members tolerate 2 failures',
    },
    {
      type: 'Paused',
      status: true,
      reason: 'SpecPaused',
      message: 'spec.paused is true: no membership change or upgrade is made',
    },
  ]);
  t.equal(d.converging, false);
  t.notOk(d.action);
  t.same(names(d), ['e-0', 'e-1', 'e-2']);
});

t.test('a member whose pod is gone, with storage: restarted as the same member, named in the condition', async (t) => {
  const obs = healthy(3, { claims: ['e-0', 'e-1', 'e-2'] });
  obs.pods = [pod(0, {}, { pod: STORAGE }), pod(2, {}, { pod: STORAGE })];
  delete obs.health['e-1'];
  const d = decide(
    parent({ size: 3, pod: STORAGE }, { phase: 'Running', lastMemberIndex: 2 }),
    spec({ size: 3, pod: STORAGE }),
    obs,
  );
  t.same(d.conditions, [
    {
      type: 'Available',
      status: true,
      reason: 'Degraded',
      message: '2 of 3 members healthy (down: e-1): one more failure loses quorum',
    },
    { type: 'Recovering', status: true, reason: 'RestartingMember', message: 'restarting e-1 as the same member' },
  ]);
  t.same(names(d), ['e-0', 'e-1', 'e-2']);
  t.notOk(d.action, 'no remove + add');
  // Two at once: the plural.
  obs.pods = [pod(0, {}, { pod: STORAGE })];
  delete obs.health['e-2'];
  obs.health['e-1'] = down;
  const two = decide(
    parent({ size: 1, pod: STORAGE }, { phase: 'Running', lastMemberIndex: 2 }),
    spec({ size: 1, pod: STORAGE }),
    { ...obs, etcd: { members: [member(0), member(1), member(2)], clusterVersion: '3.5.0' } },
  );
  t.equal(two.reason, 'QuorumLost', 'one of three healthy');
  const twoOk = decide(
    parent({ size: 3, pod: STORAGE }, { phase: 'Running', lastMemberIndex: 4 }),
    spec({ size: 3, pod: STORAGE }),
    {
      pods: [pod(0, {}, { pod: STORAGE }), pod(1, {}, { pod: STORAGE }), pod(2, {}, { pod: STORAGE })],
      terminating: [],
      health: { 'e-0': up(), 'e-1': up(), 'e-2': up() },
      etcd: { members: range(5).map((i) => member(i)), clusterVersion: '3.5.0' },
      claims: range(5).map((i) => `e-${i}`),
    },
  );
  t.match(twoOk.conditions[1], {
    reason: 'RestartingMember',
    message: 'restarting e-3, e-4 as the same members',
  });
});

t.test('a dead member without storage is removed, then replaced by a later add', async (t) => {
  const obs = healthy(3);
  obs.pods = [pod(0), pod(1), pod(2, { phase: 'Failed' })];
  const d = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), obs);
  t.same(d.action, { type: 'remove', id: '1002', pod: 'e-2', why: 'dead' });
  t.same(names(d), ['e-0', 'e-1']);
  t.same(d.fallbackPods.map((p) => p.metadata.name).sort(), ['e-0', 'e-1', 'e-2'], 'on failure nothing is dropped');
  t.same(d.conditions, [
    { type: 'Available', status: true, reason: 'QuorumAvailable', message: '3 of 3 members healthy' },
    {
      type: 'Recovering',
      status: true,
      reason: 'ReplacingDeadMember',
      message: 'member e-2 is gone: removing it, a new member will replace it',
    },
  ]);
  t.equal(d.converging, true);
});

t.test('an addition that never started is cancelled; one pending too long says why', async (t) => {
  // A learner whose pod failed.
  const obs = healthy(3);
  obs.etcd!.members.push(member(3, false, true));
  obs.pods.push(pod(3, { phase: 'Failed' }));
  obs.health['e-3'] = down;
  const d = decide(parent({ size: 4 }, { phase: 'Running', lastMemberIndex: 3 }), spec({ size: 4 }), obs);
  t.same(d.action, { type: 'remove', id: '1003', pod: 'e-3', why: 'cancel' });
  t.same(d.conditions[1], {
    type: 'Scaling',
    status: true,
    reason: 'CancellingAddition',
    message: 'member e-3 never started: its addition is cancelled (failed addition 1 of 3)',
  });
  t.same(names(d), ['e-0', 'e-1', 'e-2']);
  // A learner Pending for longer than the limit, its image not pullable.
  const since = new Date(FIXED_NOW.getTime() - (PENDING_ADD_SECONDS + 1) * 1000).toISOString();
  const waitingPod = pod(3, {
    phase: 'Pending',
    containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ContainerCreating' } } }],
  });
  const late = healthy(3, { now: FIXED_NOW });
  late.etcd!.members.push(member(3, false, true));
  late.pods.push(waitingPod);
  late.health['e-3'] = down;
  const status = {
    phase: 'Running',
    lastMemberIndex: 3,
    memberList: [
      ...known(0, 1, 2),
      { name: 'e-3', id: '1003', healthy: false, learner: true, pendingSince: since } as Record<string, unknown>,
    ],
  };
  const l = decide(parent({ size: 4 }, status), spec({ size: 4 }), late);
  t.same(l.action, { type: 'remove', id: '1003', pod: 'e-3', why: 'cancel' });
  t.equal(
    l.conditions[1]!.message,
    'member e-3 did not start within 10 minutes (ContainerCreating): its addition is cancelled, a new member will be added (failed addition 1 of 3)',
  );
  t.equal(l.members[3]!.pendingSince, since, 'the time it was first seen pending is kept');
  // Just under the limit: waited for.
  const young = structuredClone(status);
  (young.memberList[3] as Record<string, unknown>)['pendingSince'] = new Date(
    FIXED_NOW.getTime() - (PENDING_ADD_SECONDS - 1) * 1000,
  ).toISOString();
  const w = decide(parent({ size: 4 }, young), spec({ size: 4 }), late);
  t.notOk(w.action);
  t.same(w.conditions[1], {
    type: 'Scaling',
    status: true,
    reason: 'WaitingForLearner',
    message: 'waiting for learner e-3 to start',
  });
});

t.test('a started learner is promoted; every member healthy is waited for first', async (t) => {
  const obs = healthy(3);
  obs.etcd!.members.push(member(3, true, true));
  obs.pods.push(pod(3));
  obs.health['e-3'] = up();
  const d = decide(parent({ size: 4 }, { phase: 'Running', lastMemberIndex: 3 }), spec({ size: 4 }), obs);
  t.same(d.action, { type: 'promote', id: '1003', pod: 'e-3' });
  t.same(d.conditions[1], {
    type: 'Scaling',
    status: true,
    reason: 'PromotingLearner',
    message: 'promoting e-3 to a voting member',
  });
  t.same(d.members[3], {
    name: 'e-3',
    id: '1003',
    healthy: true,
    peerURL: url(3),
    clientURL: 'http://e-3.e.ns.svc:2379',
    learner: true,
    version: '3.5.0',
  });
  const sick = healthy(3);
  sick.health['e-1'] = down;
  const w = decide(parent({ size: 4 }, { phase: 'Running' }), spec({ size: 4 }), sick);
  t.same(w.conditions[1], {
    type: 'Scaling',
    status: true,
    reason: 'WaitingForHealthy',
    message: 'waiting for e-1 to be healthy before the next change',
  });
  t.notOk(w.action);
});

t.test('scale up: one member at a time, as a learner from 3.4; before 3.4 not from one member', async (t) => {
  const d = decide(parent({ size: 5 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 5 }), healthy(3));
  t.same(d.action, { type: 'add', pod: 'e-3', peerURL: url(3), learner: true });
  t.equal(d.lastMemberIndex, 3);
  t.same(started(d.pods.find((p) => p.metadata.name === 'e-3')!), {
    name: 'e-3',
    cluster: cluster(0, 1, 2, 3),
    state: 'existing',
    image: 'quay.io/coreos/etcd:v3.5.0',
  });
  t.same(d.conditions[1], {
    type: 'Scaling',
    status: true,
    reason: 'ScalingUp',
    message: 'adding member e-3 (4 of 5)',
  });
  const old = healthy(1);
  old.etcd!.clusterVersion = '3.3.0';
  const refused = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), old);
  t.notOk(refused.action);
  t.same(refused.conditions[1], {
    type: 'Scaling',
    status: false,
    reason: 'ScaleUpRefused',
    message:
      'etcd 3.3.0 has no learners: a second member added to a one-member cluster stops it if it never starts. Upgrade to 3.4 or later first (one minor version at a time) and the size is then reached with learners, or back the cluster up and restore it (EtcdBackup, EtcdRestore): the 3 restored members start together',
  });
  t.equal(refused.converging, false);
  const unknown = healthy(1);
  delete unknown.etcd!.clusterVersion;
  const waiting = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), unknown);
  t.same(waiting.conditions[1], {
    type: 'Scaling',
    status: false,
    reason: 'WaitingForVersion',
    message:
      'waiting for etcd to report its cluster version before growing a one-member cluster (without learners, before 3.4, that growth is refused)',
  });
  t.equal(waiting.converging, true);
  // Before 3.4, from two members on: a voter.
  const two = healthy(2);
  two.etcd!.clusterVersion = '3.3.0';
  t.same(decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), two).action, {
    type: 'add',
    pod: 'e-2',
    peerURL: url(2),
    learner: false,
  });
});

t.test('scale down: the highest ordinal that does not lead goes', async (t) => {
  const obs = healthy(3);
  for (const h of Object.values(obs.health)) h.leader = '1002';
  const d = decide(parent({ size: 2 }, { phase: 'Running' }), spec({ size: 2 }), obs);
  t.same(d.action, { type: 'remove', id: '1001', pod: 'e-1', why: 'scale down' });
  t.same(d.conditions[1], {
    type: 'Scaling',
    status: true,
    reason: 'ScalingDown',
    message: 'removing member e-1 (2 of 2)',
  });
  t.same(names(d), ['e-0', 'e-2']);
  t.equal(d.members.find((m) => m.leader)?.name, 'e-2');
});

t.test('upgrade: messages of each step, and at rest every condition', async (t) => {
  const d = decide(
    parent({ size: 3, version: '3.6.0' }, { phase: 'Running' }),
    spec({ size: 3, version: '3.6.0' }),
    healthy(3),
  );
  t.equal(d.targetVersion, '3.6.0');
  t.equal(d.currentVersion, '3.5.0');
  t.same(d.conditions[1], {
    type: 'Upgrading',
    status: true,
    reason: 'UpgradingMember',
    message: 'upgrading e-1 to 3.6.0 (0 of 3 done)',
  });
  const p1 = d.pods.find((p) => p.metadata.name === 'e-1')!;
  t.equal(started(p1).image, 'quay.io/coreos/etcd:v3.6.0');
  t.equal(p1.metadata.annotations?.['etcd.version'], '3.6.0');
  // e-1 runs the new image but still answers with the old version: wait for it.
  const obs = healthy(3);
  obs.pods[1] = pod(1, { phase: 'Running' }, { version: '3.6.0' });
  const w = decide(
    parent({ size: 3, version: '3.6.0' }, { phase: 'Running' }),
    spec({ size: 3, version: '3.6.0' }),
    obs,
  );
  t.same(w.conditions[1], {
    type: 'Upgrading',
    status: true,
    reason: 'WaitingForMember',
    message: 'waiting for e-1 to run 3.6.0',
  });
  // At rest.
  const rest = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), healthy(3));
  t.same(rest.conditions, [
    { type: 'Available', status: true, reason: 'QuorumAvailable', message: '3 of 3 members healthy' },
    { type: 'Scaling', status: false, reason: 'AtSize', message: '3 members' },
    { type: 'Upgrading', status: false, reason: 'AtVersion', message: 'every member runs 3.5.0' },
    { type: 'Recovering', status: false, reason: 'Healthy', message: 'every member is healthy' },
  ]);
  t.equal(rest.converging, false);
  t.equal(rest.phase, 'Running');
  t.notOk(rest.reason);
  t.same(rest.quorum, { members: 3, healthy: 3, needed: 2, ok: true, down: [] });
  t.same(
    rest.members.map((m) => [m.name, m.leader ?? false]),
    [
      ['e-0', true],
      ['e-1', false],
      ['e-2', false],
    ],
  );
});

t.test('a refused upgrade: the condition says why, the cluster stays at its version', async (t) => {
  const d = decide(
    parent({ size: 3, version: '3.7.0' }, { phase: 'Running' }),
    spec({ size: 3, version: '3.7.0' }),
    healthy(3),
  );
  t.same(
    d.conditions.find((x) => x.type === 'Upgrading'),
    {
      type: 'Upgrading',
      status: false,
      reason: 'UpgradeRefused',
      message:
        'spec.version 3.7.0 is refused: etcd upgrades one minor version at a time (3.5 to 3.6 first); the cluster stays at 3.5.0',
    },
  );
  t.notOk(d.targetVersion);
  t.same(
    d.pods.map((p) => started(p).image),
    Array(3).fill('quay.io/coreos/etcd:v3.5.0'),
  );
  // The version last reported stands when no member answers.
  const silent = decide(
    parent({ size: 3, version: '3.4.0' }, { phase: 'Running', currentVersion: '3.5.0', memberList: known(0, 1, 2) }),
    spec({ size: 3, version: '3.4.0' }),
    { pods: range(3).map((i) => pod(i)), terminating: [], health: {} },
  );
  t.match(
    silent.conditions.find((x) => x.type === 'Upgrading'),
    {
      reason: 'UpgradeRefused',
      message: /downgrade from 3\.5 to 3\.4.*the cluster stays at 3\.5\.0/,
    },
  );
  // A reported version that is not a version is not trusted.
  const junk = decide(
    parent({ size: 3, version: '3.4.0' }, { phase: 'Running', currentVersion: 'x3.5.0', memberList: known(0, 1, 2) }),
    spec({ size: 3, version: '3.4.0' }),
    { pods: range(3).map((i) => pod(i)), terminating: [], health: {} },
  );
  t.notOk(junk.conditions.some((x) => x.reason === 'UpgradeRefused'));
});

t.test('restore: replacing, waiting for the old members, then every member from the snapshot', async (t) => {
  const restore = { uid: 'r1', name: 'rest', source: SNAPSHOT, created: '2026-01-02T03:00:00Z' };
  // Its snapshot is checked first, the cluster as it is (test/etcdcluster/restore-check.test.ts); then it acts.
  const checking = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), {
    ...healthy(3),
    restore,
  });
  t.same(checking.restore, { uid: 'r1', name: 'rest', phase: 'Checking', created: '2026-01-02T03:00:00Z' });
  t.same(names(checking), ['e-0', 'e-1', 'e-2'], 'the members kept while the snapshot is checked');
  t.equal(checking.restoreCheck?.metadata.name, 'e-restore-check');
  const first = decide(
    parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2, restore: checking.restore }),
    spec({ size: 3 }),
    { ...healthy(3), restore, restoreCheck: etcdCheck('r1') },
  );
  const replacing = 'EtcdRestore rest: replacing the cluster with the snapshot bucket/snap.db';
  t.same(first.pods, [], 'the old members are dropped');
  t.same(first.fallbackPods, []);
  t.same(first.restore, {
    uid: 'r1',
    name: 'rest',
    phase: 'Replacing',
    created: '2026-01-02T03:00:00Z',
    s3: SNAPSHOT.s3,
  });
  t.equal(first.reason, 'Restoring');
  t.equal(first.phase, 'Creating');
  t.same(first.conditions, [
    { type: 'Available', status: false, reason: 'Restoring', message: replacing },
    { type: 'Recovering', status: true, reason: 'Restoring', message: replacing },
  ]);
  t.same(first.members, []);
  t.equal(first.converging, true);
  t.notOk(first.action, 'no membership call');
  const status = { phase: 'Creating', lastMemberIndex: 2, restore: first.restore };
  const waiting = decide(parent({ size: 3 }, status), spec({ size: 3 }), {
    pods: [],
    terminating: ['e-0'],
    health: {},
    restore,
  });
  t.same(waiting.conditions[0], {
    type: 'Available',
    status: false,
    reason: 'Restoring',
    message: 'waiting for the old members to go',
  });
  t.same(waiting.restore, first.restore);
  const start = decide(parent({ size: 3 }, status), spec({ size: 3 }), {
    pods: [],
    terminating: [],
    health: {},
    restore,
  });
  t.same(
    start.pods.map(started),
    [3, 4, 5].map((i) => ({
      name: `e-${i}`,
      cluster: cluster(3, 4, 5),
      state: 'new',
      image: 'quay.io/coreos/etcd:v3.5.0',
      init: ['fetch-snapshot', 'restore-snapshot', 'place-snapshot'],
    })),
  );
  t.equal(start.lastMemberIndex, 5);
  t.same(start.restore, { ...first.restore, phase: 'Restoring' });
  t.same(start.conditions[1], {
    type: 'Recovering',
    status: true,
    reason: 'Restoring',
    message: 'members e-3, e-4, e-5 start from the snapshot bucket/snap.db',
  });
  // Paused: no restore starts.
  const paused = decide(parent({ size: 3, paused: true }, { phase: 'Running' }), spec({ size: 3, paused: true }), {
    ...healthy(3),
    restore,
  });
  t.notOk(paused.restore);
  t.same(names(paused), ['e-0', 'e-1', 'e-2']);
});

t.test(
  'restore: the EtcdRestore deleted mid-way, or its members lost, never bootstraps an empty cluster',
  async (t) => {
    const restore = { uid: 'r1', name: 'rest', source: SNAPSHOT };
    const replacing = { uid: 'r1', name: 'rest', phase: 'Replacing' };
    const gone = decide(
      parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2, restore: replacing }),
      spec({ size: 3 }),
      {
        pods: [],
        terminating: [],
        health: {},
      },
    );
    const goneMessage =
      'EtcdRestore rest failed (the EtcdRestore was deleted before the restore started); fix the cause and create a new EtcdRestore';
    t.same(gone.pods, []);
    t.equal(gone.phase, 'Failed');
    t.equal(gone.reason, 'RestoreFailed');
    t.same(gone.conditions, [
      { type: 'Available', status: false, reason: 'RestoreFailed', message: goneMessage },
      { type: 'Recovering', status: true, reason: 'RestoreFailed', message: goneMessage },
    ]);
    t.same(gone.restore, {
      ...replacing,
      phase: 'Failed',
      reason: 'the EtcdRestore was deleted before the restore started',
    });
    t.equal(gone.converging, false);
    // Its verdict fed back: still nothing started.
    const again = decide(
      parent({ size: 3 }, { phase: 'Failed', lastMemberIndex: 2, restore: gone.restore }),
      spec({ size: 3 }),
      {
        pods: [],
        terminating: [],
        health: {},
      },
    );
    t.same(again.pods, []);
    t.same(again.restore, gone.restore);
    t.equal(again.reason, 'RestoreFailed');

    const restoring = { uid: 'r1', name: 'rest', phase: 'Restoring' };
    // Every restored member lost before it ran, the EtcdRestore still there: all start again from the snapshot.
    const lost = decide(
      parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 5, restore: restoring }),
      spec({ size: 3 }),
      {
        pods: [],
        terminating: [],
        health: {},
        restore,
      },
    );
    t.same(names(lost), ['e-6', 'e-7', 'e-8']);
    t.same(
      lost.pods.map((p) => started(p).init),
      Array(3).fill(['fetch-snapshot', 'restore-snapshot', 'place-snapshot']),
    );
    t.equal(
      lost.conditions[0]!.message,
      'the restored members were lost before they ran: e-6, e-7, e-8 start again from the snapshot bucket/snap.db',
    );
    t.same(lost.restore, restoring);
    // ... and without it: the restore ends failed.
    const orphan = decide(
      parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 5, restore: restoring }),
      spec({ size: 3 }),
      {
        pods: [],
        terminating: [],
        health: {},
      },
    );
    t.same(orphan.pods, []);
    t.same(orphan.restore, {
      ...restoring,
      phase: 'Failed',
      reason: 'the restored members were lost and the EtcdRestore is gone',
    });
    // Some restored members lost before any served: all start again (the pods left are dropped first).
    const partly = decide(
      parent(
        { size: 3 },
        {
          phase: 'Creating',
          lastMemberIndex: 5,
          restore: restoring,
          conditions: [{ type: 'PodsCreated', status: 'True', reason: 'Created', message: '' }],
        },
      ),
      spec({ size: 3 }),
      { pods: [pod(3, { phase: 'Pending' })], terminating: [], health: {}, restore },
    );
    t.same(partly.pods, []);
    t.equal(partly.conditions[0]!.message, 'restored members were lost before they served: starting the restore again');
    t.same(partly.restore, restoring);
  },
);

t.test('restore: a failed init step ends it with its reason; a member that serves makes it Restored', async (t) => {
  const restore = { uid: 'r1', name: 'rest', source: SNAPSHOT };
  const restoring = { uid: 'r1', name: 'rest', phase: 'Restoring' };
  const failedPod = pod(3, {
    phase: 'Failed',
    initContainerStatuses: [
      { name: 'fetch-snapshot', state: { terminated: { exitCode: 0 } } },
      {
        name: 'restore-snapshot',
        state: {
          terminated: { exitCode: 2, reason: 'Error', message: '{"reason":"snapshot\\u0007 checksum mismatch"}' },
        },
      },
    ],
  });
  const d = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 5, restore: restoring }),
    spec({ size: 3 }),
    {
      pods: [failedPod, pod(4, { phase: 'Pending' }), pod(5, { phase: 'Pending' })],
      terminating: [],
      health: {},
      restore,
    },
  );
  t.equal(d.reason, 'RestoreFailed');
  t.same(d.pods, []);
  t.same(d.restore, { ...restoring, phase: 'Failed', reason: 'restore-snapshot: snapshot checksum mismatch' });
  // A message that is not JSON is the reason as it is; none at all gives the container's reason.
  const plain = structuredClone(failedPod);
  (plain['status'] as any).initContainerStatuses[1].state.terminated.message = 'no such key';
  const p = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 5, restore: restoring }),
    spec({ size: 3 }),
    {
      pods: [plain],
      terminating: [],
      health: {},
      restore,
    },
  );
  t.equal(p.restore?.reason, 'restore-snapshot: no such key');
  const bare = structuredClone(failedPod);
  delete (bare['status'] as any).initContainerStatuses[1].state.terminated.message;
  const b = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 5, restore: restoring }),
    spec({ size: 3 }),
    {
      pods: [bare],
      terminating: [],
      health: {},
      restore,
    },
  );
  t.equal(b.restore?.reason, 'restore-snapshot: Error');
  // A Ready member: the restore is done, whatever the hook can reach.
  const served = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 5, restore: restoring }),
    spec({ size: 3 }),
    {
      pods: [pod(3, readyPod), pod(4, { phase: 'Pending' }), pod(5, { phase: 'Pending' })],
      terminating: [],
      health: {},
      restore,
    },
  );
  t.same(served.restore, { ...restoring, phase: 'Restored' });
  // etcd answering with a quorum: Restored too; without a quorum, still Restoring.
  const obs = healthy(3);
  obs.pods = [3, 4, 5].map((i) => pod(i));
  obs.etcd!.members = [3, 4, 5].map((i) => member(i));
  obs.health = { 'e-3': up('1003'), 'e-4': up('1003'), 'e-5': up('1003') };
  const ok = decide(
    parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 5, restore: restoring }),
    spec({ size: 3 }),
    {
      ...obs,
      restore,
    },
  );
  t.same(ok.restore, { ...restoring, phase: 'Restored' });
  obs.health = { 'e-3': up('1003'), 'e-4': down, 'e-5': down };
  const notYet = decide(
    parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 5, restore: restoring }),
    spec({ size: 3 }),
    {
      ...obs,
      restore,
    },
  );
  t.same(notYet.restore, restoring);
});

t.test('memberImage: the etcd container, else the first; anything else in the list is no container', async (t) => {
  const withContainers = (containers: unknown): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'e-0' },
    spec: { containers },
  });
  t.equal(
    memberImage(
      withContainers([
        { name: 'sidecar', image: 's:1' },
        { name: 'etcd', image: 'etcd:3' },
      ]),
    ),
    'etcd:3',
  );
  t.equal(
    memberImage(
      withContainers([
        { name: 'main', image: 'm:1' },
        { name: 'other', image: 'o:1' },
      ]),
    ),
    'm:1',
  );
  t.equal(memberImage(withContainers([null, { name: 'etcd', image: 'etcd:3' }])), 'etcd:3');
  t.equal(memberImage(withContainers([null])), undefined);
  t.equal(memberImage(withContainers([{ name: 'etcd', image: 5 }])), undefined, 'an image that is not a string');
  t.equal(memberImage(withContainers({ etcd: { image: 'etcd:3' } })), undefined, 'containers that are no list');
  t.equal(memberImage(withContainers(undefined)), undefined);
  t.equal(memberImage({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'e-0' } }), undefined, 'a pod without spec');
});

t.test('each action comes with the answer for its success and for its failure', async (t) => {
  // Remove: on success the member leaves the list at once; on failure every observed pod stays.
  const dead = healthy(3);
  dead.pods = [pod(0), pod(1), pod(2, { phase: 'Failed' })];
  const r = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), dead);
  t.same(
    r.onSuccess?.members.map((m) => m.name),
    ['e-0', 'e-1'],
  );
  t.same(
    r.onFailure?.pods.map((p) => p.metadata.name),
    ['e-0', 'e-1', 'e-2'],
  );
  t.equal(r.onFailure?.lastMemberIndex, 2);
  // Add: a failed add gives its ordinal back, so that the next attempt takes the same name.
  const a = decide(parent({ size: 4 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 4 }), healthy(3));
  t.equal(a.lastMemberIndex, 3);
  t.same(
    a.onFailure?.pods.map((x) => x.metadata.name),
    ['e-0', 'e-1', 'e-2'],
    'the new member is not asked for',
  );
  t.equal(a.onFailure?.lastMemberIndex, 2);
  t.same(
    a.onSuccess?.members.map((m) => m.name),
    ['e-0', 'e-1', 'e-2'],
  );
  // Promote: nothing leaves, nothing is given back.
  const obs = healthy(3);
  obs.etcd!.members.push(member(3, true, true));
  obs.pods.push(pod(3));
  obs.health['e-3'] = up();
  const p = decide(parent({ size: 4 }, { phase: 'Running', lastMemberIndex: 3 }), spec({ size: 4 }), obs);
  t.equal(p.action?.type, 'promote');
  t.same(p.onSuccess?.members, p.members);
  t.equal(p.onFailure?.lastMemberIndex, 3);
  // No action, no outcomes.
  const rest = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), healthy(3));
  t.notOk(rest.onSuccess);
  t.notOk(rest.onFailure);
});

t.test('every decision while etcd answers is phase Running, and says whether another step follows', async (t) => {
  const since = (seconds: number) => new Date(FIXED_NOW.getTime() - seconds * 1000).toISOString();
  const withLearner = (
    started: boolean,
    health: MemberHealth,
    status: Record<string, unknown> = { phase: 'Running' },
  ) => {
    const obs = healthy(3);
    obs.etcd!.members.push(member(3, started, true));
    obs.pods.push(pod(3));
    obs.health['e-3'] = health;
    return { status, obs };
  };
  const cases: Array<[string, () => Decision, boolean, string | undefined]> = [
    [
      'quorum lost',
      () => {
        const obs = healthy(3);
        obs.health['e-1'] = down;
        obs.health['e-2'] = down;
        return decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), obs);
      },
      true,
      'QuorumLost',
    ],
    [
      'no space',
      () => {
        const obs = healthy(3);
        obs.health['e-1'] = { healthy: false, alarm: 'NOSPACE' } as MemberHealth;
        return decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), obs);
      },
      true,
      'NoSpace',
    ],
    [
      'paused',
      () => decide(parent({ size: 4, paused: true }), spec({ size: 4, paused: true }), healthy(3)),
      false,
      undefined,
    ],
    [
      'restarting a member',
      () => {
        const obs = healthy(3, { claims: ['e-0', 'e-1', 'e-2'] });
        obs.pods = [pod(0, {}, { pod: STORAGE }), pod(1, {}, { pod: STORAGE })];
        return decide(parent({ size: 3, pod: STORAGE }, { phase: 'Running' }), spec({ size: 3, pod: STORAGE }), obs);
      },
      true,
      undefined,
    ],
    [
      'a dead member',
      () => {
        const obs = healthy(3);
        obs.pods = [pod(0), pod(1)];
        return decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), obs);
      },
      true,
      undefined,
    ],
    [
      'an addition cancelled',
      () => {
        const { obs, status } = withLearner(false, down);
        return decide(parent({ size: 3 }, status), spec({ size: 3 }), obs);
      },
      true,
      undefined,
    ],
    [
      'a learner waited for',
      () => {
        const { obs, status } = withLearner(false, down);
        return decide(parent({ size: 4 }, status), spec({ size: 4 }), obs);
      },
      true,
      undefined,
    ],
    [
      'a learner promoted',
      () => {
        const { obs, status } = withLearner(true, up());
        return decide(parent({ size: 4 }, status), spec({ size: 4 }), obs);
      },
      true,
      undefined,
    ],
    [
      'an unhealthy member replaced',
      () => {
        const obs = { ...healthy(3), now: FIXED_NOW };
        obs.health['e-2'] = down;
        const memberList = [...known(0, 1), { ...known(2)[0]!, healthy: false, unhealthySince: since(601) }];
        return decide(parent({ size: 3 }, { phase: 'Running', memberList }), spec({ size: 3 }), obs);
      },
      true,
      undefined,
    ],
    [
      'growth refused before 3.4',
      () => {
        const obs = healthy(1);
        obs.etcd!.clusterVersion = '3.3.0';
        return decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), obs);
      },
      false,
      undefined,
    ],
    ['a member added', () => decide(parent({ size: 4 }), spec({ size: 4 }), healthy(3)), true, undefined],
    ['a member removed', () => decide(parent({ size: 2 }), spec({ size: 2 }), healthy(3)), true, undefined],
    [
      'a member upgraded',
      () => decide(parent({ size: 3, version: '3.6.0' }), spec({ size: 3, version: '3.6.0' }), healthy(3)),
      true,
      undefined,
    ],
    ['at rest', () => decide(parent({ size: 3 }), spec({ size: 3 }), healthy(3)), false, undefined],
    [
      'at rest with a pod that is no member (dropped: one more sync)',
      () => {
        const obs = healthy(3);
        obs.pods.push(pod(7));
        return decide(parent({ size: 3 }), spec({ size: 3 }), obs);
      },
      true,
      undefined,
    ],
  ];
  for (const [label, make, converging, reason] of cases) {
    const d = make();
    t.equal(d.phase, 'Running', `${label}: Running`);
    t.equal(d.converging, converging, `${label}: converging ${converging}`);
    t.equal(d.reason, reason, `${label}: reason`);
  }
});

t.test('a member that finished with storage is dropped and named, then recreated as itself', async (t) => {
  const obs = healthy(3, { claims: ['e-0', 'e-1', 'e-2'] });
  obs.pods = [
    pod(0, {}, { pod: STORAGE }),
    pod(1, {}, { pod: STORAGE }),
    pod(2, { phase: 'Succeeded' }, { pod: STORAGE }),
  ];
  const d = decide(parent({ size: 3, pod: STORAGE }, { phase: 'Running' }), spec({ size: 3, pod: STORAGE }), obs);
  t.same(names(d), ['e-0', 'e-1'], 'the finished pod is dropped, so that the next sync recreates it');
  t.same(d.conditions[1], {
    type: 'Recovering',
    status: true,
    reason: 'RestartingMember',
    message: 'restarting e-2 as the same member',
  });
  t.notOk(d.action);
  // While quorum is lost too.
  obs.health['e-1'] = down;
  obs.health['e-0'] = down;
  const lost = decide(parent({ size: 3, pod: STORAGE }, { phase: 'Running' }), spec({ size: 3, pod: STORAGE }), obs);
  t.equal(lost.reason, 'QuorumLost');
  t.same(names(lost), ['e-0', 'e-1']);
});

t.test('pods that are not quite what the plan expects: no status, odd statuses, odd member lists', async (t) => {
  // A pod without status (a phase of '') is live; a member list with junk entries keeps only real reports.
  const bare = pod(1);
  delete bare['status'];
  const obs = healthy(3);
  obs.pods[1] = bare;
  const d = decide(
    parent(
      { size: 3 },
      { phase: 'Running', memberList: [null, 'e-0', { id: '1000' }, { name: 7 }, ...known(0, 1, 2)] },
    ),
    spec({ size: 3 }),
    obs,
  );
  t.same(names(d), ['e-0', 'e-1', 'e-2']);
  t.equal(d.converging, false);
  // etcd silent: the junk of the member list is no member.
  const silent = decide(
    parent(
      { size: 3 },
      { phase: 'Running', memberList: [null, 'e-9', { id: '1009' }, { name: 9 }, ...known(0, 1, 2)] },
    ),
    spec({ size: 3 }),
    { pods: [pod(0), bare], terminating: [], health: { 'e-0': up(), 'e-1': down } },
  );
  t.same(
    silent.members.map((m) => m.name),
    ['e-0', 'e-1', 'e-2'],
  );
  t.same(silent.quorum, { members: 3, healthy: 1, needed: 2, ok: false, down: ['e-1', 'e-2'] });
  // Waiting reasons read from container statuses that lack parts.
  for (const containerStatuses of [
    [{}],
    [{ state: {} }],
    [{ state: { waiting: {} } }],
    [{ state: { waiting: { reason: 5 } } }],
  ]) {
    const odd = healthy(3, { now: FIXED_NOW });
    odd.etcd!.members.push(member(3, false, true));
    odd.pods.push(pod(3, { phase: 'Pending', containerStatuses }));
    odd.health['e-3'] = down;
    const memberList = [
      ...known(0, 1, 2),
      { name: 'e-3', id: '1003', healthy: false, learner: true, pendingSince: '2025-01-01T00:00:00Z' },
    ];
    const c = decide(parent({ size: 4 }, { phase: 'Running', memberList }), spec({ size: 4 }), odd);
    t.equal(
      c.conditions[1]!.message,
      'member e-3 did not start within 10 minutes: its addition is cancelled, a new member will be added (failed addition 1 of 3)',
      JSON.stringify(containerStatuses),
    );
  }
});

t.test('init steps read from statuses that lack parts: only a non-zero exit code is a failed restore', async (t) => {
  const restore = { uid: 'r1', name: 'rest', source: SNAPSHOT };
  const restoring = { uid: 'r1', name: 'rest', phase: 'Restoring' };
  const run = (status: Record<string, unknown> | undefined) => {
    const p = pod(3, { phase: 'Failed' });
    if (status) p['status'] = status;
    else delete p['status'];
    return decide(
      parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 5, restore: restoring }),
      spec({ size: 3 }),
      {
        pods: [p, pod(4, { phase: 'Pending' }), pod(5, { phase: 'Pending' })],
        terminating: [],
        health: {},
        restore,
      },
    );
  };
  for (const status of [
    undefined,
    { phase: 'Failed' },
    { phase: 'Failed', initContainerStatuses: 'broken' },
    { phase: 'Failed', initContainerStatuses: [null, {}, { state: {} }, { state: { terminated: {} } }] },
    { phase: 'Failed', initContainerStatuses: [{ state: { terminated: { exitCode: '1' } } }] },
    { phase: 'Failed', initContainerStatuses: [{ state: { terminated: { exitCode: 0 } } }] },
  ]) {
    const d = run(status);
    t.not(d.reason, 'RestoreFailed', `${JSON.stringify(status)}: not a failed restore`);
    t.same(d.restore, restoring);
  }
  // The reasons of a failed step: the JSON reason, the container's reason, 'Error', the step's name or 'init'.
  const reasonOf = (terminated: Record<string, unknown>, name?: string) =>
    run({
      phase: 'Failed',
      initContainerStatuses: [{ ...(name ? { name } : {}), state: { terminated: { exitCode: 1, ...terminated } } }],
    }).restore?.reason;
  t.equal(reasonOf({ message: '{"code":7}', reason: 'OOMKilled' }, 'fetch-snapshot'), 'fetch-snapshot: OOMKilled');
  t.equal(reasonOf({}, 'fetch-snapshot'), 'fetch-snapshot: Error');
  t.equal(reasonOf({ message: '{"reason":"no such bucket"}' }), 'init: no such bucket');
  t.equal(reasonOf({ message: '  spaced\u0000out  ' }, 'fetch-snapshot'), 'fetch-snapshot: spaced out');
});

t.test('restore records: a failed restore stays failed, a restored one stays restored', async (t) => {
  const failed = { uid: 'r1', name: 'rest', phase: 'Failed', reason: 'x' };
  // The user started members again by hand after a failed restore: the record is kept as it is.
  const d = decide(parent({ size: 3 }, { phase: 'Failed', restore: failed }), spec({ size: 3 }), healthy(3));
  t.same(d.restore, failed);
  const restored = { uid: 'r1', name: 'rest', phase: 'Restored' };
  const obs = healthy(3);
  obs.health['e-1'] = down;
  obs.health['e-2'] = down;
  const later = decide(parent({ size: 3 }, { phase: 'Running', restore: restored }), spec({ size: 3 }), obs);
  t.same(later.restore, restored, 'a restored cluster that loses its quorum later was still restored');
  // Restoring, etcd answering with a quorum but no member reported (an empty member list): not yet restored.
  const restoring = { uid: 'r1', name: 'rest', phase: 'Restoring' };
  const none = decide(parent({ size: 3 }, { phase: 'Creating', restore: restoring }), spec({ size: 3 }), {
    pods: [pod(3, { phase: 'Pending' })],
    terminating: [],
    health: {},
    etcd: { members: [] },
  });
  t.same(none.restore, restoring);
});

t.test('the running version: healthy members only; a reported version only when it is one', async (t) => {
  // e-0 unhealthy reports 3.4.0: not the running version, so 3.6.0 is one minor up from 3.5.0.
  const obs = healthy(3);
  obs.health['e-0'] = { healthy: false, version: '3.4.0' } as MemberHealth;
  const d = decide(parent({ size: 3, version: '3.6.0' }), spec({ size: 3, version: '3.6.0' }), obs);
  t.notOk(d.conditions.some((x) => x.reason === 'UpgradeRefused'));
  t.equal(d.currentVersion, '3.5.0');
  const refused = decide(parent({ size: 3, version: '3.7.0' }), spec({ size: 3, version: '3.7.0' }), healthy(3));
  t.same(
    refused.conditions.filter((x) => x.type === 'Upgrading').map((x) => x.reason),
    ['UpgradeRefused'],
    'the refusal replaces the Upgrading condition',
  );
  // The version last reported, when no member answers: taken only when it is a whole version.
  for (const [reported, refusedToo] of [
    ['3.15.0', true],
    ['13.5.0', true],
    ['3.5.10', true],
    ['3.5.0-rc.1', false],
    ['v3.5.0', false],
    [5, false],
  ] as const) {
    const r = decide(
      parent({ size: 3, version: '3.4.0' }, { phase: 'Running', currentVersion: reported, memberList: known(0, 1, 2) }),
      spec({ size: 3, version: '3.4.0' }),
      { pods: range(3).map((i) => pod(i)), terminating: [], health: {} },
    );
    t.equal(
      r.conditions.some((x) => x.reason === 'UpgradeRefused'),
      refusedToo,
      `reported ${reported}`,
    );
  }
});

t.test('version helpers at their edges', async (t) => {
  t.equal(supportsLearners('4.0.0'), true);
  t.equal(supportsLearners('3.4.0'), true);
  t.equal(supportsLearners('3.3.9'), false);
  t.equal(supportsLearners('2.9.0'), false);
  t.equal(supportsLearners(undefined), false);
  t.ok(compareVersions('3.5', '3.5.1') < 0);
  t.ok(compareVersions('3.5.1', '3.5') > 0);
  t.equal(compareVersions('3.5.0', '3.5'), 0);
  t.equal(upgradeRefusal('3.5.0', '4.0'), 'a change of major version (3 to 4) is not supported');
  t.equal(upgradeRefusal('3.5.0', '4'), undefined, 'a target without a minor version is not judged');
  t.equal(sanitize('  a\u0007\u0007b  '), 'a b');
  t.equal(sanitize('x'.repeat(200)), `${'x'.repeat(157)}...`);
});
