// Memcached: a Deployment of `size` memcached pods and a Service in front of them.
// Pure decisions: request in, response out.
import { restrictedContainerSecurity, restrictedPodSecurity, serviceChild } from '../../lib/children.js';
import { relatedPods } from '../../lib/hook.js';
import type { SyncHook } from '../../lib/operator.js';
import { childLabels, selectorLabels, selectorString } from '../../lib/labels.js';
import type {
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import { dns1035Problem } from '../../lib/names.js';
import { observedNamed } from '../../lib/objects.js';
import { memberStatus, relatedPodNames, workloadCounts, workloadFailure } from '../../lib/replicas.js';
import { specParser } from '../../lib/spec.js';
import { MemcachedSpec, type MemcachedSpec as Spec } from './schema.js';

const APP = 'memcached';
/** The `memcache` user of the official memcached images (Debian and Alpine). */
export const MEMCACHE_UID = 11211;
export const parser = specParser(MemcachedSpec);

export function deployment(parent: ParentObject, spec: Spec): KubeObject {
  const name = parent.metadata.name!;
  const labels = childLabels(APP, name, 'cache');
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: parent.metadata.namespace, labels },
    spec: {
      replicas: spec.size,
      selector: { matchLabels: selectorLabels(APP, name) },
      template: {
        metadata: { labels },
        spec: {
          // Pod Security `restricted`: the official image's own user, memcache (uid 11211).
          securityContext: restrictedPodSecurity(MEMCACHE_UID),
          containers: [
            {
              name: 'memcached',
              image: spec.image,
              command: ['memcached', '-m', '64', '-o', 'modern', '-v', '-p', String(spec.port)],
              ports: [{ name: 'memcached', containerPort: spec.port, protocol: 'TCP' }],
              securityContext: restrictedContainerSecurity(),
            },
          ],
        },
      },
    },
  };
}

export function service(parent: ParentObject, spec: Spec): KubeObject {
  const name = parent.metadata.name!;
  return serviceChild(parent, name, childLabels(APP, name, 'cache'), selectorLabels(APP, name), [
    { name: 'memcached', port: spec.port },
  ]);
}

/** A name too long for the Service and Deployment it needs. */
export function nameProblem(parent: ParentObject): string | undefined {
  return dns1035Problem(parent.metadata.name ?? '');
}

export function sync({ request, parent, spec, now }: SyncHook<Spec, unknown>): CompositeSyncResponse {
  const name = parent.metadata.name ?? '';

  // Status reports what was observed: the Deployment's counts and the pods it runs (related objects).
  const observedDeployment = observedNamed(request.children, 'Deployment', 'apps/v1', name);
  const counts = workloadCounts(observedDeployment, spec.size);
  // Pods the API server refuses (Pod Security admission, a quota) are said in Ready, with the refusal's reason.
  const refused = counts.ready < counts.desired ? workloadFailure(observedDeployment) : undefined;
  return {
    status: memberStatus(parent, counts, relatedPodNames(request.related), now, {
      selector: selectorString(APP, name),
      ...(refused ? { ready: refused } : {}),
    }),
    children: [deployment(parent, spec), service(parent, spec)],
  };
}

/** Asks for the pods of this Memcached so that status.nodes can list them. */
export function customize(request: CustomizeRequest): CustomizeResponse {
  const parent = request.parent;
  return relatedPods(selectorLabels(APP, parent?.metadata.name ?? ''));
}
