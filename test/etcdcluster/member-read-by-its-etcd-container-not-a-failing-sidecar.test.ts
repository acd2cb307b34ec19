// A member is judged by its etcd container, found by name (hooks/etcdcluster/pods.ts etcdWaiting, crashLooping,
// etcdNotRunning): a container a mutating webhook added to its pod (a mesh proxy, Vault's agent, a log shipper), before
// or after etcd, that waits for its image or keeps exiting says nothing of the member's etcd, and never makes it
// count as stuck on its image, failing, crash-looping or gone. And a member pod its node's kubelet rejected at
// admission (a node restart: OutOfcpu, UnexpectedAdmissionError, NodeAffinity; phase Failed with that reason) was
// ended by its node, not by its version: no upgrade fails for it, as for an eviction. Each answer is fed back as the
// next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { etcdWaiting } from '../../hooks/etcdcluster/pods.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { images, running, injectIntoMembers, firstMoved } from '../fixtures/etcd-loop.js';

const SIDECAR = { name: 'log-shipper', image: 'registry.example/shipper:1.0' };

/** A pod status whose sidecar (listed first) is in `state` while etcd runs `image`. */
const sidecarState = (image: string, state: Record<string, unknown>) => ({
  containerStatuses: [
    { name: SIDECAR.name, image: SIDECAR.image, restartCount: 7, ready: false, state },
    { name: 'etcd', image, restartCount: 0, ready: true, state: { running: {} } },
  ],
});

t.test("etcdWaiting reads the etcd container by its name, never another's wait", async (t) => {
  const pod = (status: unknown): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status });
  t.equal(etcdWaiting(pod(sidecarState('e:v1', { waiting: { reason: 'ImagePullBackOff' } }))), undefined);
  t.equal(
    etcdWaiting(
      pod({
        containerStatuses: [
          { name: SIDECAR.name, state: { waiting: { reason: 'CrashLoopBackOff' } } },
          { name: 'etcd', state: { waiting: { reason: 'ErrImagePull' } } },
        ],
      }),
    ),
    'ErrImagePull',
  );
  t.equal(
    etcdWaiting(pod({ containerStatuses: [null, { name: 'etcd', state: { waiting: { reason: 'A\nB' } } }] })),
    'A B',
  );
  t.equal(etcdWaiting(pod({ containerStatuses: 'x' })), undefined);
  t.equal(etcdWaiting(undefined), undefined);
});

for (const [what, state] of [
  ['keeps exiting (CrashLoopBackOff)', { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s' } }],
  ['waits for its image (ImagePullBackOff)', { waiting: { reason: 'ImagePullBackOff' } }],
  ['has exited', { terminated: { exitCode: 1, reason: 'Error' } }],
] as const)
  t.test(`members whose injected sidecar ${what} are kept, quiet, for 15 minutes`, async (t) => {
    const loop = await running({ size: 3 });
    injectIntoMembers(loop, { first: [SIDECAR] });
    await loop.step();
    const before = JSON.stringify(loop.children);
    for (let i = 0; i < 15; i++) {
      for (const p of loop.pods()) loop.podStatus.set(p, sidecarState('quay.io/coreos/etcd:v3.5.0', state));
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
    }
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'no member removed or replaced');
    t.equal(JSON.stringify(loop.children), before, 'the same answer as at rest');
    const available = loop.s().conditions.find((c: any) => c.type === 'Available');
    t.match(available, { status: 'True' }, `Available: ${JSON.stringify(available)}`);
    t.same(Object.values(images(loop)), Array(3).fill('quay.io/coreos/etcd:v3.5.0'), 'no image changed');
  });

for (const reason of ['OutOfcpu', 'UnexpectedAdmissionError', 'NodeAffinity'])
  t.test(`an upgraded member whose pod its node rejected at admission (${reason}) fails no upgrade`, async (t) => {
    const { loop, moved } = await firstMoved();
    t.ok(moved, `a member is upgraded in place: ${moved}`);
    // Its node restarts and its kubelet refuses the pod as it admits it again: Failed, no container ran.
    loop.etcd.up.delete(moved!);
    loop.phase.set(moved!, 'Failed');
    loop.podStatus.set(moved!, { reason, message: `Pod was rejected: ${reason}` });
    loop.now = new Date(FIXED_NOW.getTime() + 10 * 60_000);
    await loop.step();
    const upgrading = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
    t.notMatch(
      upgrading ?? {},
      { reason: 'UpgradeFailed' },
      `the version is not blamed (${JSON.stringify(upgrading)})`,
    );
    t.notOk(loop.s().upgradeFailed, 'no failed upgrade recorded');
  });
