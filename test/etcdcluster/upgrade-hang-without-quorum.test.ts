// upgrade.ts: "a member that fails on the new version (its etcd keeps exiting, its image
// cannot be pulled, or it stays unhealthy past UPGRADE_MEMBER_SECONDS) marks the upgrade failed". In a cluster of
// one or two members, the member being upgraded is needed for quorum: while it is down quorum is lost, plan.ts
// stops every member's unhealthy clock, and an etcd that starts on the new version but never serves (it hangs
// on its data dir, waits on a peer it cannot reach; no exit, so no CrashLoopBackOff) is never taken as a failed
// upgrade: the cluster is down for good with Upgrading=True. Each answer fed back as the next observed state.
import t from 'tap';
import { images, running, versionsFromImages, type Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (loop: Loop, type: string) => loop.s().conditions.find((c: any) => c.type === type);

for (const size of [1, 2])
  t.test(`size ${size}: a member that never serves on the new version halts the upgrade`, async (t) => {
    const loop = await running({ size });
    versionsFromImages(loop);
    loop.spec = { ...loop.spec, version: '3.5.1' };
    let hung: string | undefined;
    for (let i = 0; i < 60; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
      if (!hung) {
        hung = Object.entries(images(loop)).find(([, img]) => img.endsWith(':v3.5.1'))?.[0];
        if (hung) {
          // Its etcd runs (the container is Running) and never answers.
          loop.etcd.up.delete(hung);
          loop.etcd.listError = new Error('etcdserver: request timed out');
        }
      }
    }
    t.ok(hung, `a member was upgraded: ${hung}`);
    t.comment(`${loop.s().phase}/${loop.s().reason}: ${condition(loop, 'Available')?.message}`);
    t.match(
      condition(loop, 'Upgrading'),
      { status: 'False', reason: 'UpgradeFailed' },
      `after an hour: ${JSON.stringify(condition(loop, 'Upgrading'))}`,
    );
    t.equal(images(loop)[hung!], 'quay.io/coreos/etcd:v3.5.0', 'the member runs the version it ran, in place');
  });
