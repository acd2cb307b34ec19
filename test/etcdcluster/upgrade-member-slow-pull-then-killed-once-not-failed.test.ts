// A cluster of 1, 2, 3 or 5 upgraded: the member's new image takes 30 s to pull (a large image, a slow
// registry), then its etcd is killed once as it starts (an OOM kill during its WAL replay), seen by one sync in the
// kubelet's back-off, and then serves the new version. One kill is no failed version, however long the pull took
// before it: the upgrade goes on (docs/etcdcluster.md "What fails at once, what waits").
import t from 'tap';
import { images, OOM_KILLED, running, upgradeFirst } from '../fixtures/etcd-loop.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';
const PULLING = {
  phase: 'Pending',
  containerStatuses: [{ name: 'etcd', restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }],
};

// Once: its etcd killed as it starts (OOM), or the pull itself refused at its end (a registry's rate limit, a reset).
const ONCE: Record<string, Record<string, unknown>> = {
  'killed once': { containerStatuses: [{ ...OOM_KILLED.containerStatuses[0], image: ON }] },
  'its pull refused once': {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'etcd',
        restartCount: 0,
        state: { waiting: { reason: 'ErrImagePull', message: '429 Too Many Requests' } },
      },
    ],
  },
};

for (const [how, once] of Object.entries(ONCE))
  for (const size of [1, 2, 3, 5])
    t.test(`a cluster of ${size}: the upgraded member pulled slowly, then ${how}, does not fail`, async (t) => {
      const loop = await running({ size });
      const up = await upgradeFirst(loop);
      const moved = up.moved!;
      t.ok(moved, `a member is upgraded in place: ${moved}`);
      const at = loop.now.getTime();
      const step = async (seconds: number) => {
        loop.now = new Date(at + seconds * 1000);
        await loop.step();
      };
      // Its image is pulled for 30 s: in a cluster of 1 or 2 quorum is lost meanwhile.
      loop.etcd.up.delete(moved);
      loop.podStatus.set(moved, PULLING);
      for (const s of [5, 15, 25]) await step(s);
      t.notOk(loop.s().upgradeFailed, 'no failure while the image is pulled');
      // Its etcd starts on 3.5.1 and is killed once: one sync sees it in the kubelet's first back-off.
      loop.podStatus.set(moved, once);
      await step(35);
      t.notOk(loop.s().upgradeFailed, `${how}, seen once, fails no upgrade`);
      // It is back and serves 3.5.1.
      loop.etcd.up.add(moved);
      loop.podStatus.set(moved, {
        containerStatuses: [
          {
            name: 'etcd',
            image: ON,
            restartCount: 1,
            state: { running: {} },
            lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
          },
        ],
      });
      for (let k = 1; k <= 40; k++) await step(35 + k * 60);
      const upgrading = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
      t.comment(`images ${JSON.stringify(images(loop))}; Upgrading ${JSON.stringify(upgrading)}`);
      t.notOk(loop.s().upgradeFailed, `no failed upgrade recorded: ${how}`);
      t.same(Object.values(images(loop)), Array(size).fill(ON), 'the upgrade went on: every member runs 3.5.1');
    });
