// Who may reach an EtcdCluster's members, and what they may reach: a NetworkPolicy child (networking.k8s.io/v1)
// selecting the member pods. The members run the tenant's image (spec.repository, spec.version) with Metacontroller's
// rights, in a namespace whose administrator may have set no NetworkPolicy because its tenants make no pods: without
// one, every pod of every namespace reads a member's metrics and health (2381, plain HTTP also under TLS: the
// kubelet's probes ask it) and speaks to its peer port (2380), and the tenant's code in a member takes the node's
// credentials from the cloud's instance metadata service. docs/etcdcluster.md "Network policy".
import {
  childLabels,
  type ConditionInput,
  type CompositeSyncRequest,
  type CompositeSyncResponse,
  type KubeObject,
  METADATA_V4,
  METADATA_V6,
  namespaceGovernance,
  governingNames,
  complementKeptAtDeletion,
  complementPolicyNames,
  podsComplementPolicies,
  complementInFreeNames,
  egressHandover,
  egressDoubtCondition,
  namespaceGovernsCondition,
  type NamespaceGovernance,
  type ParentKindSettings,
  observed,
  observedNamed,
  podLabelSets,
  type ParentObject,
  POLICY_ABSENT_SECONDS as LIB_POLICY_ABSENT_SECONDS,
  POLICY_KEPT_AT_DELETION_SECONDS as LIB_POLICY_KEPT_AT_DELETION_SECONDS,
  policiesCreatedCondition,
  policyKeptAtDeletion,
  policyMatchLabels,
  ruleProblem,
  selectorLabels,
  SERVER_NAMESPACE_ENV,
  SERVER_POD_LABELS,
  serverNamespaceOf,
  serverNamespaceProblems,
  textOf,
  keptWithPolicies,
  withoutPolicy,
} from '../../lib/index.js';
import type { EtcdSettings } from '../etcdcommon/index.js';
import { ambientAllowed, BACKUP_CLIENT_VALUE, backupClientLabel, tenancyOf } from '../etcdcommon/tenancy.js';
import { CLIENT_PORT, INSTANCE_LABEL, memberIndex, METRICS_PORT, PEER_PORT, selector } from './members.js';
import { checkPodName } from './restore.js';

/** The server setting that turns the members' NetworkPolicy off (`false`): on by default. */
export const NETWORK_POLICY_SETTING = 'METAOPS_ETCD_NETWORK_POLICY';
/** The server setting naming the namespaces (besides a cluster's own) whose pods may read members' metrics. */
export const METRICS_NAMESPACES_SETTING = 'METAOPS_ETCD_METRICS_NAMESPACES';

/** The NetworkPolicy's name: `<cluster>-members` (a tenant's own policy named as the cluster is not taken). */
export function networkPolicyName(cluster: string): string {
  return `${cluster}-members`;
}

/**
 * The restore check pod's NetworkPolicy: `<cluster>-restore-check` (the check pod's own name; a NetworkPolicy, so no
 * member's, whose policy ends in `-members`).
 */
export function restoreCheckPolicyName(cluster: string): string {
  return checkPodName(cluster);
}

/** The EtcdCluster hook's settings: the etcd family's, and the members' NetworkPolicy. */
export interface EtcdClusterSettings extends EtcdSettings, ParentKindSettings {
  /** Whether the hook answers the members' NetworkPolicy (METAOPS_ETCD_NETWORK_POLICY; absent: yes). */
  memberNetworkPolicy?: boolean;
  /** Namespaces whose pods may read every cluster's metrics port besides its own (METAOPS_ETCD_METRICS_NAMESPACES). */
  metricsNamespaces?: readonly string[];
  /**
   * The namespace of the hook server's pods (METAOPS_SERVER_NAMESPACE, from the downward API): let in on the client
   * port where the namespace's own policies govern the members' ingress; absent: they are not, and the status says so.
   */
  serverNamespace?: string;
  /** Whether spec.pod.securityContext may name an SELinux level (METAOPS_POD_ALLOW_SELINUX_LEVEL; absent: no). */
  allowSeLinuxLevel?: boolean;
}

/** METAOPS_ETCD_NETWORK_POLICY: true unless `false` or `0`. */
export function memberNetworkPolicyOf(env: NodeJS.ProcessEnv): boolean {
  const text = (env[NETWORK_POLICY_SETTING] ?? '').trim().toLowerCase();
  return !(text === 'false' || text === '0');
}

/** METAOPS_ETCD_METRICS_NAMESPACES, comma-separated, sorted and without repeats. */
export function metricsNamespacesOf(env: NodeJS.ProcessEnv): string[] {
  const names = (env[METRICS_NAMESPACES_SETTING] ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  return [...new Set(names)].sort();
}

/** What is wrong with the two settings (the server refuses to start). */
export function networkSettingsProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const raw = env[NETWORK_POLICY_SETTING];
  if (raw !== undefined && raw.trim() !== '' && !['true', 'false', '1', '0'].includes(raw.trim().toLowerCase()))
    problems.push(`${NETWORK_POLICY_SETTING}=${JSON.stringify(raw)}: expected true or false`);
  for (const ns of metricsNamespacesOf(env))
    if (ruleProblem('dns1123Label', ns) !== undefined)
      problems.push(`${METRICS_NAMESPACES_SETTING}: ${JSON.stringify(ns)} is not a namespace`);
  if (metricsNamespacesOf(env).length > 64) problems.push(`${METRICS_NAMESPACES_SETTING}: at most 64 namespaces`);
  problems.push(...serverNamespaceProblems(env));
  return problems;
}

/**
 * The NetworkPolicy's settings (METAOPS_ETCD_NETWORK_POLICY, METAOPS_ETCD_METRICS_NAMESPACES, and the server's own
 * namespace, METAOPS_SERVER_NAMESPACE).
 */
export function networkSettings(
  env: NodeJS.ProcessEnv,
): Pick<EtcdClusterSettings, 'memberNetworkPolicy' | 'metricsNamespaces' | 'serverNamespace'> {
  const serverNamespace = serverNamespaceOf(env);
  return {
    memberNetworkPolicy: memberNetworkPolicyOf(env),
    metricsNamespaces: metricsNamespacesOf(env),
    ...(serverNamespace ? { serverNamespace } : {}),
  };
}

/**
 * The members' NetworkPolicy, or undefined when the server's setting turns it off. It selects the member pods as the
 * Services do (`own`: by INSTANCE_LABEL once every member carries it, sync.ts servicesSelectOwn) and lets in:
 * - the client port 2379 from anywhere, as before (the cluster's clients; TLS protects it when spec.TLS asks), unless
 *   the namespace's own policies govern the members' ingress (`governance.ingress`, namespaceGovernance: a default-deny
 *   ingress): then only from what the cluster needs (clientPeers: its members, its backup pods, the hook server's
 *   pods), never from everyone, since NetworkPolicies add up and a rule of ours would open what the namespace closes;
 * - the peer port 2380 from the cluster's own members only (same selector);
 * - the metrics port 2381 from pods of the cluster's namespace (not where the namespace governs the members'
 *   ingress) and of the namespaces the server names (METAOPS_ETCD_METRICS_NAMESPACES: a Prometheus, the cluster
 *   admin's choice). The kubelet's probes come from the node, which the CNIs that enforce NetworkPolicy let in
 *   whatever the policy says (docs/etcdcluster.md);
 * and lets out everything but the instance metadata service (169.254.169.254, fd00:ec2::254, fd20:ce::254): every address outside
 * those, and every pod of every namespace (a CNI may not match pod addresses by ipBlock). A namespace the server lets
 * use the node's own credentials (METAOPS_BACKUP_AMBIENT_CREDENTIALS: a restored member's fetch step without an
 * awsSecret asks the metadata service for them) keeps the metadata service.
 */
export function memberNetworkPolicy(
  parent: ParentObject,
  settings: Partial<EtcdClusterSettings>,
  own: boolean,
  governance?: Pick<NamespaceGovernance, 'egress' | 'ingress'>,
): KubeObject | undefined {
  if (settings.memberNetworkPolicy === false) return undefined;
  const name = parent.metadata.name;
  const namespace = parent.metadata.namespace ?? 'default';
  const members = { matchLabels: selector(name, own) };
  // Where the namespace's own policies govern the members' ingress, nothing of the namespace beyond what the cluster
  // needs: its pods are let in no more than those policies let them.
  const governed = governance?.ingress === true;
  const metricsFrom: unknown[] = governed ? [] : [{ podSelector: {} }];
  const others = (settings.metricsNamespaces ?? []).filter((n) => n !== namespace);
  if (others.length)
    metricsFrom.push({
      namespaceSelector: {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...others] }],
      },
    });
  const client = governed
    ? { from: clientPeers(name, members, settings), ports: [{ protocol: 'TCP', port: CLIENT_PORT }] }
    : { ports: [{ protocol: 'TCP', port: CLIENT_PORT }] };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: networkPolicyName(name),
      namespace: parent.metadata.namespace,
      labels: childLabels('etcd', name, 'network-policy'),
    },
    spec: {
      podSelector: members,
      ...directions(
        [
          client,
          { from: [{ podSelector: members }], ports: [{ protocol: 'TCP', port: PEER_PORT }] },
          ...(metricsFrom.length ? [{ from: metricsFrom, ports: [{ protocol: 'TCP', port: METRICS_PORT }] }] : []),
        ],
        egressOf(settings, namespace),
        governance,
      ),
    },
  };
}

/**
 * Who may reach the client port where the namespace's own policies govern the members' ingress: the cluster's own
 * members; its backup pods, of the cluster's namespace (an EtcdBackup's Job pods carry backupClientLabel of each
 * cluster they dial; a Job made before that label runs with pods without it, the next ones have it); and the hook
 * server's pods (the hook dials every member), by SERVER_POD_LABELS in METAOPS_SERVER_NAMESPACE, only when that
 * setting is given (the shipped manifests and chart set it from the downward API); without it no peer of another
 * namespace, never everyone (networkPolicyCreated says so). The restore check pod dials no member (it checks the
 * snapshot with an etcd of its own, on localhost).
 */
function clientPeers(
  cluster: string,
  members: { matchLabels: Record<string, string> },
  settings: Partial<EtcdClusterSettings>,
): unknown[] {
  const peers: unknown[] = [
    { podSelector: members },
    { podSelector: { matchLabels: { [backupClientLabel(cluster)]: BACKUP_CLIENT_VALUE } } },
  ];
  if (settings.serverNamespace)
    peers.push({
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': settings.serverNamespace } },
      podSelector: { matchLabels: { ...SERVER_POD_LABELS } },
    });
  return peers;
}

/**
 * The policy's types and rules: Ingress with `ingress`, and Egress with `egress` unless the namespace's own policies
 * govern the pods' egress (namespaceGovernance: ours would only add to what they allow; the pods reach what they
 * allow). Ingress stays: its rules only narrow who reaches the pods to what they need.
 */
function directions(
  ingress: unknown[] | undefined,
  egress: unknown[],
  governance: Pick<NamespaceGovernance, 'egress'> | undefined,
): Record<string, unknown> {
  if (governance?.egress) return { policyTypes: ['Ingress'], ...(ingress ? { ingress } : {}) };
  return { policyTypes: ['Ingress', 'Egress'], ...(ingress ? { ingress } : {}), egress };
}

/**
 * The way out of the cluster's pods that run the tenant's images: every address but the instance metadata service,
 * and every pod of every namespace; all of it in a namespace the server lets use the node's credentials
 * (METAOPS_BACKUP_AMBIENT_CREDENTIALS: a fetch without an awsSecret asks the metadata service for them).
 */
function egressOf(settings: Partial<EtcdClusterSettings>, namespace: string): unknown[] {
  const metadata = ambientAllowed(tenancyOf(settings), namespace);
  return [
    {
      to: [
        { ipBlock: metadata ? { cidr: '0.0.0.0/0' } : { cidr: '0.0.0.0/0', except: [...METADATA_V4] } },
        { ipBlock: metadata ? { cidr: '::/0' } : { cidr: '::/0', except: [...METADATA_V6] } },
        { namespaceSelector: {} },
      ],
    },
  ];
}

/**
 * The restore check pod's NetworkPolicy (restore.ts restoreCheckPod), or undefined when the server's setting turns the
 * cluster's policies off (METAOPS_ETCD_NETWORK_POLICY). The check pod runs the tenant's images first
 * (spec.pod.busyboxImage's /bin/sh, `<spec.repository>:v<spec.version>`), and carries none of the members' labels:
 * it is selected by the labels only it carries (its component, restore-check). It serves nothing: no one may reach it
 * (policyTypes Ingress with no rule). Out: as the members (egressOf): the S3 endpoint, STS and DNS stay reachable, the
 * metadata service only where the server lets the namespace use the node's credentials (the check's fetch without an
 * awsSecret asks it for them).
 */
export function restoreCheckNetworkPolicy(
  parent: ParentObject,
  settings: Partial<EtcdClusterSettings>,
  governance?: Pick<NamespaceGovernance, 'egress'>,
): KubeObject | undefined {
  if (settings.memberNetworkPolicy === false) return undefined;
  const name = parent.metadata.name;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: restoreCheckPolicyName(name),
      namespace: parent.metadata.namespace,
      labels: childLabels('etcd', name, 'network-policy'),
    },
    spec: {
      podSelector: { matchLabels: checkPodLabels(name) },
      ...directions(undefined, egressOf(settings, parent.metadata.namespace ?? 'default'), governance),
    },
  };
}

/**
 * Where the namespace's own policies select some of the members for egress (`governance.complement`): metaops' egress
 * policies of the others (`<cluster>-members-egress-<i>`, lib/network-policy.ts egressComplementPolicies), each
 * selecting the members (as `<cluster>-members` does, `own`) that no such policy selects, with the members' way out
 * (egressOf); none when the server's setting turns the members' policy off.
 */
export function memberComplementPolicies(
  parent: ParentObject,
  settings: Partial<EtcdClusterSettings>,
  own: boolean,
  governance: NamespaceGovernance | undefined,
): KubeObject[] {
  const name = parent.metadata.name ?? '';
  return podsComplementPolicies(parent, networkPolicyName(name), selector(name, own), {
    app: 'etcd',
    egress: egressOf(settings, parent.metadata.namespace ?? 'default'),
    governance,
    off: settings.memberNetworkPolicy === false,
  });
}

/** The same for the restore check pod (`<cluster>-restore-check-egress-<i>`). */
export function checkComplementPolicies(
  parent: ParentObject,
  settings: Partial<EtcdClusterSettings>,
  governance: NamespaceGovernance | undefined,
): KubeObject[] {
  const name = parent.metadata.name ?? '';
  return podsComplementPolicies(parent, restoreCheckPolicyName(name), checkPodLabels(name), {
    app: 'etcd',
    egress: egressOf(settings, parent.metadata.namespace ?? 'default'),
    governance,
    off: settings.memberNetworkPolicy === false,
  });
}

/** The labels the restore check pod's policy selects it by (only it carries them). */
function checkPodLabels(cluster: string): Record<string, string> {
  return { ...selectorLabels('etcd', cluster), 'app.kubernetes.io/component': 'restore-check' };
}

/** How long after its EtcdCluster's deletion its NetworkPolicies are kept while its pods are observed (lib). */
export const POLICY_KEPT_AT_DELETION_SECONDS = LIB_POLICY_KEPT_AT_DELETION_SECONDS;

/**
 * A finalize's children: the cluster's NetworkPolicies that are observed, each while a pod it selects is observed
 * (running or in its grace period), so that no pod running the tenant's image runs its last seconds without it (it
 * would read the metadata service on SIGTERM); at most POLICY_KEPT_AT_DELETION_SECONDS after the parent's
 * deletionTimestamp (lib/policy-at-deletion.ts policyKeptAtDeletion, which PodSet and Memcached use too). Only a
 * policy observed as the cluster's child is kept (nothing is made while it is deleted); it is answered as the sync
 * answers it, with the selector it has (INSTANCE_LABEL or not): the pods it selects stay selected.
 */
export function policiesKeptAtDeletion(
  request: CompositeSyncRequest,
  settings: Partial<EtcdClusterSettings>,
  now: Date,
): KubeObject[] {
  const parent = request.parent;
  const cluster = parent.metadata.name ?? '';
  const pods = observed(request.children, 'Pod', 'v1');
  const members = policyKeptAtDeletion(
    request,
    {
      name: networkPolicyName(cluster),
      waiting: pods.filter((p) => memberIndex(cluster, p.metadata.name ?? '') !== undefined),
      answer: (policy) =>
        memberNetworkPolicy(
          parent,
          settings,
          policyMatchLabels(policy)?.[INSTANCE_LABEL] === cluster,
          observedGovernance(policy),
        ),
    },
    now,
  );
  const check = policyKeptAtDeletion(
    request,
    {
      name: restoreCheckPolicyName(cluster),
      waiting: pods.filter((p) => p.metadata.name === checkPodName(cluster)),
      answer: (policy) => restoreCheckNetworkPolicy(parent, settings, observedGovernance(policy)),
    },
    now,
  );
  const memberWaiting = pods.filter((p) => memberIndex(cluster, p.metadata.name ?? '') !== undefined);
  const checkWaiting = pods.filter((p) => p.metadata.name === checkPodName(cluster));
  return [
    ...[members, check].filter((p): p is KubeObject => p !== undefined),
    ...complementKeptAtDeletion(request, { name: networkPolicyName(cluster), waiting: memberWaiting }, now),
    ...complementKeptAtDeletion(request, { name: restoreCheckPolicyName(cluster), waiting: checkWaiting }, now),
  ];
}

/**
 * At deletion (finalize is sent no related objects) a policy is kept as observed: without Egress when it was answered
 * so (the namespace's policies governed the pods' egress), and with the client port let in only to what the cluster
 * needs when it was answered so (they governed its ingress), so that finalize adds no way out or in the sync had left
 * out.
 */
function observedGovernance(policy: KubeObject): Pick<NamespaceGovernance, 'egress' | 'ingress'> {
  const spec = policy['spec'] as { policyTypes?: unknown; ingress?: unknown } | undefined;
  const types = spec?.policyTypes;
  // The client port opened to everyone only when it was answered so (a rule without `from`): else it stays closed to
  // all but what the cluster needs, as the sync answered it where the namespace governed the members' ingress.
  const rules = Array.isArray(spec?.ingress) ? (spec.ingress as unknown[]) : [];
  const open = rules.some((r) => {
    const rule = r as { from?: unknown; ports?: unknown } | null;
    return (
      !!rule &&
      typeof rule === 'object' &&
      (rule.from === undefined || rule.from === null) &&
      Array.isArray(rule.ports) &&
      (rule.ports as unknown[]).some((p) => (p as { port?: unknown } | null)?.port === CLIENT_PORT)
    );
  });
  return { egress: !(Array.isArray(types) && types.includes('Egress')), ingress: !open };
}

/** The namespace's governance of the cluster's pods: the members', the restore check pod's (namespaceGovernance). */
export interface ClusterGovernance {
  members: NamespaceGovernance;
  check: NamespaceGovernance;
}

/**
 * Whether the namespace's own NetworkPolicies govern the members' / the restore check pod's traffic: judged on the
 * labels of the pods answered (`answered`) and of those observed, the members' and the check pod's apart; the
 * cluster's own policies (`<name>-members`, `<name>-restore-check`, controlled by it) left out.
 */
export function clusterGovernance(
  request: CompositeSyncRequest,
  answered: readonly (KubeObject | null)[],
  settings: Partial<EtcdClusterSettings> | undefined,
): ClusterGovernance {
  const cluster = request.parent.metadata.name ?? '';
  const pods = [...answered, ...observed(request.children, 'Pod', 'v1')].filter(
    (p): p is KubeObject => !!p && p.kind === 'Pod',
  );
  // The members' policy name is held when another owner has it (NetworkPolicyNameTaken); the restore check's only
  // while a restore runs: a policy of that name counts as the cluster's own only when it is (lib ownPolicy).
  // The complement policies' names (`-egress-<i>`) likewise: an admin's policy of such a name governs.
  const own = [networkPolicyName(cluster)];
  const ownIfMarked = [
    ...complementPolicyNames(networkPolicyName(cluster)),
    restoreCheckPolicyName(cluster),
    ...complementPolicyNames(restoreCheckPolicyName(cluster)),
  ];
  const member = pods.filter((p) => memberIndex(cluster, textOf(p.metadata?.name, '')) !== undefined);
  const check = pods.filter((p) => p.metadata?.name === checkPodName(cluster));
  const parentKinds = settings?.parentKinds;
  return {
    members: namespaceGovernance(request, {
      pods: podLabelSets(member),
      own,
      ownIfMarked,
      parentKinds,
      selector: selector(cluster),
    }),
    check: namespaceGovernance(request, {
      pods: podLabelSets(check),
      own,
      ownIfMarked,
      parentKinds,
      selector: checkPodLabels(cluster),
    }),
  };
}

/**
 * An answer that keeps the observed children and makes nothing (a refused spec, InvalidSpec; a cluster held for a
 * name another owner holds, `<Kind>NameTaken`, or not checked, MemberNameNotChecked), with the members'
 * NetworkPolicy while member pods of the cluster are kept in it: a running cluster of an earlier metaops, or of a
 * server that had the policy off, would else keep members that run the tenant's image without it for as long as
 * its spec stays refused or its names held. The policy makes no pod and only narrows what the members reach. It is
 * the policy the sync answers (same settings, same `own`: sync.ts servicesSelectOwn), so the answers of a cluster
 * that goes between refused, held and running agree. Not while its name is another owner's (a related object of
 * that name that is not the cluster's, or a holder lib/ownership.ts judges wants it): that answer says
 * NetworkPolicyNameTaken once the spec is accepted, and nothing is taken from the other owner meanwhile. The same for
 * the restore check pod's policy while the answer keeps the check pod (restoreCheckNetworkPolicy). NetworkPolicyCreated
 * says which of the two is not observed while the pods it selects run (lib/network-policy.ts keptWithPolicies), as
 * the sync's networkPolicyCreated does. The cluster's `kept` (index.ts): every answer of the sync that keeps the
 * observed children goes through it (a refused spec, a name held, a TemporaryError or PermanentError such as
 * ClusterDomainNotAllowed, an answer not given: lib/operator.ts).
 */
export function withMemberPolicy(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  settings: Partial<EtcdClusterSettings>,
  own: boolean,
  now: Date,
): CompositeSyncResponse {
  const cluster = request.parent.metadata.name ?? '';
  const pod = (c: KubeObject) => c.kind === 'Pod' && c.apiVersion === 'v1';
  const member = (c: KubeObject) => pod(c) && memberIndex(cluster, c.metadata?.name ?? '') !== undefined;
  const check = (c: KubeObject) => pod(c) && c.metadata?.name === checkPodName(cluster);
  const governance = clusterGovernance(request, response.children, settings);
  const memberPolicy = memberNetworkPolicy(request.parent, settings, own, governance.members);
  const checkPolicy = restoreCheckNetworkPolicy(request.parent, settings, governance.check);
  // The complement policies observed are answered anew (the namespace's policies may have changed meanwhile).
  let answer = response;
  for (const n of [
    ...complementPolicyNames(networkPolicyName(cluster)),
    ...complementPolicyNames(restoreCheckPolicyName(cluster)),
  ])
    answer = withoutPolicy(answer, n);
  // Held for one of their names (an admin's policy so named): that one is answered under a free name of the set.
  const memberComplement = complementInFreeNames(
    request,
    memberComplementPolicies(request.parent, settings, own, governance.members),
    networkPolicyName(cluster),
    now,
  );
  const checkComplement = complementInFreeNames(
    request,
    checkComplementPolicies(request.parent, settings, governance.check),
    restoreCheckPolicyName(cluster),
    now,
  );
  let out = keptWithPolicies(
    request,
    answer,
    'EtcdCluster',
    [
      { policy: memberPolicy, runs: member, running: membersRunning },
      { policy: checkPolicy, runs: check, running: () => CHECK_RUNNING },
      ...memberComplement.map((policy) => ({ policy, runs: member, running: membersRunning })),
      ...checkComplement.map((policy) => ({ policy, runs: check, running: () => CHECK_RUNNING })),
    ],
    now,
  );
  // A kept answer keeps the observed policies as they were: where the namespace now governs their egress (or the
  // members' ingress), the one answered took their place (keptWithPolicies), or, with no pod to keep it for, the old
  // one is taken away.
  const governed = governance.members.egress || governance.members.ingress;
  if (governed && !(memberPolicy && out.children.includes(memberPolicy)))
    out = withoutPolicy(out, networkPolicyName(cluster));
  if (governance.check.egress && !(checkPolicy && out.children.includes(checkPolicy)))
    out = withoutPolicy(out, restoreCheckPolicyName(cluster));
  // The observed policies the answer replaces are kept until their replacements are observed.
  const children = clusterEgressHandover(request, out.children, settings, own, governance);
  return children.length === out.children.length && children.every((c, i) => c === out.children[i])
    ? out
    : { ...out, children };
}

/**
 * The answer's children with the members' and the restore check pod's egress kept while it changes hands between
 * their policy and its `-egress-` complement policies (lib/network-policy.ts egressHandover): the observed ones the
 * answer replaces stay until their replacements are observed; `<name>-members` keeps its Egress meanwhile with the
 * ingress the answer gives it (governance.members).
 */
export function clusterEgressHandover(
  request: CompositeSyncRequest,
  children: readonly KubeObject[],
  settings: Partial<EtcdClusterSettings>,
  own: boolean,
  governance: ClusterGovernance,
): KubeObject[] {
  const parent = request.parent;
  const cluster = parent.metadata.name ?? '';
  const members = egressHandover(request, children, {
    main: networkPolicyName(cluster),
    mainWithEgress: memberNetworkPolicy(parent, settings, own, { ...governance.members, egress: false }),
  });
  return egressHandover(request, members, {
    main: restoreCheckPolicyName(cluster),
    mainWithEgress: restoreCheckNetworkPolicy(parent, settings, { egress: false }),
  });
}

/** What `count` member pods reach without their policy, in words. */
function membersRunning(pods: readonly unknown[]): string {
  return `${pods.length} member pod(s) run without it: other namespaces reach their peer and metrics ports and they reach the instance metadata service`;
}

/** What the restore check pod reaches without its policy, in words. */
const CHECK_RUNNING =
  "the restore check pod runs the spec's images without it: it reaches the instance metadata service";

/** How long the members' NetworkPolicy may stay unobserved beside running members before the status says it failed. */
export const POLICY_ABSENT_SECONDS = LIB_POLICY_ABSENT_SECONDS;

/**
 * The NetworkPolicyCreated condition, while member pods of the cluster run and the policy the sync answers is not
 * observed, or the restore check pod is observed without its own (lib/network-policy.ts policiesCreatedCondition). The members are kept and new ones are made as before
 * (taking running members away, or holding a lost member's replacement, would cost the cluster's quorum over a
 * policy), so the status says that they run without it: `CreatingNetworkPolicy`, then `NetworkPolicyNotCreated` (a
 * Warning Event, events.ts) POLICY_ABSENT_SECONDS after it was first missed.
 */
export function networkPolicyCreated(
  request: CompositeSyncRequest,
  settings: Partial<EtcdClusterSettings>,
  now: Date,
  governance?: NamespaceGovernance,
): ConditionInput | undefined {
  const parent = request.parent;
  const cluster = parent.metadata.name ?? '';
  if (settings.memberNetworkPolicy === false) return undefined;
  const members = observed(request.children, 'Pod', 'v1').filter(
    (p) => memberIndex(cluster, p.metadata.name ?? '') !== undefined,
  );
  const check = observedNamed(request.children, 'Pod', 'v1', checkPodName(cluster));
  const complement = governance?.egress
    ? complementPolicyNames(networkPolicyName(cluster)).slice(0, governance.complement.length)
    : [];
  const said = policiesCreatedCondition(
    request,
    {
      kind: 'EtcdCluster',
      policies: [
        { name: networkPolicyName(cluster), running: members.length === 0 ? undefined : membersRunning(members) },
        { name: restoreCheckPolicyName(cluster), running: check ? CHECK_RUNNING : undefined },
        // Where the namespace's policies select some members for egress, the others' complement policies.
        ...complement.map((name) => ({
          name,
          running: members.length === 0 ? undefined : membersRunning(members),
        })),
      ],
    },
    now,
  );
  // Created, without Egress: the namespace's own policies govern the members' egress (said while members run); with
  // the client port let in only to what the cluster needs: they govern its ingress.
  if (said || members.length === 0 || !governance) return said;
  if (!(governance.egress || governance.ingress))
    return governance.egressDoubt
      ? egressDoubtCondition(governance.egressDoubt, { name: networkPolicyName(cluster) })
      : undefined;
  if (!governance.ingress)
    return namespaceGovernsCondition(governance.egressBy, {
      name: networkPolicyName(cluster),
      created: true,
      complement,
    });
  return namespaceGovernsIngress(cluster, settings, governance);
}

/**
 * NetworkPolicyCreated=True while members run and the namespace's own policies govern their ingress (and maybe their
 * egress): `NamespaceGovernsIngress` (`NamespaceGovernsEgressAndIngress`), naming the governing policies, who may reach
 * the client port (memberNetworkPolicy: the members, the cluster's backup pods, the hook server's pods when
 * METAOPS_SERVER_NAMESPACE is set; said when it is not: then the hook reaches the members only where the namespace's
 * policies let it in) and the metrics port.
 */
function namespaceGovernsIngress(
  cluster: string,
  settings: Partial<EtcdClusterSettings>,
  governance: NamespaceGovernance,
): ConditionInput {
  const server = settings.serverNamespace
    ? `and the metaops server's pods (namespace ${settings.serverNamespace})`
    : `and no pod of the metaops server: ${SERVER_NAMESPACE_ENV} is not set, so the hook reaches the members only where the namespace's own policies let it in`;
  const others = (settings.metricsNamespaces ?? []).filter((n) => n !== '');
  const metrics = others.length
    ? `its metrics port only from namespace(s) ${others.slice(0, 3).join(', ')}${others.length > 3 ? ' and others' : ''}`
    : 'its metrics port from no pod (the kubelet probes from the node)';
  const egress = governance.egress
    ? `; ${governingNames(governance.egressBy)} select(s) them for egress: it leaves egress out, so they reach only what the namespace's policies allow`
    : '';
  return {
    type: 'NetworkPolicyCreated',
    status: true,
    reason: governance.egress ? 'NamespaceGovernsEgressAndIngress' : 'NamespaceGovernsIngress',
    message:
      `the namespace's own ${governingNames(governance.ingressBy)} select(s) the members for ingress: NetworkPolicy ` +
      `${networkPolicyName(cluster)} lets their client port in only from the cluster's members, its backup pods ` +
      `(label ${backupClientLabel(cluster)}=${BACKUP_CLIENT_VALUE}) ${server}, ${metrics}${egress} (metaops never widens them)`,
  };
}
