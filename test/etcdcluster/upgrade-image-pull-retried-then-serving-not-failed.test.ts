// Issue 30.4: "a member that fails on the target version marks the upgrade failed". A registry that refuses one pull
// (Docker Hub's rate limit: toomanyrequests; a registry restarting) makes the kubelet report ErrImagePull for the
// member upgraded in place; it pulls again after a back-off and the member serves the target version. One refused
// pull is no image that cannot be had (docs/etcdcluster.md: "its image cannot be pulled"): the upgrade should go on
// rather than be halted until spec.version is edited away and back. Each answer fed back as the next observed state.
import t from 'tap';
import { images, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('an upgraded member whose image pull is refused once, then pulled, does not fail the upgrade', async (t) => {
  const loop = await running({ size: 3 });
  const up = await upgradeFirst(loop);
  const moved = up.moved;
  let i = up.i;
  t.ok(moved, `a member is upgraded in place: ${moved}`);
  // The first pull is refused (429), seen by one sync; the kubelet's next pull succeeds and the member serves 3.5.1.
  loop.etcd.up.delete(moved!);
  loop.podStatus.set(moved!, {
    containerStatuses: [
      {
        name: 'etcd',
        restartCount: 0,
        state: {
          waiting: {
            reason: 'ErrImagePull',
            message: 'failed to pull image "quay.io/coreos/etcd:v3.5.1": 429 Too Many Requests - toomanyrequests',
          },
        },
      },
    ],
  });
  loop.now = new Date(FIXED_NOW.getTime() + i * 60_000 + 5_000);
  await loop.step();
  loop.etcd.up.add(moved!);
  // (The kubelet reports the image the container runs.)
  const pulled = { name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.1', restartCount: 0, state: { running: {} } };
  loop.podStatus.set(moved!, { containerStatuses: [pulled] });
  for (let k = 0; k < 25; k++, i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
    await loop.step();
  }
  const upgrading = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
  t.comment(`images ${JSON.stringify(images(loop))}; Upgrading ${JSON.stringify(upgrading)}`);
  t.notOk(loop.s().upgradeFailed, 'no failed upgrade recorded for one refused pull');
  t.same(
    Object.values(images(loop)),
    ['quay.io/coreos/etcd:v3.5.1', 'quay.io/coreos/etcd:v3.5.1', 'quay.io/coreos/etcd:v3.5.1'],
    'the upgrade went on: every member runs 3.5.1',
  );
});
