// What a PodSet's pods, as observed, weigh in each sync request: measured on a few of them, never on all (a sync of a
// 1000-pod PodSet stringifies at most MEASURED_PODS pods for this). The answer's estimate (sync.ts storedPodBytes)
// counts what the hook answered and what the API server and the kubelet add to a plain pod; a mutating admission
// webhook may add much more (Istio's sidecar: the istio-proxy container, istio-init, eight volumes, labels and
// annotations, two more container statuses: ~12 KB a pod), which only the pods as stored show.
import { goJsonBytes, isRecord, type KubeObject, LAST_APPLIED, textOf } from '../../lib/index.js';

/** Pods measured per sync at most, spread over the ordinals; the largest counts. */
export const MEASURED_PODS = 8;

/** Depth past which the managedFields estimate counts a value's JSON instead of walking it (a pod nests ~8 deep). */
const WALK_DEPTH = 16;

/** The key a list element takes in managedFields (`k:{"name":"..."}`, escaped in the JSON), counted generously. */
function elementKeyBytes(v: Record<string, unknown>): number {
  for (const key of ['name', 'mountPath', 'type', 'ip', 'containerPort', 'key', 'devicePath'])
    if (typeof v[key] === 'string' || typeof v[key] === 'number') return 40 + 2 * String(v[key]).length;
  return 64;
}

/**
 * The bytes of a value's managedFields key tree (`f:<key>` for each key, `{}` for each leaf, `k:{...}` for each
 * element of a list of objects, with its `.`), at least.
 */
function fieldsBytes(value: unknown, depth: number): number {
  if (!value || typeof value !== 'object') return 2;
  if (depth > WALK_DEPTH) return goJsonBytes(value);
  let n = 2;
  if (Array.isArray(value)) {
    for (const v of value) if (isRecord(v)) n += elementKeyBytes(v) + 8 + fieldsBytes(v, depth + 1);
    return n;
  }
  for (const [k, v] of Object.entries(value)) n += Buffer.byteLength(k) + 6 + fieldsBytes(v, depth + 1);
  return n;
}

/** The containers of a pod's spec (init containers too), as observed: each an object, or skipped. */
function containersOf(pod: KubeObject): Array<Record<string, unknown>> {
  const spec = pod['spec'] as { containers?: unknown; initContainers?: unknown } | undefined;
  const out: Array<Record<string, unknown>> = [];
  for (const list of [spec?.containers, spec?.initContainers])
    if (Array.isArray(list)) for (const c of list) if (isRecord(c)) out.push(c);
  return out;
}

/**
 * What a pod's status will carry once it runs beyond what it carries now: for each container without a status yet,
 * its status (IDs, the image twice more as the runtime names it, its state and mounts), and the pod's conditions,
 * IPs and start time while it has none; and for every container, a terminated state of a restart (`lastState`).
 */
function statusToCome(pod: KubeObject): number {
  const status = pod['status'] as {
    containerStatuses?: unknown;
    initContainerStatuses?: unknown;
    conditions?: unknown;
  };
  const reported = new Set<unknown>();
  for (const list of [status?.containerStatuses, status?.initContainerStatuses])
    if (Array.isArray(list)) for (const s of list) reported.add((s as { name?: unknown } | null)?.name);
  let bytes = Array.isArray(status?.conditions) && status.conditions.length >= 4 ? 0 : 1536;
  for (const c of containersOf(pod)) {
    bytes += 320;
    if (reported.has(c['name'])) continue;
    const image = typeof c['image'] === 'string' ? c['image'].length : 0;
    bytes += 512 + 2 * (image + 96) + (Array.isArray(c['volumeMounts']) ? goJsonBytes(c['volumeMounts']) : 0);
  }
  return bytes;
}

/**
 * A pod as Metacontroller sends it in each sync request, at most: the pod as observed (without the managedFields the
 * hook server cut: lib/json.ts), its managedFields (the key tree of its metadata and spec, which the manager of its
 * create request owns with all a webhook added, and the kubelet's of its status), and the status it will report once
 * it runs.
 */
export function sentPodBytes(pod: KubeObject): number {
  const metadata = { ...pod.metadata } as Record<string, unknown>;
  delete metadata['managedFields'];
  const owned = {
    labels: metadata['labels'],
    annotations: metadata['annotations'],
    owners: metadata['ownerReferences'],
  };
  const managed = 2 * 256 + fieldsBytes(owned, 0) + fieldsBytes(pod['spec'], 0) + 1536;
  return goJsonBytes({ ...pod, metadata }) + managed + statusToCome(pod);
}

/** What the hook answers in each pod, by name: its containers, and the keys of its labels. */
export interface Answered {
  containers: ReadonlySet<string>;
  labels: ReadonlySet<string>;
}

/** The fields of one of the hook's own containers the answer or the API server's defaults give it. */
const OWN_CONTAINER_FIELDS = [
  'name',
  'image',
  'command',
  'securityContext',
  'imagePullPolicy',
  'terminationMessagePath',
  'terminationMessagePolicy',
];
/** Where the API server mounts the service account's token (its volume `kube-api-access-<x>`). */
const TOKEN_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

const objectsIn = (list: unknown): Array<Record<string, unknown>> =>
  Array.isArray(list) ? list.filter((v): v is Record<string, unknown> => Boolean(v) && typeof v === 'object') : [];

/**
 * One of the hook's own containers' statuses as the estimate counts it (a container that runs): its `lastState` empty
 * and its state without the kubelet's message. What a restart adds (`lastState.terminated`, with the termination
 * message the container wrote: up to 4096 bytes, each `<`, `>` or `&` six as Go writes JSON) and a waiting or
 * terminated state's message are then counted as added (addedPodBytes), as stored and sent.
 */
function runningOnly(s: Record<string, unknown>): Record<string, unknown> {
  const state = s['state'];
  const plain: Record<string, unknown> = {};
  if (isRecord(state))
    for (const [k, v] of Object.entries(state)) {
      if (!isRecord(v)) continue;
      const { message: _message, ...rest } = v;
      plain[k] = rest;
    }
  return { ...s, lastState: {}, state: plain };
}

/**
 * A pod as observed with only what the answer's estimate counts (sync.ts storedPodBytes): its own containers and
 * their statuses (with the token's mount, the defaults, no env or other mounts), the service account's volume, the
 * labels the hook answers (and Metacontroller's `controller-uid`), Metacontroller's last-applied annotation.
 */
function answeredPart(pod: KubeObject, answered: Answered): KubeObject {
  const spec = (pod['spec'] ?? {}) as Record<string, unknown>;
  const status = (pod['status'] ?? undefined) as Record<string, unknown> | undefined;
  const labels = pod.metadata.labels as Record<string, unknown> | null | undefined;
  const annotations = pod.metadata.annotations as Record<string, unknown> | null | undefined;
  const own = (c: Record<string, unknown>) => answered.containers.has(c['name'] as string);
  const containers = objectsIn(spec['containers'])
    .filter(own)
    .map((c) => {
      const kept: Record<string, unknown> = { resources: {} };
      for (const f of OWN_CONTAINER_FIELDS) if (f in c) kept[f] = c[f];
      kept['volumeMounts'] = objectsIn(c['volumeMounts']).filter((m) => m['mountPath'] === TOKEN_MOUNT);
      return kept;
    });
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      labels: Object.fromEntries(
        Object.entries(labels ?? {}).filter(([k]) => answered.labels.has(k) || k === 'controller-uid'),
      ) as Record<string, string>,
      annotations: Object.fromEntries(Object.entries(annotations ?? {}).filter(([k]) => k === LAST_APPLIED)) as Record<
        string,
        string
      >,
    },
    spec: {
      ...spec,
      containers,
      initContainers: undefined,
      volumes: objectsIn(spec['volumes']).filter((v) => textOf(v['name']).startsWith('kube-api-access-')),
    },
    ...(status
      ? {
          status: {
            ...status,
            containerStatuses: objectsIn(status['containerStatuses']).filter(own).map(runningOnly),
            initContainerStatuses: undefined,
          },
        }
      : {}),
  };
}

/**
 * What this pod carries in each sync request beyond what the hook answered and the API server and the kubelet add to
 * any pod that runs (which the answer's estimate counts): what an admission webhook or a writer of the pod added
 * (containers, init containers, volumes, environment, mounts, labels, annotations), their statuses to come, and their
 * managedFields; and what the kubelet reports of the hook's own container past a running one (a restart's
 * `lastState.terminated` with its termination message, a waiting or terminated state's message: runningOnly).
 */
export function addedPodBytes(pod: KubeObject, answered: Answered): number {
  return Math.max(0, sentPodBytes(pod) - sentPodBytes(answeredPart(pod, answered)));
}

/**
 * The most `weigh` gives any of a few of these pods: MEASURED_PODS of them spread evenly over the list (in ordinal
 * order: the same pods for the same observed state), or 0 when there is none. The cost is bounded whatever the count.
 */
export function measuredMost(pods: readonly KubeObject[], weigh: (pod: KubeObject) => number): number {
  const n = pods.length;
  const count = Math.min(n, MEASURED_PODS);
  let most = 0;
  for (let k = 0; k < count; k++) {
    const pod = pods[count === 1 ? 0 : Math.round((k * (n - 1)) / (count - 1))]!;
    most = Math.max(most, weigh(pod));
  }
  return most;
}

/** The most any of a few of these pods carries beyond what the hook answered (addedPodBytes; measuredMost). */
export function measuredAddedBytes(pods: readonly KubeObject[], answered: Answered): number {
  return measuredMost(pods, (pod) => addedPodBytes(pod, answered));
}
