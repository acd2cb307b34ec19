// PodSet: `size` pods named <name>-pod-<ordinal>, owned directly by the PodSet.
// Scaling down drops the highest ordinals; a pod deleted by hand is recreated under the same name; a changed
// template replaces the pods one at a time (rollout.ts).
import {
  type AnswerBudget,
  appliedTwiceBytes,
  byCodeUnits,
  childLabels,
  type ConditionInput,
  type ChildName,
  type CompositeSyncRequest,
  type CompositeSyncResponse,
  type FinalizeHook,
  finalizeKeepingPolicy,
  imageProblem,
  isPodReady,
  isTerminating,
  keepObserved,
  kib,
  type KubeObject,
  lastAppliedBytes,
  MAX_ANNOTATIONS_BYTES,
  INJECTED_POD_BYTES,
  MAX_REQUEST_BYTES,
  memberStatus,
  podsNotReady,
  mib,
  podsDegraded,
  observed,
  observedUnordered,
  ordinalName,
  ordinalOf,
  namingsOf,
  parentNameProblem,
  parentRequestBytes,
  type ParentObject,
  restrictedContainerSecurity,
  restrictedPodSecurity,
  selectorLabels,
  selectorString,
  specParser,
  type SyncHook,
  workloadNetworkPolicy,
  podsPolicies,
  policyResync,
  keptWithPolicies,
  namespaceGovernance,
  namespaceGovernsCondition,
  complementPolicyNames,
  podsComplementPolicies,
  complementInFreeNames,
  egressHandover,
  egressDoubtCondition,
  workloadEgress,
  NAMESPACE_POLICIES_BYTES,
  COMPLEMENT_POLICIES_BYTES,
  podLabelSets,
  withoutPolicy,
  type NamespaceGovernance,
  type WorkloadNetworkSettings,
  containersStarted,
  servedByStatus,
} from '../../lib/index.js';
//
// Names: `-pod-` keeps a PodSet's pods apart from an EtcdCluster's members of the same name (`<name>-<ordinal>`),
// and from another PodSet's (lib/ownership.ts). A PodSet made before that keeps naming its pods `<name>-<ordinal>`
// while it has any (answering new names would delete every running pod at once).
import { addedPodBytes, type Answered, measuredAddedBytes, measuredMost } from './measure.js';
import { MAX_ANSWER_BYTES, MAX_SIZE, PodSetSpec, type PodSetSpec as Spec } from './schema.js';
import {
  CONTAINERS,
  liveMember,
  planRollout,
  ROLLOUT_RESYNC_SECONDS,
  TEMPLATE_HASH_LABEL,
  templateHash,
  type Member,
} from './rollout.js';

const APP = 'podset';
const NOBODY = 65534;
const MISSING_PODS_RESYNC_SECONDS = 60;
export const parser = specParser(PodSetSpec, (spec) => {
  const image = imageProblem(spec.image);
  if (image) return `spec.image ${JSON.stringify(spec.image)} ${image}`;
  // Metacontroller keeps a copy of each pod it creates in the pod's annotations, which the API server holds to 256
  // KiB: a pod over it is refused, whatever its size. Counted with the longest names a PodSet may have.
  const copy = lastAppliedBytes(answeredPod(LONGEST_NAMES, spec));
  if (copy <= MAX_ANNOTATIONS_BYTES) return undefined;
  return `spec.command makes each pod ${kib(copy)} as JSON, and Metacontroller keeps a copy of it in the pod's annotations, which the API server holds to ${kib(MAX_ANNOTATIONS_BYTES)}: no pod could be created; shorten spec.command`;
});

/** A parent of the longest name and namespace a PodSet may have (its pods' label values: 63). */
const LONGEST_NAMES: ParentObject = {
  apiVersion: 'apps.jicki.cn/v1alpha1',
  kind: 'PodSet',
  metadata: { name: 'n'.repeat(63), namespace: 'n'.repeat(63) },
};

/** A pod of this spec as answered (the highest ordinal a PodSet may have, a template hash of its length). */
function answeredPod(parent: ParentObject, spec: { image: string; command: string[] }): KubeObject {
  const labels = podLabels(parent);
  labels[TEMPLATE_HASH_LABEL] = '0'.repeat(10);
  const template = podSpec({ size: 0, minReadySeconds: 0, progressDeadlineSeconds: 0, ...spec });
  return pod(parent, podName(podBase(parent.metadata.name ?? ''), MAX_SIZE - 1), labels, template);
}

/**
 * What the API server and the kubelet add to a pod of this image as it is stored and sent back, at most: defaults,
 * the service account volume, status (the image twice more, as the runtime names it: `docker.io/library/` added,
 * and its ID, the repository with a digest), the owner reference, uid and managedFields. A pod of busybox:1.36 as a
 * 1.30+ kubelet reports it carries 3,991 bytes of these
 * (test/podset/sync-request-within-body-limit-for-every-accepted-command.test.ts).
 */
function storedOverhead(image: string): number {
  return 4096 + 2 * (image.length + 96);
}

/**
 * A pod of this spec as Metacontroller sends it back in each sync, at most: what the hook answered, twice (the pod,
 * and Metacontroller's last-applied copy of it, lib/budget.ts appliedTwiceBytes), and what the API server and the
 * kubelet add (storedOverhead).
 */
export function storedPodBytes(parent: ParentObject, spec: { image: string; command: string[] }): number {
  return appliedTwiceBytes(answeredPod(parent, spec)) + storedOverhead(spec.image);
}

/**
 * The status of a PodSet of `size` pods, at most: each pod's name in status.nodes, and the rest (conditions naming
 * up to three pods, counts, heldBy, the selector, the hash).
 */
function statusBytes(parent: ParentObject, size: number): number {
  return size * (Buffer.byteLength(podName(podBase(parent.metadata.name ?? ''), MAX_SIZE - 1)) + 3) + 32 * 1024;
}

/** The NetworkPolicy of a PodSet's pods (lib/network-policy.ts): `<name>-podset`. */
export function networkPolicyName(name: string): string {
  return `${name}-podset`;
}

/**
 * The NetworkPolicy of the PodSet's pods, or undefined when the server's setting turns it off: selecting every pod of
 * this PodSet (its name and instance labels, which its pods of every template carry), their way out anywhere but the
 * instance metadata service, who may reach them left to the namespace.
 */
export function networkPolicy(
  parent: ParentObject,
  settings: WorkloadNetworkSettings | undefined,
  governance?: NamespaceGovernance,
): KubeObject | undefined {
  // The namespace's own policies govern the pods' egress: ours would only add to what they allow (issue 29).
  if (governance?.egress) return undefined;
  const pods = selectorLabels(APP, parent.metadata.name ?? '');
  return workloadNetworkPolicy(parent, { app: APP, suffix: '-podset', pods, settings });
}

/**
 * Where the namespace's own policies select some of the PodSet's pods for egress: metaops' egress policies of the
 * others (`<name>-podset-egress-<i>`, lib/network-policy.ts egressComplementPolicies), each selecting the PodSet's pods
 * that no such policy selects, with `<name>-podset`'s way out; none when the server's setting turns it off.
 */
export function complementPolicies(
  parent: ParentObject,
  settings: WorkloadNetworkSettings | undefined,
  governance: NamespaceGovernance | undefined,
): KubeObject[] {
  const name = parent.metadata.name ?? '';
  return podsComplementPolicies(parent, networkPolicyName(name), selectorLabels(APP, name), {
    app: APP,
    egress: workloadEgress(),
    governance,
    off: settings?.workloadNetworkPolicy === false,
  });
}

/**
 * Whether the namespace's own NetworkPolicies govern the PodSet's pods (lib/network-policy.ts namespaceGovernance):
 * judged on the labels of the pods answered (`children`) and of those observed.
 */
export function governanceOf(
  request: CompositeSyncRequest,
  children: readonly (KubeObject | null)[],
  settings: WorkloadNetworkSettings | undefined,
): NamespaceGovernance {
  const name = request.parent.metadata.name ?? '';
  return namespaceGovernance(request, {
    pods: podLabelSets(children, observedUnordered(request.children, 'Pod', 'v1')),
    own: [networkPolicyName(name)],
    // Its complement policies' names count as its own only when they are (lib ownPolicy): an admin's policy of such a
    // name governs.
    ownIfMarked: complementNames(name),
    parentKinds: settings?.parentKinds,
    selector: selectorLabels(APP, name),
  });
}

/**
 * An answer that keeps the observed children (a spec refused, an error, an answer not given), with its pods'
 * NetworkPolicy while any of its pods is kept, and NetworkPolicyCreated while they run without it
 * (lib/network-policy.ts keptWithPolicies): the policy the sync answers. A PodSet held for a pod name answers its
 * other children as the sync made them, the policy among them; held for the policy's name, none is added.
 */
export function kept(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  settings: WorkloadNetworkSettings | undefined,
  now: Date,
): CompositeSyncResponse {
  if (!request.parent.metadata.name) return response;
  const name = request.parent.metadata.name;
  const runs = (c: KubeObject) => c.kind === 'Pod' && c.apiVersion === 'v1';
  const running = (pods: readonly KubeObject[]) => runningWithout(pods.length);
  const governance = governanceOf(request, response.children, settings);
  // The complement policies observed are answered anew (the namespace's policies may have changed meanwhile).
  let answer = response;
  for (const n of complementNames(name)) answer = withoutPolicy(answer, n);
  const main = networkPolicyName(name);
  let out: CompositeSyncResponse;
  if (governance.egress) {
    // Held for one of their names (an admin's policy so named): that one is answered under a free name of the set.
    const complement = complementInFreeNames(
      request,
      complementPolicies(request.parent, settings, governance),
      main,
      now,
    );
    out = keptWithPolicies(
      request,
      withoutPolicy(answer, main),
      'PodSet',
      complement.map((policy) => ({ policy, runs, running })),
      now,
    );
  } else
    out = keptWithPolicies(
      request,
      answer,
      'PodSet',
      [{ policy: networkPolicy(request.parent, settings), runs, running }],
      now,
    );
  // The observed policies the answer replaces are kept until their replacements are observed (lib egressHandover).
  const children = egressHandover(request, out.children, {
    main,
    mainWithEgress: networkPolicy(request.parent, settings),
  });
  return children.length === out.children.length ? out : { ...out, children };
}

/** The names the PodSet's complement policies may take (lib/network-policy.ts complementPolicyNames). */
function complementNames(name: string): string[] {
  return complementPolicyNames(networkPolicyName(name));
}

/**
 * Finalize: the pods are deleted (answered no more) and their NetworkPolicy `<name>-podset` is kept while any of them
 * is observed (running or in its grace period: the spec's image and command run until it stops), at most
 * lib/policy-at-deletion.ts POLICY_KEPT_AT_DELETION_SECONDS after the deletion; the PodSet is released then, or at once
 * when it has no pod or no policy of its own. Answered as the sync answers it, whatever the server's setting now: it
 * only narrows what the pods reach.
 */
export function finalize({
  request,
  parent,
  now,
  event,
}: FinalizeHook<Spec, unknown, WorkloadNetworkSettings>): CompositeSyncResponse {
  return finalizeKeepingPolicy(
    request,
    {
      name: networkPolicyName(parent.metadata.name ?? ''),
      kind: 'PodSet',
      waiting: observed(request.children, 'Pod', 'v1'),
      answer: () => networkPolicy(parent, undefined),
    },
    now,
    event,
  );
}

/**
 * What each sync request of a PodSet carries besides its pods, at most: the parent (lib/budget.ts parentRequestBytes),
 * its NetworkPolicy as it comes back (Metacontroller's last-applied copy with it), and the namespace's NetworkPolicies
 * customize asks for (lib/network-policy.ts NAMESPACE_POLICIES_BYTES).
 */
function besidePodsBytes(parent: ParentObject, spec: { size: number; image: string; command: string[] }): number {
  const policy = networkPolicy(parent, undefined);
  return (
    parentRequestBytes({ size: spec.size, image: spec.image, command: spec.command }, statusBytes(parent, spec.size)) +
    (policy ? appliedTwiceBytes(policy) + 2048 : 0) +
    NAMESPACE_POLICIES_BYTES +
    COMPLEMENT_POLICIES_BYTES
  );
}

/**
 * Each sync request of a PodSet once its pods run, at most, less the pods customize asks for again (childNames,
 * which asks for no more than the room this leaves within MAX_REQUEST_BYTES): the parent (lib/budget.ts
 * parentRequestBytes) and every pod as it comes back (storedPodBytes).
 */
export function requestBytes(
  parent: ParentObject,
  spec: { size: number; image: string; command: string[] },
): { bytes: number; perPod: number } {
  const perPod = storedPodBytes(parent, spec);
  const bytes = besidePodsBytes(parent, spec) + spec.size * perPod;
  return { bytes, perPod };
}

/**
 * The answer this spec asks for (lib/budget.ts), refused past MAX_ANSWER_BYTES (InvalidSpec, every child kept):
 * every pod repeats the image and the command.
 */
export const answerBudget: AnswerBudget<Spec> = {
  estimate(spec, parent) {
    // Per pod: its image and arguments as JSON, plus ~640 bytes of labels (the template hash's ~40 among them) and
    // security context, and the names (the pod's own with `-pod`).
    let perPod = 640 + 4 * Buffer.byteLength(parent.metadata.name ?? '') + '-pod'.length + spec.image.length;
    for (const arg of spec.command) perPod += arg.length + 3;
    // And the pods' NetworkPolicy: its fixed fields and the names.
    return {
      bytes: perPod * spec.size + 1024 + 4 * Buffer.byteLength(parent.metadata.name ?? ''),
      what: `spec.size ${spec.size} pods of ~${kib(perPod)} each (image and command) and a NetworkPolicy`,
    };
  },
  advice: 'shorten spec.command or lower spec.size',
  maxBytes: MAX_ANSWER_BYTES,
  // Each pod comes back in every sync twice over (Metacontroller's last-applied copy of it) with what the API server
  // and the kubelet add: a spec whose pods, once they run, would make syncs past the body limit is refused here, before
  // any pod is made (docs/podset.md, Bounds).
  request(spec, parent) {
    const { bytes, perPod } = requestBytes(parent, spec);
    return { bytes, what: `spec.size ${spec.size} pods of ~${kib(perPod)} each as the API server stores them` };
  },
};

/** What the pods' names start with: `<podset>-pod`, or `<podset>` for a PodSet made before the `-pod-`. */
export function podBase(name: string, legacy = false): string {
  return legacy ? name : `${name}-pod`;
}

/** Pods are <base>-<ordinal>. */
export const podName = ordinalName;
export { ordinalOf };

/** Whether this PodSet names its pods as a metaops from before `-pod-` did: it has such a pod. */
export function legacyNames(request: CompositeSyncRequest): boolean {
  const name = request.parent.metadata.name;
  return observedUnordered(request.children, 'Pod', 'v1').some((p) => ordinalOf(name, p.metadata.name!) !== undefined);
}

/**
 * Whether a stored PodSet names its pods as a metaops from before `-pod-` did, read from its object alone (a parent
 * of another kind sees none of its pods): its status.nodes lists such a pod (legacyNames reads its pods). Its podNames
 * want pods under that one naming.
 */
export function legacyByStatus(holder: KubeObject): boolean {
  const name = holder.metadata.name ?? '';
  const nodes = (holder['status'] as { nodes?: unknown } | null | undefined)?.nodes;
  return (
    Array.isArray(nodes) &&
    (nodes as unknown[]).slice(0, MAX_SIZE).some((n) => typeof n === 'string' && ordinalOf(name, n) !== undefined)
  );
}

/**
 * The namings a stored PodSet may use now (lib/holders.ts namingsOf): before the `-pod-` when its status.nodes lists
 * such a pod (legacyByStatus), today's when its status records a sync, both when it records nothing (lost); of those,
 * the ones its name can make (a name too long for its pods under a naming makes none of them).
 */
export function namingsByStatus(holder: KubeObject): boolean[] {
  const name = holder.metadata.name ?? '';
  return namingsOf(
    holder,
    legacyByStatus(holder) ? true : undefined,
    (legacy) => podNameProblem(name, legacy) === undefined,
  );
}

/**
 * The names a PodSet's name makes: its label values (`app`, the instance: at most 63) and its pods' names (at the
 * highest ordinal a PodSet may have).
 */
export function nameProblem(parent: ParentObject, request: CompositeSyncRequest): string | undefined {
  return podNameProblem(parent.metadata.name ?? '', legacyNames(request));
}

/** What nameProblem refuses of a PodSet's name under one naming (`legacy`: pods `<name>-<i>`). */
function podNameProblem(name: string, legacy: boolean): string | undefined {
  return parentNameProblem(name, [
    { what: 'label app.kubernetes.io/instance', rule: 'labelValue' },
    {
      what: 'Pod',
      rule: 'dns1123Subdomain',
      suffix: podName(podBase('', legacy), MAX_SIZE - 1),
    },
  ]);
}

/**
 * How many bytes of the PodSet's own pods customize may have Metacontroller send again as related objects, at most:
 * below it, customize asks for every pod name whatever the status (childNames); past it, at most this many bytes' worth
 * of names of each form. Less when the pods themselves leave less room within MAX_REQUEST_BYTES (askAgainBytes).
 */
export const ASK_ALL_BYTES = 2 * 1024 * 1024;

/**
 * The bytes of the PodSet's own pods customize may ask for again: ASK_ALL_BYTES, or the room its pods, once they run,
 * and its parent leave within MAX_REQUEST_BYTES (requestBytes), if less; `perPod`, each such pod's bytes. From the
 * spec as written (any field may be malformed: what is not a string counts as empty).
 */
export function askAgainBytes(parent: ParentObject): { bytes: number; perPod: number } {
  const spec = parent.spec as { size?: unknown; image?: unknown; command?: unknown } | undefined;
  const image = typeof spec?.image === 'string' ? spec.image : '';
  const command = Array.isArray(spec?.command)
    ? (spec.command as unknown[]).filter((a): a is string => typeof a === 'string')
    : [];
  const size = Math.min(Math.max(0, Number(spec?.size) || 0), MAX_SIZE);
  const { bytes, perPod } = requestBytes(parent, { size, image, command });
  return { bytes: Math.max(0, Math.min(ASK_ALL_BYTES, MAX_REQUEST_BYTES - bytes)), perPod };
}

/**
 * The pods of the first batch of a PodSet none of whose pods is seen yet, at most (as the ReplicaSet controller's slow
 * start begins small): whatever an admission webhook adds to them, the sync after them carries few, and the rest are
 * made as the pods seen are measured (measure.ts). 32 pods of up to ~128 KB each as stored, sent twice, fit.
 */
export const FIRST_BATCH = 32;

/**
 * How many pods of the current template fit within MAX_REQUEST_BYTES, each `perPod` bytes in each sync, beside
 * `other.count` pods of `other.perPod` bytes each (those of older templates, and pods being deleted): its parent
 * (requestBytes), every pod once as a child, and the pods customize asks for again (at most askAgainBytes' worth of
 * names as the estimate counts them, whatever status the answer Metacontroller keeps was asked with: childNames),
 * each counted at the larger of the two. At least `size` when `perPod` is the estimate and there are no others
 * (answerBudget.request accepted the spec so).
 */
export function podsThatFit(
  parent: ParentObject,
  spec: { size: number; image: string; command: string[] },
  perPod: number,
  other: { count: number; perPod: number } = { count: 0, perPod: 0 },
): number {
  const room = askAgainBytes(parent);
  const again = Math.floor(room.bytes / room.perPod);
  const parentBytes = besidePodsBytes(parent, spec);
  const budget = MAX_REQUEST_BYTES - parentBytes - other.count * other.perPod;
  const largest = Math.max(perPod, other.perPod);
  // At least `again` pods in all: `again` of them sent twice.
  const past = Math.floor((budget - again * largest) / perPod);
  if (past + other.count >= again) return Math.max(0, past);
  // Fewer: each of them sent twice.
  const within = Math.floor((budget - other.count * largest) / (perPod + largest));
  return Math.max(0, Math.min(within, again - other.count));
}

/**
 * The names a PodSet's pods may take: each ordinal below its size (at most the maximum), in either form. Asked for by
 * name whatever the status: Metacontroller keeps a customize answer until the parent's generation changes (v1.5.20;
 * v4.17 up to 20 minutes) and a status write does not change it, so an answer that left out the pods status.nodes
 * listed would not ask for one deleted since (a rollout's, an evicted one) that the PodSet makes again, and another
 * owner's pod made under that name meanwhile would not be seen (docs/podset.md). The PodSet's own pods are then sent
 * twice (as children and as related objects). For a PodSet whose pods would be more than askAgainBytes so (at most
 * ASK_ALL_BYTES, less when its pods leave less room within the body limit), the names its status lists are left out,
 * and of those it does not list at most askAgainBytes' worth of each form, the lowest ordinals first: the answer
 * Metacontroller keeps may be one asked when the status listed none of the pods that run now (the PodSet was new, or
 * its status was lost: a restore from a backup writes none), and asking for every name then would send all of them
 * twice with each sync, past the body limit (refused, so that no status is ever written to narrow the ask again). Its
 * own pods are of one form: at most askAgainBytes of them are sent twice, whatever the status the answer was asked
 * with (docs/operating.md).
 */
export function childNames(parent: ParentObject): ChildName[] {
  const name = parent.metadata.name;
  const spec = parent.spec as { size?: unknown } | undefined;
  // Not a number (a spec the CRD would refuse): NaN, so no name.
  const count = Math.min(Number(spec?.size), MAX_SIZE);
  const listed = (parent.status as { nodes?: unknown } | null | undefined)?.nodes;
  const room = askAgainBytes(parent);
  const perForm = Math.floor(room.bytes / room.perPod);
  const askAll = count <= perForm;
  const have = new Set(!askAll && Array.isArray(listed) ? listed.slice(0, MAX_SIZE) : []);
  const names: ChildName[] = [];
  const forms = [podBase(name), podBase(name, true)].map((base) => ({ base, asked: 0 }));
  for (let i = 0; i < count; i++) {
    for (const form of forms) {
      const pod = podName(form.base, i);
      if (have.has(pod) || (!askAll && form.asked >= perForm)) continue;
      form.asked++;
      names.push({ apiVersion: 'v1', kind: 'Pod', name: pod });
    }
  }
  // Its pods' NetworkPolicy, when its name makes pods under a naming it may use (one refused for its name makes
  // nothing and wants no name: lib/holders.ts).
  if (namingsByStatus(parent).length > 0)
    names.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', name: networkPolicyName(name) });
  return names;
}

/** The labels every pod of a PodSet carries. */
export function podLabels(parent: ParentObject): Record<string, string> {
  const name = parent.metadata.name;
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
    // The spec's image and command call no Kubernetes API: no token of the namespace's default ServiceAccount
    // (issue 29). Part of the template hash: pods made before it are replaced by the rollout, one at a time.
    automountServiceAccountToken: false,
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

/** How many pods fit, and why not more (podsWithin). */
interface Fit {
  size: number;
  current: number;
  fit: number;
  perPod: number;
  added: number;
  seen: boolean;
  unmade: number;
}

/**
 * What the status says of pods left unmade for the body limit: while no pod is seen yet, Progressing (they are made
 * in batches); once pods are measured, Ready and Progressing False `RequestTooLarge` (a Warning event, index.ts)
 * naming the size measured per pod and how many fit. Nothing when every pod is made.
 */
function limitCondition(f: Fit): { ready?: ConditionInput; progressing?: ConditionInput } {
  if (f.unmade === 0) return {};
  if (!f.seen)
    return {
      progressing: {
        type: 'Progressing',
        status: true,
        reason: 'ScalingUp',
        message: `${f.current} of ${f.size} members exist; ${f.fit} made first, the rest once these are seen as the API server stores them (with what admission webhooks add, their size decides how many fit in a sync request)`,
      },
    };
  const message = `each pod comes back in every sync request as ~${kib(f.perPod)} (~${kib(f.added)} of it added to what the PodSet answered, by admission webhooks or other writers: sidecars, volumes, labels), so ${f.fit} of ${f.size} pods fit within the ${mib(MAX_REQUEST_BYTES)} a request to the hooks may have; the ${f.current} that exist are kept and ${f.unmade} are not made: lower spec.size to ${f.fit}, or keep the webhook from adding to these pods`;
  const condition = (type: string): ConditionInput => ({ type, status: false, reason: 'RequestTooLarge', message });
  return { ready: condition('Ready'), progressing: condition('Progressing') };
}

/** The image and command of a pod's own container as observed (the spec's where it has none that reads). */
function templateOf(pod: KubeObject, spec: Spec): { image: string; command: string[] } {
  const containers = (pod['spec'] as { containers?: unknown } | undefined)?.containers;
  const own = Array.isArray(containers)
    ? (containers as unknown[]).find(
        (c): c is Record<string, unknown> =>
          Boolean(c) && typeof c === 'object' && CONTAINERS.has((c as { name?: unknown }).name as string),
      )
    : undefined;
  const image = typeof own?.['image'] === 'string' ? own['image'] : spec.image;
  const command = Array.isArray(own?.['command'])
    ? (own['command'] as unknown[]).filter((a): a is string => typeof a === 'string')
    : spec.command;
  return { image, command };
}

/** What the pods weigh in each sync (podsWithin): those of the current template, and the others. */
interface Weight {
  /** What each pod of the current template carries beyond the estimate (measured, or INJECTED_POD_BYTES). */
  added: number;
  perPod: number;
  other: { count: number; perPod: number };
}

/** What podsWithin found: the members not made, what the status says, and why a rollout may not replace a pod. */
interface Within {
  unmade: Set<string>;
  limited: { ready?: ConditionInput; progressing?: ConditionInput };
  /** Why the candidate's replacement would not be made (planRollout's `blocked`), or undefined. */
  blocked: (candidate: Member) => string | undefined;
}

/**
 * The missing members not made because they would not fit within the body limit (podsThatFit), and what the status
 * says of them. Every pod observed is counted at what the pods of its kind weigh, measured on a few of them: those
 * of the current template (and those to make) as the estimate counts them plus what the pods seen carry beyond it
 * (an admission webhook's sidecar, a restart's termination message: measured on those of the current template, or on
 * the others while none is seen), or, while no pod is seen at all, what such a webhook may add (INJECTED_POD_BYTES; at
 * most FIRST_BATCH made then); the others (older templates, pods being deleted) each as its own image and command
 * make it plus what it carries beyond it. Missing pods are made, the lowest ordinals first, while the pods observed
 * and those made fit; a pod that exists is never deleted for this, nor replaced by a rollout for a pod that would not
 * fit. The pods are weighed only when a missing pod could be made or a pod replaced: otherwise nothing depends on it.
 */
function podsWithin(
  parent: ParentObject,
  spec: Spec,
  base: string,
  members: readonly Member[],
  observedPods: KubeObject[],
): Within {
  const current = byOrdinal(
    base,
    members.filter((m) => m.current).map((m) => m.pod!),
  );
  const currentNames = new Set(current.map((p) => p.metadata.name));
  const others = byOrdinal(
    base,
    observedPods.filter((p) => !currentNames.has(p.metadata.name)),
  );
  const answered: Answered = {
    containers: CONTAINERS,
    labels: new Set([...Object.keys(podLabels(parent)), TEMPLATE_HASH_LABEL]),
  };
  const seen = observedPods.length > 0;
  // What the pods weigh, measured only when a pod is to be made (a member absent) or replaced (blocked): in a sync
  // with neither, nothing it measures reaches the answer, and a steady PodSet's every resync is such a sync.
  // perf: docs/performance.md (the measure was ~27% of a 10-pod sync's CPU, none of it used).
  let weighed: Weight | undefined;
  const weigh = (): Weight => {
    if (weighed) return weighed;
    const added = seen ? measuredAddedBytes(current.length > 0 ? current : others, answered) : INJECTED_POD_BYTES;
    const other = {
      count: others.length,
      perPod: measuredMost(others, (p) => storedPodBytes(parent, templateOf(p, spec)) + addedPodBytes(p, answered)),
    };
    weighed = { added, perPod: storedPodBytes(parent, spec) + added, other };
    return weighed;
  };
  const unmade = new Set<string>();
  const absent = members.filter((m) => m.state === 'absent');
  let fitCurrent = 0;
  if (absent.length > 0) {
    const { perPod, other } = weigh();
    fitCurrent = podsThatFit(parent, spec, perPod, other);
    let room = Math.max(fitCurrent - current.length, seen ? 0 : 1);
    if (!seen) room = Math.min(room, FIRST_BATCH);
    for (const m of absent) {
      if (room > 0) room--;
      else unmade.add(m.name);
    }
  }
  const lowestUnmade = Math.min(...[...unmade].map((n) => ordinalOf(base, n) ?? Infinity));
  const blocked = (candidate: Member): string | undefined => {
    // Once the candidate is deleted, its replacement is made if it fits beside the others left, and no member left
    // unmade comes before it (the lowest ordinals are made first).
    const { perPod, other } = weigh();
    const after = podsThatFit(parent, spec, perPod, { count: other.count - 1, perPod: other.perPod });
    if (after > current.length && (ordinalOf(base, candidate.name) ?? Infinity) < lowestUnmade) return undefined;
    return `its replacement, ~${kib(perPod)} in every sync request, would not fit within the ${mib(MAX_REQUEST_BYTES)} a request to the hooks may have beside the ${observedPods.length - 1} other pods (RequestTooLarge): the running pod is kept; lower spec.size, or keep a webhook from adding to these pods`;
  };
  if (unmade.size === 0) return { unmade, limited: {}, blocked };
  const { perPod, added } = weigh();
  const live = members.filter((m) => m.state === 'live').length;
  // While none is seen: how many are made first (the first batch).
  const fit = Math.max(1, Math.min(spec.size, others.length + fitCurrent, seen ? Infinity : FIRST_BATCH));
  return {
    unmade,
    limited: limitCondition({ size: spec.size, current: live, fit, perPod, added, seen, unmade: unmade.size }),
    blocked,
  };
}

/**
 * The members whose pod is being deleted: made again only once it is gone, named past the progress deadline (a pod
 * stuck Terminating on a lost node waits for kubectl delete --force: lib/replicas.ts stalled).
 */
function membersBeingDeleted(members: readonly Member[], observedPods: readonly KubeObject[]): string[] {
  const deleting = new Set<string>();
  for (const p of observedPods) if (isTerminating(p)) deleting.add(p.metadata.name!);
  return members.filter((m) => m.state === 'going' && deleting.has(m.name)).map((m) => m.name);
}

/** What its `count` pods reach without their NetworkPolicy, in words (undefined: none run). */
function runningWithout(count: number): string | undefined {
  return count > 0
    ? `${count} pod(s) run the spec's image and command without it: they reach the instance metadata service`
    : undefined;
}

/**
 * What the status says of its pods' NetworkPolicy while `running` pods run: the namespace's own policies govern their
 * egress (none answered: NamespaceGovernsEgress), or they run without it (lib/network-policy.ts podsPolicies, as the
 * answers that keep the observed children say it: kept), unless its name is another owner's (held: its Ready says so).
 */
function policyConditions(
  request: CompositeSyncRequest,
  options: {
    policy: KubeObject | undefined;
    complement: readonly KubeObject[];
    governance: NamespaceGovernance;
    settings: WorkloadNetworkSettings | undefined;
    running: number;
  },
  now: Date,
): ConditionInput[] {
  const { policy, governance, settings, running } = options;
  const name = networkPolicyName(request.parent.metadata.name ?? '');
  if (governance.egress && settings?.workloadNetworkPolicy !== false && running > 0) {
    // The complement policies first: while one is not observed, the pods it selects run without any.
    const complement = options.complement.map((p) => ({ policy: p, running: runningWithout(running) }));
    const { free, condition } = podsPolicies(request, { kind: 'PodSet', policies: complement }, now);
    if (condition) return [condition];
    const names = free.map((p) => p.policy.metadata.name!);
    return [namespaceGovernsCondition(governance.egressBy, { name, created: false, complement: names })];
  }
  const { condition } = podsPolicies(
    request,
    { kind: 'PodSet', policies: [{ policy, running: runningWithout(running) }] },
    now,
  );
  if (condition) return [condition];
  if (governance.egressDoubt && policy && running > 0) return [egressDoubtCondition(governance.egressDoubt, { name })];
  return [];
}

export function sync({
  request,
  parent,
  spec,
  now,
  settings,
}: SyncHook<Spec, unknown, WorkloadNetworkSettings>): CompositeSyncResponse {
  const name = parent.metadata.name ?? '';
  const base = podBase(name, legacyNames(request));

  const observedPods = observedUnordered(request.children, 'Pod', 'v1');
  // A pod that has finished (evicted, OOM-killed under restartPolicy Never, completed) never runs again: it is
  // left out of this answer, so Metacontroller deletes it, and once it is gone it is created again under its name.
  const finished = new Set<string>();
  for (const p of observedPods) if (isFinished(p)) finished.add(p.metadata.name!);
  const pods = byOrdinal(
    base,
    observedPods.filter((p) => !isTerminating(p) && !isFinished(p)),
  );
  const live = new Map<string, KubeObject>();
  for (const p of pods) live.set(p.metadata.name!, p);
  // A member observed but not live is being deleted, or finished (and left out below): going, made again once gone.
  const seen = new Set<string>();
  for (const p of observedPods) seen.add(p.metadata.name!);

  const template = podSpec(spec);
  const labels = podLabels(parent);
  const hash = templateHash(labels, template);
  labels[TEMPLATE_HASH_LABEL] = hash;
  const members: Member[] = [];
  for (let i = 0; i < spec.size; i++) {
    const podNamed = podName(base, i);
    const pod = live.get(podNamed);
    if (pod) members.push(liveMember(podNamed, pod, hash, spec, now));
    else members.push({ name: podNamed, state: seen.has(podNamed) ? 'going' : 'absent' });
  }

  const { unmade, limited, blocked } = podsWithin(parent, spec, base, members, observedPods);
  const rollout = planRollout(unmade.size > 0 ? members.filter((m) => !unmade.has(m.name)) : members, hash, blocked);

  // The answer: the current template for every member but the outdated pods, which stay as they are (OnDelete:
  // Metacontroller changes no pod in place either way) until the rollout replaces them; left out: the pod the
  // rollout replaces now, finished pods, pods beyond the size, and missing pods that would not fit.
  const children: KubeObject[] = [];
  for (const m of members) {
    if (m.name === rollout.replace || finished.has(m.name) || unmade.has(m.name)) continue;
    children.push(m.pod && !m.current ? keepObserved(m.pod) : pod(parent, m.name, labels, template));
  }
  // What the pods (the spec's image and command) may reach: not the instance metadata service (lib/network-policy.ts).
  // Not where the namespace's own policies govern their egress (ours would add to it): the status says so.
  const governance = governanceOf(request, children, settings);
  const policy = networkPolicy(parent, settings, governance);
  // Where they select some of its pods: metaops' egress policies of the others (those none of them selects).
  const complement = complementPolicies(parent, settings, governance);
  children.push(...[policy].filter((p): p is KubeObject => p !== undefined), ...complement);
  // While its pods' egress changes hands between `<name>-podset` and the `-egress-` policies, the observed ones are
  // kept until their replacements are observed (lib/network-policy.ts egressHandover).
  const handed = egressHandover(request, children, {
    main: networkPolicyName(name),
    mainWithEgress: networkPolicy(parent, settings),
  }) as KubeObject[];
  children.splice(0, children.length, ...handed);
  const unguarded = policyConditions(request, { policy, complement, governance, settings, running: pods.length }, now);
  const ready = pods.filter(isPodReady).length;
  const counts = { desired: spec.size, current: pods.length, ready, updated: rollout.updated, exists: true };
  const status = memberStatus(
    parent,
    counts,
    pods.map((p) => p.metadata.name!),
    now,
    {
      selector: selectorString(APP, name),
      // Degraded: pods whose own container fails (a crash loop, an image that cannot be pulled; a sidecar another
      // writer added is not read), named; told as a Warning (index.ts).
      extra: [rollout.condition, podsDegraded(pods, CONTAINERS), ...unguarded],
      ...limited,
      going: membersBeingDeleted(members, observedPods),
      ...podsNotReady(pods, CONTAINERS),
      deadlineSeconds: spec.progressDeadlineSeconds,
    },
  );
  status['updatedReplicas'] = rollout.updated;
  status['templateHash'] = hash;
  const response: CompositeSyncResponse = { status, children };
  // Pods missing or not Ready: looked at again by the deadline at the latest, so that it is noticed.
  const waitingFor = (counts.current < counts.desired || ready < counts.current) && !limited.ready;
  const again = resyncAfter(rollout, waitingFor ? spec.progressDeadlineSeconds : undefined, unguarded[0]);
  if (again !== undefined) response.resyncAfterSeconds = again;
  return response;
}

/**
 * What a PodSet served (lib/ownership.ts HeldOptions.served): from its status (Ready, Ready pods counted) and, the
 * status lost, from its pods (its children): one Ready, or one whose container ever started (it ran the spec's command,
 * which may have done work). Undefined when none: made together with a parent made before it that wants its pod names
 * (EtcdCluster `<name>-pod`, whose members are `<name>-pod-<i>`), it yields: it releases the pods that parent wants
 * (Metacontroller deletes them; none of them ever ran) and makes its others whose names are free.
 */
export function served(request: CompositeSyncRequest): string | undefined {
  const said = servedByStatus(request.parent);
  if (said) return said;
  const ran = observedUnordered(request.children, 'Pod', 'v1').find((p) => isPodReady(p) || containersStarted(p));
  return ran ? `its pod ${ran.metadata.name} ran` : undefined;
}

/**
 * When to look again. Metacontroller creates the pods and tells the hook nothing when it cannot: while pods are
 * missing or not Ready (`deadline`: spec.progressDeadlineSeconds), every minute, or just past the deadline when it is
 * shorter, so that the progress deadline (lib/replicas.ts) is noticed without an unrelated event. A
 * rollout goes on at each pod's change; it also looks again on its own. Pods running without their NetworkPolicy:
 * to say whether it was created (lib/network-policy.ts policyResync).
 */
function resyncAfter(
  rollout: { outdated: number; recheckIn?: number | undefined },
  deadline: number | undefined,
  unguarded: ConditionInput | undefined,
): number | undefined {
  let again: number | undefined;
  if (rollout.outdated > 0) again = Math.min(ROLLOUT_RESYNC_SECONDS, rollout.recheckIn ?? Infinity);
  else if (deadline !== undefined) again = Math.min(MISSING_PODS_RESYNC_SECONDS, deadline + 1);
  const policy = policyResync(unguarded);
  return policy === undefined ? again : Math.min(again ?? Infinity, policy);
}
