// What a controller under hooks/ declares, and the answers every controller shares.
import type { TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import { buildConditions, previousConditions, type ConditionInput } from './conditions.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  DecoratorSyncRequest,
  DecoratorSyncResponse,
  KubeObject,
  LabelSelector,
  ParentObject,
  RelatedResourceRule,
  Status,
} from './metacontroller.js';
import {
  allObserved,
  isPodReady,
  isTerminal,
  isTerminating,
  keepObserved,
  observedUnordered,
  statusNumber,
} from './objects.js';
import type { AnswerBudget } from './budget.js';
import type { EventRecorder } from './events.js';
import type { KubeApi } from './kube.js';

/** What lib/ offers every operator: the clock, randomness, the Kubernetes API and Events. */
export interface Services {
  /** The clock, read once per hook call for condition timestamps. */
  now(): Date;
  /** A new random secret of this many bytes of entropy, URL-safe base64. */
  randomSecret(bytes: number): string;
  /** The Kubernetes API, for what Metacontroller cannot write (ephemeral containers, Events); created on first use. */
  kube(): KubeApi;
  /** Where hooks record Events (lib/events.ts). An unauthenticated call gets one that records nothing. */
  events(): EventRecorder;
}

/**
 * An operator's own clients: named factories (`etcd(tls)`, `aws()`, ...) built once per server by the operator's
 * `clients` function. The app counts and times each client's calls, and gives an unauthenticated caller factories
 * that refuse (401) before any connection is made.
 */
export type ClientFactories = Record<string, (...args: never[]) => unknown>;

export interface CallContext<C = ClientFactories, K = unknown> {
  log: FastifyBaseLogger;
  services: Services;
  clients: C;
  /** The operator's settings (its `settings` function's answer): configuration, not a way to act. */
  settings: K;
  /** Aborted when the route's deadline passes: client calls made with it stop then. */
  signal: AbortSignal;
  /**
   * Aborted when a request of another namespace has waited half its wait for the server's body budget while this
   * call holds a turn of it (lib/body-budget.ts Release.wanted): a hook that waits long on what its tenant controls
   * (an EtcdCluster membership change whose members never answer) stops waiting and answers, so that the turn goes
   * to the other namespace. Undefined when the call holds no turn of the budget.
   */
  turnWanted?: AbortSignal | undefined;
}

/** What an operator's `clients` and `settings` functions are given: the server's environment, read once at start. */
export interface ClientEnvironment {
  env: NodeJS.ProcessEnv;
  /**
   * The kinds of the parents the server serves (`<group>/<kind>`: parentKindsOf the definitions the app is built from).
   * Every operator's settings carry them as `parentKinds` (lib/hook-routes.ts): whose pods' NetworkPolicies are another
   * parent's, not the namespace's own governance (lib/network-policy.ts anotherParentsPolicy).
   */
  parentKinds?: readonly string[];
}

/** The kinds (`<group>/<kind>`) of the composite definitions of a registry: the parents metaops serves. */
export function parentKindsOf(defs: readonly HookDefinition[]): string[] {
  const kinds = defs.flatMap((d) => (d.type === 'composite' ? [`${d.resource.group}/${d.resource.kind}`] : []));
  return [...new Set(kinds)].sort();
}

/** One printer column of `kubectl get`. */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** The custom resource a controller serves: enough to generate its CRD. */
export interface ResourceDefinition {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  scope: 'Namespaced' | 'Cluster';
  categories?: string[];
  description: string;
  spec: TSchema;
  status: TSchema;
  printerColumns: PrinterColumn[];
  /**
   * A scale subresource (`kubectl scale`, HorizontalPodAutoscaler): `spec.size` is the desired count,
   * `status.replicas` the current one and `status.selector` the pods' label selector.
   */
  scale?: boolean | { statusReplicasPath: string };
}

export type UpdateMethod = 'OnDelete' | 'Recreate' | 'InPlace' | 'RollingRecreate' | 'RollingInPlace';

export interface ChildResourceRule {
  apiVersion: string;
  resource: string;
  updateStrategy?: {
    method: UpdateMethod;
    statusChecks?: { conditions: Array<{ type: string; status?: string; reason?: string }> };
  };
  /** Why this strategy: written into the generated controller manifest as a comment. */
  why: string;
}

/**
 * What every operator declares besides its hooks, whichever controller it is (a CompositeController on a custom
 * resource, a DecoratorController on existing objects): the one definition interface that defineComposite and
 * defineDecorator (lib/operator.ts) both take, and that the app and the manifests read.
 */
export interface OperatorBase<C, K> {
  /** Lower-case kind: the route segment, /hooks/<name>/... */
  name: string;
  /**
   * True when sync or finalize act on the world outside Metacontroller's apply (the Kubernetes API, etcd's
   * member API, AWS). Such hooks serve only an authenticated caller (lib/guard.ts), and get no clients otherwise.
   */
  effects?: boolean;
  resyncPeriodSeconds?: number;
  /**
   * The sync and finalize hooks' version (Metacontroller v4's `hooks.<hook>.version`; v1.5.x has none): `v2` for an
   * operator whose customize asks for a cluster-scoped object (a StorageClass). Version v1 sends a namespaced parent
   * only the related objects of its namespace, and so never a cluster-scoped one (v4.17.2
   * `pkg/controller/common/api/v2/common.go` `Convert`, L159-164); v2 sends every related object, keyed
   * `namespace/name` (a cluster-scoped one by its name), which every hook reads (lib/metacontroller.ts).
   */
  hookVersion?: 'v2';
  /**
   * The operator's clients, built once per server from its environment: what acts on the world (the app counts
   * their calls, and a caller that is not authenticated gets none).
   */
  clients?(environment: ClientEnvironment): C;
  /** The operator's settings, read once per server from its environment (an image, a policy): every caller's. */
  settings?(environment: ClientEnvironment): K;
  /** What is wrong in the server's environment for this operator (checked at start; the server refuses to run). */
  configProblems?(env: NodeJS.ProcessEnv): string[];
  /** What the server's environment makes this operator do that an operator of the cluster should know (logged at start). */
  configWarnings?(env: NodeJS.ProcessEnv): string[];
  /**
   * Objects the operator ships besides its CRD and controller (an admission policy), by file name under
   * manifests/: `npm run manifests` writes them, with the comment, and lists them in the kustomization.
   */
  manifests?(): Array<{ file: string; comment: string; objects: Array<Record<string, unknown>> }>;
  /**
   * What a request too large for the body limit means for this operator, and what to do: added to the 413's message,
   * which Metacontroller reports (its sync error) where the operator's user looks (a request whose size the user's
   * objects decide, such as every PodBuggerTool of a namespace, related to each pod).
   */
  tooLarge?: string;
  /** How large the answer to a spec may be (lib/budget.ts); every operator of main/operators.ts states one. */
  answerBudget?: AnswerBudget<unknown>;
}

/**
 * How a kind's parents name their pods: `<base>-<ordinal>`, each base the parent's name plus one of `suffixes`.
 * Declared in an operator's definition, it lets parents of other kinds that declare it too judge a parent of this
 * kind that holds one of their pod names (lib/podholders.ts podHolderWants, podHolderRules).
 */
export interface PodNames {
  /** The bases of a parent's pod names: its name plus each suffix (the current naming first; '' for the name alone). */
  suffixes: readonly string[];
  /**
   * The pod names a parent of this kind wants now, read from its object as it is stored (status included): untrusted,
   * so bounded by the kind's own maxima.
   */
  wants(holder: KubeObject): string[];
}

export interface CompositeHookDefinition<C = any, K = any> extends OperatorBase<C, K> {
  type: 'composite';
  resource: ResourceDefinition;
  childResources: ChildResourceRule[];
  /** How the parents name their pods, when other kinds' parents may want the same names (PodNames). */
  podNames?: PodNames;
  sync(request: CompositeSyncRequest, ctx: CallContext<C, K>): CompositeSyncResponse | Promise<CompositeSyncResponse>;
  finalize?(
    request: CompositeSyncRequest,
    ctx: CallContext<C, K>,
  ): CompositeSyncResponse | Promise<CompositeSyncResponse>;
  customize?(request: CustomizeRequest, ctx: CallContext<C, K>): CustomizeResponse;
}

/**
 * The objects a DecoratorController decorates: a resource, narrowed where Metacontroller allows it. Metacontroller
 * calls no hook about an object its selectors leave out, and with `ignoreStatusChanges` (v4.x) none about a change
 * of status alone (pkg/controller/decorator/controller.go, updateParentObject).
 */
export interface DecoratedResource {
  apiVersion: string;
  resource: string;
  labelSelector?: LabelSelector;
  annotationSelector?: {
    matchAnnotations?: Record<string, string>;
    matchExpressions?: LabelSelector['matchExpressions'];
  };
  ignoreStatusChanges?: boolean;
}

export interface DecoratorHookDefinition<C = any, K = any> extends OperatorBase<C, K> {
  type: 'decorator';
  resources: DecoratedResource[];
  attachments: ChildResourceRule[];
  sync(request: DecoratorSyncRequest, ctx: CallContext<C, K>): DecoratorSyncResponse | Promise<DecoratorSyncResponse>;
  finalize?(
    request: DecoratorSyncRequest,
    ctx: CallContext<C, K>,
  ): DecoratorSyncResponse | Promise<DecoratorSyncResponse>;
  /**
   * The finalize's answer to a request over the body limit, from the start of its body alone (lib/body-head.ts: the
   * object's kind, name, namespace, uid and deletionTimestamp), or undefined to refuse it unread (413) as any other.
   * For a decorator whose finalize must end within a bound however much its related objects weigh: a request refused
   * at every retry would hold the object's finalizer for good. Pure: the same head, the same answer.
   */
  finalizeOversized?(object: ParentObject, now: Date): DecoratorSyncResponse | undefined;
  customize?(request: CustomizeRequest, ctx: CallContext<C, K>): CustomizeResponse;
}

export type HookDefinition<C = any, K = any> = CompositeHookDefinition<C, K> | DecoratorHookDefinition<C, K>;

/** The parent's current status as an object (it may be absent or null). */
export function currentStatus(parent: ParentObject): Status {
  const status = parent.status;
  return status && typeof status === 'object' ? (status as Status) : {};
}

/** Conditions for a parent, carrying lastTransitionTime over from its current status. */
export function conditionsFor(parent: ParentObject, inputs: ConditionInput[], now: Date) {
  return buildConditions(inputs, previousConditions(parent.status), parent.metadata.generation, now);
}

/** The most names of a status list (status.nodes, status.memberList) read when judging kept conditions. */
const LISTED_MAX = 2048;

/**
 * Whether what the parent's stored status said of its children still holds of those observed now, so that its other
 * conditions (Available, Synced, Upgrading...) may be kept by an answer that changes nothing. The pods it named
 * (status.nodes, status.memberList's names) must each still be observed live (a child or a related pod, not being
 * deleted, not ended), and as many Ready as status.readyReplicas counted (of those named; a status that names none,
 * such as a MySQLCluster's whose count is its StatefulSet's: the Ready pods observed, or the readyReplicas its
 * StatefulSets and Deployments report, whichever is more). A status that names no pod and counts none (S3's Secret,
 * EtcdBackup's Job) said something of its children only while one of them is observed. Read from observed data: every
 * list bounded (LISTED_MAX), any field may be malformed.
 */
export function keptConditionsHold(request: CompositeSyncRequest): boolean {
  const status = currentStatus(request.parent);
  const live = new Map<string, KubeObject>();
  for (const map of [request.children, request.related])
    for (const pod of observedUnordered(map, 'Pod', 'v1'))
      if (pod.metadata?.name && !isTerminating(pod) && !isTerminal(pod)) live.set(pod.metadata.name, pod);
  const nodes = Array.isArray(status['nodes']) ? (status['nodes'] as unknown[]) : [];
  const members = Array.isArray(status['memberList'])
    ? (status['memberList'] as unknown[]).map((m) => (m as { name?: unknown } | null)?.name)
    : [];
  const listed = [...new Set([...nodes, ...members].slice(0, LISTED_MAX))];
  if (!listed.every((n) => typeof n === 'string' && live.has(n))) return false;
  const claimed = status['readyReplicas'];
  if (typeof claimed === 'number' && claimed > 0) {
    if (listed.length > 0)
      return listed.filter((n) => isPodReady(live.get(n as string)!)).length >= Math.min(claimed, listed.length);
    const pods = [...live.values()].filter(isPodReady).length;
    const workloads = [
      ...observedUnordered(request.children, 'StatefulSet', 'apps/v1'),
      ...observedUnordered(request.children, 'Deployment', 'apps/v1'),
    ].reduce((sum, w) => sum + (isTerminating(w) ? 0 : statusNumber(w, 'readyReplicas')), 0);
    return Math.max(pods, workloads) >= claimed;
  }
  if (listed.length > 0 || Array.isArray(status['nodes']) || Array.isArray(status['memberList'])) return true;
  return allObserved(request.children).some((c) => !isTerminating(c) && !(c.kind === 'Pod' && isTerminal(c)));
}

/**
 * Conditions for an answer that changes nothing (a spec refused, an answer held): `inputs` as conditionsFor builds
 * them, then every other condition of the current status as it is (the first of each type), so that what still holds
 * of the children kept (Available while the members serve, Upgrading) is not dropped by a refusal that leaves them
 * running. Kept only while it still holds (keptConditionsHold): once the children it was said of are gone (a node
 * lost, pods evicted or deleted by hand, the Secret deleted) and nothing is made again while the answer changes
 * nothing, they are dropped, and only `inputs` say what the parent is. The same observed state gives the same answer.
 */
export function conditionsKeepingOthers(request: CompositeSyncRequest, inputs: ConditionInput[], now: Date) {
  const parent = request.parent;
  const built = conditionsFor(parent, inputs, now);
  if (!keptConditionsHold(request)) return built;
  const types = new Set<string>(built.map((c) => c.type));
  const others = previousConditions(parent.status).filter((c) => !types.has(c.type) && types.add(c.type));
  return [...built, ...others];
}

/**
 * The answer to a spec that fails validation: every observed child returned as it is (nothing is deleted or
 * changed), the rest of the status kept (its other conditions among it while they hold: conditionsKeepingOthers), and Ready=False with
 * reason InvalidSpec saying what is wrong.
 */
export function invalidSpecResponse(
  request: CompositeSyncRequest,
  message: string,
  now: Date,
  otherConditions: ConditionInput[] = [],
): CompositeSyncResponse {
  const parent = request.parent;
  const conditions = conditionsKeepingOthers(
    request,
    [{ type: 'Ready', status: false, reason: 'InvalidSpec', message }, ...otherConditions],
    now,
  );
  const status: Status = { ...currentStatus(parent), conditions };
  // observedGeneration says which spec the status describes; an invalid spec was looked at but not applied,
  // so it is left where it was. The condition's own observedGeneration names the spec that was rejected.
  return { status, children: allObserved(request.children).map(keepObserved) };
}

/**
 * The related-resources answer that asks Metacontroller for the parent's pods, selected by labels.
 * No namespace: Metacontroller refuses a rule with both a selector and a namespace, and for a namespaced
 * parent it looks only in the parent's own namespace.
 */
export function relatedPods(matchLabels: Record<string, string>): CustomizeResponse {
  const rule: RelatedResourceRule = { apiVersion: 'v1', resource: 'pods', labelSelector: { matchLabels } };
  return { relatedResources: [rule] };
}
