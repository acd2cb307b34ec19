// The EtcdCluster plan's member reports (status.members) while etcd answers: ordinals, health, leader flags, members
// matched by peer URL or name, pending and unhealthy since when, and an unhealthy member replaced after the limit.
import t from 'tap';
import type { MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { clientURL } from '../../hooks/etcdcluster/members.js';
import { decide, UNHEALTHY_REPLACE_SECONDS } from '../../hooks/etcdcluster/plan.js';
import { rfc3339 } from '../../lib/conditions.js';
import { down, up } from '../fixtures/etcd.js';
import {
  known,
  parent,
  spec,
  c,
  pod,
  member,
  url,
  cluster,
  started,
  healthy,
  ago,
  view,
  kept,
  report,
  available,
  atRest,
} from '../fixtures/etcd-plan.js';
import { FIXED_NOW } from '../fixtures/requests.js';

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
      // (e-3 never started: its pod made is its addition going on, not a restart.)
      { type: 'Scaling', status: true, reason: 'WaitingForLearner', message: 'waiting for learner e-3 to start' },
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
