// An upgrade of three members: the first member upgraded in place serves the new version without a break, sync after
// sync, for ten minutes. Its node's clock runs an hour behind the hook's (a node whose clock is off: the kubelet
// stamps state.running.startedAt with its own clock), and its container runtime reports the image it runs by its
// digest, not by the tag the pod names (as runtimes do for an image pulled under several tags). The member serves
// the target version: its upgrade is done and the rollout goes on, whatever the node's clock says.
import t from 'tap';
import { images, running, servingSince, untilSecondMoved, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';
const DIGEST = 'sha256:6f1b9b0c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c';

t.test(
  'a member moved in place that serves steadily on a node whose clock runs behind: the rollout goes on',
  async (t) => {
    const loop = await running({ size: 3 });
    const up = await upgradeFirst(loop);
    const first = up.moved!;
    t.ok(first, `a member is upgraded in place: ${first}`);
    // Its etcd started (by the node's clock, an hour behind) as the upgrade moved it, and runs without a break.
    loop.podStatus.set(first, servingSince(DIGEST, FIXED_NOW.getTime() + up.i * 60_000 - 3600_000));
    await untilSecondMoved(loop, up.i);
    t.comment(JSON.stringify((loop.s().conditions as any[]).find((c) => c.type === 'Upgrading')));
    t.notOk(loop.s().upgradeFailed, 'no failed upgrade');
    t.equal(
      Object.values(images(loop)).filter((x) => x === ON).length,
      2,
      'a second member is upgraded once the first served steadily (ten minutes of syncs saw it serve 3.5.1)',
    );
  },
);

t.test('the same on a node whose clock is right: the rollout goes on', async (t) => {
  const loop = await running({ size: 3 });
  const up = await upgradeFirst(loop);
  const first = up.moved!;
  loop.podStatus.set(first, servingSince(DIGEST, FIXED_NOW.getTime() + up.i * 60_000));
  await untilSecondMoved(loop, up.i);
  t.equal(Object.values(images(loop)).filter((x) => x === ON).length, 2, 'a second member is upgraded');
});
