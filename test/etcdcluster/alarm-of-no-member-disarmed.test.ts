// An alarm kept under a member ID no member has (issue 30): a snapshot taken while NOSPACE was raised restores (etcdutl
// keeps the alarm under the old member's ID) into a cluster that refuses every write, its members serving and Ready.
// The hook lists the cluster's alarms when a member reports one, disarms those of IDs that are no member of the
// member list, says so in an event, and reads the members' health again: the cluster takes writes and is not said
// NoSpace. An alarm a member raised stays (its backend is full: it raises it again past its quota anyway). Each
// answer fed back as the next observed state. Real etcd 3.6.9:
// test/real/etcd-restore-of-snapshot-taken-under-nospace-alarm-accepts-writes-real.test.ts.
import t from 'tap';
import { disarmedEvent } from '../../hooks/etcdcluster/alarms.js';
import { running, withAlarms } from '../fixtures/etcd-loop.js';

t.test('an alarm under a member ID no member has is disarmed; the cluster is not said NoSpace', async (t) => {
  const loop = await running({ size: 3 });
  const active = withAlarms(loop.etcd, [{ memberId: '9372538179322589801', alarm: 'NOSPACE' }]);
  await loop.step();
  t.same(loop.etcd.calls, ['disarm NOSPACE 9372538179322589801'], 'disarmed once, nothing else changed');
  t.same(active, [], 'no alarm left');
  const available = loop.s().conditions.find((c: any) => c.type === 'Available');
  t.not(available.reason, 'NoSpace', `not said NoSpace: ${available.message}`);
  t.match(available, { status: 'True' });
  await loop.step();
  t.same(loop.etcd.calls, ['disarm NOSPACE 9372538179322589801'], 'nothing more at the next sync');
});

t.test('an alarm a member raised stays, and is said NoSpace', async (t) => {
  const loop = await running({ size: 3 });
  const member = loop.etcd.members[1]!.id;
  const active = withAlarms(loop.etcd, [
    { memberId: member, alarm: 'NOSPACE' },
    { memberId: '9372538179322589801', alarm: 'NOSPACE' },
  ]);
  await loop.step();
  t.same(loop.etcd.calls, ['disarm NOSPACE 9372538179322589801'], "only the non-member's alarm disarmed");
  t.same(active, [{ memberId: member, alarm: 'NOSPACE' }], "the member's alarm stays");
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Available'),
    { reason: 'NoSpace' },
  );
});

t.test('no member reports an alarm: the alarms are not asked', async (t) => {
  const loop = await running({ size: 3 });
  let asked = 0;
  const e = loop.etcd as any;
  e.alarms = async () => {
    asked++;
    return [];
  };
  e.alarmDisarm = async () => undefined;
  await loop.step();
  t.equal(asked, 0);
});

t.test('the event names each alarm disarmed and why', async (t) => {
  const e = disarmedEvent({ disarmed: [{ memberId: '9372538179322589801', alarm: 'NOSPACE' }] });
  t.match(e, { type: 'Normal', reason: 'AlarmDisarmed' });
  t.match(e.note, /NOSPACE of member 9372538179322589801: no member of the cluster has that ID/);
});
