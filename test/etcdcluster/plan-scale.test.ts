// The EtcdCluster plan's scaling: up one member at a time (as a learner from 3.4), down by the highest ordinal
// that does not lead.
import t from 'tap';
import { decide } from '../../hooks/etcdcluster/plan.js';
import { up } from '../fixtures/etcd.js';
import { parent, spec, member, url, cluster, started, healthy, range, names } from '../fixtures/etcd-plan.js';

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

t.test('scale down: the highest ordinal that does not lead goes, whatever order etcd lists them in', async (t) => {
  const obs = healthy(5);
  obs.etcd!.members = [2, 4, 0, 3, 1].map((i) => member(i));
  for (const i of range(5)) obs.health[`e-${i}`] = up('1004');
  const d = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 4 }), spec({ size: 3 }), obs);
  t.strictSame(d.action, { type: 'remove', id: '1003', pod: 'e-3', why: 'scale down' });
  t.equal(d.conditions[1]!.message, 'removing member e-3 (4 of 3)');
});
