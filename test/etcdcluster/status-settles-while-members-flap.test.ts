// Metacontroller writes an answered status that differs from the stored one, and that write syncs the EtcdCluster
// again at once. A member that answers healthy and unhealthy in turn, or members naming another leader at each sync,
// changed the status at every sync: a loop of syncs, dials and status writes for as long as it lasted. What members
// say is reported at once, then again only once 15 s have passed (hooks/etcdcluster/settle.ts), the stored status
// answered meanwhile and the cluster asked again when the hold ends; what the planner remembers is always written.
import t from 'tap';
import type { MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { REPORT_HOLD_SECONDS, REPORTED_AT, settleReport } from '../../hooks/etcdcluster/settle.js';
import { running, type Loop } from '../fixtures/etcd-loop.js';

/** Every member pod Ready (its readiness probe asks etcd in the pod), as a cluster that serves has them. */
function allReady(loop: Loop) {
  for (const p of ['e-0', 'e-1', 'e-2', 'e-3'])
    loop.podStatus.set(p, { conditions: [{ type: 'Ready', status: 'True' }] });
}

/** `n` syncs 200 ms apart, `flip(i)` before each; how many of them changed the stored status. */
async function syncs(loop: Loop, n: number, flip: (i: number) => void): Promise<number> {
  let changes = 0;
  for (let i = 0; i < n; i++) {
    flip(i);
    const before = JSON.stringify(loop.status);
    loop.now = new Date(loop.now.getTime() + 200);
    await loop.step();
    if (JSON.stringify(loop.status) !== before) changes++;
  }
  return changes;
}

const healthOf = (loop: Loop, name: string) => loop.s().memberList.find((m: any) => m.name === name)?.healthy;

t.test('a member healthy and unhealthy in turn: the status changes at most twice in 9 syncs', async (t) => {
  const loop = await running({ size: 3 });
  allReady(loop);
  await loop.step();
  loop.now = new Date(loop.now.getTime() + REPORT_HOLD_SECONDS * 1000);
  const changes = await syncs(loop, 9, (i) => (i % 2 === 0 ? loop.etcd.up.delete('e-2') : loop.etcd.up.add('e-2')));
  t.ok(changes >= 1 && changes <= 2, `${changes} status changes in 9 syncs`);
  t.equal(healthOf(loop, 'e-2'), false, 'the first change is reported at once: e-2 down');
  t.ok(loop.last.resyncAfterSeconds! <= REPORT_HOLD_SECONDS, 'asked again once the hold ends');
  t.same(
    loop.etcd.calls.filter((c) => /^add|^remove/.test(c)),
    [],
    'no membership change',
  );
  // Once the hold has passed, what the members say now is reported.
  loop.etcd.up.add('e-2');
  loop.now = new Date(loop.now.getTime() + REPORT_HOLD_SECONDS * 1000);
  await loop.step();
  t.equal(healthOf(loop, 'e-2'), true, 'e-2 healthy again, reported after the hold');
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Ready'),
    { status: 'True' },
  );
  t.equal(loop.s()[REPORTED_AT], loop.now.toISOString().replace(/\.\d+Z$/, 'Z'), 'the report stamped');
});

t.test('members naming another leader at each sync: the status changes at most twice in 9 syncs', async (t) => {
  const loop = await running({ size: 3 });
  allReady(loop);
  let leader = '1';
  const health = loop.etcd.health.bind(loop.etcd);
  loop.etcd.health = async (url: string): Promise<MemberHealth> => ({ ...(await health(url)), leader });
  await loop.step();
  loop.now = new Date(loop.now.getTime() + REPORT_HOLD_SECONDS * 1000);
  const changes = await syncs(loop, 9, (i) => (leader = String((i % 3) + 1)));
  t.ok(changes >= 1 && changes <= 2, `${changes} status changes in 9 syncs`);
});

t.test('a change of what the planner remembers is written at once, within the hold', async (t) => {
  const loop = await running({ size: 3 });
  allReady(loop);
  await loop.step();
  loop.now = new Date(loop.now.getTime() + REPORT_HOLD_SECONDS * 1000);
  await syncs(loop, 2, (i) => (i % 2 === 0 ? loop.etcd.up.delete('e-2') : loop.etcd.up.add('e-2')));
  // Within the hold: the spec asks for a fourth member; the addition is recorded in the status of that very sync.
  loop.spec = { ...loop.spec, size: 4 };
  const held = loop.s().lastMemberIndex;
  const written = await syncs(loop, 1, () => loop.etcd.up.add('e-2'));
  t.same(
    loop.etcd.calls.filter((c) => /^add/.test(c)),
    ['add e-3'],
    'the member added',
  );
  t.equal(held, 2);
  t.equal(written, 1, 'the status of that sync is written');
  t.equal(loop.s().lastMemberIndex, 3);
});

t.test('a steady cluster: the stamp is carried, the status unchanged sync after sync', async (t) => {
  const loop = await running({ size: 3 });
  allReady(loop);
  await loop.step();
  const changes = await syncs(loop, 5, () => undefined);
  t.equal(changes, 0);
  t.type(loop.s()[REPORTED_AT], 'string');
});

t.test('whether quorum holds is never held (the planner reads it back)', async (t) => {
  const parent = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns' },
    status: {
      phase: 'Running',
      quorum: { members: 3, healthy: 2, needed: 2, ok: true },
      [REPORTED_AT]: '2026-01-01T00:00:00Z',
    },
  };
  const now = new Date('2026-01-01T00:00:01Z');
  const lost = { phase: 'Running', quorum: { members: 3, healthy: 1, needed: 2, ok: false } };
  const answer = settleReport(parent as never, { status: lost, children: [] }, now);
  t.match(answer.status, { quorum: { ok: false } }, 'quorum lost written within the hold');
  const fewer = { phase: 'Running', quorum: { members: 3, healthy: 3, needed: 2, ok: true } };
  const held = settleReport(parent as never, { status: fewer, children: [] }, now);
  t.match(held.status, { quorum: { healthy: 2 } }, 'a count of healthy members alone is held');
  t.equal(held.resyncAfterSeconds, REPORT_HOLD_SECONDS - 1, 'asked again when the hold ends');
});
