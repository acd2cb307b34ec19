// An upgrade of three members: the first member upgraded in place serves the new version without a break, sync after
// sync, for ten minutes. Its node's clock runs an hour ahead of the hook's (a node whose clock is off: the kubelet
// stamps state.running.startedAt with its own clock). A clock recorded ahead of now is read as now
// (docs/etcdcluster.md): the soak is not put off until the wall clock catches up with the node's, the rollout goes on.
import t from 'tap';
import { images, running, servingSince, untilSecondMoved, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';

t.test(
  'a member moved in place that serves steadily on a node whose clock runs ahead: the rollout goes on',
  async (t) => {
    const loop = await running({ size: 3 });
    const up = await upgradeFirst(loop);
    const first = up.moved!;
    t.ok(first, `a member is upgraded in place: ${first}`);
    // Its etcd started (by the node's clock, an hour ahead) as the upgrade moved it, and runs without a break.
    loop.podStatus.set(first, servingSince(ON, FIXED_NOW.getTime() + up.i * 60_000 + 3600_000));
    await untilSecondMoved(loop, up.i);
    t.notOk(loop.s().upgradeFailed, 'no failed upgrade');
    t.equal(
      Object.values(images(loop)).filter((x) => x === ON).length,
      2,
      'a second member is upgraded once the first served steadily (ten minutes of syncs saw it serve)',
    );
  },
);
