// Issue 30.1: a member is replaced (removed, its claim with it) only when it "stays unhealthy past the stated limit"
// (UNHEALTHY_REPLACE_SECONDS). With storage, a member whose pod is gone is not replaced: its pod is made again on its
// claim, the same member on its data. That new pod needs time of its own to start (a volume detached from a lost
// node and attached to another takes minutes, an image is pulled on the new node). Its clock must be its own: the
// minutes the lost pod spent unreachable before it went are no evidence against the pod made again, which has
// not had the time the limit gives. Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { UNHEALTHY_REPLACE_SECONDS } from '../../hooks/etcdcluster/plan.js';
import { PVC, running } from '../fixtures/etcd-loop.js';

const STARTING = {
  containerStatuses: [
    { name: 'etcd', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
  ],
};

t.test('a member pod made again on its claim is not removed for the time its lost pod was down', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  const start = loop.now.getTime();
  const since = (s: number) => new Date(start + s * 1000);
  // Its node goes dark: e-2 stops answering, its pod stays (Running on a node that no longer reports).
  loop.etcd.up.delete('e-2');
  loop.now = since(0);
  await loop.step();
  t.ok(
    loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince,
    'the time e-2 was first seen down is recorded',
  );
  // Five minutes later the pod is evicted and gone; its claim stays.
  loop.now = since(300);
  loop.lose('e-2');
  await loop.step();
  t.same(loop.etcd.calls, [], 'no membership change: the pod is made again on its claim');
  t.ok(loop.pods().includes('e-2'), 'the pod e-2 is made again');
  t.ok(loop.claims().includes('e-2'), 'on its claim');
  // The pod made again waits for its volume to be attached on another node.
  loop.podStatus.set('e-2', STARTING);
  loop.phase.set('e-2', 'Pending');
  for (const s of [360, 480, 600, 660, 720]) {
    loop.now = since(s);
    const res = await loop.step();
    const recovering = (res.status as any).conditions.find((c: any) => c.type === 'Recovering');
    t.notMatch(recovering, { reason: 'ReplacingUnhealthyMember' }, `${s - 300}s after it was made: not replaced`);
  }
  // Seven minutes after it was made, short of the limit for it: still the member, on its data.
  t.ok(UNHEALTHY_REPLACE_SECONDS > 720 - 300, 'the pod made again has been starting for less than the limit');
  t.same(loop.etcd.calls, [], 'the member is not removed');
  t.ok(loop.claims().includes('e-2'), 'its claim (its data) is kept');
  t.ok(loop.pods().includes('e-2'), 'its pod is kept');
});
