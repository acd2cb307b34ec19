// The EtcdCluster plan's upgrades: the message of each step and every condition at rest, a refused upgrade, and
// the pod an upgrade asks for (only the etcd container changed, the leader last).
import t from 'tap';
import { memberImage } from '../../hooks/etcdcluster/members.js';
import { decide } from '../../hooks/etcdcluster/plan.js';
import { up } from '../fixtures/etcd.js';
import { parent, spec, pod, known, started, healthy, range, available } from '../fixtures/etcd-plan.js';

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
    'etcd.metaops.io/image': 'quay.io/coreos/etcd:v3.5.1',
    'etcd.metaops.io/upgraded-from': '3.5.0',
    'etcd.metaops.io/upgraded-from-image': 'quay.io/coreos/etcd:v3.5.0',
    // The upgrade under way, on every member pod (upgrade.ts UPGRADE_MARK).
    'etcd.metaops.io/upgrade': '3.5.0->3.5.1',
    // The spec.pod it was made from (plan/respec.ts), kept as it was.
    'etcd.metaops.io/pod-spec': '44136fa355b3678a',
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
