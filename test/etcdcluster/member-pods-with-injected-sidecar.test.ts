// A mutating admission webhook may add containers to every member pod as it is made (Istio's sidecar put before the
// pod's own with holdApplicationUntilProxyStarts, and its istio-init first among the init containers). The hook reads
// a member's etcd container by its name, never by its place: at rest such members are answered as they are (none
// replaced), and an upgrade moves each member's etcd container to the new image, never the sidecar's, and finishes.
// Each answer is fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { FIXED_NOW } from '../fixtures/requests.js';
import { type Loop, running, injectIntoMembers } from '../fixtures/etcd-loop.js';

const PROXY = { name: 'istio-proxy', image: 'docker.io/istio/proxyv2:1.24.2', args: ['proxy', 'sidecar'] };
const INIT = { name: 'istio-init', image: 'docker.io/istio/proxyv2:1.24.2', args: ['istio-iptables'] };

/** Each member pod's containers as answered: name=image. */
const containers = (loop: Loop) =>
  Object.fromEntries(
    loop.children
      .filter((c) => c.kind === 'Pod')
      .map((p: any) => [p.metadata.name, p.spec.containers.map((c: any) => `${c.name}=${c.image}`).sort()]),
  );

/** The etcd container's image of each member pod as answered. */
const etcdImages = (loop: Loop): Record<string, string> =>
  Object.fromEntries(
    loop.children
      .filter((c) => c.kind === 'Pod')
      .map((p: any) => [p.metadata.name, p.spec.containers.find((c: any) => c.name === 'etcd')?.image]),
  );

t.test(
  'members with an injected sidecar before etcd are kept at rest and upgraded by their etcd container',
  async (t) => {
    const loop = await running({ size: 3 });
    injectIntoMembers(loop, { first: [PROXY], init: [INIT] });
    await loop.step();
    const atRest = containers(loop);
    for (let i = 0; i < 3; i++) {
      await loop.step();
      t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: no member replaced`);
      t.same(containers(loop), atRest, `sync ${i + 1}: the same answer`);
    }
    t.match(loop.s(), { phase: 'Running' });
    // Each member answers with the version of its etcd container's image.
    const etcd = loop.etcd as any;
    const health = etcd.health.bind(etcd);
    etcd.health = async (url: string) => {
      const h = await health(url);
      const img = etcdImages(loop)[new URL(url).hostname.split('.')[0]!];
      if (h.healthy && img) h.version = img.split(':v')[1];
      return h;
    };
    loop.spec = { ...loop.spec, version: '3.5.1' };
    for (let i = 0; i < 40 && Object.values(etcdImages(loop)).some((img) => !img.endsWith(':v3.5.1')); i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
    }
    t.same(
      etcdImages(loop),
      { 'e-0': 'quay.io/coreos/etcd:v3.5.1', 'e-1': 'quay.io/coreos/etcd:v3.5.1', 'e-2': 'quay.io/coreos/etcd:v3.5.1' },
      'every member moved to 3.5.1 in place',
    );
    for (const [pod, list] of Object.entries(containers(loop)))
      t.ok((list as string[]).includes(`istio-proxy=${PROXY.image}`), `${pod}: the sidecar's image untouched`);
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'no member replaced');
  },
);
