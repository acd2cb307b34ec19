// etcd's CORRUPT alarm (its corruption check found a member whose data disagrees with the others): every member
// refuses writes and its /health says "ALARM CORRUPT", while reads, the quorum and the maintenance API go on. Before,
// only NOSPACE was read from /health: every member read as down, `Available=False` `QuorumLost` "0 of 3 members
// healthy", the alarm never named, and an alarm a restored snapshot kept under an old member's ID (etcdutl keeps it)
// never disarmed: the restored cluster refused every write. Now the alarm is read as NOSPACE is: the members count
// for quorum, the status says `DataCorrupt` naming the member the alarm names and etcd's way out, no membership
// change meanwhile; a CORRUPT alarm of an ID that is no member (a member removed, the old cluster's in a restored
// snapshot) is disarmed as NOSPACE's are. Each answer fed back as the next observed state. Real etcd 3.6.9:
// test/real/etcd-cluster-under-corrupt-alarm-said-data-corrupt-real.test.ts,
// test/real/etcd-restore-of-snapshot-taken-under-corrupt-alarm-accepts-writes-real.test.ts.
import t from 'tap';
import type { MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { decide } from '../../hooks/etcdcluster/plan.js';
import { healthy, parent, spec } from '../fixtures/etcd-plan.js';
import { running, withAlarms } from '../fixtures/etcd-loop.js';

t.test('a CORRUPT alarm of a member: said DataCorrupt naming it, the quorum kept, no change', async (t) => {
  const loop = await running({ size: 3 });
  const member = loop.etcd.members[2]!;
  const active = withAlarms(loop.etcd, [{ memberId: member.id, alarm: 'CORRUPT' }]);
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.etcd.calls, [], 'nothing disarmed, no membership call');
  t.same(active, [{ memberId: member.id, alarm: 'CORRUPT' }], "the member's alarm stays");
  const s = loop.s();
  const available = s.conditions.find((c: any) => c.type === 'Available');
  t.match(available, { status: 'False', reason: 'DataCorrupt' });
  t.not(available.reason, 'QuorumLost');
  t.match(available.message, new RegExp(`CORRUPT.*${member.name} \\(ID ${member.id}\\) whose data disagrees`));
  t.match(available.message, /etcdctl member remove <ID>.*etcdctl alarm disarm/, 'the way out');
  t.equal(s.memberList.length, 3, 'every member kept');
  for (const m of s.memberList) t.notOk(m.unhealthySince, `${m.name}: no unhealthy clock`);
});

t.test('a CORRUPT alarm of no member (a restored snapshot kept it, a member removed): disarmed', async (t) => {
  const loop = await running({ size: 3 });
  const active = withAlarms(loop.etcd, [{ memberId: '9372538179322589801', alarm: 'CORRUPT' }]);
  await loop.step();
  t.same(loop.etcd.calls, ['disarm CORRUPT 9372538179322589801'], 'disarmed once, nothing else changed');
  t.same(active, [], 'no alarm left');
  const available = loop.s().conditions.find((c: any) => c.type === 'Available');
  t.match(available, { status: 'True' });
});

t.test('the plan: members under CORRUPT count for the quorum; the alarm names its member', async (t) => {
  const obs = healthy(3);
  for (const p of ['e-0', 'e-1', 'e-2'])
    obs.health[p] = { ...obs.health[p], healthy: false, alarm: 'CORRUPT' } as MemberHealth;
  const id = obs.etcd!.members[1]!.id;
  obs.alarms = [{ memberId: id, alarm: 'CORRUPT' }];
  const d = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), obs);
  t.equal(d.reason, 'DataCorrupt');
  t.same(d.quorum, { members: 3, healthy: 3, needed: 2, ok: true, down: [] });
  t.match(d.conditions, [
    { type: 'Available', status: false, reason: 'DataCorrupt', message: new RegExp(`found member e-1 \\(ID ${id}\\)`) },
    { type: 'Recovering', status: true, reason: 'DataCorrupt' },
  ]);
  t.notOk(d.action, 'no membership change');
  // Without the alarm list (it could not be read), the member is not named, and how to find it is said.
  delete obs.alarms;
  const unnamed = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), obs);
  t.match(unnamed.conditions[0]!.message, /etcdctl alarm list names it/);
  // CORRUPT before NOSPACE when both are reported.
  obs.health['e-0'] = { ...obs.health['e-0'], alarm: 'NOSPACE' } as MemberHealth;
  t.equal(decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), obs).reason, 'DataCorrupt');
});
