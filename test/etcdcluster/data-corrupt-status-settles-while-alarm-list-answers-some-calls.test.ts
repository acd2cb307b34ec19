// Quiet at rest, a dependency that half-works: a cluster under etcd's CORRUPT alarm (every member's /health says
// "ALARM CORRUPT"), etcd answering the alarm list (Maintenance Alarm GET, through raft) at one sync and timing out at
// the next. The DataCorrupt message names the member the list names, or, without the list, "a member ... (etcdctl
// alarm list names it)". Before, Available's message, so the status, was written anew at every sync (every 5 s while
// DataCorrupt converges) for as long as the alarm lasted. Now the member named when the list last answered is named
// still while a list does not answer (read back from the status by its shape: pod names and IDs only), until a list
// says otherwise. (Found by the issue 30 attack.)
import t from 'tap';
import type { EtcdAlarm, MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { namedLast } from '../../hooks/etcdcluster/plan/members.js';
import { FakeEtcd, running } from '../fixtures/etcd-loop.js';

/** A cluster of 3 under CORRUPT naming `active`, its alarm list answering as `answers` says at each call. */
async function corrupt(answers: (call: number) => boolean) {
  const loop = await running({ size: 3 });
  const etcd = loop.etcd as FakeEtcd & {
    alarms(endpoints: string[]): Promise<EtcdAlarm[]>;
    alarmDisarm(endpoints: string[], a: EtcdAlarm): Promise<void>;
  };
  const active: EtcdAlarm[] = [{ memberId: etcd.members[2]!.id, alarm: 'CORRUPT' }];
  let calls = 0;
  etcd.alarms = async () => {
    if (!answers(calls++)) throw new Error('context deadline exceeded');
    return structuredClone(active);
  };
  etcd.alarmDisarm = async () => undefined;
  const health = etcd.health.bind(etcd);
  etcd.health = async (url: string): Promise<MemberHealth> => {
    const h = await health(url);
    return h.healthy ? { ...h, healthy: false, alarm: 'CORRUPT' } : h;
  };
  return { loop, etcd, active };
}

const availableOf = (loop: { s(): any }) => (loop.s().conditions as any[]).find((c) => c.type === 'Available');

t.test('DataCorrupt said once: the status unchanged while the alarm list answers every other call', async (t) => {
  const { loop, etcd } = await corrupt((call) => call % 2 === 0);
  await loop.step();
  const said = JSON.stringify(loop.s());
  t.match(availableOf(loop), { message: new RegExp(`found member e-2 \\(ID ${etcd.members[2]!.id}\\) whose data`) });
  const changed: number[] = [];
  for (let i = 1; i <= 4; i++) {
    loop.now = new Date(loop.now.getTime() + 5000);
    await loop.step();
    if (JSON.stringify(loop.s()) !== said) changed.push(i);
  }
  t.match(availableOf(loop), { status: 'False', reason: 'DataCorrupt' });
  t.same(changed, [], 'no sync rewrote the status');
});

t.test('the member named last is kept only until a list names another', async (t) => {
  const { loop, etcd, active } = await corrupt((call) => call % 2 === 0);
  await loop.step();
  loop.now = new Date(loop.now.getTime() + 5000);
  await loop.step(); // the list fails: e-2 named still
  t.match(availableOf(loop), { message: /found member e-2 \(ID / });
  active[0] = { memberId: etcd.members[1]!.id, alarm: 'CORRUPT' };
  loop.now = new Date(loop.now.getTime() + 5000);
  await loop.step(); // the list answers: e-1
  t.match(availableOf(loop), { message: new RegExp(`found member e-1 \\(ID ${etcd.members[1]!.id}\\) whose data`) });
});

t.test('a list that never answered names no member', async (t) => {
  const { loop } = await corrupt(() => false);
  for (let i = 0; i < 3; i++) await loop.step();
  t.match(availableOf(loop), {
    reason: 'DataCorrupt',
    message: /found a member whose data disagrees .*alarm list names it/,
  });
});

t.test('the member named last is read by its shape only', async (t) => {
  const parent = (reason: string, message: string) =>
    ({ status: { conditions: [{ type: 'Available', status: 'False', reason, message }] } }) as any;
  const said = (named: string) =>
    `etcd raised the CORRUPT alarm (reported by e-0, e-1): its corruption check found member ${named} whose data disagrees with the others; every write`;
  t.equal(namedLast(parent('DataCorrupt', said('e-2 (ID 12)'))), 'e-2 (ID 12)');
  t.equal(namedLast(parent('DataCorrupt', said('e-2 (ID 12), ID 7'))), 'e-2 (ID 12), ID 7');
  t.equal(namedLast(parent('NoSpace', said('e-2 (ID 12)'))), undefined, 'another reason: nothing');
  t.equal(namedLast(parent('DataCorrupt', said('EVIL text (ID 1)'))), undefined, 'no pod name: nothing');
  t.equal(namedLast(parent('DataCorrupt', said('e-2 (ID x)'))), undefined, 'no ID: nothing');
  t.equal(namedLast({ status: {} } as any), undefined);
  t.equal(namedLast(parent('DataCorrupt', 'found member e-2 (ID 1) whose data')), undefined, 'not its words');
});
