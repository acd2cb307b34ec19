// What the pods of a workload that runs a tenant's chosen image may reach: a NetworkPolicy child (networking.k8s.io/v1)
// for the kinds whose pods run it (PodSet: the spec's image and command; Memcached: the spec's image). Those pods run
// with Metacontroller's rights, in a namespace whose administrator may have set no NetworkPolicy because its tenants
// make no pods: without one, the tenant's code takes the node's credentials from the cloud's instance metadata service
// (the node's role, which every tenant's pods on that node share). The EtcdCluster members' policy keeps the same
// addresses out (hooks/etcdcluster/network.ts). docs/podset.md, docs/memcached.md "Network policy".
import { buildConditions, previousConditions, type ConditionInput } from './conditions.js';
import type { ChildResourceRule } from './hook.js';
import { holderJudge } from './holders.js';
import { childLabels, MANAGED_BY } from './labels.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject, ParentObject } from './metacontroller.js';
import { isRecord, observedNamed, textOf } from './objects.js';
import { takenNames } from './ownership.js';

/**
 * The IPv4 addresses a pod must not reach because they hand out the node's (or the VM's) credentials: the instance
 * metadata service of AWS, GCP, Azure, OpenStack, Oracle and DigitalOcean (169.254.169.254), Azure's WireServer
 * (168.63.129.16: the VM agent's extensions and their protected settings) and Tencent Cloud's metadata service
 * (169.254.0.23: the CAM role's temporary keys). docs/operating.md "Tenants".
 */
export const METADATA_V4: readonly string[] = ['169.254.169.254/32', '168.63.129.16/32', '169.254.0.23/32'];
/** AWS's and GCP's IPv6 instance metadata addresses. */
export const METADATA_V6 = ['fd00:ec2::254/128', 'fd20:ce::254/128'];

/**
 * The server setting that turns the workloads' NetworkPolicy off (`false`): on by default. One for every kind whose
 * pods run a tenant's image (PodSet, Memcached): what decides it (a CNI that enforces no NetworkPolicy, admins who write
 * their own egress policies) is the cluster's, not the kind's.
 */
export const WORKLOAD_NETWORK_POLICY_SETTING = 'METAOPS_WORKLOAD_NETWORK_POLICY';

/**
 * What every operator's settings carry from the registry the server is built from (lib/hook.ts ClientEnvironment,
 * lib/hook-routes.ts): the kinds of the parents it serves (`<group>/<kind>`), whose pods' NetworkPolicies are another
 * parent's, not the namespace's own governance (anotherParentsPolicy). lib names no operator: the kinds are the
 * registry's, whatever operators it holds.
 */
export interface ParentKindSettings {
  parentKinds?: readonly string[];
}

/** The settings of a kind that answers the workload NetworkPolicy. */
export interface WorkloadNetworkSettings extends ParentKindSettings {
  /** Whether the hook answers its pods' NetworkPolicy (METAOPS_WORKLOAD_NETWORK_POLICY; absent: yes). */
  workloadNetworkPolicy?: boolean;
}

/** METAOPS_WORKLOAD_NETWORK_POLICY: true unless `false` or `0`. */
export function workloadNetworkSettings({ env }: { env: NodeJS.ProcessEnv }): WorkloadNetworkSettings {
  const text = (env[WORKLOAD_NETWORK_POLICY_SETTING] ?? '').trim().toLowerCase();
  return { workloadNetworkPolicy: !(text === 'false' || text === '0') };
}

/** What is wrong with the setting (the server refuses to start). */
export function workloadNetworkProblems(env: NodeJS.ProcessEnv): string[] {
  const raw = env[WORKLOAD_NETWORK_POLICY_SETTING];
  if (raw === undefined || raw.trim() === '' || ['true', 'false', '1', '0'].includes(raw.trim().toLowerCase()))
    return [];
  return [`${WORKLOAD_NETWORK_POLICY_SETTING}=${JSON.stringify(raw)}: expected true or false`];
}

/** The child rule of the policy (InPlace: a change of who may be reached restarts nothing). */
export const networkPolicyRule: ChildResourceRule = {
  apiVersion: 'networking.k8s.io/v1',
  resource: 'networkpolicies',
  updateStrategy: { method: 'InPlace' },
  why: "what the pods running the spec's image may reach (not the instance metadata service); changing it in place restarts nothing",
};

/**
 * The NetworkPolicy of a workload's pods, named `<parent><suffix>`, or undefined when the server's setting turns it off.
 * It selects `pods` (exactly the parent's pods: the labels only they carry) and says nothing of who may reach them
 * (policyTypes Egress only: ingress stays what the namespace's own policies say, open where they say nothing: these
 * pods serve clients; an Ingress rule here would open pods a namespace's default-deny closes). Their way out: every
 * address but the instance metadata service, and every pod of every namespace (a CNI may not match pod addresses by
 * ipBlock). As the API server stores it (no field it defaults left out), so that at rest the answer is what is stored.
 */
export function workloadNetworkPolicy(
  parent: ParentObject,
  options: { app: string; suffix: string; pods: Record<string, string>; settings: WorkloadNetworkSettings | undefined },
): KubeObject | undefined {
  if (options.settings?.workloadNetworkPolicy === false) return undefined;
  const name = parent.metadata.name;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: `${name}${options.suffix}`,
      namespace: parent.metadata.namespace,
      labels: childLabels(options.app, name, 'network-policy'),
    },
    spec: {
      podSelector: { matchLabels: { ...options.pods } },
      policyTypes: ['Egress'],
      egress: [
        {
          to: [
            { ipBlock: { cidr: '0.0.0.0/0', except: [...METADATA_V4] } },
            { ipBlock: { cidr: '::/0', except: [...METADATA_V6] } },
            { namespaceSelector: {} },
          ],
        },
      ],
    },
  };
}

/** The egress rules of workloadNetworkPolicy: every address but the metadata services', and every pod. */
export function workloadEgress(): unknown[] {
  return [
    {
      to: [
        { ipBlock: { cidr: '0.0.0.0/0', except: [...METADATA_V4] } },
        { ipBlock: { cidr: '::/0', except: [...METADATA_V6] } },
        { namespaceSelector: {} },
      ],
    },
  ];
}

/**
 * Whether the name of a pods' NetworkPolicy is another owner's (lib/ownership.ts takenNames: a related object of that
 * name that is not the parent's, or a holder judged to want it): the parent's answer is held for it
 * (NetworkPolicyNameTaken), which says why its pods run without it.
 */
export function policyNameTaken(request: CompositeSyncRequest, policy: KubeObject, now: Date): boolean {
  const child = { apiVersion: policy.apiVersion, kind: policy.kind, name: policy.metadata.name ?? '' };
  return takenNames(request, [child], undefined, holderJudge(now)).length > 0;
}

/** How long a pods' NetworkPolicy may stay unobserved beside running pods before the status says it failed. */
export const POLICY_ABSENT_SECONDS = 60;

/**
 * The NetworkPolicyCreated condition of a parent's pods' policies (`policies`, by name: a PodSet's or a Memcached's
 * one, an EtcdCluster's members' and its restore check pod's): one condition naming every policy not observed while
 * the pods it selects run (`running`: what they reach without it, in words; undefined: none run), in the order given,
 * else none: nothing to say, and a parent that has them carries no condition about them. Metacontroller creates each
 * child on its own and tells the hook nothing when a create fails (a Metacontroller installed without rights on
 * networkpolicies, an admission policy, a quota: its SyncError Event says why); the pods are kept and made as before,
 * so the status must say that they run without it: `CreatingNetworkPolicy` at first (the sync after an earlier
 * metaops's, or a policy deleted), `NetworkPolicyNotCreated` (a Warning Event) once it is still absent
 * POLICY_ABSENT_SECONDS after it was first missed (this condition's lastTransitionTime). `kind`: the parent's, named
 * in the advice.
 */
export function policiesCreatedCondition(
  request: CompositeSyncRequest,
  options: { kind: string; policies: ReadonlyArray<{ name: string; running: string | undefined }> },
  now: Date,
): ConditionInput | undefined {
  const missing = options.policies.filter(
    (p) => p.running !== undefined && !observedNamed(request.children, 'NetworkPolicy', 'networking.k8s.io/v1', p.name),
  );
  if (missing.length === 0) return undefined;
  const named =
    missing.length === 1
      ? `NetworkPolicy ${missing[0]!.name} has`
      : `NetworkPolicies ${missing.map((p) => p.name).join(', ')} have`;
  const running = missing.map((p) => p.running).join('; ');
  const prev = previousConditions(request.parent.status).find((c) => c.type === 'NetworkPolicyCreated');
  const since = prev?.status === 'False' && prev.lastTransitionTime ? Date.parse(prev.lastTransitionTime) : NaN;
  if (Number.isFinite(since) && now.getTime() - since >= POLICY_ABSENT_SECONDS * 1000)
    return {
      type: 'NetworkPolicyCreated',
      status: false,
      reason: 'NetworkPolicyNotCreated',
      message:
        `${named} not been created ${POLICY_ABSENT_SECONDS} s after it was asked for and ${running}: ` +
        `Metacontroller could not create it (see the SyncError event on this ${options.kind}: kubectl describe; it ` +
        `needs create on networkpolicies of networking.k8s.io, and no admission policy or quota refusing it)`,
    };
  return {
    type: 'NetworkPolicyCreated',
    status: false,
    reason: 'CreatingNetworkPolicy',
    message: `waiting for ${missing.length === 1 ? 'NetworkPolicy' : 'NetworkPolicies'} ${missing
      .map((p) => p.name)
      .join(', ')} to be created; until then ${running}`,
  };
}

/** A NetworkPolicy of a parent's pods as NetworkPolicyCreated reads it (podsPolicies). */
export interface WatchedPolicy {
  /** The policy the sync answers, undefined when the server's setting turns it off. */
  policy: KubeObject | undefined;
  /** What the pods it selects reach without it, in words, or undefined when none runs. */
  running: string | undefined;
}

/**
 * What a parent's pods' policies (`policies`, in order) come to, the one rule of the sync of every kind whose pods run
 * a tenant's image (PodSet, Memcached) and of every answer of it that keeps the observed children (keptWithPolicies):
 * `free`, the entries whose policy is answered (not turned off) and its name no other owner's (policyNameTaken, asked
 * once each: a name held holds the parent, NetworkPolicyNameTaken, its Ready says so, and nothing is taken from the
 * other owner), and `condition`, NetworkPolicyCreated naming those of them not observed while their pods run
 * (policiesCreatedCondition). `kind`: the parent's, named in the advice.
 */
export function podsPolicies<T extends WatchedPolicy>(
  request: CompositeSyncRequest,
  options: { kind: string; policies: readonly T[] },
  now: Date,
): { free: Array<T & { policy: KubeObject }>; condition: ConditionInput | undefined } {
  const free: Array<T & { policy: KubeObject }> = [];
  for (const entry of options.policies) {
    const policy = entry.policy;
    if (policy && !policyNameTaken(request, policy, now)) free.push({ ...entry, policy });
  }
  const said = free.map((p) => ({ name: p.policy.metadata.name!, running: p.running }));
  return { free, condition: policiesCreatedCondition(request, { kind: options.kind, policies: said }, now) };
}

/**
 * A NetworkPolicy of a kind's pods, as the kind declares it for its answers that keep the observed children
 * (keptWithPolicies).
 */
export interface PodsPolicy {
  /** The policy the sync answers, undefined when the server's setting turns it off. */
  policy: KubeObject | undefined;
  /** Whether a child of the answer runs pods the policy selects (a pod, a Deployment). */
  runs: (child: KubeObject) => boolean;
  /**
   * What the pods of those children (`kept`: at least one) reach without the policy, in words, or undefined when
   * none runs (a Deployment scaled to 0).
   */
  running: (kept: readonly KubeObject[]) => string | undefined;
}

/**
 * The one rule of every answer that keeps the observed children and makes nothing, for every kind whose pods run a
 * tenant's image (a kind's `kept`, lib/operator.ts: a spec refused, InvalidSpec; an answer held for a name another
 * owner holds; a TemporaryError or PermanentError of the sync; an answer not given, AnswerTooLarge, ChildTooLarge,
 * StatusTooLarge, ChildOutsideNamespace): each of the kind's pods' policies is answered while a child that runs its
 * pods (`runs`) is kept in it: a running parent of an earlier metaops, or of a server that had the policy off, or
 * whose policy was deleted, would else keep pods that run the tenant's image without it for as long as its spec stays
 * refused or its names held. The policy makes no pod and only narrows what the pods reach; it is the policy the sync
 * answers, so that the answers of a parent that goes between refused, held and running agree. The
 * NetworkPolicyCreated condition says which of them is not observed while those pods run (CreatingNetworkPolicy,
 * NetworkPolicyNotCreated 60 s on), or is dropped once none is missing: podsPolicies, as the sync says it. A policy
 * whose name is another owner's is neither answered nor said here (that answer says NetworkPolicyNameTaken once the
 * spec is accepted). EtcdCluster's members (hooks/etcdcluster/network.ts withMemberPolicy), PodSet, Memcached.
 */
export function keptWithPolicies(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  kind: string,
  policies: readonly PodsPolicy[],
  now: Date,
): CompositeSyncResponse {
  const watched = policies.map((p) => {
    const kept = response.children.filter((c: KubeObject | null): c is KubeObject => !!c && p.runs(c));
    return { policy: p.policy, kept: kept.length > 0, running: kept.length > 0 ? p.running(kept) : undefined };
  });
  const { free, condition } = podsPolicies(request, { kind, policies: watched }, now);
  let answer = response;
  for (const p of free) if (p.kept) answer = withChildPolicy(answer, p.policy);
  return withPolicyCondition(request, answer, condition, now);
}

/** The answer with `policy` in place of any child of its kind and name. */
function withChildPolicy(response: CompositeSyncResponse, policy: KubeObject): CompositeSyncResponse {
  const others = withoutPolicy(response, policy.metadata.name!);
  return { ...others, children: [...others.children, policy] };
}

/**
 * The answer with its NetworkPolicyCreated condition as `condition` says (none: any it carries is dropped), its
 * lastTransitionTime carried over from the parent's status, and a resync within POLICY_ABSENT_SECONDS while it says
 * CreatingNetworkPolicy (policyResync). An answer without a status object is left as it is.
 */
function withPolicyCondition(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  condition: ConditionInput | undefined,
  now: Date,
): CompositeSyncResponse {
  const status = response.status;
  if (!status || typeof status !== 'object') return response;
  const carried = previousConditions(status);
  const others = carried.filter((c) => c.type !== 'NetworkPolicyCreated');
  if (!condition && others.length === carried.length) return response;
  const parent = request.parent;
  const built = condition
    ? buildConditions([condition], previousConditions(parent.status), parent.metadata.generation, now)
    : [];
  const again = policyResync(condition);
  const resync =
    again === undefined
      ? response.resyncAfterSeconds
      : Math.min(
          again,
          response.resyncAfterSeconds && response.resyncAfterSeconds > 0 ? response.resyncAfterSeconds : again,
        );
  return {
    ...response,
    status: { ...status, conditions: [...others, ...built] },
    ...(resync !== undefined ? { resyncAfterSeconds: resync } : {}),
  };
}

/**
 * When to look again while a NetworkPolicyCreated condition says `CreatingNetworkPolicy` (POLICY_ABSENT_SECONDS: a
 * kind without a resync period would else say it until an unrelated event, never `NetworkPolicyNotCreated`), else
 * undefined: a policy created wakes the parent by itself (a child observed), and one said not created stays so.
 */
export function policyResync(condition: ConditionInput | undefined): number | undefined {
  return condition?.reason === 'CreatingNetworkPolicy' ? POLICY_ABSENT_SECONDS : undefined;
}

/**
 * The customize rule that asks Metacontroller for the NetworkPolicies of the parent's namespace (every one: a policy
 * selects pods by labels, so no name or label narrows which may govern the parent's pods), for namespaceGovernance.
 * Confined to the namespace (a rule without one lists every namespace in v4.17, pkg/controller/common/customize/
 * manager.go L665-683; v1.5.20 the same shape as the EtcdRestores rule). Metacontroller watches them (its shipped
 * ClusterRole, and the rights it needs on networkpolicies to make the pods' policy: get, list, watch) and syncs the
 * parent again when one changes.
 */
export function namespacePolicyRules(parent: { metadata?: { namespace?: unknown } } | null | undefined) {
  const namespace = textOf(parent?.metadata?.namespace, '');
  if (namespace === '') return [];
  return [{ apiVersion: 'networking.k8s.io/v1', resource: 'networkpolicies', namespace }];
}

/** At most this many NetworkPolicies of the namespace are read; past it every pod counts as governed (doubt). */
export const MAX_NAMESPACE_POLICIES = 512;
/** At most this many policies are walked at all (other metaops parents' among them: a request holds ~100,000 at most). */
export const MAX_LISTED_POLICIES = 65_536;
/**
 * At most this many distinct label sets of the pods are judged, each the pods' labels on the keys the namespace's
 * policies' selectors name (selectorKeys): past it, those judged decide (namespaceGovernance).
 */
export const MAX_POD_LABEL_SETS = 32;
/**
 * What one NetworkPolicy of the namespace weighs in a sync request, as the request bounds count it: metaops' own as
 * stored, of the longest names (an EtcdCluster's `<name>-members`, the largest: ~3.7 KB with its managedFields and
 * Metacontroller's last-applied copy), and an admin's of a few rules.
 */
export const NAMESPACE_POLICY_BYTES = 4 * 1024;
/**
 * What the namespace's NetworkPolicies (namespacePolicyRules: customize asks for every one) add to each sync request
 * of a parent, as the kinds' request bounds count it (PodSet's answerBudget.request and the pods it makes, Memcached's
 * podsListed): MAX_NAMESPACE_POLICIES of NAMESPACE_POLICY_BYTES, the most namespaceGovernance reads (2 MiB). A tenant
 * who may write only custom resources makes them by making parents (an EtcdCluster's `<name>-members`); more, or
 * larger ones, are the namespace administrator's (docs/operating.md, Tenants).
 */
export const NAMESPACE_POLICIES_BYTES = MAX_NAMESPACE_POLICIES * NAMESPACE_POLICY_BYTES;
/** At most this many expressions in a selector, values in an expression: past it the selector selects (doubt). */
const MAX_EXPRESSIONS = 64;
const MAX_VALUES = 256;
/** How many governing policies a condition names. */
const NAMED = 3;

/** Which directions of the pods the namespace's own NetworkPolicies govern, and which policies do (a few named). */
export interface NamespaceGovernance {
  /**
   * Whether a policy of the namespace selects some of the pods for egress: then the parent's policy leaves Egress out,
   * and `complement` says which of its pods metaops still keeps from the metadata service.
   */
  egress: boolean;
  ingress: boolean;
  /** Up to 3 names of the policies that select the pods for egress (`…` for a doubt without a name). */
  egressBy: string[];
  ingressBy: string[];
  /**
   * Where `egress`: the pods no egress policy of the namespace selects, as a union of selectors (each one the parent's
   * pods' labels AND these requirements): one egress policy of metaops' each (egressComplementPolicies). Empty: the
   * namespace's policies select every pod of the parent.
   */
  complement: Requirement[][];
  /**
   * Why the namespace's egress policies could not be read exactly (a selector or spec it cannot read, too many
   * policies, too many selectors in the complement): then `egress` is false and the parent's policy keeps every pod
   * of the parent from the metadata service, even those a namespace policy selects (doubt keeps the metadata service
   * out; the status says so).
   */
  egressDoubt?: string;
}

/** One requirement of a label selector, as matchExpressions holds it (values only for In and NotIn). */
export interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** At most this many selectors (metaops egress policies) make the complement; past it: doubt. */
export const MAX_COMPLEMENT_SELECTORS = 4;
/** At most this many values in all of the complement's requirements; past it: doubt. */
export const MAX_COMPLEMENT_VALUES = 64;
/**
 * What the complement's policies add to a sync request at most, as it comes back (each stored, with Metacontroller's
 * last-applied copy): MAX_COMPLEMENT_SELECTORS policies of ~4 KiB, and their values (63 bytes at most, twice).
 */
export const COMPLEMENT_POLICIES_BYTES = MAX_COMPLEMENT_SELECTORS * 4 * 1024 + MAX_COMPLEMENT_VALUES * 2 * 80;

/**
 * The requirements of a label selector (untrusted), ANDed, or undefined when it cannot read them exactly (as
 * selectorSelects reads it: not an object, a value not a string, an unknown operator, In without values, too many
 * expressions or values). matchLabels `k: v` is `k In [v]`. Absent or empty: none (every pod).
 */
export function selectorRequirements(selector: unknown): Requirement[] | undefined {
  if (selector === undefined || selector === null) return [];
  if (!isRecord(selector)) return undefined;
  const byLabels = labelRequirements(selector['matchLabels']);
  if (!byLabels) return undefined;
  const expressions = selector['matchExpressions'];
  if (expressions === undefined || expressions === null) return byLabels;
  if (!Array.isArray(expressions) || expressions.length > MAX_EXPRESSIONS) return undefined;
  const out = byLabels;
  for (const e of expressions as unknown[]) {
    const r = expressionRequirement(e);
    if (!r) return undefined;
    out.push(r);
  }
  return out;
}

/** matchLabels as requirements (`k In [v]`), or undefined when not a map of strings. */
function labelRequirements(matchLabels: unknown): Requirement[] | undefined {
  if (matchLabels === undefined || matchLabels === null) return [];
  if (!isRecord(matchLabels)) return undefined;
  const out: Requirement[] = [];
  for (const key of Object.keys(matchLabels)) {
    const v = matchLabels[key];
    if (typeof v !== 'string') return undefined;
    out.push({ key, operator: 'In', values: [v] });
  }
  return out;
}

/** One matchExpressions entry as a requirement, or undefined when it cannot be read (as expressionSelects). */
function expressionRequirement(e: unknown): Requirement | undefined {
  if (!isRecord(e) || typeof e['key'] !== 'string') return undefined;
  const raw = e['values'];
  const values = raw === undefined || raw === null ? [] : raw;
  if (!Array.isArray(values) || values.length > MAX_VALUES || values.some((v) => typeof v !== 'string'))
    return undefined;
  const op = e['operator'];
  if ((op === 'In' || op === 'NotIn') && values.length > 0)
    return { key: e['key'], operator: op, values: [...(values as string[])] };
  if ((op === 'Exists' || op === 'DoesNotExist') && values.length === 0) return { key: e['key'], operator: op };
  return undefined;
}

/** The requirement that selects exactly the pods `r` does not select: In <-> NotIn, Exists <-> DoesNotExist. */
export function negatedRequirement(r: Requirement): Requirement {
  switch (r.operator) {
    case 'In':
      return { key: r.key, operator: 'NotIn', values: [...r.values!] };
    case 'NotIn':
      return { key: r.key, operator: 'In', values: [...r.values!] };
    case 'Exists':
      return { key: r.key, operator: 'DoesNotExist' };
    default:
      return { key: r.key, operator: 'Exists' };
  }
}

/** What a requirement says of every pod carrying `fixed` (the parent's pods' selector): true, false, or undefined. */
function fixedAnswer(r: Requirement, fixed: Readonly<Record<string, string>>): boolean | undefined {
  if (!Object.prototype.hasOwnProperty.call(fixed, r.key)) return undefined;
  const value = fixed[r.key]!;
  switch (r.operator) {
    case 'In':
      return r.values!.includes(value);
    case 'NotIn':
      return !r.values!.includes(value);
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** Whether the spec's directions (untrusted) can be read exactly: policyTypes and egress of their types. */
function directionsReadable(spec: unknown): boolean {
  if (!isRecord(spec)) return false;
  const types = spec['policyTypes'];
  if (types !== undefined && types !== null) {
    if (!Array.isArray(types) || types.length > 8 || types.some((t) => t !== 'Ingress' && t !== 'Egress')) return false;
  }
  const egress = spec['egress'];
  return egress === undefined || egress === null || Array.isArray(egress);
}

/**
 * The pods of the parent (those carrying `fixed`, its pods' selector) that no egress policy among `policies` (the
 * namespace's own, untrusted) selects, as a union of conjunctions of requirements (each conjunction with `fixed` one
 * selector): the complement of each policy's selector is the union of its requirements negated (those `fixed` decides
 * left out: a policy one of whose requirements `fixed` contradicts selects none of the parent's pods; one all of whose
 * requirements `fixed` satisfies selects all of them, and the complement is empty), and the intersection over the
 * policies is the cross product of those unions. A string (the reason) where it cannot be read exactly, or the
 * product has more than MAX_COMPLEMENT_SELECTORS terms, or MAX_COMPLEMENT_VALUES values.
 */
export function egressComplement(
  policies: ReadonlyArray<{ name: string; policy: unknown }>,
  fixed: Readonly<Record<string, string>>,
): Requirement[][] | string {
  let terms: Requirement[][] = [[]];
  for (const { name, policy } of policies) {
    if (!isRecord(policy)) return `a NetworkPolicy it could not read`;
    const spec = policy['spec'];
    if (!directionsReadable(spec)) return `the policyTypes or egress of NetworkPolicy ${name} could not be read`;
    if (!policyDirections(spec).egress) continue;
    const reqs = selectorRequirements((spec as Record<string, unknown>)['podSelector']);
    if (reqs === undefined)
      return `the podSelector of NetworkPolicy ${name} could not be read exactly (at most ${MAX_EXPRESSIONS} expressions of ${MAX_VALUES} values each)`;
    const answers = reqs.map((r) => fixedAnswer(r, fixed));
    if (answers.includes(false)) continue;
    const open = reqs.filter((_, i) => answers[i] === undefined);
    if (open.length === 0) return [];
    const next: Requirement[][] = [];
    for (const term of terms)
      for (const r of open) {
        const n = negatedRequirement(r);
        const key = JSON.stringify(n);
        next.push(term.some((t) => JSON.stringify(t) === key) ? term : [...term, n]);
        if (next.length > MAX_COMPLEMENT_SELECTORS)
          return `the pods no egress policy of the namespace selects take more than ${MAX_COMPLEMENT_SELECTORS} selectors`;
      }
    terms = next;
  }
  const values = terms.reduce((n, t) => n + t.reduce((m, r) => m + (r.values?.length ?? 0), 0), 0);
  if (values > MAX_COMPLEMENT_VALUES)
    return `the pods no egress policy of the namespace selects take more than ${MAX_COMPLEMENT_VALUES} label values`;
  return terms;
}

/** The name of the `index`th complement policy of a parent's pods' policy `name`: `<name>-egress-<index>`. */
export function complementPolicyName(name: string, index: number): string {
  return `${name}-egress-${index}`;
}

/**
 * metaops' egress policies of the pods no egress policy of the namespace selects (governance.complement, where the
 * namespace's policies select some of the parent's pods for egress): `<name>-egress-<i>`, each selecting the parent's
 * pods (`pods`: matchLabels) AND one conjunction of the complement, Egress only, with `egress` (metaops' way out:
 * everything but the metadata services). None where governance says no such pods (or none governed, or doubt).
 */
export function egressComplementPolicies(
  parent: ParentObject,
  options: {
    app: string;
    name: string;
    pods: Record<string, string>;
    egress: unknown[];
    governance: Pick<NamespaceGovernance, 'egress' | 'complement'> | undefined;
  },
): KubeObject[] {
  const governance = options.governance;
  if (!governance?.egress) return [];
  const instance = parent.metadata.name;
  return governance.complement.map((term, i) => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: complementPolicyName(options.name, i),
      namespace: parent.metadata.namespace,
      labels: childLabels(options.app, instance, 'network-policy'),
    },
    spec: {
      podSelector: {
        matchLabels: { ...options.pods },
        matchExpressions: term.map((r) =>
          r.values ? { key: r.key, operator: r.operator, values: [...r.values] } : { key: r.key, operator: r.operator },
        ),
      },
      policyTypes: ['Egress'],
      egress: options.egress,
    },
  }));
}

/**
 * The complement policies of one of a parent's pods' policies, as every kind answers them (PodSet `<name>-podset`,
 * Memcached `<name>-memcached`, EtcdCluster `<name>-members` and `<name>-restore-check`): `policy`, the pods'
 * policy's name (its complement policies are `<policy>-egress-<i>`: complementPolicyNames); `pods`, the labels that
 * policy selects them by; `egress`, its way out; none where the server's setting turns the kind's policies off (`off`)
 * or governance says no pod needs one (egressComplementPolicies).
 */
export function podsComplementPolicies(
  parent: ParentObject,
  policy: string,
  pods: Record<string, string>,
  options: {
    app: string;
    egress: unknown[];
    governance: Pick<NamespaceGovernance, 'egress' | 'complement'> | undefined;
    off?: boolean;
  },
): KubeObject[] {
  if (options.off) return [];
  return egressComplementPolicies(parent, {
    app: options.app,
    name: policy,
    pods,
    egress: options.egress,
    governance: options.governance,
  });
}

/** The names the complement policies of a parent's pods' policy `name` may take (complementPolicyName, each index). */
export function complementPolicyNames(name: string): string[] {
  return Array.from({ length: MAX_COMPLEMENT_SELECTORS }, (_, i) => complementPolicyName(name, i));
}

/**
 * The complement policies of a parent's pods' policy `name` (`policies`, as egressComplementPolicies answers them) with
 * each one whose name another owner holds (policyNameTaken: an admin's policy `<name>-egress-0`; the parent is held
 * for it, NetworkPolicyNameTaken) answered under a name of the set that is free: one no other of them takes and no
 * other owner holds (`<name>-egress-<j>`, j below MAX_COMPLEMENT_SELECTORS). Where the hold would else answer none
 * of them, the pods of its term would run with no egress policy at all (no namespace policy selects them), and the
 * held parent's other names, free, would keep none of its pods from the metadata services: a hold never takes a
 * protection away. One for which no free name is left keeps its name (the hold answers it not: NetworkPolicyCreated
 * says its pods run without it).
 */
export function complementInFreeNames(
  request: CompositeSyncRequest,
  policies: readonly KubeObject[],
  name: string,
  now: Date,
): KubeObject[] {
  const taken = policies.map((p) => policyNameTaken(request, p, now));
  if (!taken.includes(true)) return [...policies];
  const used = new Set(policies.map((p) => p.metadata.name));
  const spare = complementPolicyNames(name).filter(
    (n) =>
      !used.has(n) &&
      !policyNameTaken(
        request,
        { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: n } },
        now,
      ),
  );
  return policies.map((p, i) => {
    if (!taken[i] || spare.length === 0) return p;
    return { ...p, metadata: { ...p.metadata, name: spare.shift()! } };
  });
}

/** Whether a NetworkPolicy (answered or observed, read by type) selects pods for egress (policyTypes names Egress). */
function carriesEgress(policy: KubeObject | undefined): boolean {
  const types = isRecord(policy?.['spec']) ? (policy['spec'] as Record<string, unknown>)['policyTypes'] : undefined;
  return Array.isArray(types) && types.includes('Egress');
}

/** Whether a policy answered is observed as answered for egress: the same podSelector, Egress among its types. */
function observedAsAnswered(request: Pick<CompositeSyncRequest, 'children'>, policy: KubeObject): boolean {
  const o = observedNamed(request.children, 'NetworkPolicy', 'networking.k8s.io/v1', policy.metadata.name ?? '');
  if (!o || !carriesEgress(o)) return false;
  const selector = (p: KubeObject) => JSON.stringify(sortedKeys((p['spec'] as Record<string, unknown>)['podSelector']));
  return selector(o) === selector(policy);
}

/** A value with its objects' keys sorted (for comparing two selectors as JSON). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys(value[k])]),
  );
}

/**
 * The answer's children with the pods' egress kept while it changes hands between a parent's pods' policy `main` and
 * its complement policies (`<main>-egress-<i>`). Where the namespace's egress policies stop selecting some of the pods
 * (split -> whole), the answer takes the `-egress-` policies away and gives `main` its Egress; where they start to
 * (whole -> split), it takes `main`'s Egress away (PodSet, Memcached: `main` itself) and gives the `-egress-` policies.
 * Metacontroller applies the two in no promised order (it may delete first), and meanwhile a pod would be selected for
 * egress by none of them: it reaches the metadata services. So while a policy of the answer that carries Egress (its
 * `main` with Egress, each of its `-egress-` policies) is not observed as answered (the same podSelector, Egress among
 * its types), the observed ones it replaces are kept: the observed `-egress-` policies the answer leaves out, as
 * stored, and `main` with its Egress (`mainWithEgress`: the policy as the parent answers it when the namespace governs
 * none of its pods; absent, the observed one as stored) where it is observed with Egress and answered without. Once
 * every one is observed they go. Pure: the same observed state, the same answer; at rest nothing is kept. It narrows
 * nothing and adds no way out the parent did not have a moment before (a pod the namespace now governs keeps
 * metaops' way out until its replacements are observed).
 */
export function egressHandover(
  request: Pick<CompositeSyncRequest, 'children'>,
  children: readonly KubeObject[],
  options: { main: string; mainWithEgress?: KubeObject | undefined },
): KubeObject[] {
  const names = new Set(complementPolicyNames(options.main));
  const policy = (c: KubeObject | null | undefined): c is KubeObject =>
    !!c && c.kind === 'NetworkPolicy' && c.apiVersion === 'networking.k8s.io/v1';
  const answered = children.filter(policy);
  const main = answered.find((c) => c.metadata?.name === options.main);
  const carriers = answered.filter(
    (c) => names.has(c.metadata?.name ?? '') || (c.metadata?.name === options.main && carriesEgress(c)),
  );
  if (carriers.every((c) => observedAsAnswered(request, c))) return [...children];
  const answeredNames = new Set(answered.map((c) => c.metadata?.name));
  const out = [...children];
  for (const o of observedComplementPolicies(request, options.main))
    if (!answeredNames.has(o.metadata.name)) out.push(o);
  const observedMain = observedNamed(request.children, 'NetworkPolicy', 'networking.k8s.io/v1', options.main);
  if (observedMain && carriesEgress(observedMain) && !carriesEgress(main)) {
    const withEgress = options.mainWithEgress ?? keepObservedPolicy(observedMain);
    const at = main ? out.findIndex((c) => c === main) : -1;
    if (at >= 0) out[at] = withEgress;
    else out.push(withEgress);
  }
  return out;
}

/** An observed NetworkPolicy answered as stored (kind, name, namespace, labels, spec). */
function keepObservedPolicy(o: KubeObject): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: o.metadata.name,
      namespace: o.metadata.namespace,
      ...(o.metadata.labels ? { labels: o.metadata.labels } : {}),
    },
    spec: o['spec'],
  };
}

/**
 * The complement policies observed among a parent's children (`<name>-egress-<i>`, i below MAX_COMPLEMENT_SELECTORS),
 * answered as stored (kind, name, labels, spec): a kept answer or a finalize keeps them so, and the pods they select
 * stay selected.
 */
export function observedComplementPolicies(
  request: Pick<CompositeSyncRequest, 'children'>,
  name: string,
): KubeObject[] {
  const out: KubeObject[] = [];
  for (let i = 0; i < MAX_COMPLEMENT_SELECTORS; i++) {
    const o = observedNamed(request.children, 'NetworkPolicy', 'networking.k8s.io/v1', complementPolicyName(name, i));
    if (o) out.push(keepObservedPolicy(o));
  }
  return out;
}

/**
 * Whether a label selector (a NetworkPolicy's podSelector, untrusted: read by type) selects a pod of these labels,
 * as Kubernetes evaluates it (k8s.io/apimachinery metav1.LabelSelectorAsSelector: matchLabels and every expression
 * ANDed; In: the label present with one of the values, NotIn: absent or none of them, Exists, DoesNotExist). An
 * absent or empty selector selects every pod (a NetworkPolicy's podSelector is not a pointer: `{}` is all). Anything
 * it cannot read (not an object, a value not a string, an unknown operator, In without values, too many expressions
 * or values) counts as selecting: metaops never widens on doubt.
 */
export function selectorSelects(selector: unknown, labels: Readonly<Record<string, string>>): boolean {
  if (selector === undefined || selector === null) return true;
  if (!isRecord(selector)) return true;
  const byLabels = labelsSelect(selector['matchLabels'], labels);
  if (byLabels !== false && byLabels !== true) return true;
  const expressions = selector['matchExpressions'];
  if (expressions === undefined || expressions === null) return byLabels;
  if (!Array.isArray(expressions) || expressions.length > MAX_EXPRESSIONS) return true;
  let result = byLabels;
  for (const e of expressions as unknown[]) {
    const one = expressionSelects(e, labels);
    if (one === 'doubt') return true;
    if (!one) result = false;
  }
  return result;
}

/** matchLabels: whether every pair is the pods' ('doubt': not a map of strings). */
function labelsSelect(matchLabels: unknown, labels: Readonly<Record<string, string>>): boolean | 'doubt' {
  if (matchLabels === undefined || matchLabels === null) return true;
  if (!isRecord(matchLabels)) return 'doubt';
  let result = true;
  for (const key of Object.keys(matchLabels)) {
    const want = matchLabels[key];
    if (typeof want !== 'string') return 'doubt';
    if (!Object.prototype.hasOwnProperty.call(labels, key) || labels[key] !== want) result = false;
  }
  return result;
}

/** One matchExpressions entry ('doubt': one it cannot read). */
function expressionSelects(e: unknown, labels: Readonly<Record<string, string>>): boolean | 'doubt' {
  if (!isRecord(e) || typeof e['key'] !== 'string' || typeof e['operator'] !== 'string') return 'doubt';
  const raw = e['values'];
  const values = raw === undefined || raw === null ? [] : raw;
  if (!Array.isArray(values) || values.length > MAX_VALUES || values.some((v) => typeof v !== 'string')) return 'doubt';
  const present = Object.prototype.hasOwnProperty.call(labels, e['key']);
  const value = present ? labels[e['key']] : undefined;
  switch (e['operator']) {
    case 'In':
      return values.length === 0 ? 'doubt' : present && values.includes(value);
    case 'NotIn':
      return values.length === 0 ? 'doubt' : !present || !values.includes(value);
    case 'Exists':
      return values.length !== 0 ? 'doubt' : present;
    case 'DoesNotExist':
      return values.length !== 0 ? 'doubt' : !present;
    default:
      return 'doubt';
  }
}

/**
 * The directions a NetworkPolicy (untrusted) governs, as the API server defaults policyTypes: the listed ones when
 * the list is not empty (Ingress, Egress; another word is doubt: both), else Ingress, and Egress when it has egress
 * rules. A spec it cannot read governs both.
 */
function policyDirections(spec: unknown): { ingress: boolean; egress: boolean } {
  if (!isRecord(spec)) return { ingress: true, egress: true };
  const types = spec['policyTypes'];
  if (Array.isArray(types) && types.length > 0) {
    if (types.length > 8 || types.some((t) => t !== 'Ingress' && t !== 'Egress'))
      return { ingress: true, egress: true };
    return { ingress: types.includes('Ingress'), egress: types.includes('Egress') };
  }
  if (types !== undefined && types !== null && !Array.isArray(types)) return { ingress: true, egress: true };
  const egress = spec['egress'];
  if (egress !== undefined && egress !== null && !Array.isArray(egress)) return { ingress: true, egress: true };
  return { ingress: true, egress: Array.isArray(egress) && egress.length > 0 };
}

/**
 * The label keys the selectors of these policies (untrusted) name: matchLabels' keys and matchExpressions' `key`s, of
 * the selectors selectorSelects reads. Nothing else of a pod's labels changes what a selector says of it (one it
 * cannot read selects whatever the labels), so pods whose labels agree on these keys are judged alike.
 */
function selectorKeys(policies: readonly unknown[]): Set<string> {
  const keys = new Set<string>();
  for (const policy of policies) {
    const spec = isRecord(policy) ? policy['spec'] : undefined;
    const selector = isRecord(spec) ? spec['podSelector'] : undefined;
    if (!isRecord(selector)) continue;
    const matchLabels = selector['matchLabels'];
    if (isRecord(matchLabels)) for (const k of Object.keys(matchLabels)) keys.add(k);
    const expressions = selector['matchExpressions'];
    if (!Array.isArray(expressions) || expressions.length > MAX_EXPRESSIONS) continue;
    for (const e of expressions as unknown[]) if (isRecord(e) && typeof e['key'] === 'string') keys.add(e['key']);
  }
  return keys;
}

/**
 * The distinct label sets of the pods (string values only) on the keys `named` (selectorKeys), sorted: the same pods,
 * the same sets in the same order, whatever order they came in. A PodSet's pods of many templates (each its
 * template-hash), a Deployment's pods of many ReplicaSets, differ on keys no policy names and are one set here.
 */
function distinctLabelSets(sets: readonly unknown[], named: ReadonlySet<string>): Array<Record<string, string>> {
  const seen = new Map<string, Record<string, string>>();
  for (const s of sets) {
    if (!isRecord(s)) continue;
    const entries: Array<[string, string]> = [];
    for (const k of Object.keys(s).sort()) {
      const v = s[k];
      if (typeof v === 'string' && named.has(k)) entries.push([k, v]);
    }
    const key = JSON.stringify(entries);
    // Own properties whatever the key (`__proto__` too).
    if (!seen.has(key)) seen.set(key, Object.fromEntries(entries));
  }
  return [...seen.keys()].sort().map((k) => seen.get(k)!);
}

/**
 * Whether the namespace's own NetworkPolicies (the related objects customize asked for: namespacePolicyRules) govern
 * the parent's pods: a policy other than the parent's own (`own`: its names; one of those names another owner holds
 * holds the parent, `NetworkPolicyNameTaken`, which then answers no policy of that name, lib/ownership.ts), other than
 * another metaops parent's pods' policy (anotherParentsPolicy) or one of metaops' left behind by a parent deleted with
 * its children orphaned (orphanedMetaopsPolicy), and other than one of the names `ownIfMarked` that is the parent's
 * (ownPolicy: a name no hold checks, the restore check's while no restore runs), whose podSelector selects a pod of
 * any of these label sets (`pods`: the labels the answer gives them and those observed pods carry) for Egress
 * (policyTypes has Egress, or it has egress rules and no policyTypes) / for Ingress.
 *
 * Egress: where some policy selects some of the pods, `complement` says which of the parent's pods (`selector`: the
 * labels every one carries) no egress policy of the namespace selects (egressComplement): metaops answers those an
 * egress policy of its own each (egressComplementPolicies), so that every pod is selected for egress by the namespace
 * or by metaops, never by neither (NetworkPolicies select pods, not parents: a policy selecting one member took the
 * egress policy away from all of them). Doubt keeps the metadata service out: a selector or spec it cannot read
 * exactly, more than MAX_NAMESPACE_POLICIES policies besides other parents' (or MAX_LISTED_POLICIES in all), a
 * complement past its bounds: egress is not governed, metaops' policy selects every pod, and `egressDoubt` says why.
 * Ingress: a selector or spec it cannot read selects and governs; doubt governs (never widen who may come in).
 *
 * The pods are judged on the labels the policies' selectors name (selectorKeys: the pods of a PodSet's 33 templates
 * are one set); where they still make more than MAX_POD_LABEL_SETS distinct sets, the first MAX_POD_LABEL_SETS of them
 * (sorted: the same pods, the same ones) are judged, and the complement is computed whatever they say (it is exact
 * for every pod). Policies of other namespaces (a v2 request, a bug) govern nothing here. A policy being deleted still
 * governs until it is gone. Pure: the same observed state, the same answer.
 */
export function namespaceGovernance(
  request: Pick<CompositeSyncRequest, 'parent' | 'related'>,
  options: {
    pods: readonly unknown[];
    own: readonly string[];
    ownIfMarked?: readonly string[];
    /** The parent kinds the server serves (ParentKindSettings): absent, none. */
    parentKinds: readonly string[] | undefined;
    /**
     * The labels every pod of the parent carries, by which its policies select them (the complement's base; absent:
     * none).
     */
    selector?: Readonly<Record<string, string>>;
  },
): NamespaceGovernance {
  const doubt = (why: string): NamespaceGovernance => ({
    egress: false,
    ingress: true,
    egressBy: [],
    ingressBy: ['…'],
    complement: [],
    egressDoubt: why,
  });
  const namespace = textOf(request.parent.metadata.namespace, '');
  const uid = request.parent.metadata.uid;
  const parentUid = typeof uid === 'string' && uid !== '' ? uid : undefined;
  const group = (request.related as Record<string, unknown> | null | undefined)?.['NetworkPolicy.networking.k8s.io/v1'];
  const out: NamespaceGovernance = { egress: false, ingress: false, egressBy: [], ingressBy: [], complement: [] };
  if (group === undefined || group === null) return out;
  if (!isRecord(group)) return doubt("the namespace's NetworkPolicies could not be read");
  // Other metaops parents' policies and orphaned ones of metaops' are left out before the count (namespaceOwnKeys).
  const keys = namespaceOwnKeys(group, options.parentKinds ?? []);
  if (typeof keys === 'string') return doubt(keys);
  const all = distinctLabelSets(options.pods, selectorKeys(keys.map((key) => group[key])));
  const sets = all.slice(0, MAX_POD_LABEL_SETS);
  if (sets.length === 0) return out;
  const parent = { namespace, own: options.own, ownIfMarked: options.ownIfMarked ?? [], parentUid };
  const judgedEgress: Array<{ name: string; policy: unknown }> = [];
  for (const key of keys.sort()) {
    const policy = group[key];
    // Every egress policy of the namespace that is not the parent's own counts for the complement, whatever pods it
    // selects now: the complement is then exact for the pods to come too.
    if (!ownOrElsewhere(policy, parent)) judgedEgress.push({ name: policyName(policy), policy });
    const judged = judgePolicy(policy, parent, sets);
    if (!judged) continue;
    if (judged.egress) mark(out, 'egress', judged.name);
    if (judged.ingress) mark(out, 'ingress', judged.name);
  }
  // Past MAX_POD_LABEL_SETS the pods not judged may be selected by a policy that selects none judged: the complement
  // is computed then too (it is exact whatever the pods' labels).
  if (!out.egress && all.length <= MAX_POD_LABEL_SETS) return out;
  return withComplement(out, judgedEgress, options.selector ?? {});
}

/**
 * The keys of the namespace's own policies in `group` (untrusted): other metaops parents' policies (`kinds`), and
 * metaops' own left behind by a parent deleted with --cascade=orphan, are left out before the count (a tenant's 513
 * EtcdClusters, or 513 PodSets deleted so, made every PodSet's pods "governed" by number alone); the walk over them
 * is bounded by MAX_LISTED_POLICIES. A string (the doubt) past MAX_NAMESPACE_POLICIES or MAX_LISTED_POLICIES.
 */
function namespaceOwnKeys(group: Record<string, unknown>, kinds: readonly string[]): string[] | string {
  const keys: string[] = [];
  let listed = 0;
  for (const key in group) {
    if (++listed > MAX_LISTED_POLICIES) return `the namespace holds more than ${MAX_LISTED_POLICIES} NetworkPolicies`;
    const policy = group[key];
    if (isRecord(policy) && isRecord(policy['metadata'])) {
      if (anotherParentsPolicy(policy['metadata'], kinds)) continue;
      if (orphanedMetaopsPolicy(policy['metadata'], policy['spec'])) continue;
    }
    keys.push(key);
    if (keys.length > MAX_NAMESPACE_POLICIES)
      return `the namespace holds more than ${MAX_NAMESPACE_POLICIES} NetworkPolicies of its own`;
  }
  return keys;
}

/**
 * The governance `out` with the complement of `policies`' egress selectors (egressComplement): doubt (egress not
 * governed, metaops' policy kept for every pod, the reason said) where it cannot be had; unchanged where no policy
 * selects any pod of the parent.
 */
function withComplement(
  out: NamespaceGovernance,
  policies: ReadonlyArray<{ name: string; policy: unknown }>,
  fixed: Readonly<Record<string, string>>,
): NamespaceGovernance {
  const complement = egressComplement(policies, fixed);
  if (typeof complement === 'string')
    return { ...out, egress: false, egressBy: [], complement: [], egressDoubt: complement };
  if (complement.length === 1 && complement[0]!.length === 0) return out;
  const named = out.egressBy.length
    ? out.egressBy
    : policies
        .filter((p) => isRecord(p.policy) && policyDirections(p.policy['spec']).egress)
        .slice(0, NAMED)
        .map((p) => p.name);
  return { ...out, egress: true, egressBy: named, complement };
}

/** A policy's name (untrusted), as the conditions name it. */
function policyName(policy: unknown): string {
  const metadata = isRecord(policy) && isRecord(policy['metadata']) ? policy['metadata'] : {};
  return textOf(metadata['name'], '…').slice(0, 253);
}

/** Whether a policy is the parent's own or of another namespace (judgePolicy leaves it out). */
function ownOrElsewhere(
  policy: unknown,
  parent: { namespace: string; own: readonly string[]; ownIfMarked: readonly string[]; parentUid: string | undefined },
): boolean {
  if (!isRecord(policy)) return false;
  const metadata = isRecord(policy['metadata']) ? policy['metadata'] : {};
  const name = policyName(policy);
  const ns = metadata['namespace'];
  if (typeof ns === 'string' && ns !== '' && parent.namespace !== '' && ns !== parent.namespace) return true;
  if (parent.own.includes(name)) return true;
  return parent.ownIfMarked.includes(name) && ownPolicy(metadata, parent.parentUid);
}

/**
 * Whether a NetworkPolicy (untrusted) is one metaops answered for a parent that was deleted with its children
 * orphaned (`kubectl delete --cascade=orphan`: the garbage collector takes the ownerReferences away): labelled
 * `app.kubernetes.io/managed-by: metaops` and `app.kubernetes.io/component: network-policy`, controlled by nothing
 * (no ownerReference with `controller: true`), and of metaops' shape: its podSelector names a metaops parent's pods
 * (`app.kubernetes.io/name` and `app.kubernetes.io/instance` in matchLabels). It selects that gone parent's pods and
 * lets them out everywhere but the metadata services: the namespace's admin wrote none of it. Counted, 513 of them
 * put every parent of the namespace in doubt. A policy a tenant who may write NetworkPolicies forges so opens nothing
 * that tenant could not open by writing one that allows it (they add up).
 */
export function orphanedMetaopsPolicy(metadata: Record<string, unknown>, spec: unknown): boolean {
  const labels = metadata['labels'];
  if (!isRecord(labels) || labels['app.kubernetes.io/managed-by'] !== MANAGED_BY) return false;
  if (labels['app.kubernetes.io/component'] !== 'network-policy') return false;
  const refs = metadata['ownerReferences'];
  if (refs !== undefined && refs !== null) {
    if (!Array.isArray(refs) || refs.length > MAX_OWNER_REFERENCES) return false;
    if ((refs as unknown[]).some((r) => !isRecord(r) || (r['controller'] !== false && r['controller'] !== undefined)))
      return false;
  }
  const selector = isRecord(spec) ? spec['podSelector'] : undefined;
  const matchLabels = isRecord(selector) ? selector['matchLabels'] : undefined;
  return (
    isRecord(matchLabels) &&
    typeof matchLabels['app.kubernetes.io/name'] === 'string' &&
    typeof matchLabels['app.kubernetes.io/instance'] === 'string'
  );
}

/** What one policy (untrusted) governs of pods of these label sets: undefined when none of them. */
function judgePolicy(
  policy: unknown,
  parent: { namespace: string; own: readonly string[]; ownIfMarked: readonly string[]; parentUid: string | undefined },
  sets: ReadonlyArray<Record<string, string>>,
): { name: string; ingress: boolean; egress: boolean } | undefined {
  if (!isRecord(policy)) return { name: '…', ingress: true, egress: true };
  const metadata = isRecord(policy['metadata']) ? policy['metadata'] : {};
  const name = textOf(metadata['name'], '…').slice(0, 253);
  const ns = metadata['namespace'];
  const { namespace, own, ownIfMarked, parentUid } = parent;
  if (typeof ns === 'string' && ns !== '' && namespace !== '' && ns !== namespace) return undefined;
  if (own.includes(name)) return undefined;
  if (ownIfMarked.includes(name) && ownPolicy(metadata, parentUid)) return undefined;
  // (Other parents' policies never reach here: namespaceGovernance leaves them out before it counts.)
  const spec = policy['spec'];
  const selector = isRecord(spec) ? spec['podSelector'] : undefined;
  if (!sets.some((labels) => selectorSelects(selector, labels))) return undefined;
  return { name, ...policyDirections(spec) };
}

/** At most this many ownerReferences of a policy are read; past it the policy counts as the namespace's (doubt). */
const MAX_OWNER_REFERENCES = 16;

/**
 * Whether a policy named as one of the parent's own (`own`) is the parent's: labelled
 * `app.kubernetes.io/managed-by: metaops` (every policy metaops answers is) and controlled by no other object than the
 * parent (a controller ownerReference, when it has one, with the parent's UID). A policy that only shares the name (an
 * admin's `x-restore-check` while the tenant names its cluster `x`) is the namespace's own and governs: left out by
 * name alone, the members' policy was answered with the egress the admin's denies.
 */
function ownPolicy(metadata: Record<string, unknown>, parentUid: string | undefined): boolean {
  const labels = metadata['labels'];
  if (!isRecord(labels) || labels['app.kubernetes.io/managed-by'] !== MANAGED_BY) return false;
  const refs = metadata['ownerReferences'];
  if (refs === undefined) return true;
  if (!Array.isArray(refs) || refs.length > MAX_OWNER_REFERENCES) return false;
  return refs.every(
    (r: unknown) => isRecord(r) && (r['controller'] !== true || (parentUid !== undefined && r['uid'] === parentUid)),
  );
}

/**
 * Whether a NetworkPolicy (its metadata, untrusted) is another metaops parent's pods' policy, not the namespace's
 * own: labelled `app.kubernetes.io/managed-by: metaops` AND controlled (an ownerReference with `controller: true`,
 * as Metacontroller sets on every child) by one of `parentKinds`, the kinds the server serves (ParentKindSettings). Such a policy selects that parent's pods
 * by labels, which another parent's pods may carry too (a PodSet's spec chooses its pods' labels); counted, it made
 * the second parent answer its pods no policy, and when the first parent went (its policy with it) the second's pods
 * ran unguarded. It is metaops' own answer, and goes with its parent: the namespace's admin wrote none of it. Anything
 * short of both marks, or read with doubt (labels or ownerReferences not of their type, too many ownerReferences),
 * counts as the namespace's: a policy a tenant labels as metaops' without such an owner still governs (never widen on
 * doubt). One a tenant who may write NetworkPolicies forges with both marks opens nothing that tenant could not open
 * by writing a policy that allows it (NetworkPolicies add up; docs/operating.md "Tenants").
 */
export function anotherParentsPolicy(metadata: Record<string, unknown>, parentKinds: readonly string[]): boolean {
  const labels = metadata['labels'];
  if (!isRecord(labels) || labels['app.kubernetes.io/managed-by'] !== MANAGED_BY) return false;
  const refs = metadata['ownerReferences'];
  if (!Array.isArray(refs) || refs.length > MAX_OWNER_REFERENCES) return false;
  return refs.some((r: unknown) => {
    if (!isRecord(r) || r['controller'] !== true) return false;
    const apiVersion = r['apiVersion'];
    const kind = r['kind'];
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') return false;
    const slash = apiVersion.indexOf('/');
    if (slash <= 0) return false;
    return parentKinds.includes(`${apiVersion.slice(0, slash)}/${kind}`);
  });
}

function mark(out: NamespaceGovernance, direction: 'egress' | 'ingress', name: string): void {
  out[direction] = true;
  const by = direction === 'egress' ? out.egressBy : out.ingressBy;
  if (by.length < NAMED && !by.includes(name)) by.push(name);
}

/** The governing policies named in words: `NetworkPolicy a, b` (three at most, `and others` past them). */
export function governingNames(by: readonly string[]): string {
  const named = by.filter((n) => n !== '…');
  const words = named.length ? `NetworkPolicy ${named.join(', ')}` : 'a NetworkPolicy it could not read';
  return by.length >= NAMED ? `${words} (and maybe others)` : words;
}

/**
 * The NetworkPolicyCreated condition of pods some of which the namespace's own egress policies select
 * (namespaceGovernance): metaops answers those no way out (its policy would add one: NetworkPolicies add up), so they
 * reach what the namespace's policies allow and nothing more; the others, which no such policy selects, are selected
 * by metaops' complement policies (`complement`: their names), which keep them from the metadata services. `created`:
 * whether a policy of the parent is still answered (EtcdCluster's members keep theirs for ingress; a complement
 * policy), else none is (PodSet, Memcached where the namespace's policies select every pod: False). Said while pods
 * run.
 */
export function namespaceGovernsCondition(
  by: readonly string[],
  options: { name: string; created: boolean; complement?: readonly string[] },
): ConditionInput {
  const complement = options.complement ?? [];
  const what = options.created
    ? `NetworkPolicy ${options.name} leaves egress out`
    : `no NetworkPolicy ${options.name} is made`;
  const others = complement.length
    ? `; the pods none of them selects are selected by NetworkPolicy ${complement.join(', ')}, which keep(s) them from the instance metadata services`
    : '';
  return {
    type: 'NetworkPolicyCreated',
    status: options.created || complement.length > 0,
    reason: 'NamespaceGovernsEgress',
    message: `the namespace's own ${governingNames(by)} select(s) ${complement.length ? 'some of ' : ''}these pods for egress: ${what}, so they reach only what the namespace's policies allow (metaops never widens them)${others}`,
  };
}

/**
 * The NetworkPolicyCreated condition of pods whose namespace's egress policies could not be read exactly
 * (namespaceGovernance's egressDoubt: `why`): metaops' policy `name` selects every pod of the parent and keeps them
 * from the metadata services (doubt keeps them out), and for a pod a namespace policy selects it may allow more than
 * that policy does. Said while pods run and the policy is observed.
 */
export function egressDoubtCondition(why: string, options: { name: string }): ConditionInput {
  return {
    type: 'NetworkPolicyCreated',
    status: true,
    reason: 'NamespaceEgressInDoubt',
    message:
      `${why}: NetworkPolicy ${options.name} selects every pod for egress and keeps them from the instance metadata ` +
      `services; a pod one of the namespace's egress policies selects may reach more than that policy allows ` +
      `(NetworkPolicies add up: write selectors metaops reads, at most ${MAX_EXPRESSIONS} expressions of ` +
      `${MAX_VALUES} values, or turn metaops' policy off)`,
  };
}

/**
 * The label sets of the pods among these objects (answered children, observed children or related objects): a Pod's
 * labels, a Deployment's pod template's (namespaceGovernance judges them on the keys its policies name); the objects
 * are untrusted: a field of another type is skipped.
 */
export function podLabelSets(...lists: ReadonlyArray<ReadonlyArray<KubeObject | null | undefined>>): unknown[] {
  const out: unknown[] = [];
  for (const list of lists)
    for (const o of list) {
      if (!isRecord(o)) continue;
      if (o.kind === 'Pod') out.push(isRecord(o.metadata) ? o.metadata.labels : undefined);
      else if (o.kind === 'Deployment') {
        const spec = o['spec'];
        const template = isRecord(spec) ? spec['template'] : undefined;
        const metadata = isRecord(template) ? template['metadata'] : undefined;
        out.push(isRecord(metadata) ? metadata['labels'] : undefined);
      }
    }
  return out.filter((l) => l !== undefined);
}

/**
 * An answer without the parent's policy `name` (a kept answer keeps every observed child): where the namespace's own
 * policies govern the pods' egress, the policy metaops answered before would go on adding to what they allow while
 * the parent is refused or held. Taking it away only narrows what the pods reach.
 */
export function withoutPolicy(response: CompositeSyncResponse, name: string): CompositeSyncResponse {
  const children = response.children.filter(
    (c: KubeObject | null) => !(c?.kind === 'NetworkPolicy' && c.metadata?.name === name),
  );
  return children.length === response.children.length ? response : { ...response, children };
}
