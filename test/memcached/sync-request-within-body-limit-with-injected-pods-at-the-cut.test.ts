// A Memcached's customize asks for its Deployment's pods only while the pods the Deployment may have at once (its
// size, a rollout's surge and as many old ones being deleted) fit within the body limit, each counted with an
// allowance for what an admission webhook adds (hooks/memcached/sync.ts podsListed, INJECTED_POD_BYTES). A namespace
// may have two injectors: Istio's sidecar and Vault's agent (test/fixtures/sidecars.ts), together more than the
// allowance. At the largest size whose pods are listed, in the middle of a rollout (every pod it may have at once,
// all injected), each sync request must stay within the body limit: past it every sync is refused (413).
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import { LAST_APPLIED } from '../../lib/index.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { deployment, podsAtOnce, podsListed, service } from '../../hooks/memcached/sync.js';
import { objectMap, request } from '../fixtures/requests.js';
import { withIstioSidecar, withVaultAgent } from '../fixtures/sidecars.js';
import { applied, sentBytes, storedPod } from '../fixtures/stored-objects.js';

type Spec = { size: number; image: string; port: number; progressDeadlineSeconds: number };

/** The largest size whose pods customize asks for, for a spec otherwise like `spec`. */
function largestListed(parent: ParentObject, spec: Spec): number {
  let size = 0;
  while (size < 1000 && podsListed(parent, { ...spec, size: size + 1 })) size++;
  return size;
}

/** Pod `i` of the Deployment's template as the API server stores it once it runs, with both injectors' additions. */
function injectedPod(parent: ParentObject, template: any, i: number): KubeObject {
  const name = `${parent.metadata.name}-6d5f7c9b8-${String(i).padStart(5, 'x')}`;
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: parent.metadata.namespace,
      labels: { ...template.metadata.labels, 'pod-template-hash': '6d5f7c9b8' },
    },
    spec: template.spec,
  };
  const stored = storedPod(pod, parent, i) as any;
  // Made by the ReplicaSet controller, not by Metacontroller: no last-applied copy, a ReplicaSet as its owner.
  delete stored.metadata.annotations[LAST_APPLIED];
  stored.metadata.ownerReferences = [
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: `${parent.metadata.name}-6d5f7c9b8`,
      uid: '1a2b3c4d-0000-4000-8000-000000000001',
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  return withVaultAgent(withIstioSidecar(stored));
}

for (const name of ['cache', 'c'.repeat(40)]) {
  t.test(
    `a Memcached (name of ${name.length}) at the largest size whose pods are listed, Istio and Vault injected, mid-rollout: within the body limit`,
    async (t) => {
      const req = request('memcached', {});
      const parent = {
        ...req.parent,
        metadata: { ...req.parent.metadata, name, namespace: 'shop', uid: '9f8e7d6c-0000-4000-8000-000000000009' },
      } as ParentObject;
      const base: Spec = { size: 0, image: 'memcached:1.6.38-alpine', port: 11211, progressDeadlineSeconds: 600 };
      const size = largestListed(parent, base);
      t.ok(size > 100 && size < 1000, `pods listed up to size ${size}`);
      const spec = { ...base, size };
      parent.spec = spec;
      const workload = applied(deployment(parent, spec), parent, 0);
      const svc = applied(service(parent, spec, false), parent, 1);
      const template = (deployment(parent, spec)['spec'] as { template: unknown }).template;
      const count = podsAtOnce(size);
      const pods = Array.from({ length: count }, (_, i) => injectedPod(parent, template, i));
      const onePod = sentBytes(pods[0]);
      const nodes = pods.slice(0, size).map((p) => p.metadata.name);
      const body = {
        controller: { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name } },
        parent: { ...parent, status: { nodes, replicas: size, ready: size } },
        children: objectMap([workload, svc]),
        related: objectMap(pods),
        finalizing: false,
      };
      const bytes = sentBytes(body);
      t.comment(`${count} pods of ${onePod} bytes each as stored with Istio and Vault: ${bytes} bytes`);
      t.ok(bytes <= DEFAULT_BODY_LIMIT, `${bytes} bytes within ${DEFAULT_BODY_LIMIT}`);
      // One more replica, and the pods are no longer asked for.
      t.notOk(podsListed(parent, { ...spec, size: size + 1 }), `size ${size + 1}: not listed`);
    },
  );
}
