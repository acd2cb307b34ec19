// The EtcdCluster plan while etcd answers, for members whose pod is gone or finished: restarted as the same member
// on their storage, removed and later replaced without it.
import t from 'tap';
import { clientURL } from '../../hooks/etcdcluster/members.js';
import { decide, type Observation } from '../../hooks/etcdcluster/plan.js';
import { down, up } from '../fixtures/etcd.js';
import {
  parent,
  spec,
  c,
  pod,
  member,
  url,
  cluster,
  started,
  healthy,
  STORAGE,
  range,
  names,
  view,
  kept,
  report,
  available,
} from '../fixtures/etcd-plan.js';

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
      // (Made on their claims, they check their data on every later start: check-data.)
      ...kept(0, 1).map((p) => ({ ...p, init: ['check-data'] })),
      // (Made again on its claim, it starts only on its data: check-data.)
      {
        name: 'e-2',
        cluster: cluster(0, 1, 2),
        state: 'existing',
        image: 'quay.io/coreos/etcd:v3.5.0',
        init: ['check-data'],
      },
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
