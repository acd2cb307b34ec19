// A mutating admission webhook may add containers to every pod a PodSet makes (Istio's sidecar, before or after the
// pod's own; its istio-init among the init containers), and without the last-applied record (server-side apply) the
// pod is answered as observed, with them. A pod is of a template by the hash it carries (rollout.ts), never by its
// containers as observed: such pods are current, counted updated, and kept sync after sync, never replaced.
import t from 'tap';
import { podsetSync as sync } from '../fixtures/hooks.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const PROXY = { name: 'istio-proxy', image: 'docker.io/istio/proxyv2:1.24.2', args: ['proxy', 'sidecar'] };
const INIT = { name: 'istio-init', image: 'docker.io/istio/proxyv2:1.24.2', args: ['istio-iptables'] };

for (const where of ['first', 'last'] as const)
  t.test(`pods with an injected sidecar (${where}) are kept as current`, async (t) => {
    const spec = { size: 3 };
    const made = sync(request('podset', spec), FIXED_NOW).children.filter((c) => c.kind === 'Pod');
    t.equal(made.length, 3);
    let observed: KubeObject[] = made.map((p) => {
      const copy = structuredClone(p) as any;
      copy.spec.containers = where === 'first' ? [PROXY, ...copy.spec.containers] : [...copy.spec.containers, PROXY];
      copy.spec.initContainers = [INIT, ...(copy.spec.initContainers ?? [])];
      return asObserved(copy, readyPod);
    });
    for (let i = 0; i < 3; i++) {
      const res = sync(request('podset', spec, { children: objectMap(observed) }), FIXED_NOW);
      const pods = res.children.filter((c) => c.kind === 'Pod');
      t.same(
        pods.map((p) => p.metadata.name),
        made.map((p) => p.metadata.name),
        `sync ${i + 1}: every pod kept`,
      );
      t.equal((res.status as any).updatedReplicas, 3, `sync ${i + 1}: every pod counted on the current template`);
      t.match(
        (res.status as any).conditions.find((c: any) => c.type === 'Updated'),
        { status: 'True' },
        `sync ${i + 1}: the rollout done`,
      );
      observed = pods.map((p) => asObserved(p, readyPod));
    }
  });
