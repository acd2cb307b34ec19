// `paused: true` "stops every change to the cluster" (the CRD's description; docs/etcdcluster.md: "`paused: true`
// stops every change"). An admin pauses an EtcdCluster under a CORRUPT alarm to work etcd's way out by hand: removes
// the member the alarm names (etcdctl member remove), then compares the members (etcdctl endpoint hashkv --cluster)
// before deciding to disarm. Before, the hook disarmed the alarm of the removed ID at its next sync, paused or not:
// writes were taken again before the admin had checked the members that remain. Disarming an alarm is a change to the
// cluster: while paused none is disarmed (said in the status), nor is a member pod made again under the alarm; once
// unpaused the alarm of no member is disarmed as before. (Found by the issue 30 attack.)
import t from 'tap';
import type { EtcdAlarm, MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { FakeEtcd, PVC, running } from '../fixtures/etcd-loop.js';

t.test('a paused cluster disarms no alarm, not even one of a member removed', async (t) => {
  const loop = await running({ size: 3 });
  const etcd = loop.etcd as FakeEtcd & {
    alarms(endpoints: string[]): Promise<EtcdAlarm[]>;
    alarmDisarm(endpoints: string[], a: EtcdAlarm): Promise<void>;
  };
  const corrupt = etcd.members[2]!;
  const active: EtcdAlarm[] = [{ memberId: corrupt.id, alarm: 'CORRUPT' }];
  etcd.alarms = async () => structuredClone(active);
  etcd.alarmDisarm = async (_e, a) => {
    etcd.calls.push(`disarm ${a.alarm} ${a.memberId}`);
    active.splice(
      active.findIndex((x) => x.memberId === a.memberId && x.alarm === a.alarm),
      1,
    );
  };
  const health = etcd.health.bind(etcd);
  etcd.health = async (url: string): Promise<MemberHealth> => {
    const h = await health(url);
    return active.length && h.healthy ? { ...h, healthy: false, alarm: 'CORRUPT' } : h;
  };
  await loop.step();
  loop.spec = { ...loop.spec, paused: true };
  await loop.step();
  // By hand: the member the alarm names removed (etcdctl member remove), its pod gone with it.
  etcd.members = etcd.members.filter((m) => m.id !== corrupt.id);
  loop.lose(corrupt.name);
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(etcd.calls, [], 'nothing disarmed while paused');
  t.same(active, [{ memberId: corrupt.id, alarm: 'CORRUPT' }], 'the alarm stays until the admin disarms it');
  const available = (loop.s().conditions as any[]).find((c) => c.type === 'Available');
  t.match(available, {
    status: 'False',
    reason: 'DataCorrupt',
    message: new RegExp(`spec.paused is true: no pod is made and no alarm disarmed \\(CORRUPT of ID ${corrupt.id}: `),
  });
  // Unpaused: the alarm of no member is disarmed, as before.
  loop.spec = { ...loop.spec, paused: false };
  await loop.step();
  t.equal(etcd.calls[0], `disarm CORRUPT ${corrupt.id}`, 'disarmed once unpaused (then the member replaced)');
  t.same(active, []);
});

t.test('a paused cluster under an alarm makes no member pod again', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  const etcd = loop.etcd;
  const health = etcd.health.bind(etcd);
  etcd.health = async (url: string): Promise<MemberHealth> => {
    const h = await health(url);
    return h.healthy ? { ...h, healthy: false, alarm: 'NOSPACE' } : h;
  };
  loop.spec = { ...loop.spec, paused: true };
  await loop.step();
  loop.lose('e-2');
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1'], 'e-2 not made again while paused');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'its claim kept');
  t.match(
    (loop.s().conditions as any[]).find((c) => c.type === 'Available'),
    {
      reason: 'NoSpace',
      message: /spec\.paused is true: no pod is made until it is false/,
    },
  );
  loop.spec = { ...loop.spec, paused: false };
  await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'made again on its claim once unpaused');
  t.same(etcd.calls, [], 'no membership change');
});
