// The EtcdCluster plan's restores (plan/restore-phases.ts): replacing, waiting for the old members, every member
// from the snapshot; failed init steps, restore records, and restores whose EtcdRestore or members went mid-way.
import t from 'tap';
import { decide, type Observation } from '../../hooks/etcdcluster/plan.js';
import { down, up, etcdCheck } from '../fixtures/etcd.js';
import {
  parent,
  spec,
  pod,
  member,
  known,
  cluster,
  started,
  healthy,
  SNAPSHOT,
  names,
  view,
  kept,
  report,
  atRest,
  both,
  RESTORE,
  RESTORING,
  PODS_CREATED,
} from '../fixtures/etcd-plan.js';
import { readyPod } from '../fixtures/requests.js';

/**
 * The plan of a cluster of three restoring (RESTORING: members up to e-5 started), in `phase`, observing `obs` over
 * no pod, nothing terminating and no health.
 */
const restoringPlan = (obs: Partial<Observation>, phase = 'Creating') =>
  decide(parent({ size: 3 }, { phase, lastMemberIndex: 5, restore: RESTORING }), spec({ size: 3 }), {
    pods: [],
    terminating: [],
    health: {},
    ...obs,
  });

/** Restored members e-<ids> as started: new, a cluster of them, each from the snapshot. */
const fromSnapshot = (...ids: number[]) =>
  ids.map((i) => ({
    name: `e-${i}`,
    cluster: cluster(...ids),
    state: 'new',
    image: 'quay.io/coreos/etcd:v3.5.0',
    init: ['fetch-snapshot', 'restore-snapshot', 'place-snapshot'],
  }));

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
    // What its check started the restored members as: they are made so.
    checked: { version: '3.5.0', repository: 'quay.io/coreos/etcd' },
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
  t.same(start.pods.map(started), fromSnapshot(3, 4, 5));
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
    const lost = restoringPlan({ restore });
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
    const orphan = restoringPlan({});
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
  const d = restoringPlan({ pods: [failedPod, pod(4, { phase: 'Pending' }), pod(5, { phase: 'Pending' })], restore });
  t.equal(d.reason, 'RestoreFailed');
  t.same(d.pods, []);
  t.same(d.restore, { ...restoring, phase: 'Failed', reason: 'restore-snapshot: snapshot checksum mismatch' });
  // A message that is not JSON is the reason as it is; none at all gives the container's reason.
  const plain = structuredClone(failedPod);
  (plain['status'] as any).initContainerStatuses[1].state.terminated.message = 'no such key';
  const p = restoringPlan({ pods: [plain], restore });
  t.equal(p.restore?.reason, 'restore-snapshot: no such key');
  const bare = structuredClone(failedPod);
  delete (bare['status'] as any).initContainerStatuses[1].state.terminated.message;
  const b = restoringPlan({ pods: [bare], restore });
  t.equal(b.restore?.reason, 'restore-snapshot: Error');
  // A Ready member: the restore is done, whatever the hook can reach.
  const served = restoringPlan({
    pods: [pod(3, readyPod), pod(4, { phase: 'Pending' }), pod(5, { phase: 'Pending' })],
    restore,
  });
  t.same(served.restore, { ...restoring, phase: 'Restored' });
  // etcd answering with a quorum: Restored too; without a quorum, still Restoring.
  const obs = healthy(3);
  obs.pods = [3, 4, 5].map((i) => pod(i));
  obs.etcd!.members = [3, 4, 5].map((i) => member(i));
  obs.health = { 'e-3': up('1003'), 'e-4': up('1003'), 'e-5': up('1003') };
  const ok = restoringPlan({ ...obs, restore }, 'Running');
  t.same(ok.restore, { ...restoring, phase: 'Restored' });
  obs.health = { 'e-3': up('1003'), 'e-4': down, 'e-5': down };
  const notYet = restoringPlan({ ...obs, restore }, 'Running');
  t.same(notYet.restore, restoring);
});

t.test('init steps read from statuses that lack parts: only a non-zero exit code is a failed restore', async (t) => {
  const restore = { uid: 'r1', name: 'rest', source: SNAPSHOT };
  const restoring = { uid: 'r1', name: 'rest', phase: 'Restoring' };
  const run = (status: Record<string, unknown> | undefined) => {
    const p = pod(3, { phase: 'Failed' });
    if (status) p['status'] = status;
    else delete p['status'];
    return restoringPlan({ pods: [p, pod(4, { phase: 'Pending' }), pod(5, { phase: 'Pending' })], restore });
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
  // The reasons of a failed step: the JSON reason, the container's reason, 'Error', and the step's name. A status
  // without a name is none of the restore's steps (found by name: an init container a webhook added is none either).
  const reasonOf = (terminated: Record<string, unknown>, name?: string) =>
    run({
      phase: 'Failed',
      initContainerStatuses: [{ ...(name ? { name } : {}), state: { terminated: { exitCode: 1, ...terminated } } }],
    }).restore?.reason;
  t.equal(reasonOf({ message: '{"code":7}', reason: 'OOMKilled' }, 'fetch-snapshot'), 'fetch-snapshot: OOMKilled');
  t.equal(reasonOf({}, 'fetch-snapshot'), 'fetch-snapshot: Error');
  t.equal(reasonOf({ message: '{"reason":"no such bucket"}' }, 'fetch-snapshot'), 'fetch-snapshot: no such bucket');
  t.equal(reasonOf({ message: '{"reason":"no such bucket"}' }), undefined, 'no name: no restore step');
  t.equal(reasonOf({ message: '{"reason":"no such bucket"}' }, 'istio-validation'), undefined, "a webhook's: none");
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

t.test('a failed restore whose record has no reason says a restored member did not start; no pod', async (t) => {
  const failed = { uid: 'r1', name: 'rest', phase: 'Failed' };
  const d = decide(parent({ size: 3 }, { phase: 'Failed', lastMemberIndex: 5, restore: failed }), spec({ size: 3 }), {
    pods: [],
    terminating: [],
    health: {},
  });
  const message =
    'EtcdRestore rest failed (a restored member did not start); fix the cause and create a new EtcdRestore';
  t.strictSame(d, {
    pods: [],
    fallbackPods: [],
    phase: 'Failed',
    reason: 'RestoreFailed',
    conditions: both('RestoreFailed', message),
    members: [],
    lastMemberIndex: 5,
    converging: false,
    restore: failed,
  });
});

t.test('a failed restore: its members being deleted still read Failed; members started by hand run', async (t) => {
  const failed = { uid: 'r1', name: 'rest', phase: 'Failed', reason: 'restore-snapshot: Error' };
  const message = 'EtcdRestore rest failed (restore-snapshot: Error); fix the cause and create a new EtcdRestore';
  const status = { phase: 'Failed', lastMemberIndex: 5, restore: failed };
  // The restored members the failure dropped are still terminating: nothing starts, the phase stays Failed.
  const going = decide(parent({ size: 3 }, status), spec({ size: 3 }), {
    pods: [],
    terminating: ['e-3', 'e-4'],
    health: {},
  });
  t.strictSame(view(going), {
    pods: [],
    phase: 'Failed',
    reason: 'RestoreFailed',
    conditions: both('RestoreFailed', message),
    members: [],
    lastMemberIndex: 5,
    converging: false,
    restore: failed,
  });
  // The user started members again by hand: they run as any cluster does, the record kept.
  const byHand = decide(parent({ size: 3 }, status), spec({ size: 3 }), healthy(3));
  t.strictSame(view(byHand), {
    pods: kept(0, 1, 2),
    phase: 'Running',
    conditions: atRest(3),
    members: [report(0, { leader: true }), report(1), report(2)],
    lastMemberIndex: 5,
    converging: false,
    restore: failed,
  });
});

t.test('restore: the old members still listed are waited for, whether or not their deletion began', async (t) => {
  const replacing = { uid: 'r1', name: 'rest', phase: 'Replacing' };
  for (const [pods, terminating] of [
    [[pod(0)], []],
    [[], ['e-0']],
  ] as const) {
    const d = decide(
      parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2, restore: replacing }),
      spec({ size: 3 }),
      { pods: [...pods], terminating: [...terminating], health: {}, restore: RESTORE },
    );
    t.strictSame(d, {
      pods: [],
      fallbackPods: [],
      phase: 'Creating',
      reason: 'Restoring',
      conditions: both('Restoring', 'waiting for the old members to go'),
      members: [],
      lastMemberIndex: 2,
      converging: true,
      restore: replacing,
    });
  }
});

t.test('restore: ordinals grow past every pod seen, when status lost its count', async (t) => {
  // No lastMemberIndex in status: the pods e-0..e-2 still count, so the next members are e-3 on.
  const checked = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), {
    ...healthy(3),
    restore: RESTORE,
  });
  t.same(checked.restore, { uid: 'r1', name: 'rest', phase: 'Checking' }, 'its snapshot checked first');
  const first = decide(parent({ size: 3 }, { phase: 'Running', restore: checked.restore }), spec({ size: 3 }), {
    ...healthy(3),
    restore: RESTORE,
    restoreCheck: etcdCheck('r1'),
  });
  t.equal(first.lastMemberIndex, 2);
  t.same(
    first.restore,
    {
      uid: 'r1',
      name: 'rest',
      phase: 'Replacing',
      s3: RESTORE.source.s3,
      checked: { version: '3.5.0', repository: 'quay.io/coreos/etcd' },
    },
    'the checked snapshot recorded',
  );
  // A pod that is no member of this cluster (its name has no ordinal) moves nothing.
  const stray = pod(7);
  stray.metadata.name = 'stray';
  const foreign = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), {
    pods: [stray],
    terminating: [],
    health: {},
    restore: RESTORE,
  });
  t.equal(foreign.lastMemberIndex, -1);
  // Replacing with no count and no pod left: the restored members are e-0 on.
  const start = decide(
    parent({ size: 3 }, { phase: 'Creating', restore: { uid: 'r1', name: 'rest', phase: 'Replacing' } }),
    spec({ size: 3 }),
    { pods: [], terminating: [], health: {}, restore: RESTORE },
  );
  t.strictSame(start.pods.map(started), fromSnapshot(0, 1, 2));
  t.equal(start.lastMemberIndex, 2);
});

t.test('restore: the EtcdRestore deleted while the old members are still listed keeps them', async (t) => {
  const replacing = { uid: 'r1', name: 'rest', phase: 'Replacing' };
  // Their deletion has not begun: the cluster carries on with its data; nothing was restored.
  const d = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2, restore: replacing }),
    spec({ size: 3 }),
    healthy(3),
  );
  t.strictSame(view(d), {
    pods: kept(0, 1, 2),
    phase: 'Running',
    conditions: atRest(3),
    members: [report(0, { leader: true }), report(1), report(2)],
    lastMemberIndex: 2,
    converging: false,
    restore: replacing,
  });
  // Their deletion has begun: it is waited for before the restore is declared failed.
  const going = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2, restore: replacing }),
    spec({ size: 3 }),
    { pods: [], terminating: ['e-1'], health: {} },
  );
  t.strictSame(view(going), {
    pods: [],
    phase: 'Creating',
    conditions: [{ type: 'Scaling', status: true, reason: 'WaitingForTermination', message: 'waiting for e-1 to go' }],
    members: [],
    lastMemberIndex: 2,
    converging: true,
    restore: replacing,
  });
});

t.test('restore: restored members still starting are waited for, not started over', async (t) => {
  const status = { phase: 'Creating', lastMemberIndex: 5, restore: RESTORING, conditions: PODS_CREATED };
  // Said as a restore, never as a bootstrap (an empty cluster): they start from the snapshot.
  const waiting = both('Restoring', 'waiting for the restored members to answer');
  const pending = (i: number) => pod(i, { phase: 'Pending' });
  const quorum = (n: number, down: string[]) => ({
    members: n,
    healthy: 0,
    needed: Math.floor(n / 2) + 1,
    ok: false,
    down,
  });
  // All three there; two there and the third being deleted (it counts: it is not lost yet).
  for (const obs of [
    { pods: [pending(3), pending(4), pending(5)], terminating: [] },
    { pods: [pending(3), pending(4)], terminating: ['e-5'] },
  ]) {
    const d = decide(parent({ size: 3 }, status), spec({ size: 3 }), { ...obs, health: {}, restore: RESTORE });
    const ids = obs.pods.map((p) => Number(p.metadata.name!.slice(2)));
    t.strictSame(view(d), {
      pods: kept(...ids),
      phase: 'Creating',
      conditions: waiting,
      members: ids.map((i) => ({ name: `e-${i}`, healthy: false })),
      lastMemberIndex: 5,
      converging: true,
      restore: RESTORING,
    });
    t.strictSame(
      d.quorum,
      quorum(
        ids.length,
        ids.map((i) => `e-${i}`),
      ),
    );
  }
  // Restoring, but status says the cluster ran since (etcd answered without a quorum): a silent etcd is a lost
  // quorum, not a bootstrap.
  const ran = decide(parent({ size: 3 }, { ...status, phase: 'Running' }), spec({ size: 3 }), {
    pods: [pending(3), pending(4), pending(5)],
    terminating: [],
    health: {},
    restore: RESTORE,
  });
  const lost = 'etcd does not answer: 3 of 3 members down (e-3, e-4, e-5); no membership change until a quorum is back';
  t.strictSame(view(ran), {
    pods: kept(3, 4, 5),
    phase: 'Running',
    reason: 'QuorumLost',
    conditions: both('QuorumLost', lost),
    members: [3, 4, 5].map((i) => ({ name: `e-${i}`, healthy: false })),
    lastMemberIndex: 5,
    converging: true,
    restore: RESTORING,
  });
});

t.test('restore: one restored member lost while another serves is not a restore started over', async (t) => {
  const status = { phase: 'Creating', lastMemberIndex: 5, restore: RESTORING, conditions: PODS_CREATED };
  const d = decide(parent({ size: 3 }, status), spec({ size: 3 }), {
    pods: [pod(3, readyPod), pod(4, { phase: 'Pending' })],
    terminating: [],
    health: {},
    restore: RESTORE,
  });
  const message =
    'members are Ready but the hook cannot reach etcd; no membership change until it can (check TLS.static.operatorSecret and network policies)';
  t.strictSame(view(d), {
    pods: kept(3, 4),
    phase: 'Running',
    reason: 'EtcdUnreachable',
    conditions: both('EtcdUnreachable', message),
    members: [3, 4].map((i) => ({ name: `e-${i}`, healthy: false })),
    lastMemberIndex: 5,
    converging: true,
    restore: { ...RESTORING, phase: 'Restored' },
  });
});

t.test('restore: members lost after the EtcdRestore went are not started again from it', async (t) => {
  const status = { phase: 'Creating', lastMemberIndex: 5, restore: RESTORING, conditions: PODS_CREATED };
  const d = decide(parent({ size: 3 }, status), spec({ size: 3 }), {
    pods: [pod(3, { phase: 'Pending' })],
    terminating: [],
    health: {},
  });
  t.strictSame(view(d), {
    pods: kept(3),
    phase: 'Creating',
    conditions: both('Restoring', 'waiting for the restored members to answer'),
    members: [{ name: 'e-3', healthy: false }],
    lastMemberIndex: 5,
    converging: true,
    restore: RESTORING,
  });
});

t.test('restore: restored members still terminating are waited for before all start again', async (t) => {
  const d = restoringPlan({ terminating: ['e-4'], restore: RESTORE });
  t.strictSame(view(d), {
    pods: [],
    phase: 'Creating',
    conditions: [{ type: 'Scaling', status: true, reason: 'WaitingForTermination', message: 'waiting for e-4 to go' }],
    members: [],
    lastMemberIndex: 5,
    converging: true,
    restore: RESTORING,
  });
  // Once gone: every member again, from the snapshot, as a new cluster of them all.
  const again = restoringPlan({ restore: RESTORE });
  const message =
    'the restored members were lost before they ran: e-6, e-7, e-8 start again from the snapshot bucket/snap.db';
  t.strictSame(view(again), {
    pods: fromSnapshot(6, 7, 8),
    phase: 'Creating',
    reason: 'Restoring',
    conditions: both('Restoring', message),
    members: [],
    lastMemberIndex: 8,
    converging: true,
    restore: RESTORING,
  });
});

t.test('a failed init step ends a restore only while it restores, and only while no member serves', async (t) => {
  const failedPod = (i: number) =>
    pod(i, {
      phase: 'Failed',
      initContainerStatuses: [{ name: 'restore-snapshot', state: { terminated: { exitCode: 1, reason: 'Error' } } }],
    });
  // A restored cluster later: a member that crashed is a member down, its pod kept; no RestoreFailed.
  const restored = { ...RESTORING, phase: 'Restored' };
  const later = decide(
    parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 5, restore: restored, memberList: known(3, 4, 5) }),
    spec({ size: 3 }),
    { pods: [failedPod(3), pod(4), pod(5)], terminating: [], health: { 'e-3': down, 'e-4': down, 'e-5': down } },
  );
  const lost = 'etcd does not answer: 3 of 3 members down (e-3, e-4, e-5); no membership change until a quorum is back';
  t.strictSame(view(later), {
    pods: kept(3, 4, 5),
    phase: 'Running',
    reason: 'QuorumLost',
    conditions: both('QuorumLost', lost),
    members: [3, 4, 5].map((i) => ({ name: `e-${i}`, id: String(1000 + i), healthy: false })),
    lastMemberIndex: 5,
    converging: true,
    restore: restored,
  });
  // Restoring, one member's init failed but another is Ready (it serves the snapshot): restored, not failed.
  const serving = restoringPlan({ pods: [failedPod(3), pod(4, readyPod), pod(5)], restore: RESTORE });
  t.equal(serving.reason, 'EtcdUnreachable');
  t.same(
    serving.pods.map((p) => p.metadata.name),
    ['e-3', 'e-4', 'e-5'],
  );
  t.strictSame(serving.restore, restored);
});
