// The EtcdCluster plan (hooks/etcdcluster/plan.ts) in the states its other tests did not tell apart: each test
// here answers a mutant that survived them (the equivalent ones that remain are marked in the code with why no input
// can tell them apart, or described in docs/mutation.md). Every decision is compared whole, as the status and the
// pods it becomes: JSON, so a field set to undefined is what the API server would store, no field.
import t from 'tap';
import type { MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { clientURL, memberImage } from '../../hooks/etcdcluster/members.js';
import {
  decide,
  PENDING_ADD_SECONDS,
  UNHEALTHY_REPLACE_SECONDS,
  type Decision,
  type Observation,
} from '../../hooks/etcdcluster/plan.js';
import { rfc3339 } from '../../lib/conditions.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import {
  down,
  etcdCluster,
  etcdCheck,
  etcdHealthy,
  etcdInitialCluster,
  etcdKnown,
  etcdMember,
  etcdParent,
  etcdPeerURL,
  etcdPod,
  etcdSnapshot,
  etcdSpec,
  etcdStarted,
  etcdStorage,
  up,
} from '../fixtures/etcd.js';
import { FIXED_NOW, readyPod } from '../fixtures/requests.js';

const RESTORE = { uid: 'r1', name: 'rest', source: etcdSnapshot };
const RESTORING = { uid: 'r1', name: 'rest', phase: 'Restoring' };
const PODS_CREATED = [{ type: 'PodsCreated', status: 'True', reason: 'Created', message: '' }];

const parent = etcdParent;
const spec = etcdSpec;
const c = etcdCluster;
const pod = etcdPod;
const member = etcdMember;
const url = etcdPeerURL;
const known = etcdKnown;
const cluster = etcdInitialCluster;
const started = etcdStarted;
const healthy = etcdHealthy;
const STORAGE = etcdStorage;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const ago = (seconds: number) => new Date(FIXED_NOW.getTime() - seconds * 1000).toISOString();

/** The decision as status and children carry it (JSON): pods by their name, flags and image. */
function view(d: Decision, pods: (p: KubeObject) => unknown = started) {
  return JSON.parse(
    JSON.stringify({
      action: d.action,
      pods: d.pods.map(pods),
      phase: d.phase,
      reason: d.reason,
      conditions: d.conditions,
      members: d.members,
      lastMemberIndex: d.lastMemberIndex,
      converging: d.converging,
      restore: d.restore,
    }),
  );
}
const kept = (...ids: number[]) =>
  ids.map((i) => ({ name: `e-${i}`, cluster: '', state: 'existing', image: 'quay.io/coreos/etcd:v3.5.0' }));

/** Member e-<i> as reported while etcd answers. */
const report = (i: number, extra: Record<string, unknown> = {}) => ({
  name: `e-${i}`,
  id: String(1000 + i),
  healthy: true,
  peerURL: url(i),
  clientURL: clientURL(c, `e-${i}`),
  version: '3.5.0',
  ...extra,
});

/** Available while a quorum holds: every member healthy, or Degraded with the members down and what is left. */
const available = (healthyCount: number, total: number, down: string[] = [], missing = '') => {
  if (down.length === 0)
    return {
      type: 'Available',
      status: true,
      reason: 'QuorumAvailable',
      message: `${healthyCount} of ${total} members healthy`,
    };
  const spare = healthyCount - (Math.floor(total / 2) + 1);
  const left = spare === 0 ? 'one more failure loses quorum' : `${spare} more failure${spare > 1 ? 's' : ''} tolerated`;
  return {
    type: 'Available',
    status: true,
    reason: 'Degraded',
    message: `${healthyCount} of ${total} members healthy (down: ${down.join(', ')}): ${left}${missing}`,
  };
};
const atRest = (n: number, version = '3.5.0') => [
  available(n, n),
  { type: 'Scaling', status: false, reason: 'AtSize', message: `${n} members` },
  { type: 'Upgrading', status: false, reason: 'AtVersion', message: `every member runs ${version}` },
  { type: 'Recovering', status: false, reason: 'Healthy', message: 'every member is healthy' },
];
const both = (reason: string, message: string, first = 'Available', second = 'Recovering', s1 = false, s2 = true) => [
  { type: first, status: s1, reason, message },
  { type: second, status: s2, reason, message },
];

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
    { uid: 'r1', name: 'rest', phase: 'Replacing', s3: RESTORE.source.s3 },
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
  t.strictSame(
    start.pods.map(started),
    [0, 1, 2].map((i) => ({
      name: `e-${i}`,
      cluster: cluster(0, 1, 2),
      state: 'new',
      image: 'quay.io/coreos/etcd:v3.5.0',
      init: ['fetch-snapshot', 'restore-snapshot', 'place-snapshot'],
    })),
  );
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
  const d = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 5, restore: RESTORING }),
    spec({ size: 3 }),
    {
      pods: [],
      terminating: ['e-4'],
      health: {},
      restore: RESTORE,
    },
  );
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
  const again = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 5, restore: RESTORING }),
    spec({ size: 3 }),
    {
      pods: [],
      terminating: [],
      health: {},
      restore: RESTORE,
    },
  );
  const message =
    'the restored members were lost before they ran: e-6, e-7, e-8 start again from the snapshot bucket/snap.db';
  t.strictSame(view(again), {
    pods: [6, 7, 8].map((i) => ({
      name: `e-${i}`,
      cluster: cluster(6, 7, 8),
      state: 'new',
      image: 'quay.io/coreos/etcd:v3.5.0',
      init: ['fetch-snapshot', 'restore-snapshot', 'place-snapshot'],
    })),
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
  const serving = decide(
    parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 5, restore: RESTORING }),
    spec({ size: 3 }),
    { pods: [failedPod(3), pod(4, readyPod), pod(5)], terminating: [], health: {}, restore: RESTORE },
  );
  t.equal(serving.reason, 'EtcdUnreachable');
  t.same(
    serving.pods.map((p) => p.metadata.name),
    ['e-3', 'e-4', 'e-5'],
  );
  t.strictSame(serving.restore, restored);
});

t.test('the running version is the lowest a healthy member reports; a reported one must be a version', async (t) => {
  // Mid-upgrade from 3.4: 3.6 is two minors from the lowest running version, and refused.
  const obs = healthy(3);
  obs.health['e-0'] = up('1000', '3.5.0');
  obs.health['e-1'] = up('1000', '3.4.9');
  obs.health['e-2'] = up('1000', '3.5.0');
  const d = decide(parent({ size: 3, version: '3.6.0' }), spec({ size: 3, version: '3.6.0' }), obs);
  t.strictSame(d.conditions.at(-1), {
    type: 'Upgrading',
    status: false,
    reason: 'UpgradeRefused',
    message:
      'spec.version 3.6.0 is refused: etcd upgrades one minor version at a time (3.4 to 3.5 first); the cluster stays at 3.4.9',
  });
  t.equal(d.currentVersion, '3.4.9');
  // A reported version that is not a string (a list holding one) is no version.
  const r = decide(
    parent({ size: 3, version: '3.4.0' }, { phase: 'Running', currentVersion: ['3.7.0'], memberList: known(0, 1, 2) }),
    spec({ size: 3, version: '3.4.0' }),
    { pods: range(3).map((i) => pod(i, {}, { version: '3.4.0' })), terminating: [], health: {} },
  );
  t.equal(r.reason, 'QuorumLost');
  t.notOk(r.conditions.some((x) => x.reason === 'UpgradeRefused'));
});

t.test('a refused upgrade replaces only the Upgrading condition', async (t) => {
  const d = decide(parent({ size: 3, version: '3.7.0' }), spec({ size: 3, version: '3.7.0' }), healthy(3));
  t.strictSame(d.conditions, [
    available(3, 3),
    { type: 'Scaling', status: false, reason: 'AtSize', message: '3 members' },
    { type: 'Recovering', status: false, reason: 'Healthy', message: 'every member is healthy' },
    {
      type: 'Upgrading',
      status: false,
      reason: 'UpgradeRefused',
      message:
        'spec.version 3.7.0 is refused: etcd upgrades one minor version at a time (3.5 to 3.6 first); the cluster stays at 3.5.0',
    },
  ]);
  t.notOk(d.targetVersion);
});

t.test('currentVersion: the lowest version healthy members report, else the first pod image', async (t) => {
  const obs = healthy(3);
  obs.health['e-0'] = up('1000', '3.5.2');
  obs.health['e-1'] = up('1000', '3.5.1');
  obs.health['e-2'] = up('1000', '3.5.2');
  const d = decide(parent({ size: 3 }), spec({ size: 3 }), obs);
  t.equal(d.currentVersion, '3.5.1');
  t.strictSame(view(d).members, [
    report(0, { leader: true, version: '3.5.2' }),
    report(1, { version: '3.5.1' }),
    report(2, { version: '3.5.2' }),
  ]);
  // No member says its version: the first pod's image tag.
  const quiet = healthy(3);
  for (const i of range(3)) quiet.health[`e-${i}`] = { healthy: true, leader: '1000' };
  const q = decide(parent({ size: 3, version: '3.5.1' }), spec({ size: 3, version: '3.5.1' }), quiet);
  t.equal(q.currentVersion, '3.5.0');
  t.match(q.conditions[1], { reason: 'UpgradingMember' });
  // A first pod without containers: no version known, and no crash.
  const bare = healthy(3);
  (bare.pods[0]!['spec'] as any).containers = [];
  for (const i of range(3)) bare.health[`e-${i}`] = { healthy: true, leader: '1000' };
  const b = decide(parent({ size: 3 }), spec({ size: 3 }), bare);
  t.equal(b.currentVersion, undefined);
});

t.test('an upgrade changes only the etcd container, keeps the pod annotations, the leader last', async (t) => {
  const obs = healthy(3);
  // A sidecar listed first (an injected proxy), and an annotation of the user's.
  for (const p of obs.pods) {
    const podSpec = p['spec'] as any;
    podSpec.containers = [{ name: 'proxy', image: 'proxy:1' }, ...podSpec.containers];
    p.metadata.annotations = { ...p.metadata.annotations, team: 'storage' };
  }
  const d = decide(parent({ size: 3, version: '3.5.1' }), spec({ size: 3, version: '3.5.1' }), obs);
  t.equal(d.conditions[1]!.message, 'upgrading e-1 to 3.5.1 (0 of 3 done)');
  const e1 = d.pods.find((p) => p.metadata.name === 'e-1')!;
  t.strictSame(
    (e1['spec'] as any).containers.map((x: any) => [x.name, x.image]),
    [
      ['proxy', 'proxy:1'],
      ['etcd', 'quay.io/coreos/etcd:v3.5.1'],
    ],
  );
  t.strictSame(e1.metadata.annotations, {
    'etcd.version': '3.5.1',
    'etcd.metaops.io/upgraded-from': '3.5.0',
    'etcd.metaops.io/upgraded-from-image': 'quay.io/coreos/etcd:v3.5.0',
    // The upgrade under way, on every member pod (upgrade.ts UPGRADE_MARK).
    'etcd.metaops.io/upgrade': '3.5.0->3.5.1',
    team: 'storage',
  });
  t.equal(memberImage(d.pods.find((p) => p.metadata.name === 'e-0')!), 'quay.io/coreos/etcd:v3.5.0');
  t.equal(
    (obs.pods[1]!['spec'] as any).containers[1].image,
    'quay.io/coreos/etcd:v3.5.0',
    'the request is not written',
  );
  // The leader is e-2: e-0 goes first, then e-1.
  const led = healthy(3);
  for (const i of range(3)) led.health[`e-${i}`] = up('1002');
  const l = decide(parent({ size: 3, version: '3.5.1' }), spec({ size: 3, version: '3.5.1' }), led);
  t.equal(l.conditions[1]!.message, 'upgrading e-0 to 3.5.1 (0 of 3 done)');
  // The leader is e-1, e-0 already upgraded: e-2 next, e-1 last.
  const mid = healthy(3);
  mid.pods[0] = pod(0, { phase: 'Running' }, { version: '3.5.1' });
  for (const i of range(3)) mid.health[`e-${i}`] = up('1001', i === 0 ? '3.5.1' : '3.5.0');
  const m = decide(parent({ size: 3, version: '3.5.1' }), spec({ size: 3, version: '3.5.1' }), mid);
  t.equal(m.conditions[1]!.message, 'upgrading e-2 to 3.5.1 (1 of 3 done)');
  // Ordinals in order among non-leaders, whatever order the pods came in.
  const five = healthy(5);
  five.pods.reverse();
  for (const i of range(5)) five.health[`e-${i}`] = up('1003');
  const f = decide(parent({ size: 5, version: '3.5.1' }), spec({ size: 5, version: '3.5.1' }), five);
  t.equal(f.conditions[1]!.message, 'upgrading e-0 to 3.5.1 (0 of 5 done)');
});

t.test('an upgraded pod whose spec has no containers list keeps what it has, with the version noted', async (t) => {
  const obs = healthy(3);
  for (const i of range(3)) obs.health[`e-${i}`] = up('1002');
  delete (obs.pods[0]!['spec'] as any).containers;
  const d = decide(parent({ size: 3, version: '3.5.1' }), spec({ size: 3, version: '3.5.1' }), obs);
  t.equal(d.conditions[1]!.message, 'upgrading e-0 to 3.5.1 (0 of 3 done)');
  const e0 = d.pods.find((p) => p.metadata.name === 'e-0')!;
  t.notOk((e0['spec'] as any).containers);
  t.equal(e0.metadata.annotations?.['etcd.version'], '3.5.1');
  // No spec at all.
  const none = healthy(3);
  for (const i of range(3)) none.health[`e-${i}`] = up('1002');
  delete none.pods[0]!['spec'];
  const n = decide(parent({ size: 3, version: '3.5.1' }), spec({ size: 3, version: '3.5.1' }), none);
  const p0 = n.pods.find((p) => p.metadata.name === 'e-0')!;
  t.notOk(p0['spec']);
  t.equal(p0.metadata.annotations?.['etcd.version'], '3.5.1');
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
    pods: [0, 1].map((i) => ({
      name: `e-${i}`,
      cluster: cluster(0, 1),
      state: 'new',
      image: 'quay.io/coreos/etcd:v3.5.0',
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
  const message = 'a member of the bootstrap failed or the spec changed: starting the bootstrap again';
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
      { name: 'e-0', cluster: '', state: 'existing', image },
      ...[1, 2].map((i) => ({ name: `e-${i}`, cluster: cluster(0, 1, 2), state: 'existing', image })),
      ...[3, 4].map((i) => ({ name: `e-${i}`, cluster: cluster(0, 1, 2, 3, 4), state: 'existing', image })),
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

t.test('members: ordinals seen in the member list count, an unstarted member recreated with its peers', async (t) => {
  // Status lost its count; etcd lists e-3 (a learner whose pod create failed) and e-4 (an unstarted voter).
  const obs = healthy(3);
  obs.etcd!.members.push(member(3, false, true), member(4, false, false));
  obs.pods.push(pod(4, { phase: 'Pending' }));
  obs.health['e-4'] = down;
  const d = decide(parent({ size: 5 }, { phase: 'Running' }), spec({ size: 5 }), obs);
  const image = 'quay.io/coreos/etcd:v3.5.0';
  t.strictSame(view(d), {
    pods: [...kept(0, 1, 2, 4), { name: 'e-3', cluster: cluster(0, 1, 2, 3), state: 'existing', image }],
    phase: 'Running',
    conditions: [
      available(
        3,
        4,
        ['e-4'],
        '; 1 of the 5 members asked for missing: tolerating 1 failure where 5 members tolerate 2 failures',
      ),
      { type: 'Recovering', status: true, reason: 'RestartingMember', message: 'restarting e-3 as the same member' },
    ],
    members: [
      report(0, { leader: true }),
      report(1),
      report(2),
      { name: 'e-3', id: '1003', healthy: false, peerURL: url(3), clientURL: clientURL(c, 'e-3'), learner: true },
      { name: 'e-4', id: '1004', healthy: false, peerURL: url(4), clientURL: clientURL(c, 'e-4') },
    ],
    lastMemberIndex: 4,
    converging: true,
  });
  // The same member list, status lost, only e-3 missing: the count is e-3's.
  const one = healthy(3);
  one.etcd!.members.push(member(3, false, true));
  const o = decide(parent({ size: 4 }, { phase: 'Running' }), spec({ size: 4 }), one);
  t.equal(o.lastMemberIndex, 3);
  t.strictSame(o.pods.map(started).at(-1), { name: 'e-3', cluster: cluster(0, 1, 2, 3), state: 'existing', image });
});

t.test('members: a pod without a health entry is reported unhealthy; leader flags from healthy members', async (t) => {
  const obs = healthy(5);
  delete obs.health['e-0'];
  // e-1 failed its health check but still names a leader (its own stale view): not believed.
  obs.health['e-1'] = { healthy: false, leader: '1004', error: 'timeout' } as MemberHealth;
  for (const i of [2, 3, 4]) obs.health[`e-${i}`] = up('1002');
  const d = decide(parent({ size: 5 }, { phase: 'Running' }), spec({ size: 5 }), obs);
  t.strictSame(view(d), {
    pods: kept(0, 1, 2, 3, 4),
    phase: 'Running',
    conditions: [
      available(3, 5, ['e-0', 'e-1']),
      {
        type: 'Scaling',
        status: true,
        reason: 'WaitingForHealthy',
        message: 'waiting for e-0, e-1 to be healthy before the next change',
      },
    ],
    members: [
      { ...report(0, { healthy: false }), version: undefined },
      { ...report(1, { healthy: false }), version: undefined },
      report(2, { leader: true }),
      report(3),
      report(4),
    ].map((m) => JSON.parse(JSON.stringify(m))),
    lastMemberIndex: 4,
    converging: true,
  });
});

t.test('members: a member whose peer URL is not this cluster’s is matched by its name, else by none', async (t) => {
  const obs = healthy(3);
  obs.etcd!.members[1] = { ...member(1), peerURLs: ['http://10.0.0.5:2380'] };
  const d = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), obs);
  t.strictSame(view(d), {
    pods: kept(0, 1, 2),
    phase: 'Running',
    conditions: atRest(3),
    members: [report(0, { leader: true }), report(1, { peerURL: 'http://10.0.0.5:2380' }), report(2)],
    lastMemberIndex: 2,
    converging: false,
  });
  // An unstarted member added by hand at an address of its own: no pod is its; its addition is cancelled.
  const odd = healthy(3, { now: FIXED_NOW });
  odd.etcd!.members.push({ id: '1009', name: '', peerURLs: ['http://10.0.0.9:2380'], clientURLs: [], isLearner: true });
  const o = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), odd);
  t.strictSame(view(o), {
    action: { type: 'remove', id: '1009', pod: '1009', why: 'cancel' },
    pods: kept(0, 1, 2),
    phase: 'Running',
    conditions: [
      available(3, 3),
      {
        type: 'Scaling',
        status: true,
        reason: 'CancellingAddition',
        message: 'member 1009 never started: its addition is cancelled',
      },
    ],
    members: [
      report(0, { leader: true }),
      report(1),
      report(2),
      {
        name: '',
        id: '1009',
        healthy: false,
        peerURL: 'http://10.0.0.9:2380',
        learner: true,
        pendingSince: rfc3339(FIXED_NOW),
      },
    ],
    lastMemberIndex: 2,
    converging: true,
  });
});

t.test('members: pending since only for additions, unhealthy since only for started voters', async (t) => {
  // A caught-up learner is promoted; it was never reported pending.
  const learner = healthy(3, { now: FIXED_NOW });
  learner.etcd!.members.push(member(3, true, true));
  learner.pods.push(pod(3));
  learner.health['e-3'] = up();
  const p = decide(parent({ size: 4 }, { phase: 'Running', lastMemberIndex: 3 }), spec({ size: 4 }), learner);
  t.strictSame(p.action, { type: 'promote', id: '1003', pod: 'e-3' });
  t.strictSame(view(p).members, [report(0, { leader: true }), report(1), report(2), report(3, { learner: true })]);
  // A started voter down: unhealthy since now, not pending.
  const voter = healthy(3, { now: FIXED_NOW });
  voter.health['e-2'] = down;
  const v = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), voter);
  t.strictSame(view(v).members[2], {
    name: 'e-2',
    id: '1002',
    healthy: false,
    peerURL: url(2),
    clientURL: clientURL(c, 'e-2'),
    unhealthySince: rfc3339(FIXED_NOW),
  });
  // An unstarted voter (etcd 3.3, no learners): pending since now.
  const old = healthy(3, { now: FIXED_NOW });
  old.etcd!.clusterVersion = '3.3.0';
  old.etcd!.members.push(member(3, false, false));
  old.pods.push(pod(3, { phase: 'Pending' }));
  old.health['e-3'] = down;
  const o = decide(parent({ size: 4 }, { phase: 'Running', lastMemberIndex: 3 }), spec({ size: 4 }), old);
  t.strictSame(view(o).members[3], {
    name: 'e-3',
    id: '1003',
    healthy: false,
    peerURL: url(3),
    clientURL: clientURL(c, 'e-3'),
    pendingSince: rfc3339(FIXED_NOW),
  });
  t.strictSame(o.conditions[1], {
    type: 'Scaling',
    status: true,
    reason: 'WaitingForHealthy',
    message: 'waiting for e-3 to be healthy before the next change',
  });
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

t.test('an unhealthy member is replaced after the limit, not at it; the condition says how long', async (t) => {
  const obs = healthy(3, { now: FIXED_NOW });
  obs.health['e-2'] = down;
  const status = (seconds: number) => ({
    phase: 'Running',
    lastMemberIndex: 2,
    memberList: [...known(0, 1), { name: 'e-2', id: '1002', healthy: false, unhealthySince: ago(seconds) }],
  });
  const at = decide(parent({ size: 3 }, status(UNHEALTHY_REPLACE_SECONDS)), spec({ size: 3 }), obs);
  t.notOk(at.action);
  t.equal(at.conditions[1]!.reason, 'WaitingForHealthy');
  const after = decide(parent({ size: 3 }, status(UNHEALTHY_REPLACE_SECONDS + 1)), spec({ size: 3 }), obs);
  t.strictSame(after.action, { type: 'remove', id: '1002', pod: 'e-2', why: 'unhealthy' });
  t.strictSame(after.conditions, [
    available(2, 3, ['e-2']),
    {
      type: 'Recovering',
      status: true,
      reason: 'ReplacingUnhealthyMember',
      message: `member e-2 has been unhealthy since ${ago(UNHEALTHY_REPLACE_SECONDS + 1)} (over 10 minutes): removing it, a new member will replace it`,
    },
  ]);
});

t.test('NOSPACE on two members names both', async (t) => {
  const obs = healthy(3);
  obs.health['e-1'] = { healthy: false, alarm: 'NOSPACE', version: '3.5.0' } as MemberHealth;
  obs.health['e-2'] = { healthy: false, alarm: 'NOSPACE', version: '3.5.0' } as MemberHealth;
  const d = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), obs);
  t.equal(
    d.conditions[0]!.message,
    'etcd raised the NOSPACE alarm (e-1, e-2): writes are refused until space is freed (compact and defragment, or raise --quota-backend-bytes through pod.etcdEnv) and the alarm is disarmed; no membership change meanwhile',
  );
});

t.test('scale down: the highest ordinal that does not lead goes, whatever order etcd lists them in', async (t) => {
  const obs = healthy(5);
  obs.etcd!.members = [2, 4, 0, 3, 1].map((i) => member(i));
  for (const i of range(5)) obs.health[`e-${i}`] = up('1004');
  const d = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 4 }), spec({ size: 3 }), obs);
  t.strictSame(d.action, { type: 'remove', id: '1003', pod: 'e-3', why: 'scale down' });
  t.equal(d.conditions[1]!.message, 'removing member e-3 (4 of 3)');
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

t.test('with storage, when the request did not list claims, a lost member pod comes back as itself', async (t) => {
  const obs = healthy(3);
  obs.pods = [pod(0, {}, { pod: STORAGE }), pod(1, {}, { pod: STORAGE })];
  delete obs.health['e-2'];
  const d = decide(
    parent({ size: 3, pod: STORAGE }, { phase: 'Running', lastMemberIndex: 2 }),
    spec({ size: 3, pod: STORAGE }),
    obs,
  );
  t.strictSame(view(d), {
    pods: [
      ...kept(0, 1),
      { name: 'e-2', cluster: cluster(0, 1, 2), state: 'existing', image: 'quay.io/coreos/etcd:v3.5.0' },
    ],
    phase: 'Running',
    conditions: [
      available(2, 3, ['e-2']),
      { type: 'Recovering', status: true, reason: 'RestartingMember', message: 'restarting e-2 as the same member' },
    ],
    members: [
      report(0, { leader: true }),
      report(1),
      { name: 'e-2', id: '1002', healthy: false, peerURL: url(2), clientURL: clientURL(c, 'e-2') },
    ],
    lastMemberIndex: 2,
    converging: true,
  });
});

t.test('an upgrade leaves the leader last whatever order its pods are listed in', async (t) => {
  const obs = healthy(3);
  obs.pods.reverse();
  const d = decide(parent({ size: 3, version: '3.5.1' }), spec({ size: 3, version: '3.5.1' }), obs);
  t.equal(d.conditions[1]!.message, 'upgrading e-1 to 3.5.1 (0 of 3 done)');
  t.strictSame(
    d.pods.map((p) => [p.metadata.name, memberImage(p)]),
    [
      ['e-2', 'quay.io/coreos/etcd:v3.5.0'],
      ['e-1', 'quay.io/coreos/etcd:v3.5.1'],
      ['e-0', 'quay.io/coreos/etcd:v3.5.0'],
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
