// A member whose pod is not Ready and whose etcd answers healthy and unhealthy in turn: the planner would start its
// unhealthy clock at one sync and drop it at the next, each a change of what it remembers, so a status write, and
// each status write a sync again at once (Metacontroller). A clock that starts while what members say is held
// (settle.ts) waits for the hold's end, so the status is written a bounded number of times per hold; a clock is
// dropped at once (a member seen healthy is never timed from before it), so nothing is replaced sooner: a member that
// flaps is never replaced, a member really down is replaced at the documented limit.
import t from 'tap';
import { UNHEALTHY_REPLACE_SECONDS } from '../../hooks/etcdcluster/plan.js';
import { REPORT_HOLD_SECONDS } from '../../hooks/etcdcluster/settle.js';
import { running, type Loop } from '../fixtures/etcd-loop.js';

const NOT_READY = {
  conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-06-01T00:00:00Z' }],
};

/** A cluster of 3 whose e-0 and e-1 pods are Ready, and e-2's pod not Ready (its readiness probe failing). */
async function withNotReadyMember(): Promise<Loop> {
  const loop = await running({ size: 3 });
  for (const p of ['e-0', 'e-1']) loop.podStatus.set(p, { conditions: [{ type: 'Ready', status: 'True' }] });
  loop.podStatus.set('e-2', NOT_READY);
  await loop.step();
  loop.now = new Date(loop.now.getTime() + REPORT_HOLD_SECONDS * 1000);
  await loop.step();
  return loop;
}

/** `n` syncs `ms` apart, e-2 answering as `up(i)` says at sync i; how many of them wrote the status. */
async function syncs(loop: Loop, n: number, ms: number, up: (i: number) => boolean): Promise<number> {
  let writes = 0;
  for (let i = 0; i < n; i++) {
    if (up(i)) loop.etcd.up.add('e-2');
    else loop.etcd.up.delete('e-2');
    const before = JSON.stringify(loop.status);
    loop.now = new Date(loop.now.getTime() + ms);
    await loop.step();
    if (JSON.stringify(loop.status) !== before) writes++;
  }
  return writes;
}

const removals = (loop: Loop) => loop.etcd.calls.filter((c) => /^remove|^add/.test(c));

t.test('a not-Ready member flapping at every sync: a bounded number of status writes per hold', async (t) => {
  const loop = await withNotReadyMember();
  // 300 syncs 200 ms apart: 60 s, 4 hold periods.
  const writes = await syncs(loop, 300, 200, (i) => i % 2 === 1);
  const holds = (300 * 200) / 1000 / REPORT_HOLD_SECONDS;
  t.ok(writes <= 2 * holds + 2, `${writes} status writes in ${holds} hold periods`);
  t.same(removals(loop), [], 'no membership change');
});

t.test('a not-Ready member flapping for longer than the limit is never replaced', async (t) => {
  const loop = await withNotReadyMember();
  // Healthy at every sync, then at one sync in 20 (once every 20 s), the others unhealthy: never 10 minutes on end.
  await syncs(loop, 200, 1000, (i) => i % 2 === 1);
  await syncs(loop, UNHEALTHY_REPLACE_SECONDS + 200, 1000, (i) => i % 20 === 7);
  t.same(removals(loop), [], 'never replaced');
});

t.test('a not-Ready member down for the whole limit is replaced at it, never before', async (t) => {
  const loop = await withNotReadyMember();
  loop.etcd.up.delete('e-2');
  loop.now = new Date(loop.now.getTime() + 1000);
  await loop.step();
  const since = loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince;
  t.equal(since, loop.now.toISOString().replace(/\.\d+Z$/, 'Z'), 'timed from the first sync that saw it down');
  // Syncs every 10 s up to the limit, then one past it.
  while (loop.now.getTime() + 10_000 <= Date.parse(since) + UNHEALTHY_REPLACE_SECONDS * 1000) {
    loop.now = new Date(loop.now.getTime() + 10_000);
    await loop.step();
  }
  t.same(removals(loop), [], 'not before the limit');
  loop.now = new Date(Date.parse(since) + UNHEALTHY_REPLACE_SECONDS * 1000 + 1000);
  await loop.step();
  t.same(removals(loop), ['remove 3'], 'replaced once past it');
});

t.test('a member that goes down for good after flapping is replaced the limit after it was last seen up', async (t) => {
  const loop = await withNotReadyMember();
  await syncs(loop, 100, 200, (i) => i % 2 === 1);
  // Last seen up now, then down for good.
  await syncs(loop, 1, 200, () => true);
  const up = loop.now.getTime();
  await syncs(loop, 1, 200, () => false);
  while (loop.now.getTime() < up + (UNHEALTHY_REPLACE_SECONDS + REPORT_HOLD_SECONDS) * 1000 + 2000) {
    await syncs(loop, 1, 1000, () => false);
    if (removals(loop).length) break;
  }
  const at = loop.now.getTime();
  t.same(removals(loop), ['remove 3'], 'replaced');
  t.ok(at > up + UNHEALTHY_REPLACE_SECONDS * 1000, 'never sooner than the limit after it was last seen up');
});

t.test('a member that did not flap is timed from the first sync that sees it down, within a hold', async (t) => {
  const loop = await withNotReadyMember();
  // e-1 (its pod Ready) misses one answer: a change of what members say, reported, the hold begins.
  loop.etcd.up.delete('e-1');
  loop.now = new Date(loop.now.getTime() + 1000);
  await loop.step();
  loop.etcd.up.add('e-1');
  // 2 s later, within the hold: e-2 goes down.
  loop.etcd.up.delete('e-2');
  loop.now = new Date(loop.now.getTime() + 2000);
  await loop.step();
  const e2 = loop.s().memberList.find((m: any) => m.name === 'e-2');
  t.equal(e2.unhealthySince, loop.now.toISOString().replace(/\.\d+Z$/, 'Z'), 'its clock starts at once');
  t.equal(e2.seenUpAt, undefined);
});

t.test('a flapping member records when it was seen up; a start within 15 s of that is held', async (t) => {
  const loop = await withNotReadyMember();
  await syncs(loop, 1, 200, () => false);
  t.type(loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince, 'string', 'down: timed');
  await syncs(loop, 1, 200, () => true);
  const up = loop.s().memberList.find((m: any) => m.name === 'e-2');
  t.equal(up.unhealthySince, undefined, 'up: the clock dropped, written at once');
  t.equal(up.seenUpAt, loop.now.toISOString().replace(/\.\d+Z$/, 'Z'));
  t.equal(await syncs(loop, 1, 200, () => false), 0, 'down again 200 ms later: nothing written');
  t.ok(loop.last.resyncAfterSeconds! <= REPORT_HOLD_SECONDS, 'asked again when the hold ends');
  loop.now = new Date(Date.parse(up.seenUpAt) + REPORT_HOLD_SECONDS * 1000);
  await syncs(loop, 1, 1000, () => false);
  t.equal(
    loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince,
    loop.now.toISOString().replace(/\.\d+Z$/, 'Z'),
    'after the hold: timed from that sync',
  );
});
