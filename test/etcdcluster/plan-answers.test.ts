// What each EtcdCluster plan decision answers (plan/answered.ts, plan/conditions.ts): the answer for an action's
// success and failure, phase Running while etcd answers and whether another step follows, NOSPACE and paused
// (no change), and pods that are not quite what the plan expects.
import t from 'tap';
import type { MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { decide, type Decision } from '../../hooks/etcdcluster/plan.js';
import { down, up } from '../fixtures/etcd.js';
import { known, parent, spec, pod, member, healthy, STORAGE, names } from '../fixtures/etcd-plan.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('NOSPACE: reported as such, pods kept, no change', async (t) => {
  const obs = healthy(3);
  obs.health['e-1'] = { healthy: false, alarm: 'NOSPACE', version: '3.5.0' } as MemberHealth;
  const d = decide(parent({ size: 5 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 5 }), obs);
  const message =
    'etcd raised the NOSPACE alarm (e-1): writes are refused until space is freed (compact, defragment every member, then etcdctl alarm disarm); no membership change meanwhile. A higher quota in pod.etcdEnv (ETCD_QUOTA_BACKEND_BYTES) reaches only member pods made after it is set, not the running members';
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
    ['e-0', 'e-1', 'e-2', 'e-3'],
    'on success the new member is recorded at once',
  );
  t.same(a.onSuccess?.members[3], { name: 'e-3', healthy: false, learner: true }, 'as the learner it was added as');
  t.same(
    a.members.map((m) => m.name),
    ['e-0', 'e-1', 'e-2'],
    'on failure it is not',
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

t.test('NOSPACE on two members names both', async (t) => {
  const obs = healthy(3);
  obs.health['e-1'] = { healthy: false, alarm: 'NOSPACE', version: '3.5.0' } as MemberHealth;
  obs.health['e-2'] = { healthy: false, alarm: 'NOSPACE', version: '3.5.0' } as MemberHealth;
  const d = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), obs);
  t.equal(
    d.conditions[0]!.message,
    'etcd raised the NOSPACE alarm (e-1, e-2): writes are refused until space is freed (compact, defragment every member, then etcdctl alarm disarm); no membership change meanwhile. A higher quota in pod.etcdEnv (ETCD_QUOTA_BACKEND_BYTES) reaches only member pods made after it is set, not the running members',
  );
});
