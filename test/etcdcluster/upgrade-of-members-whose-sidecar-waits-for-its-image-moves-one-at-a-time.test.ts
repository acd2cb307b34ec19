// A mutating webhook adds a sidecar to every member pod (Vault's agent, a log shipper, Istio's proxy) whose own image
// the registry refuses for a while (Docker Hub's rate limit: toomanyrequests, while its pull policy is Always). The
// member's etcd container runs and serves: the sidecar's ImagePullBackOff says nothing of the etcd version the member
// runs, or is being moved to. An upgrade should read the member by its etcd container (as docs/etcdcluster.md says
// the hook does) and move one member at a time, each soaked (the second only once the first served 5 minutes): a
// member is not "stuck on its image" (moved to the target at once, unsoaked) because its sidecar waits for one.
// Each answer is fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { FIXED_NOW } from '../fixtures/requests.js';
import {
  images,
  type Loop,
  onNewVersion,
  running,
  upgradeFirst,
  versionsFromImages,
  injectIntoMembers,
} from '../fixtures/etcd-loop.js';

const AGENT = { name: 'vault-agent', image: 'docker.io/hashicorp/vault:latest', args: ['agent'] };

/** A member whose etcd container runs its spec's image and whose sidecar waits for its own image. */
function sidecarPullRefused(loop: Loop, pod: string): void {
  const etcd = (loop.children.find((c) => c.metadata.name === pod) as any).spec.containers.find(
    (c: any) => c.name === 'etcd',
  );
  loop.podStatus.set(pod, {
    containerStatuses: [
      { name: 'etcd', image: etcd.image, restartCount: 0, ready: true, state: { running: {} } },
      {
        name: AGENT.name,
        image: AGENT.image,
        restartCount: 0,
        ready: false,
        state: {
          waiting: { reason: 'ImagePullBackOff', message: 'toomanyrequests: You have reached your pull rate limit' },
        },
      },
    ],
  });
}

t.test('an upgrade of members whose injected sidecar waits for its image moves one member at a time', async (t) => {
  const loop = await running({ size: 3 });
  injectIntoMembers(loop, { last: [AGENT] });
  await loop.step();
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  const moved: number[] = [];
  // The soak is 5 minutes (UPGRADE_SOAK_SECONDS): within 4, no second member is moved.
  for (let i = 0; i < 4; i++) {
    for (const p of loop.pods()) sidecarPullRefused(loop, p);
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
    moved.push(onNewVersion(loop));
  }
  t.comment(`members on 3.5.1 after each sync: ${moved.join(', ')}; ${JSON.stringify(images(loop))}`);
  t.ok(
    moved.every((n) => n <= 1),
    `never more than one member moved before the first soaked (members on 3.5.1 after each sync: ${moved.join(', ')})`,
  );
});

t.test(
  'a member moved to the new version whose injected sidecar then waits for its image fails no upgrade',
  async (t) => {
    const loop = await running({ size: 3 });
    injectIntoMembers(loop, { last: [AGENT] });
    await loop.step();
    const up = await upgradeFirst(loop);
    t.ok(up.moved, `a member is moved: ${up.moved}`);
    let i = up.i;
    for (let k = 0; k < 25; k++, i++) {
      sidecarPullRefused(loop, up.moved!);
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
      if (loop.s().upgradeFailed) break;
    }
    const upgrading = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
    t.notOk(loop.s().upgradeFailed, `no failed upgrade (Upgrading ${JSON.stringify(upgrading)})`);
    t.same(
      Object.values(images(loop)),
      ['quay.io/coreos/etcd:v3.5.1', 'quay.io/coreos/etcd:v3.5.1', 'quay.io/coreos/etcd:v3.5.1'],
      'every member runs 3.5.1',
    );
  },
);
