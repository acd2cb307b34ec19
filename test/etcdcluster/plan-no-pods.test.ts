// The EtcdCluster plan (hooks/etcdcluster/plan.ts, its rules in plan/no-pods.ts) when no member pod is
// observed: wait for the pods being deleted, bootstrap a new cluster (again under the same names when admission
// refused it), restart known members on their volumes, or say every member was lost with its data.
import t from 'tap';
import { decide } from '../../hooks/etcdcluster/plan.js';
import { parent, spec, known, cluster, started, STORAGE, range, names, view, both } from '../fixtures/etcd-plan.js';

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

t.test('every pod gone: claims without a known member restart; storage without claims is data lost', async (t) => {
  const byClaims = decide(parent({ size: 3, pod: STORAGE }), spec({ size: 3, pod: STORAGE }), {
    pods: [],
    terminating: [],
    health: {},
    claims: ['e-0', 'e-1'],
  });
  const message = 'every member pod is gone; starting e-0, e-1 again on their volumes';
  t.strictSame(view(byClaims), {
    // (Made on their claims, they check their data on every later start: check-data.)
    pods: [0, 1].map((i) => ({
      name: `e-${i}`,
      cluster: cluster(0, 1),
      state: 'new',
      image: 'quay.io/coreos/etcd:v3.5.0',
      init: ['check-data'],
    })),
    phase: 'Running',
    reason: 'MembersRestarting',
    conditions: [
      { type: 'Available', status: false, reason: 'MembersRestarting', message },
      { type: 'Recovering', status: true, reason: 'RestartingMembers', message },
    ],
    members: [],
    lastMemberIndex: -1,
    converging: true,
  });
  // A member list entry that is no member of this cluster is not restarted.
  const foreign = decide(
    parent(
      { size: 3, pod: STORAGE },
      { phase: 'Running', memberList: [{ name: 'other-0', id: '9', healthy: true }, ...known(0, 1, 2)] },
    ),
    spec({ size: 3, pod: STORAGE }),
    { pods: [], terminating: [], health: {}, claims: ['e-0', 'e-1', 'e-2'] },
  );
  t.same(
    foreign.pods.map((p) => p.metadata.name),
    ['e-0', 'e-1', 'e-2'],
  );
  t.equal(foreign.conditions[0]!.message, 'every member pod is gone; restarting e-0, e-1, e-2 on their volumes');
  // Storage, the cluster ran, but no member is known and no claim is left: the data is gone.
  const gone = decide(parent({ size: 3, pod: STORAGE }, { phase: 'Running' }), spec({ size: 3, pod: STORAGE }), {
    pods: [],
    terminating: [],
    health: {},
    claims: [],
  });
  const lost =
    'every member pod is gone and with them the data; restore from a backup (EtcdRestore) or delete and recreate the EtcdCluster';
  t.strictSame(view(gone), {
    pods: [],
    phase: 'Failed',
    reason: 'AllMembersLost',
    conditions: both('AllMembersLost', lost),
    members: [],
    lastMemberIndex: -1,
    converging: false,
  });
});

t.test('a bootstrap that admission refused is answered again under the same names', async (t) => {
  const d = decide(
    parent(
      { size: 3 },
      {
        phase: 'Creating',
        lastMemberIndex: 5,
        conditions: [{ type: 'PodsCreated', status: 'False', reason: 'Refused' }],
      },
    ),
    spec({ size: 3 }),
    { pods: [], terminating: [], health: {} },
  );
  t.same(
    d.pods.map((p) => p.metadata.name),
    ['e-3', 'e-4', 'e-5'],
  );
  t.equal(d.lastMemberIndex, 5);
});
