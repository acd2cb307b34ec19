// What a parent being deleted keeps of its pods' NetworkPolicy (the one that keeps the pods running a tenant's image
// from the cloud's instance metadata service: EtcdCluster's members and restore check, PodSet's `<name>-podset`,
// Memcached's `<name>-memcached`). A pod asked to stop runs its containers for its grace period (30 s by default, more
// on a node that stopped reporting), and an image that reads 169.254.169.254 on SIGTERM would read the node's role the
// moment the policy went with the pods. So each of those kinds' finalize answers its observed policy, and only it,
// while pods it selects are observed, for at most POLICY_KEPT_AT_DELETION_SECONDS after the parent's
// deletionTimestamp: a deletion never waits longer on a pod a lost node never ends (docs/operating.md, Tenants).
import type { ConditionInput } from './conditions.js';
import type { EventSpec } from './events.js';
import { conditionsKeepingOthers, currentStatus } from './hook.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject, ParentObject } from './metacontroller.js';
import { observedComplementPolicies } from './network-policy.js';
import { observedNamed, textOf } from './objects.js';

/**
 * How long after its parent's deletion a pods' NetworkPolicy is kept while its pods are observed: the pods' grace
 * period (30 s, none set) with room for Metacontroller's calls and the kubelet's confirmation. Past it the policy goes
 * whatever pods are left.
 */
export const POLICY_KEPT_AT_DELETION_SECONDS = 120;

/** How often a finalize that keeps a policy asks to be called again (a pod that never changes wakes nothing). */
export const KEEPING_RESYNC_SECONDS = 5;

/**
 * Seconds since the parent's deletionTimestamp (0 for one in the future: a clock behind the API server's), or
 * undefined when it has none that reads as a time.
 */
export function secondsSinceDeletion(parent: ParentObject, now: Date): number | undefined {
  // Stryker disable next-line StringLiteral: any fallback that is no time parses as NaN, as '' does
  const since = Date.parse(textOf(parent.metadata?.deletionTimestamp, ''));
  if (!Number.isFinite(since)) return undefined;
  return Math.max(0, (now.getTime() - since) / 1000);
}

/** Whether a deleted parent is still within POLICY_KEPT_AT_DELETION_SECONDS of its deletion. */
export function withinDeletionBound(parent: ParentObject, now: Date): boolean {
  const age = secondsSinceDeletion(parent, now);
  return age !== undefined && age < POLICY_KEPT_AT_DELETION_SECONDS;
}

/**
 * The NetworkPolicy `name` a deleted parent's finalize answers, or undefined: only one observed among its children
 * (a policy of that name another owner holds is not the parent's child, and nothing is made while it is deleted),
 * only while `waiting` (the parent's pods it selects, running or in their grace period, as the kind observes them:
 * undefined when the kind cannot observe them, and then for the bound alone) is not empty, and only within
 * POLICY_KEPT_AT_DELETION_SECONDS of the deletion. Answered as `answer` makes it from the observed one (the kind's
 * sync answers it so: what is stored is not changed, and the pods it selects stay selected).
 */
export function policyKeptAtDeletion(
  request: CompositeSyncRequest,
  options: {
    name: string;
    waiting: readonly KubeObject[] | undefined;
    answer: (observed: KubeObject) => KubeObject | undefined;
  },
  now: Date,
): KubeObject | undefined {
  if (!withinDeletionBound(request.parent, now)) return undefined;
  if (options.waiting !== undefined && options.waiting.length === 0) return undefined;
  const observed = observedNamed(request.children, 'NetworkPolicy', 'networking.k8s.io/v1', options.name);
  return observed ? options.answer(observed) : undefined;
}

/**
 * The complement policies of the pods' policy `name` (lib/network-policy.ts egressComplementPolicies,
 * `<name>-egress-<i>`) a deleted parent's finalize answers: those observed, as stored, on the terms of
 * policyKeptAtDeletion (pods it waits for, within the bound).
 */
export function complementKeptAtDeletion(
  request: CompositeSyncRequest,
  options: { name: string; waiting: readonly KubeObject[] | undefined },
  now: Date,
): KubeObject[] {
  if (!withinDeletionBound(request.parent, now)) return [];
  if (options.waiting !== undefined && options.waiting.length === 0) return [];
  return observedComplementPolicies(request, options.name);
}

/** The podSelector.matchLabels of an observed NetworkPolicy (strings only), or undefined when it has none to read. */
export function policyMatchLabels(policy: KubeObject | undefined): Record<string, string> | undefined {
  const labels = (policy?.['spec'] as { podSelector?: { matchLabels?: unknown } } | undefined)?.podSelector
    ?.matchLabels;
  if (!labels || typeof labels !== 'object' || Array.isArray(labels)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Whether a pod carries every label of `labels` (a policy's matchLabels): the policy applies to it. */
export function podSelected(pod: KubeObject, labels: Record<string, string>): boolean {
  const own = pod.metadata?.labels;
  if (!own || typeof own !== 'object') return false;
  return Object.entries(labels).every(([k, v]) => (own as Record<string, unknown>)[k] === v);
}

/** At most this many pods are named in a condition's message (the rest counted). */
const NAMED_PODS = 5;

/** Pod names for a message: the first NAMED_PODS, the rest counted; each name read by type. */
export function podList(pods: readonly KubeObject[]): string {
  const names = pods.slice(0, NAMED_PODS).map((p) => textOf(p.metadata?.name, '?'));
  return names.join(', ') + (pods.length > NAMED_PODS ? ` and ${pods.length - NAMED_PODS} more` : '');
}

/** The time, as RFC 3339 without milliseconds, at which the bound ends for this parent (or undefined). */
function boundEnd(parent: ParentObject): string | undefined {
  // Stryker disable next-line StringLiteral: any fallback that is no time parses as NaN, as '' does
  const since = Date.parse(textOf(parent.metadata?.deletionTimestamp, ''));
  if (!Number.isFinite(since)) return undefined;
  return new Date(since + POLICY_KEPT_AT_DELETION_SECONDS * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The Finalized condition of a deleted parent that keeps its pods' policy (`KeepingNetworkPolicy`: which pods it waits
 * for, or that it waits on time alone when `waiting` is undefined, and until when at most).
 */
export function keepingCondition(
  parent: ParentObject,
  options: { policy: string; kind: string; waiting: readonly KubeObject[] | undefined },
): ConditionInput {
  const until = boundEnd(parent);
  const what =
    options.waiting === undefined
      ? `its pods are not listed to this hook (docs), so it is kept for ${POLICY_KEPT_AT_DELETION_SECONDS} s after the deletion`
      : `${options.waiting.length} pod(s) of this ${options.kind} are still observed (${podList(options.waiting)}): they run its image until they stop`;
  return {
    type: 'Finalized',
    status: false,
    reason: 'KeepingNetworkPolicy',
    message:
      `NetworkPolicy ${options.policy} is kept while the pods it keeps from the instance metadata service stop: ${what}; ` +
      `released once none is observed, at the latest ${POLICY_KEPT_AT_DELETION_SECONDS} s after the deletion` +
      (until ? ` (${until})` : ''),
  };
}

/**
 * The Warning a parent released with pods still observed gets (the bound passed: a node that stopped reporting, a
 * pod's finalizer): they run without the policy until they stop.
 */
export function outlivedNote(options: { policy: string; kind: string; pods: readonly KubeObject[] }): string {
  return (
    `released ${POLICY_KEPT_AT_DELETION_SECONDS} s after the deletion with ${options.pods.length} pod(s) of this ` +
    `${options.kind} still observed (${podList(options.pods)}): NetworkPolicy ${options.policy} goes, and they reach ` +
    `the instance metadata service until they stop (a pod on a node that stopped reporting stops when the node is ` +
    `back or removed)`
  );
}

/**
 * The finalize of a kind whose only child worth keeping at deletion is its pods' NetworkPolicy `name` (PodSet,
 * Memcached): every other child is let go (Metacontroller deletes what the answer leaves out: the pods, a Deployment,
 * a Service), the policy is answered while `waiting` pods are observed (policyKeptAtDeletion), the status says so
 * (Finalized=False KeepingNetworkPolicy: which pods, until when) and the parent is released (`finalized`) once it is
 * not: no pod observed, no policy of its own observed (none to keep: the server's setting off, its name another
 * owner's), or the bound passed. Released with pods still observed, a Warning Event (`NetworkPolicyReleased`) says
 * which ones run on without it. Nothing is read from the status: a parent whose status was lost is answered the same.
 */
export function finalizeKeepingPolicy(
  request: CompositeSyncRequest,
  options: {
    name: string;
    kind: string;
    waiting: readonly KubeObject[] | undefined;
    answer: (observed: KubeObject) => KubeObject | undefined;
  },
  now: Date,
  event: (e: EventSpec) => void = () => undefined,
): CompositeSyncResponse {
  const parent = request.parent;
  const status = currentStatus(parent);
  const policy = policyKeptAtDeletion(request, options, now);
  // The complement policies (`<name>-egress-<i>`, where the namespace's policies selected some of the pods for
  // egress) are kept the same way, as observed.
  const complement = complementKeptAtDeletion(request, options, now);
  const kept = [...(policy ? [policy] : []), ...complement];
  if (kept.length > 0) {
    const names = kept.map((p) => p.metadata.name!).join(', ');
    const condition = keepingCondition(parent, { policy: names, kind: options.kind, waiting: options.waiting });
    const left = POLICY_KEPT_AT_DELETION_SECONDS - (secondsSinceDeletion(parent, now) ?? 0);
    return {
      status: { ...status, conditions: conditionsKeepingOthers(request, [condition], now) },
      children: kept,
      finalized: false,
      resyncAfterSeconds: Math.max(1, Math.min(KEEPING_RESYNC_SECONDS, Math.ceil(left))),
    };
  }
  const had =
    observedNamed(request.children, 'NetworkPolicy', 'networking.k8s.io/v1', options.name) ??
    observedComplementPolicies(request, options.name)[0];
  const left = options.waiting ?? [];
  if (had && left.length > 0)
    event({
      type: 'Warning',
      reason: 'NetworkPolicyReleased',
      action: 'Finalize',
      note: outlivedNote({ policy: options.name, kind: options.kind, pods: left }),
    });
  return { status, children: [], finalized: true };
}
