// Issue 30.1: members restart in place. A member pod runs with restartPolicy Always: when its etcd exits, the kubelet
// restarts it on its data (an emptyDir outlives its container), and the hook changes nothing; a member is replaced
// (remove + add) only when its pod is gone or finished, or when it stays unhealthy past UNHEALTHY_REPLACE_SECONDS.
// Each answer fed back as the next observed state; on real etcd: test/real/etcd-restarts-real.test.ts.
import t from 'tap';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import { UNHEALTHY_REPLACE_SECONDS } from '../../hooks/etcdcluster/plan.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { FakeEtcd, Loop, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);
const CRASHING = {
  containerStatuses: [
    {
      name: 'etcd',
      restartCount: 3,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { exitCode: 137 } },
    },
  ],
};
const ids = (loop: Loop) => loop.s().memberList.map((m: any) => `${m.name}=${m.id}`);

for (const crashed of [
  ['e-1', 'e-2'],
  ['e-0', 'e-1', 'e-2'],
]) {
  t.test(
    `${crashed.length} of 3 members crash at once: no change while they restart, quorum back by itself`,
    async (t) => {
      const loop = await running({ size: 3 });
      const members = ids(loop);
      t.equal(
        (loop.children.find((c) => c.kind === 'Pod') as any).spec.restartPolicy,
        'Always',
        'the kubelet restarts a member whose etcd exits',
      );
      for (const p of crashed) {
        loop.etcd.up.delete(p);
        loop.podStatus.set(p, CRASHING);
      }
      if (crashed.length === 3) loop.etcd.listError = new EtcdError('no etcd endpoint answered', 'Unreachable');
      for (let i = 0; i < 4; i++) {
        loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
        const res = await loop.step();
        t.match(condition(res, 'Available'), { status: 'False', reason: 'QuorumLost' }, `sync ${i + 1}: quorum lost`);
        t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: every pod kept as it is`);
        t.same(loop.etcd.calls, [], `sync ${i + 1}: no membership change`);
      }
      t.same(ids(loop), members, 'the members remembered');
      // The kubelet restarted them on their data.
      for (const p of crashed) {
        loop.etcd.up.add(p);
        loop.podStatus.delete(p);
      }
      delete loop.etcd.listError;
      const res = await loop.step();
      t.match(condition(res, 'Available'), { status: 'True', reason: 'QuorumAvailable' });
      t.same(ids(loop), members, 'the same members, the same IDs');
      t.same(loop.etcd.calls, []);
      t.equal(res.resyncAfterSeconds, undefined, 'at rest');
    },
  );
}

t.test('a member whose etcd keeps exiting is replaced after the stated limit, never before', async (t) => {
  const loop = await running({ size: 3 });
  loop.etcd.up.delete('e-2');
  loop.podStatus.set('e-2', CRASHING);
  const first = await loop.step();
  t.match(condition(first, 'Available'), { reason: 'Degraded', message: /down: e-2\): one more failure loses quorum/ });
  const since = loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince;
  t.ok(since, 'the time it was first seen down is recorded');
  loop.now = new Date(Date.parse(since) + UNHEALTHY_REPLACE_SECONDS * 1000);
  await loop.step();
  t.same(loop.etcd.calls, [], 'not at the limit');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  loop.now = new Date(Date.parse(since) + UNHEALTHY_REPLACE_SECONDS * 1000 + 1000);
  const res = await loop.step();
  t.same(loop.etcd.calls, ['remove 3'], 'past it: removed, a new member will replace it');
  t.match(condition(res, 'Recovering'), { reason: 'ReplacingUnhealthyMember' });
});

t.test('a pod that finished (restartPolicy Never, evicted) is gone: its member replaced at once', async (t) => {
  const loop = await running({ size: 3 });
  loop.etcd.up.delete('e-2');
  loop.phase.set('e-2', 'Failed');
  await loop.step();
  t.same(loop.etcd.calls, ['remove 3']);
  t.match(condition(loop.last, 'Recovering'), { reason: 'ReplacingDeadMember' });
});

t.test('a bootstrap member or a new member whose etcd keeps exiting counts as failed', async (t) => {
  const boot = new Loop({ size: 3 }, new FakeEtcd());
  await boot.step();
  await boot.step();
  t.same(boot.pods(), ['e-0', 'e-1', 'e-2']);
  boot.podStatus.set('e-1', CRASHING);
  await boot.step();
  await boot.step();
  t.same(boot.pods(), ['e-3', 'e-4', 'e-5'], 'the bootstrap starts over (nothing was stored yet)');

  const grow = await running({ size: 3 });
  grow.spec = { ...grow.spec, size: 4 };
  await grow.step();
  t.same(grow.etcd.calls, ['add e-3']);
  grow.podStatus.set('e-3', CRASHING);
  await grow.step();
  t.same(grow.etcd.calls, ['add e-3'], 'one sync seeing it exited cancels nothing (a kill is restarted in place)');
  grow.now = new Date(grow.now.getTime() + 20_000);
  await grow.step();
  t.same(grow.etcd.calls, ['add e-3', 'remove 100'], 'exited for 20 s: its addition is cancelled, to be tried again');
});
