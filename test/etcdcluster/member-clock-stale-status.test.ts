// A member is replaced only when it "stays unhealthy past the stated limit" (issue 30.1). The clock is recorded in
// the status, and Metacontroller may send a status older than the last one answered (its informer's copy lags the
// write): an unhealthySince from before the member's pod was made again, or from before it was Ready again. What
// the observed pod itself says (when it was made, when its Ready condition last turned False) is newer evidence
// than that status: the clock never starts before it. Each answer fed back as the next observed state
// (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { UNHEALTHY_REPLACE_SECONDS } from '../../hooks/etcdcluster/plan.js';
import { running } from '../fixtures/etcd-loop.js';

const recovering = (res: any) => (res.status as any).conditions.find((c: any) => c.type === 'Recovering');

t.test('a stale status from before the pod was made again does not count the old pod against it', async (t) => {
  const loop = await running({ size: 3 });
  const start = loop.now.getTime();
  const at = (s: number) => new Date(start + s * 1000);
  loop.etcd.up.delete('e-2');
  loop.now = at(0);
  await loop.step();
  const stale = structuredClone(loop.s());
  t.ok(stale.memberList.find((m: any) => m.name === 'e-2').unhealthySince, 'e-2 seen down at T0');
  // The pod e-2 observed now was made at T0+500 (made again since), and still does not answer.
  const pod = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-2')!;
  pod.metadata.creationTimestamp = at(500)
    .toISOString()
    .replace(/\.\d+Z$/, 'Z');
  // Metacontroller sends the status of T0 again.
  loop.status = stale;
  loop.now = at(UNHEALTHY_REPLACE_SECONDS + 100);
  const res = await loop.step();
  t.notMatch(recovering(res), { reason: 'ReplacingUnhealthyMember' }, 'not replaced: its pod is 200 s old');
  t.same(loop.etcd.calls, [], 'no membership change');
  t.equal(
    loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince,
    at(500)
      .toISOString()
      .replace(/\.\d+Z$/, 'Z'),
    'its clock starts when its pod was made',
  );
  // Past the limit for the pod it has: replaced.
  loop.now = at(500 + UNHEALTHY_REPLACE_SECONDS + 1);
  const later = await loop.step();
  t.match(recovering(later), { reason: 'ReplacingUnhealthyMember' }, 'replaced once its own pod is past the limit');
});

t.test('a stale status from before the member was Ready again does not count the time it served', async (t) => {
  const loop = await running({ size: 3 });
  const start = loop.now.getTime();
  const at = (s: number) => new Date(start + s * 1000);
  const stamp = (s: number) =>
    at(s)
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
  loop.etcd.up.delete('e-2');
  loop.now = at(0);
  await loop.step();
  const stale = structuredClone(loop.s());
  // e-2 recovered (Ready again), then stopped answering again at T0+400: its pod's Ready condition says so.
  loop.podStatus.set('e-2', {
    conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: stamp(400) }],
  });
  loop.status = stale;
  loop.now = at(UNHEALTHY_REPLACE_SECONDS + 100);
  const res = await loop.step();
  t.notMatch(recovering(res), { reason: 'ReplacingUnhealthyMember' }, 'not replaced: down for 300 s only');
  t.same(loop.etcd.calls, [], 'no membership change');
  t.equal(loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince, stamp(400), 'clock from T0+400');
  loop.now = at(400 + UNHEALTHY_REPLACE_SECONDS + 1);
  const later = await loop.step();
  t.match(recovering(later), { reason: 'ReplacingUnhealthyMember' }, 'replaced once down past the limit');
});

t.test('a member first seen down gets its clock now, however old its pod', async (t) => {
  const loop = await running({ size: 3 });
  const start = loop.now.getTime();
  const at = (s: number) => new Date(start + s * 1000);
  const pod = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-2')!;
  pod.metadata.creationTimestamp = new Date(start - 86_400_000).toISOString();
  loop.etcd.up.delete('e-2');
  loop.now = at(0);
  await loop.step();
  t.equal(
    loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince,
    at(0)
      .toISOString()
      .replace(/\.\d+Z$/, 'Z'),
    'first seen now',
  );
});
