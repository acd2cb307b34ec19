// The versions the EtcdCluster plan reads (plan/versions.ts): the running version from healthy members, the
// member image of a pod, and the version helpers at their edges.
import t from 'tap';
import type { MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { memberImage } from '../../hooks/etcdcluster/members.js';
import { compareVersions, decide, sanitize, supportsLearners, upgradeRefusal } from '../../hooks/etcdcluster/plan.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { up } from '../fixtures/etcd.js';
import { parent, spec, pod, known, healthy, range, view, report } from '../fixtures/etcd-plan.js';

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
