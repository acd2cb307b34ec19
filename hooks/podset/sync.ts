// PodSet: `size` pods named <name>-<ordinal>, owned directly by the PodSet.
// Scaling down drops the highest ordinals; a pod deleted by hand is recreated under the same name.
import { kib, type AnswerBudget } from '../../lib/budget.js';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../../lib/children.js';
import { childLabels, selectorString } from '../../lib/labels.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { isPodReady, isTerminating, observedUnordered } from '../../lib/objects.js';
import type { SyncHook } from '../../lib/operator.js';
import { memberStatus } from '../../lib/replicas.js';
import { byCodeUnits, ordinalName, ordinalOf } from '../../lib/names.js';
import { specParser } from '../../lib/spec.js';
import { MAX_ANSWER_BYTES, PodSetSpec, type PodSetSpec as Spec } from './schema.js';

const APP = 'podset';
const NOBODY = 65534;
const MISSING_PODS_RESYNC_SECONDS = 60;
export const parser = specParser(PodSetSpec);

/**
 * The answer this spec asks for (lib/budget.ts), refused past MAX_ANSWER_BYTES (InvalidSpec, every child kept):
 * every pod repeats the image and the command.
 */
export const answerBudget: AnswerBudget<Spec> = {
  estimate(spec, parent) {
    // Per pod: its image and arguments as JSON, plus ~600 bytes of labels and security context and the names.
    let perPod = 600 + 4 * Buffer.byteLength(parent.metadata.name ?? '') + spec.image.length;
    for (const arg of spec.command) perPod += arg.length + 3;
    return {
      bytes: perPod * spec.size,
      what: `spec.size ${spec.size} pods of ~${kib(perPod)} each (image and command)`,
    };
  },
  advice: 'shorten spec.command or lower spec.size',
  maxBytes: MAX_ANSWER_BYTES,
};

/** Pods are <podset>-<ordinal>. */
export const podName = ordinalName;
export { ordinalOf };

/** The labels every pod of a PodSet carries. */
export function podLabels(parent: ParentObject): Record<string, string> {
  const name = parent.metadata.name!;
  // `app: <name>` is the label the seed's reconciler put on its pods; kept for people who select by it.
  const labels = childLabels(APP, name, 'member');
  labels['app'] = name;
  return labels;
}

/** What every pod of a PodSet runs. */
export function podSpec(spec: Spec): Record<string, unknown> {
  return {
    // Pod Security `restricted`: busybox needs no user of its own; nobody (65534) it is.
    securityContext: restrictedPodSecurity(NOBODY),
    containers: [
      { name: 'busybox', image: spec.image, command: spec.command, securityContext: restrictedContainerSecurity() },
    ],
    restartPolicy: 'Always',
  };
}

/**
 * The pod named `name`. The labels and the pod spec are the same for every pod: a large PodSet passes one of
 * each to all its pods (they are only serialised), which keeps a 10 000-pod answer from allocating 10 000 copies.
 */
function pod(
  parent: ParentObject,
  name: string,
  labels: Record<string, string>,
  template: Record<string, unknown>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: parent.metadata.namespace, labels },
    spec: template,
  };
}

/**
 * Pods in ordinal order (web-2 before web-10), names that carry no ordinal last by name. Linear: each pod goes
 * to the slot of its ordinal (an ordinal names exactly one pod); only ordinals far beyond the pod count, which
 * a PodSet never makes, are sorted.
 */
export function byOrdinal(base: string, pods: KubeObject[]): KubeObject[] {
  const bound = 2 * pods.length + 16;
  const slots: Array<KubeObject | undefined> = new Array(bound);
  const rest: Array<{ pod: KubeObject; ordinal: number; name: string }> = [];
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    const ordinal = ordinalOf(base, name);
    if (ordinal !== undefined && ordinal < bound) slots[ordinal] = pod;
    else rest.push({ pod, ordinal: ordinal ?? Number.MAX_SAFE_INTEGER, name });
  }
  const ordered: KubeObject[] = [];
  for (const pod of slots) if (pod) ordered.push(pod);
  rest.sort((a, b) => a.ordinal - b.ordinal || byCodeUnits(a.name, b.name));
  for (const r of rest) ordered.push(r.pod);
  return ordered;
}

/** A pod whose phase is Failed or Succeeded: its containers will not run again. */
export function isFinished(pod: KubeObject): boolean {
  const phase = (pod['status'] as { phase?: unknown } | undefined)?.phase;
  return phase === 'Failed' || phase === 'Succeeded';
}

export function sync({ request, parent, spec, now }: SyncHook<Spec, unknown>): CompositeSyncResponse {
  const name = parent.metadata.name ?? '';

  const observedPods = observedUnordered(request.children, 'Pod', 'v1');
  // A pod that has finished (evicted, OOM-killed under restartPolicy Never, completed) never runs again: it is
  // left out of this answer, so Metacontroller deletes it, and once it is gone it is created again under its name.
  const finished = new Set<string>();
  for (const p of observedPods) if (isFinished(p)) finished.add(p.metadata.name!);
  const pods = byOrdinal(
    name,
    observedPods.filter((p) => !isTerminating(p) && !isFinished(p)),
  );
  const ready = pods.filter(isPodReady).length;
  const counts = { desired: spec.size, current: pods.length, ready, exists: true };

  const labels = podLabels(parent);
  const template = podSpec(spec);
  const names: string[] = [];
  for (let i = 0; i < spec.size; i++) {
    const podNamed = podName(name, i);
    if (!finished.has(podNamed)) names.push(podNamed);
  }
  const children = names.map((named) => pod(parent, named, labels, template));
  const status = memberStatus(
    parent,
    counts,
    pods.map((p) => p.metadata.name!),
    now,
    { selector: selectorString(APP, name) },
  );
  const response: CompositeSyncResponse = { status, children };
  // Metacontroller creates the pods and tells the hook nothing when it cannot: while pods are missing, look again
  // every minute, so that the progress deadline (lib/replicas.ts) is noticed without an unrelated event.
  if (counts.current < counts.desired) response.resyncAfterSeconds = MISSING_PODS_RESYNC_SECONDS;
  return response;
}
