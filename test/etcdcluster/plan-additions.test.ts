// The EtcdCluster plan's additions while etcd answers: an addition that never started is cancelled (and why), a
// started learner promoted once every member is healthy.
import t from 'tap';
import { clientURL } from '../../hooks/etcdcluster/members.js';
import { decide, PENDING_ADD_SECONDS, type Observation } from '../../hooks/etcdcluster/plan.js';
import { down, up } from '../fixtures/etcd.js';
import {
  known,
  parent,
  spec,
  c,
  pod,
  member,
  url,
  healthy,
  ago,
  names,
  view,
  report,
  available,
} from '../fixtures/etcd-plan.js';
import { FIXED_NOW } from '../fixtures/requests.js';

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

t.test('a voter that never started is cancelled while the others keep quorum without it', async (t) => {
  // etcd 3.3: e-2 was added as a voter; its pod failed. Two of three voting members healthy.
  const v = { version: '3.3.0' };
  const obs: Observation = {
    pods: [pod(0, {}, v), pod(1, {}, v), pod(2, { phase: 'Failed' }, v)],
    terminating: [],
    health: { 'e-0': up('1000', '3.3.0'), 'e-1': up('1000', '3.3.0'), 'e-2': down },
    etcd: { members: [member(0), member(1), member(2, false, false)], clusterVersion: '3.3.0' },
  };
  const d = decide(parent({ size: 3, ...v }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3, ...v }), obs);
  const image = 'quay.io/coreos/etcd:v3.3.0';
  t.strictSame(view(d), {
    action: { type: 'remove', id: '1002', pod: 'e-2', why: 'cancel' },
    pods: [0, 1].map((i) => ({ name: `e-${i}`, cluster: '', state: 'existing', image })),
    phase: 'Running',
    conditions: [
      available(2, 3, ['e-2']),
      {
        type: 'Scaling',
        status: true,
        reason: 'CancellingAddition',
        message: 'member e-2 never started: its addition is cancelled (failed addition 1 of 3)',
      },
    ],
    members: [
      report(0, { leader: true, version: '3.3.0' }),
      report(1, { version: '3.3.0' }),
      { name: 'e-2', id: '1002', healthy: false, peerURL: url(2), clientURL: clientURL(c, 'e-2') },
    ],
    lastMemberIndex: 2,
    converging: true,
  });
});

t.test('a pending addition: why it is cancelled, and a caught-up learner is promoted, not cancelled', async (t) => {
  const withLearner = (status: Record<string, unknown>, version?: string) => {
    const obs = healthy(3, { now: FIXED_NOW });
    obs.etcd!.members.push(member(3, false, true));
    obs.pods.push(pod(3, { phase: 'Pending' }, version ? { version } : {}));
    obs.health['e-3'] = down;
    return obs;
  };
  const pendingFor = (seconds: number) => ({
    phase: 'Running',
    lastMemberIndex: 3,
    memberList: [
      ...known(0, 1, 2),
      { name: 'e-3', id: '1003', healthy: false, learner: true, pendingSince: ago(seconds) },
    ],
  });
  const cancel = (message: string) => [
    available(3, 3),
    { type: 'Scaling', status: true, reason: 'CancellingAddition', message },
  ];
  const never = 'member e-3 never started: its addition is cancelled';
  // The size lowered meanwhile (just added, then long pending): it never started.
  for (const seconds of [0, PENDING_ADD_SECONDS + 1]) {
    const d = decide(parent({ size: 3 }, pendingFor(seconds)), spec({ size: 3 }), withLearner({}));
    t.strictSame(d.action, { type: 'remove', id: '1003', pod: 'e-3', why: 'cancel' }, `${seconds}s`);
    t.strictSame(d.conditions, cancel(never), `${seconds}s`);
  }
  // The spec changed since (its pod runs another version), long pending: it never started either.
  const changed = decide(
    parent({ size: 4 }, pendingFor(PENDING_ADD_SECONDS + 1)),
    spec({ size: 4 }),
    withLearner({}, '3.4.0'),
  );
  t.strictSame(changed.conditions, cancel(never));
  // The spec changed, just added: cancelled at once, a new member takes the spec.
  const fresh = decide(parent({ size: 4 }, pendingFor(0)), spec({ size: 4 }), withLearner({}, '3.4.0'));
  t.strictSame(fresh.conditions, cancel(never));
  // Pending exactly the limit: still waited for.
  const limit = decide(parent({ size: 4 }, pendingFor(PENDING_ADD_SECONDS)), spec({ size: 4 }), withLearner({}));
  t.notOk(limit.action);
  t.equal(limit.conditions[1]!.reason, 'WaitingForLearner');
  // A learner that caught up while the size was lowered: promoted (the scale-down comes next).
  const caught = healthy(3);
  caught.etcd!.members.push(member(3, true, true));
  caught.pods.push(pod(3));
  caught.health['e-3'] = up();
  const p = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 3 }), spec({ size: 3 }), caught);
  t.strictSame(p.action, { type: 'promote', id: '1003', pod: 'e-3' });
});
