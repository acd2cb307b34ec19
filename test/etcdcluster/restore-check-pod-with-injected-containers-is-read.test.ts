// A mutating admission webhook that injects a mesh or agent into every pod of a namespace (Istio's sidecar injector,
// Linkerd's proxy injector, Vault's agent injector) adds containers to the restore's check pod when it is created:
// an init container put first (istio-validation / istio-init, linkerd-init, vault-agent-init; Istio moves its own to
// the front so that it runs before the pod's), and a sidecar container after the pod's own, or before it with
// holdApplicationUntilProxyStarts. The check pod so observed is still the one the restore made (the same restore,
// the same arguments, the same images for its own steps and container): its verdict is read and a passed check goes
// on, rather than the pod being taken for a check "with other arguments", dropped and made again at every other
// sync until the check's deadline refuses the restore. Each answer is fed back as the next observed state.
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { type Loop, restoreObject, running } from '../fixtures/etcd-loop.js';

const PROXY = { name: 'istio-proxy', image: 'docker.io/istio/proxyv2:1.24.2', args: ['proxy', 'sidecar'] };
const INIT = { name: 'istio-init', image: 'docker.io/istio/proxyv2:1.24.2', args: ['istio-iptables'] };

/** Where the injector puts its sidecar: none (an init container only), after the pod's own, or before them. */
type Sidecar = 'none' | 'last' | 'first';

/** From now on the check pod is observed as the injector made it: its init container first, its sidecar as said. */
function injectIntoCheckPod(loop: Loop, sidecar: Sidecar): void {
  const observed = loop.observed.bind(loop);
  loop.observed = () =>
    observed().map((o: KubeObject) => {
      if (o.kind !== 'Pod' || o.metadata.name !== 'e-restore-check') return o;
      const copy = structuredClone(o) as any;
      if (!copy.spec.initContainers.some((c: any) => c.name === INIT.name))
        copy.spec.initContainers = [INIT, ...copy.spec.initContainers];
      if (sidecar !== 'none' && !copy.spec.containers.some((c: any) => c.name === PROXY.name))
        copy.spec.containers =
          sidecar === 'first' ? [PROXY, ...copy.spec.containers] : [...copy.spec.containers, PROXY];
      return copy;
    });
}

for (const sidecar of ['none', 'last', 'first'] as const)
  t.test(
    `a restore whose check pod got an injected init container (sidecar: ${sidecar}) reads its check and goes on`,
    async (t) => {
      const loop = await running({ size: 3 });
      injectIntoCheckPod(loop, sidecar);
      loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
      await loop.step();
      t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
      t.ok(loop.checkPod(), 'the check pod answered');
      // The check passed (its container ended with the verdict in its termination message).
      const phases: string[] = [];
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        await loop.step();
        phases.push(String(loop.s().restore?.phase));
        seen.push(loop.checkPod() ? 'check pod kept' : 'check pod dropped');
      }
      t.not(phases[0], 'Checking', `the passed check is read at the next sync (phases ${phases.join(', ')}; ${seen})`);
      t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members are made');
    },
  );
