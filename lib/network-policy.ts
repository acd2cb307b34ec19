// What the pods of a workload that runs a tenant's chosen image may reach: a NetworkPolicy child (networking.k8s.io/v1)
// for the kinds whose pods run it (PodSet: the spec's image and command; Memcached: the spec's image). Those pods run
// with Metacontroller's rights, in a namespace whose administrator may have set no NetworkPolicy because its tenants
// make no pods: without one, the tenant's code takes the node's credentials from the cloud's instance metadata service
// (the node's role, which every tenant's pods on that node share). The EtcdCluster members' policy keeps the same
// addresses out (hooks/etcdcluster/network.ts). docs/podset.md, docs/memcached.md "Network policy".
import { buildConditions, previousConditions, type ConditionInput } from './conditions.js';
import type { ChildResourceRule } from './hook.js';
import { holderJudge } from './holders.js';
import { childLabels } from './labels.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject, ParentObject } from './metacontroller.js';
import { observedNamed } from './objects.js';
import { takenNames } from './ownership.js';

/** The instance metadata addresses of the clouds (AWS, GCP, Azure, OpenStack: 169.254.169.254; AWS's and GCP's IPv6 ones). */
export const METADATA_V4 = '169.254.169.254/32';
export const METADATA_V6 = ['fd00:ec2::254/128', 'fd20:ce::254/128'];

/**
 * The server setting that turns the workloads' NetworkPolicy off (`false`): on by default. One for every kind whose
 * pods run a tenant's image (PodSet, Memcached): what decides it (a CNI that enforces no NetworkPolicy, admins who write
 * their own egress policies) is the cluster's, not the kind's.
 */
export const WORKLOAD_NETWORK_POLICY_SETTING = 'METAOPS_WORKLOAD_NETWORK_POLICY';

/** The settings of a kind that answers the workload NetworkPolicy. */
export interface WorkloadNetworkSettings {
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
  const name = parent.metadata.name!;
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
            { ipBlock: { cidr: '0.0.0.0/0', except: [METADATA_V4] } },
            { ipBlock: { cidr: '::/0', except: [...METADATA_V6] } },
            { namespaceSelector: {} },
          ],
        },
      ],
    },
  };
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

/**
 * An answer that keeps the observed children and makes nothing (a spec refused: InvalidSpec; a parent held for a name
 * another owner holds: `<Kind>NameTaken`), with its pods' NetworkPolicy while pods of the parent are kept in it
 * (`runs`: a child of the answer that runs them, a pod or a Deployment): a running parent of an earlier metaops, or of
 * a server that had the policy off, or whose policy was deleted, would else keep pods that run the tenant's image
 * without it for as long as its spec stays refused or its names held. The policy makes no pod and only narrows what
 * the pods reach; it is the policy the sync answers (`policy`, undefined when the server's setting turns it off), so
 * that the answers of a parent that goes between refused, held and running agree. Not while its name is another
 * owner's (a related object of that name that is not the parent's, or a holder lib/ownership.ts judges wants it): that
 * answer says NetworkPolicyNameTaken once the spec is accepted, and nothing is taken from the other owner meanwhile.
 * EtcdCluster's members (hooks/etcdcluster/network.ts withMemberPolicy), PodSet, Memcached.
 */
export function withPodsPolicy(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  policy: KubeObject | undefined,
  runs: (child: KubeObject) => boolean,
  now: Date,
): CompositeSyncResponse {
  if (!policy || !response.children.some((c: KubeObject | null) => !!c && runs(c))) return response;
  if (policyNameTaken(request, policy, now)) return response;
  const name = policy.metadata.name!;
  const others = response.children.filter(
    (c: KubeObject | null) => !(c?.kind === 'NetworkPolicy' && c.metadata?.name === name),
  );
  return { ...response, children: [...others, policy] };
}

/** How long a pods' NetworkPolicy may stay unobserved beside running pods before the status says it failed. */
export const POLICY_ABSENT_SECONDS = 60;

/**
 * The NetworkPolicyCreated condition, while pods of the parent run (`running`: how many, and what they reach without
 * it, in words; undefined: none run) and its policy (`name`) is not observed (else none: nothing to say, and a parent
 * that has it carries no condition about it). Metacontroller creates each child on its own and tells the hook nothing
 * when a create fails (a Metacontroller installed without rights on networkpolicies, an admission policy, a quota:
 * its SyncError Event says why); the pods are kept and made as before, so the status must say that they run without
 * it: `CreatingNetworkPolicy` at first (the sync after an earlier metaops's, or a policy deleted),
 * `NetworkPolicyNotCreated` (a Warning Event) once it is still absent POLICY_ABSENT_SECONDS after it was first missed
 * (this condition's lastTransitionTime). `kind`: the parent's, named in the advice.
 */
export function policyCreatedCondition(
  request: CompositeSyncRequest,
  options: { name: string; kind: string; running: string | undefined },
  now: Date,
): ConditionInput | undefined {
  const { name, kind, running } = options;
  if (running === undefined || observedNamed(request.children, 'NetworkPolicy', 'networking.k8s.io/v1', name))
    return undefined;
  const prev = previousConditions(request.parent.status).find((c) => c.type === 'NetworkPolicyCreated');
  const since = prev?.status === 'False' && prev.lastTransitionTime ? Date.parse(prev.lastTransitionTime) : NaN;
  if (Number.isFinite(since) && now.getTime() - since >= POLICY_ABSENT_SECONDS * 1000)
    return {
      type: 'NetworkPolicyCreated',
      status: false,
      reason: 'NetworkPolicyNotCreated',
      message:
        `NetworkPolicy ${name} has not been created ${POLICY_ABSENT_SECONDS} s after it was asked for and ${running}: ` +
        `Metacontroller could not create it (see the SyncError event on this ${kind}: kubectl describe; it needs ` +
        `create on networkpolicies of networking.k8s.io, and no admission policy or quota refusing it)`,
    };
  return {
    type: 'NetworkPolicyCreated',
    status: false,
    reason: 'CreatingNetworkPolicy',
    message: `waiting for NetworkPolicy ${name} to be created; until then ${running}`,
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
 * A refused answer (InvalidSpec: its other conditions are the previous status's) with its NetworkPolicyCreated
 * condition as the pods and policy are now (policyCreatedCondition: `condition`, undefined when nothing is to be said),
 * and the resync it asks for (policyResync): never a stale one kept, either way.
 */
export function withPolicyCondition(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  condition: ConditionInput | undefined,
  now: Date,
): CompositeSyncResponse {
  const status = (response.status ?? {}) as Record<string, unknown>;
  const others = previousConditions(status).filter((c) => c.type !== 'NetworkPolicyCreated');
  const said = condition
    ? buildConditions([condition], previousConditions(request.parent.status), request.parent.metadata.generation, now)
    : [];
  const again = policyResync(condition);
  const out: CompositeSyncResponse = { ...response, status: { ...status, conditions: [...others, ...said] } };
  if (again !== undefined) out.resyncAfterSeconds = Math.min(response.resyncAfterSeconds ?? Infinity, again);
  return out;
}

/** Whether an answer is a refused spec's (Ready InvalidSpec). */
export function refusedAnswer(response: CompositeSyncResponse): boolean {
  return previousConditions(response.status).some((c) => c.type === 'Ready' && c.reason === 'InvalidSpec');
}
