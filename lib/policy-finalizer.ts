// What keeps a pods' NetworkPolicy (EtcdCluster's `<name>-members` and `<name>-restore-check`, PodSet's
// `<name>-podset`, Memcached's `<name>-memcached`: the ones that keep a tenant's image from the cloud's instance
// metadata service) in place while the pods it selects stop, however it is deleted. A parent's finalize keeps it when
// the parent is deleted the default way (lib/policy-at-deletion.ts); but a parent deleted with
// `--cascade=foreground` has Kubernetes' garbage collector delete every child at once, the policy included, while the
// pods run their grace period. So a DecoratorController of metaops' own decorates those policies (by their labels)
// with a finalize hook: Metacontroller puts its finalizer on each (it has the rights; the hook server needs none) and
// removes it once the finalize answers `finalized: true`: when no pod the policy selects is observed any more, at the
// latest POLICY_KEPT_AT_DELETION_SECONDS after the policy's own deletionTimestamp (a pod on a node that stopped
// reporting never ends, and a deletion never waits on it for good). A policy being deleted is still enforced by the
// CNI until it is gone. docs/operating.md, Tenants.
import { MANAGED_BY } from './labels.js';
import type {
  CustomizeRequest,
  CustomizeResponse,
  DecoratorSyncRequest,
  DecoratorSyncResponse,
  KubeObject,
  ParentObject,
} from './metacontroller.js';
import { selectorSelects } from './network-policy.js';
import { isRecord, isTerminal, observedUnordered, textOf } from './objects.js';
import { KEEPING_RESYNC_SECONDS, POLICY_KEPT_AT_DELETION_SECONDS, secondsSinceDeletion } from './policy-at-deletion.js';

/** The labels every pods' NetworkPolicy metaops makes carries (lib/labels.ts childLabels(..., 'network-policy')). */
export const PODS_POLICY_LABELS = {
  'app.kubernetes.io/component': 'network-policy',
  'app.kubernetes.io/managed-by': MANAGED_BY,
} as const;

/** At most this many matchLabels of a policy's podSelector are asked for (metaops' own policies carry 2-4). */
const MAX_SELECTOR_LABELS = 16;

/**
 * The matchLabels (strings only) of a policy's podSelector, or undefined when it has none to ask pods by (absent,
 * empty, not a map, too many): such a policy is kept for the bound alone (an empty selector would ask for every pod
 * of the namespace, without a bound).
 */
export function podSelectorLabels(policy: KubeObject): Record<string, string> | undefined {
  const spec = policy['spec'];
  const selector = isRecord(spec) ? spec['podSelector'] : undefined;
  const labels = isRecord(selector) ? selector['matchLabels'] : undefined;
  if (!isRecord(labels)) return undefined;
  const keys = Object.keys(labels);
  if (keys.length === 0 || keys.length > MAX_SELECTOR_LABELS) return undefined;
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = labels[k];
    if (typeof v !== 'string') return undefined;
    out[k] = v;
  }
  return out;
}

/**
 * The decorator's customize: nothing while the policy lives; once it is being deleted (its generation moves, which
 * keys Metacontroller's cache of these answers), the pods of its namespace carrying its podSelector's matchLabels
 * (a rule by labels and without a namespace: Metacontroller lists it in the policy's namespace, and the hook keeps
 * only that namespace's objects). The same for every policy of one name and selector (Metacontroller v1.5.20 caches
 * these answers by name and generation alone: docs/metacontroller.md).
 */
export function podsPolicyCustomize(request: CustomizeRequest): CustomizeResponse {
  // Metacontroller sends a DecoratorController's object as `parent` in a customize request (v4.17.2
  // pkg/controller/common/customize/api/v1/hooks.go L30, v1.5.20 hook.go L20), as `object` in sync and finalize.
  const policy = request.parent ?? request.object;
  if (!policy || !policy.metadata?.deletionTimestamp) return { relatedResources: [] };
  const labels = podSelectorLabels(policy);
  if (!labels) return { relatedResources: [] };
  return { relatedResources: [{ apiVersion: 'v1', resource: 'pods', labelSelector: { matchLabels: labels } }] };
}

/** A pod's labels, strings only. */
function labelsOf(pod: KubeObject): Record<string, string> {
  const own = pod.metadata?.labels;
  const out: Record<string, string> = {};
  if (!isRecord(own)) return out;
  for (const [k, v] of Object.entries(own)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * The pods the policy selects that still run (observed among the related objects, in the policy's namespace, not
 * ended), or undefined when none were asked for (podSelectorLabels: the policy is kept for the bound alone).
 */
export function podsStillSelected(request: DecoratorSyncRequest): KubeObject[] | undefined {
  const policy = request.object;
  if (!podSelectorLabels(policy)) return undefined;
  const namespace = textOf(policy.metadata?.namespace, 'default');
  const spec = policy['spec'];
  const selector = isRecord(spec) ? spec['podSelector'] : undefined;
  return observedUnordered(request.related, 'Pod', 'v1').filter(
    (pod) =>
      textOf(pod.metadata?.namespace, 'default') === namespace &&
      !isTerminal(pod) &&
      selectorSelects(selector, labelsOf(pod)),
  );
}

/** The decorator's sync: nothing to add to a policy (its finalizer is Metacontroller's, put on by the finalize hook). */
export function podsPolicySync(): DecoratorSyncResponse {
  return { attachments: [] };
}

/**
 * The decorator's finalize: a policy being deleted is held (`finalized: false`, called again within
 * KEEPING_RESYNC_SECONDS) while a pod it selects is observed, or, when it selects none by labels it can ask for, for
 * the bound alone; released once no such pod is observed, or POLICY_KEPT_AT_DELETION_SECONDS after its own
 * deletionTimestamp whatever is left. One not being deleted (a call out of turn) is not released. Pure: the same
 * observed state, the same answer.
 */
export function podsPolicyFinalize(request: DecoratorSyncRequest, now: Date): DecoratorSyncResponse {
  const policy: ParentObject = request.object;
  const age = secondsSinceDeletion(policy, now);
  if (age === undefined) return { attachments: [], finalized: false };
  if (age >= POLICY_KEPT_AT_DELETION_SECONDS) return { attachments: [], finalized: true };
  const pods = podsStillSelected(request);
  if (pods !== undefined && pods.length === 0) return { attachments: [], finalized: true };
  return held(age);
}

/** A policy held `age` seconds after its deletion: called again within KEEPING_RESYNC_SECONDS, and at the bound. */
function held(age: number): DecoratorSyncResponse {
  const left = POLICY_KEPT_AT_DELETION_SECONDS - age;
  return {
    attachments: [],
    finalized: false,
    resyncAfterSeconds: Math.max(1, Math.min(KEEPING_RESYNC_SECONDS, Math.ceil(left))),
  };
}

/**
 * The decorator's finalize of a request over the body limit (lib/hook-routes.ts: the pods the policy selects are more
 * than a request may carry, a Memcached of 1000 pods with sidecars), from the start of its body alone: the policy's
 * deletionTimestamp. Released POLICY_KEPT_AT_DELETION_SECONDS after it, as podsPolicyFinalize releases it whatever
 * pods are left; before, held as while a selected pod is observed (so many pods are not all gone) and called again,
 * until its pods are few enough for a request that is read, or the bound. Undefined (refused unread, as any request
 * over the limit) for one whose start holds no deletionTimestamp: it is not being deleted, or its metadata is larger
 * than the start read. Pure: the same start, the same answer.
 */
export function podsPolicyFinalizeOversized(policy: ParentObject, now: Date): DecoratorSyncResponse | undefined {
  const age = secondsSinceDeletion(policy, now);
  if (age === undefined) return undefined;
  if (age >= POLICY_KEPT_AT_DELETION_SECONDS) return { attachments: [], finalized: true };
  return held(age);
}
