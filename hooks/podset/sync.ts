// PodSet: `size` pods named <name>-<ordinal>, owned directly by the PodSet.
// Scaling down drops the highest ordinals; a pod deleted by hand is recreated under the same name.
import { invalidSpecResponse } from '../../lib/hook.js';
import { childLabels } from '../../lib/labels.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { isPodReady, isTerminating, observedUnordered } from '../../lib/objects.js';
import { memberStatus } from '../../lib/replicas.js';
import { ordinalName, ordinalOf } from '../../lib/names.js';
import { specParser } from '../../lib/spec.js';
import { PodSetSpec, type PodSetSpec as Spec } from './schema.js';

const APP = 'podset';
const parser = specParser(PodSetSpec);

/** Pods are <podset>-<ordinal>. */
export const podName = ordinalName;
export { ordinalOf };

/** The labels every pod of a PodSet carries. */
export function podLabels(parent: ParentObject): Record<string, string> {
  const name = parent.metadata.name!;
  // `app: <name>` is the label the seed's reconciler put on its pods; kept for people who select by it.
  return { ...childLabels(APP, name, 'member'), app: name };
}

export function pod(parent: ParentObject, spec: Spec, ordinal: number, labels = podLabels(parent)): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName(parent.metadata.name!, ordinal), namespace: parent.metadata.namespace, labels },
    spec: {
      containers: [{ name: 'busybox', image: spec.image, command: spec.command }],
      restartPolicy: 'Always',
    },
  };
}

export function sync(request: CompositeSyncRequest, now: Date): CompositeSyncResponse {
  const parent = request.parent;
  const name = parent.metadata.name ?? '';
  const parsed = parser.parse(parent.spec);
  if (!parsed.ok) return invalidSpecResponse(request, parsed.message, now);
  const spec = parsed.spec;

  // One sort, by ordinal (numbers compare cheaply; a large PodSet has thousands of pods), names breaking ties.
  const pods = observedUnordered(request.children, 'Pod', 'v1')
    .filter((p) => !isTerminating(p))
    .map((p) => ({ pod: p, ordinal: ordinalOf(name, p.metadata.name ?? '') ?? Number.MAX_SAFE_INTEGER }))
    .sort((a, b) => a.ordinal - b.ordinal || (a.pod.metadata.name! < b.pod.metadata.name! ? -1 : a.pod.metadata.name! > b.pod.metadata.name! ? 1 : 0))
    .map((p) => p.pod);
  const ready = pods.filter(isPodReady).length;
  const counts = { desired: spec.size, current: pods.length, ready, exists: true };

  const children: KubeObject[] = [];
  // One labels object for every pod: they are the same, and a large PodSet builds thousands of pods.
  const labels = podLabels(parent);
  for (let i = 0; i < spec.size; i++) children.push(pod(parent, spec, i, labels));
  return {
    status: memberStatus(parent, counts, pods.map((p) => p.metadata.name!), now),
    children,
  };
}
