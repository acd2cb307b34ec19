// Issue 30 (an upgrade that fails stops; "the same kind": containers that restart, a dependency that half-works)
// applied to a scale-up. A member added by a scale-up whose etcd keeps exiting (its memory limit too low to take the
// leader's snapshot as it catches up, a spec.pod.etcdEnv flag only new pods get, a node it cannot run on) is
// cancelled at its first CrashLoopBackOff, and the next sync adds another member with the same spec, which crashes
// the same way: add, cancel, add, cancel, without end or back-off. Issue 30.4 calls this loop an outage pattern
// for upgrades ("a replacement ... is added, crashes, is cancelled, again and again") and it was stopped there (1
// add); for a scale-up it runs every few seconds: hundreds of membership changes an hour in etcd's raft log, as
// many pods created and deleted, ordinals and events without bound, and status saying only "ScalingUp".
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts); the kubelet of the test starts a new
// member's etcd, which exits after 10 s and is then in CrashLoopBackOff.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { OOM_KILLED as CRASHING, running, STARTING } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

t.test('a scale-up whose new member keeps crashing is not added and cancelled again and again', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, size: 4 };
  const born = new Map<string, number>();
  const hour = 3600;
  for (let s = 0; s <= hour; s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    for (const p of loop.pods()) {
      if (['e-0', 'e-1', 'e-2'].includes(p)) continue;
      if (!born.has(p)) born.set(p, s);
      loop.etcd.up.delete(p);
      loop.podStatus.set(p, s - born.get(p)! < 10 ? STARTING : CRASHING);
    }
    await loop.step();
  }
  const adds = loop.etcd.calls.filter((c) => c.startsWith('add ')).length;
  t.ok(adds <= 6, `members added in an hour: ${adds} (at most a few attempts, with a back-off)`);
  t.ok(loop.s().lastMemberIndex <= 8, `ordinals given out: up to ${loop.s().lastMemberIndex}`);
  t.not(condition(loop.last, 'Scaling')?.reason, 'ScalingUp', 'status says the scale-up keeps failing');
});
