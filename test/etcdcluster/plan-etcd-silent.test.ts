// The EtcdCluster plan (plan/silent.ts) when member pods exist but etcd gives no member list (bootstrapping, quorum
// lost, unreachable): no membership change, every pod kept, members whose pod vanished restarted on their volumes,
// a pod stuck on an image it cannot pull given the spec's image.
import t from 'tap';
import { memberImage } from '../../hooks/etcdcluster/members.js';
import { decide, type Observation } from '../../hooks/etcdcluster/plan.js';
import { down, up } from '../fixtures/etcd.js';
import {
  parent,
  spec,
  pod,
  known,
  cluster,
  started,
  STORAGE,
  range,
  names,
  view,
  kept,
  both,
  PODS_CREATED,
} from '../fixtures/etcd-plan.js';
import { readyPod } from '../fixtures/requests.js';

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
  const restart =
    'a member of the bootstrap failed or the spec changed: starting the bootstrap again (1 of 3 starts failed; the last: e-0: pod Failed)';
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

t.test('a bootstrap: a Ready member means the cluster formed; pods being deleted are not vanished', async (t) => {
  // e-0 Ready (its etcd serves): whatever e-1 did, the cluster is not bootstrapped again over it.
  const formed = decide(parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2 }), spec({ size: 3 }), {
    pods: [pod(0, readyPod), pod(1, { phase: 'Failed' }), pod(2, { phase: 'Pending' })],
    terminating: [],
    health: {},
  });
  t.equal(formed.reason, 'EtcdUnreachable');
  t.same(
    formed.pods.map((p) => p.metadata.name),
    ['e-0', 'e-1', 'e-2'],
  );
  // Two pods and the third being deleted: nothing vanished yet, the bootstrap is waited for.
  const waiting = both('Bootstrapping', 'waiting for the first members to answer', 'Available', 'Scaling');
  const going = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2, conditions: PODS_CREATED }),
    spec({ size: 3 }),
    { pods: [pod(0, { phase: 'Pending' }), pod(1, { phase: 'Pending' })], terminating: ['e-2'], health: {} },
  );
  t.strictSame(view(going).conditions, waiting);
  t.same(
    going.pods.map((p) => p.metadata.name),
    ['e-0', 'e-1'],
  );
  // A pod missing, but the last answer's pods were not all created (PodsCreated False): not vanished either.
  const refused = decide(
    parent(
      { size: 3 },
      {
        phase: 'Creating',
        lastMemberIndex: 2,
        conditions: [
          { type: 'Scaling', status: 'True', reason: 'Bootstrapping', message: '' },
          { type: 'PodsCreated', status: 'False', reason: 'Refused', message: '' },
        ],
      },
    ),
    spec({ size: 3 }),
    { pods: [pod(0, { phase: 'Pending' }), pod(1, { phase: 'Pending' })], terminating: [], health: {} },
  );
  t.strictSame(view(refused).conditions, waiting);
  t.same(
    refused.pods.map((p) => p.metadata.name),
    ['e-0', 'e-1'],
  );
  // A failed member of the bootstrap: it starts over, every pod and claim dropped.
  const over = decide(parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2 }), spec({ size: 3 }), {
    pods: [pod(0, { phase: 'Failed' }), pod(1), pod(2)],
    terminating: [],
    health: {},
  });
  const message =
    'a member of the bootstrap failed or the spec changed: starting the bootstrap again (1 of 3 starts failed; the last: e-0: pod Failed)';
  t.strictSame(view(over), {
    pods: [],
    phase: 'Creating',
    conditions: [
      { type: 'Available', status: false, reason: 'Bootstrapping', message },
      { type: 'Scaling', status: true, reason: 'RestartingBootstrap', message },
    ],
    members: [],
    lastMemberIndex: 2,
    converging: true,
  });
  t.strictSame(over.keepClaims, []);
});

t.test('a bootstrap with storage: claims of members not yet started are not restarted from', async (t) => {
  const d = decide(
    parent({ size: 3, pod: STORAGE }, { phase: 'Creating', lastMemberIndex: 2 }),
    spec({ size: 3, pod: STORAGE }),
    {
      pods: [pod(0, { phase: 'Pending' }, { pod: STORAGE }), pod(1, { phase: 'Pending' }, { pod: STORAGE })],
      terminating: [],
      health: {},
      claims: ['e-0', 'e-1', 'e-2'],
    },
  );
  t.same(
    d.pods.map((p) => p.metadata.name),
    ['e-0', 'e-1'],
  );
  t.equal(d.phase, 'Creating');
});

t.test('etcd silent with storage: known members and members known only by claim restart', async (t) => {
  const status = { phase: 'Running', lastMemberIndex: 4, memberList: known(0, 1, 2) };
  const obs = (s: Record<string, unknown>): Observation => ({
    pods: [pod(0, s, { pod: STORAGE })],
    terminating: [],
    health: { 'e-0': down },
    claims: ['e-0', 'e-1', 'e-2', 'e-3', 'e-4'],
  });
  const d = decide(
    parent({ size: 3, pod: STORAGE }, status),
    spec({ size: 3, pod: STORAGE }),
    obs({ phase: 'Running' }),
  );
  const message =
    'etcd does not answer: 3 of 3 members down (e-0, e-1, e-2); no membership change until a quorum is back; restarting e-1, e-2, e-3, e-4 on their volumes';
  const image = 'quay.io/coreos/etcd:v3.5.0';
  t.strictSame(view(d), {
    pods: [
      // (Made fresh on its claim, e-0 checks its data on every later start too: check-data.)
      { name: 'e-0', cluster: '', state: 'existing', image, init: ['check-data'] },
      // (Made again on their claims, they start only on data of their own: check-data.)
      ...[1, 2].map((i) => ({
        name: `e-${i}`,
        cluster: cluster(0, 1, 2),
        state: 'existing',
        image,
        init: ['check-data'],
      })),
      ...[3, 4].map((i) => ({
        name: `e-${i}`,
        cluster: cluster(0, 1, 2, 3, 4),
        state: 'existing',
        image,
        init: ['check-data'],
      })),
    ],
    phase: 'Running',
    reason: 'QuorumLost',
    conditions: both('QuorumLost', message),
    members: [0, 1, 2].map((i) => ({ name: `e-${i}`, id: String(1000 + i), healthy: false })),
    lastMemberIndex: 4,
    converging: true,
  });
  // The same with e-0 Ready: the hook cannot reach it.
  const ready = decide(parent({ size: 3, pod: STORAGE }, status), spec({ size: 3, pod: STORAGE }), obs(readyPod));
  t.equal(
    ready.conditions[0]!.message,
    'members are Ready but the hook cannot reach etcd; no membership change until it can (check TLS.static.operatorSecret and network policies); restarting e-1, e-2, e-3, e-4 on their volumes',
  );
});

t.test('etcd silent with storage: a finished pod is dropped only when it has data to restart from', async (t) => {
  // e-2 is neither a known member nor on a claim: kept as it is.
  const noData = decide(
    parent({ size: 3, pod: STORAGE }, { phase: 'Running', lastMemberIndex: 2, memberList: known(0, 1) }),
    spec({ size: 3, pod: STORAGE }),
    {
      pods: [pod(0, {}, { pod: STORAGE }), pod(1, {}, { pod: STORAGE }), pod(2, { phase: 'Failed' }, { pod: STORAGE })],
      terminating: [],
      health: {},
      claims: [],
    },
  );
  t.same(
    noData.pods.map((p) => p.metadata.name),
    ['e-0', 'e-1', 'e-2'],
  );
  // e-0 is a known member (claims not said): dropped, so that the next sync recreates it on its claim.
  const member0 = decide(
    parent({ size: 3, pod: STORAGE }, { phase: 'Running', lastMemberIndex: 2, memberList: known(0, 1, 2) }),
    spec({ size: 3, pod: STORAGE }),
    {
      pods: [pod(0, { phase: 'Failed' }, { pod: STORAGE }), pod(1, {}, { pod: STORAGE }), pod(2, {}, { pod: STORAGE })],
      terminating: [],
      health: {},
    },
  );
  t.same(
    member0.pods.map((p) => p.metadata.name),
    ['e-1', 'e-2'],
  );
  // The only known member, finished: dropped too.
  const only = decide(
    parent({ size: 1, pod: STORAGE }, { phase: 'Running', lastMemberIndex: 0, memberList: known(0) }),
    spec({ size: 1, pod: STORAGE }),
    { pods: [pod(0, { phase: 'Failed' }, { pod: STORAGE })], terminating: [], health: {} },
  );
  t.same(only.pods, []);
});

t.test('etcd silent: status Creating with known members is a lost quorum, not a bootstrap', async (t) => {
  const d = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2, memberList: known(0, 1, 2) }),
    spec({ size: 3 }),
    { pods: range(3).map((i) => pod(i)), terminating: [], health: {} },
  );
  t.equal(d.phase, 'Running');
  t.equal(d.reason, 'QuorumLost');
  // Ready pods while no member is known: EtcdUnreachable, nothing restarted, the message says no more.
  const u = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), {
    pods: range(3).map((i) => pod(i, readyPod)),
    terminating: [],
    health: {},
  });
  t.equal(
    u.conditions[0]!.message,
    'members are Ready but the hook cannot reach etcd; no membership change until it can (check TLS.static.operatorSecret and network policies)',
  );
});

t.test('a pod stuck on an image it cannot pull gets the spec image, a sidecar listed first or not', async (t) => {
  // etcd silent; spec 3.5.0, the pods were made for 3.5.9 (a version that does not exist).
  const v = { version: '3.5.9' };
  const sidecarFirst = pod(
    2,
    {
      phase: 'Pending',
      containerStatuses: [
        { name: 'proxy', state: { running: {} } },
        { name: 'etcd', state: { waiting: { reason: 'ImagePullBackOff' } } },
      ],
    },
    v,
  );
  const noStatus = pod(1, {}, v);
  delete noStatus['status'];
  // At the spec image already, pulling (a registry hiccup) with its annotation edited: left as it is.
  const atTarget = pod(0, {
    phase: 'Pending',
    containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ErrImagePull' } } }],
  });
  atTarget.metadata.annotations = { ...atTarget.metadata.annotations, 'etcd.version': 'edited' };
  const d = decide(
    parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2, memberList: known(0, 1, 2) }),
    spec({ size: 3 }),
    { pods: [atTarget, noStatus, sidecarFirst], terminating: [], health: {} },
  );
  t.equal(d.reason, 'QuorumLost');
  t.strictSame(
    d.pods.map((p) => [p.metadata.name, memberImage(p), p.metadata.annotations?.['etcd.version']]),
    [
      ['e-0', 'quay.io/coreos/etcd:v3.5.0', 'edited'],
      ['e-1', 'quay.io/coreos/etcd:v3.5.9', '3.5.9'],
      ['e-2', 'quay.io/coreos/etcd:v3.5.0', '3.5.0'],
    ],
  );
});

t.test('etcd silent while every member says it is healthy: none down, still no membership change', async (t) => {
  const d = decide(
    parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2, memberList: known(0, 1, 2) }),
    spec({ size: 3 }),
    { pods: range(3).map((i) => pod(i)), terminating: [], health: { 'e-0': up(), 'e-1': up(), 'e-2': up() } },
  );
  const message = 'etcd does not answer: 0 of 3 members down (none); no membership change until a quorum is back';
  t.strictSame(view(d), {
    pods: kept(0, 1, 2),
    phase: 'Running',
    reason: 'QuorumLost',
    conditions: both('QuorumLost', message),
    members: [0, 1, 2].map((i) => ({ name: `e-${i}`, id: String(1000 + i), healthy: true })),
    lastMemberIndex: 2,
    converging: true,
  });
});
