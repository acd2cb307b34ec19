// An upgrade of three members to a version whose etcd exits a few seconds after it starts serving (a panic on its
// first compaction, on a request its clients send). The first member upgraded in place serves; its etcd exits and
// the kubelet restarts it at once (the first restart has no back-off), between two syncs: no sync sees it down, and
// the kubelet says it restarted (restartCount 1, lastState terminated, a new state.running.startedAt). The soak must
// not take it for a member that has served steadily for 20 seconds: its etcd started again moments ago. Its node's
// clock runs an hour ahead of the hook's, or an hour behind (the kubelet stamps startedAt with its own clock): the
// restart is as real as on a node whose clock is right, and no second member is moved on its strength.
import t from 'tap';
import { images, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';
const PANIC = { terminated: { exitCode: 2, reason: 'Error' } };
const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

async function restartedBetweenSyncs(t: any, offsetMs: number): Promise<void> {
  const loop = await running({ size: 3 });
  const up = await upgradeFirst(loop);
  const first = up.moved!;
  t.ok(first, `a member is upgraded in place: ${first}`);
  const start = FIXED_NOW.getTime() + up.i * 60_000;
  const status = (restarts: number, startedAt: number) => ({
    containerStatuses: [
      {
        name: 'etcd',
        image: ON,
        restartCount: restarts,
        state: { running: { startedAt: stamp(startedAt + offsetMs) } },
        ...(restarts ? { lastState: PANIC } : {}),
      },
    ],
  });
  // It serves from `start`, seen by syncs 5 seconds apart.
  loop.podStatus.set(first, status(0, start));
  for (let s = 0; s <= 10; s += 5) {
    loop.now = new Date(start + s * 1000);
    await loop.step();
  }
  // Its etcd exits at 12 s and is restarted at once (12.5 s); the syncs at 15, 20 and 25 s see it serve again.
  loop.podStatus.set(first, status(1, start + 12_500));
  for (let s = 15; s <= 25; s += 5) {
    loop.now = new Date(start + s * 1000);
    await loop.step();
    t.equal(
      Object.values(images(loop)).filter((x) => x === ON).length,
      1,
      `at ${s} s (its etcd restarted ${s - 12.5} s ago): no second member moved`,
    );
  }
}

t.test('a node whose clock is right', (t) => restartedBetweenSyncs(t, 0));
t.test('a node whose clock runs an hour ahead', (t) => restartedBetweenSyncs(t, 3600_000));
t.test('a node whose clock runs an hour behind', (t) => restartedBetweenSyncs(t, -3600_000));
