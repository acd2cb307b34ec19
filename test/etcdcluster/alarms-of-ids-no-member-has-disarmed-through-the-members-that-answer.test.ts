// hooks/etcdcluster/alarms.ts called directly against a stub etcd client (no cluster loop, under a second): the
// alarms are asked only when a member reports one and etcd listed its members, through the members that answer
// (healthy, or alarmed); only the alarms of IDs no member has are disarmed; a failure to list or to disarm is told
// with what was disarmed before it; the alarmed members' health is asked again once an alarm is gone, and an answer
// replaces the earlier one only when it comes from the same member of the same cluster. The event names every alarm.
import t from 'tap';
import type { EtcdAlarm, EtcdClient, MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { disarmStrangers, disarmedEvent } from '../../hooks/etcdcluster/alarms.js';
import type { Cluster } from '../../hooks/etcdcluster/members.js';
import type { Observed } from '../../hooks/etcdcluster/observe.js';

const C: Cluster = { name: 'db', namespace: 'ns', domain: '', peerTLS: false, clientTLS: false };
const url = (pod: string, c: Cluster = C) =>
  `${c.clientTLS ? 'https' : 'http'}://${pod}.${c.name}.${c.namespace}.svc${c.domain}:2379`;
const STRANGER = '9372538179322589801';

/** An observation of pods db-0..db-2 (members 1, 2, 3), each with the health given. */
function observed(health: Record<string, MemberHealth>, etcd = true): Observed {
  const pods = ['db-0', 'db-1', 'db-2'].map((name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name } }));
  return {
    pods,
    health,
    ...(etcd ? { etcd: { members: ['1', '2', '3'].map((id, i) => ({ id, name: `db-${i}` })) } } : {}),
  } as unknown as Observed;
}

const ok = (memberId: string): MemberHealth => ({ healthy: true, clusterId: 'c1', memberId });
const alarmed = (memberId: string): MemberHealth => ({ healthy: false, alarm: 'NOSPACE', clusterId: 'c1', memberId });

/** A stub client: the alarms listed, each call recorded, health answered from `after` (a pod's URL to its health). */
function client(
  active: EtcdAlarm[],
  after: Record<string, MemberHealth | Error> = {},
  fail: { list?: Error; disarmAt?: number } = {},
) {
  const calls: string[] = [];
  const c = {
    calls,
    async alarms(endpoints: string[]) {
      calls.push(`alarms ${endpoints.join(' ')}`);
      if (fail.list) throw fail.list;
      return structuredClone(active);
    },
    async alarmDisarm(endpoints: string[], a: EtcdAlarm) {
      calls.push(`disarm ${a.alarm} ${a.memberId} via ${endpoints.join(' ')}`);
      if (fail.disarmAt !== undefined && calls.filter((x) => x.startsWith('disarm')).length > fail.disarmAt)
        throw new Error('etcdserver: request timed out');
    },
    async health(u: string): Promise<MemberHealth> {
      calls.push(`health ${u}`);
      const h = after[u];
      if (h instanceof Error) throw h;
      if (!h) throw new Error(`no answer from ${u}`);
      return h;
    },
  };
  return c as typeof c & EtcdClient;
}

t.test('nothing is asked without a member list, without the alarm API, or without an alarmed member', async (t) => {
  const health = { 'db-0': alarmed('1'), 'db-1': ok('2'), 'db-2': ok('3') };
  const noList = client([{ memberId: STRANGER, alarm: 'NOSPACE' }]);
  t.equal(await disarmStrangers(C, observed(health, false), noList), undefined, 'no member list: nothing asked');
  t.same(noList.calls, []);
  for (const missing of ['alarms', 'alarmDisarm'] as const) {
    const c = client([{ memberId: STRANGER, alarm: 'NOSPACE' }]);
    delete (c as Partial<typeof c>)[missing];
    t.equal(await disarmStrangers(C, observed(health), c), undefined, `a client without ${missing}: nothing asked`);
    t.same(c.calls, [], `a client without ${missing}: no call`);
  }
  const quiet = client([{ memberId: STRANGER, alarm: 'NOSPACE' }]);
  const none = { 'db-0': ok('1'), 'db-1': ok('2'), 'db-2': { healthy: false, error: 'connection refused' } };
  t.equal(await disarmStrangers(C, observed(none), quiet), undefined, 'no member reports an alarm: nothing asked');
  t.same(quiet.calls, []);
});

t.test('only the alarms of IDs no member has are disarmed, through the members that answer', async (t) => {
  const health = {
    'db-0': alarmed('1'),
    'db-1': { healthy: false, error: 'connection refused' },
    'db-2': ok('3'),
  };
  const c = client(
    [
      { memberId: '1', alarm: 'NOSPACE' },
      { memberId: STRANGER, alarm: 'NOSPACE' },
      { memberId: '77', alarm: 'CORRUPT' },
    ],
    { [url('db-0')]: alarmed('1') },
  );
  const d = await disarmStrangers(C, observed(health), c);
  const via = `${url('db-0')} ${url('db-2')}`;
  t.same(d, {
    disarmed: [
      { memberId: STRANGER, alarm: 'NOSPACE' },
      { memberId: '77', alarm: 'CORRUPT' },
    ],
  });
  t.same(
    c.calls,
    [`alarms ${via}`, `disarm NOSPACE ${STRANGER} via ${via}`, `disarm CORRUPT 77 via ${via}`, `health ${url('db-0')}`],
    "the member's own alarm stays; the member that does not answer is not asked; only the alarmed pod asked again",
  );
});

t.test('the members are dialled on the scheme and domain of the cluster', async (t) => {
  const tls: Cluster = { ...C, clientTLS: true, domain: '.cluster.local' };
  const c = client([]);
  const d = await disarmStrangers(tls, observed({ 'db-1': alarmed('2') }), c);
  t.same(d, { disarmed: [] }, 'no alarm of a stranger: nothing disarmed');
  t.same(c.calls, [`alarms https://db-1.db.ns.svc.cluster.local:2379`], 'not asked again: nothing was disarmed');
});

t.test('a failure to list or to disarm is told with what was disarmed before it', async (t) => {
  const health = { 'db-0': alarmed('1') };
  const list = client([{ memberId: STRANGER, alarm: 'NOSPACE' }], {}, { list: new Error('context deadline exceeded') });
  t.same(await disarmStrangers(C, observed(health), list), { disarmed: [], error: 'context deadline exceeded' });
  t.same(list.calls, [`alarms ${url('db-0')}`], 'nothing disarmed, nothing asked again');
  const second = client(
    [
      { memberId: STRANGER, alarm: 'NOSPACE' },
      { memberId: '77', alarm: 'NOSPACE' },
    ],
    {},
    { disarmAt: 1 },
  );
  t.same(await disarmStrangers(C, observed(health), second), {
    disarmed: [{ memberId: STRANGER, alarm: 'NOSPACE' }],
    error: 'etcdserver: request timed out',
  });
  t.notOk(
    second.calls.some((x) => x.startsWith('health')),
    'not asked again after a failure',
  );
});

t.test("an alarmed member's health is replaced only by an answer of the same member of the same cluster", async (t) => {
  const cases: Array<[string, MemberHealth | Error, boolean]> = [
    ['the same member', { healthy: true, clusterId: 'c1', memberId: '1' }, true],
    ['another cluster', { healthy: true, clusterId: 'c2', memberId: '1' }, false],
    ['another member', { healthy: true, clusterId: 'c1', memberId: '9' }, false],
    ['no cluster ID', { healthy: true, memberId: '1' }, false],
    ['no answer', new Error('connection refused'), false],
  ];
  for (const [what, answer, replaced] of cases) {
    const before = alarmed('1');
    const obs = observed({ 'db-0': before, 'db-1': ok('2') });
    const c = client([{ memberId: STRANGER, alarm: 'NOSPACE' }], { [url('db-0')]: answer });
    await disarmStrangers(C, obs, c);
    t.same(obs.health['db-0'], replaced ? answer : before, `${what}: ${replaced ? 'replaced' : 'kept'}`);
    t.notOk(c.calls.includes(`health ${url('db-1')}`), `${what}: a member without an alarm is not asked again`);
  }
  const noId = alarmed('1');
  delete noId.clusterId;
  const obs = observed({ 'db-0': noId });
  const again = { healthy: true, memberId: '1' };
  await disarmStrangers(C, obs, client([{ memberId: STRANGER, alarm: 'NOSPACE' }], { [url('db-0')]: again }));
  t.same(obs.health['db-0'], noId, 'neither answer with a cluster ID: not known to be the same member, kept');
});

t.test('the event names each alarm disarmed, within 1000 characters', async (t) => {
  const two = disarmedEvent({
    disarmed: [
      { memberId: STRANGER, alarm: 'NOSPACE' },
      { memberId: '77', alarm: 'CORRUPT' },
    ],
  });
  t.same(two, {
    type: 'Normal',
    reason: 'AlarmDisarmed',
    action: 'AlarmDisarm',
    note:
      `disarmed NOSPACE of member ${STRANGER}, CORRUPT of member 77: no member of the cluster has that ID (an alarm a ` +
      'restored snapshot kept, or of a member removed); writes are taken again',
  });
  const many = disarmedEvent({
    disarmed: Array.from({ length: 64 }, (_, i) => ({ memberId: `${STRANGER}${i}`, alarm: 'NOSPACE' })),
  });
  t.equal(many.note.length, 1000, 'bounded');
  t.ok(many.note.startsWith(`disarmed NOSPACE of member ${STRANGER}0, NOSPACE of member ${STRANGER}1, `));
});
