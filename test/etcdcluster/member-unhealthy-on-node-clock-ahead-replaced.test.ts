// Issue 30.1: remove + replace "for pods that are gone or stay unhealthy past the stated limit"
// (UNHEALTHY_REPLACE_SECONDS). The member's unhealthy clock never starts before what its observed pod shows (when its
// Ready condition last turned False: member-clock-stale-status.test.ts). That time is stamped by the kubelet with its
// node's clock. Here the member's node runs a day ahead (a node whose clock is off): its pod turned not Ready "a day
// from now", and each sync reads the clock as starting now. The member never answers again (a disk that cannot be
// read); the others serve. It is replaced past the limit by the hook's clock, not a day later.
import t from 'tap';
import { UNHEALTHY_REPLACE_SECONDS } from '../../hooks/etcdcluster/plan.js';
import { running } from '../fixtures/etcd-loop.js';

const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

for (const [clock, ahead] of [
  ['right', 0],
  ['a day ahead', 86_400_000],
] as const) {
  t.test(`a member unhealthy on a node whose clock is ${clock} is replaced past the limit`, async (t) => {
    const loop = await running({ size: 3 });
    const start = loop.now.getTime();
    const id = loop.etcd.members.find((m) => m.name === 'e-2')!.id;
    loop.etcd.up.delete('e-2');
    loop.podStatus.set('e-2', {
      conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: stamp(start + ahead) }],
    });
    // Syncs a minute apart for twice the limit.
    for (let s = 0; s <= 2 * UNHEALTHY_REPLACE_SECONDS && !loop.etcd.calls.length; s += 60) {
      loop.now = new Date(start + s * 1000);
      await loop.step();
    }
    t.comment(`calls ${loop.etcd.calls.join(' ') || 'none'}`);
    t.ok(loop.etcd.calls.includes(`remove ${id}`), 'replaced within twice the limit of its going unhealthy');
  });
}
