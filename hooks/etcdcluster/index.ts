import {
  affinityProblem,
  annotationConfinementProblem,
  annotationReachProblem,
  claimSpecProblem,
  confinementProblem,
  defineComposite,
  envProblem,
  type KubeObject,
  imageProblem,
  jsonBytes,
  kib,
  metadataPolicyProblem,
  namesBytes,
  parentNameProblem,
  type ParentObject,
  podSeLinuxLevelAllowed,
  podSeLinuxLevelProblems,
  podSecurityContextProblem,
  quantityProblem,
  type RelatedResourceRule,
  resourcesProblem,
  ruleProblem,
  seLinuxLevelProblem,
  serviceRule,
  stringMapProblem,
  tolerationsPolicyProblem,
  tolerationsProblem,
} from '../../lib/index.js';
import { etcdClients, etcdSettings, etcdSettingsProblems } from '../etcdcommon/index.js';
import { claimClassProblem, namespacePolicyRules, storageClassRule } from '../../lib/index.js';
import { memberLabelKeys, ownKey, shadowedVariables, TUNING_VARIABLES } from './members.js';
import { tlsSecretNames } from './tls.js';
import { referenceProblem } from './references.js';
import { ETCDCLUSTER_EVENTS, upgradeEvents } from './events.js';
import { DEFAULT_REPOSITORY, MAX_SIZE, resource } from './schema.js';
import { finalize, parser, servicesSelectOwn, sync } from './sync.js';
import { etcdChildNames } from './names.js';
import { networkSettings, networkSettingsProblems, withMemberPolicy, type EtcdClusterSettings } from './network.js';

/**
 * The names an EtcdCluster's name makes: its Services (`<name>`, `<name>-client`, coreos's), its budget, its member
 * pods' subdomain and labels. A name the API server refuses for one of them is InvalidSpec.
 */
export function etcdNameProblem(parent: ParentObject): string | undefined {
  return parentNameProblem(parent.metadata.name ?? '', [
    { what: 'Service', rule: 'dns1035', suffix: '-client' },
    { what: 'Service', rule: 'dns1035' },
    { what: 'label etcd_cluster', rule: 'labelValue' },
  ]);
}

/**
 * The values an EtcdCluster copies into its member pods and claims that the API server or the kubelet would refuse:
 * the images (`<repository>:v<version>`, the DNS step's busyboxImage), the pods' labels, annotations, node selector,
 * tolerations, affinity and security context, the container's resources and environment, the TLS Secrets' names and
 * the claims' spec. The spec's schema has already been checked (free-form fields only for their size).
 */
export function etcdValueProblem(parent: ParentObject): string | undefined {
  const spec = (parent.spec ?? {}) as {
    repository?: unknown;
    version?: unknown;
    pod?: Record<string, unknown>;
    TLS?: { static?: { member?: Record<string, unknown>; operatorSecret?: unknown } };
  };
  const version = typeof spec.version === 'string' ? spec.version.trim().replace(/^v/, '') : '';
  const image = `${typeof spec.repository === 'string' ? spec.repository : DEFAULT_REPOSITORY}:v${version}`;
  const imageWrong = imageProblem(image);
  if (imageWrong)
    return `spec.repository and spec.version make the image ${JSON.stringify(image)}, which ${imageWrong}`;
  const pod = spec.pod ?? {};
  const busybox = pod['busyboxImage'];
  const busyboxWrong = typeof busybox === 'string' && busybox !== '' ? imageProblem(busybox) : undefined;
  if (busyboxWrong) return `spec.pod.busyboxImage ${JSON.stringify(busybox)} ${busyboxWrong}`;
  const maps = [
    stringMapProblem('spec.pod.labels', pod['labels'] as Record<string, string> | undefined, 'label'),
    stringMapProblem('spec.pod.nodeSelector', pod['nodeSelector'] as Record<string, string> | undefined, 'label'),
    stringMapProblem('spec.pod.annotations', pod['annotations'] as Record<string, string> | undefined, 'any'),
    resourcesProblem('spec.pod.resources', pod['resources']),
    tolerationsProblem('spec.pod.tolerations', pod['tolerations']),
    envProblem('spec.pod.etcdEnv', pod['etcdEnv']),
    podSecurityContextProblem('spec.pod.securityContext', pod['securityContext']),
    affinityProblem(
      'spec.pod.affinity',
      placedAffinity(pod),
      memberLabelKeys(parent.metadata.name ?? '', pod),
      parent.metadata.namespace ?? 'default',
    ),
  ].find(Boolean);
  if (maps) return maps;
  const shadow = shadowProblem(version, pod['etcdEnv']) ?? etcdVariableProblem(pod['etcdEnv']);
  if (shadow) return shadow;
  // What a member pod may ask beyond its namespace, though well formed (lib/pod-policy.ts): the tolerations are the
  // server's to allow (settingsProblem below).
  const reach =
    confinementProblem('spec.pod.securityContext', pod['securityContext']) ??
    annotationConfinementProblem('spec.pod.annotations', pod['annotations']) ??
    annotationReachProblem('spec.pod.annotations', pod['annotations'], parent.metadata.namespace ?? 'default');
  if (reach) return reach;
  return claimProblem(pod['persistentVolumeClaimSpec']) ?? tlsNameProblem(spec.TLS);
}

/**
 * A variable of spec.pod.etcdEnv that etcd reads for a flag the member's command sets (members.ts shadowedVariables):
 * etcd 3.5+ exits at start on it ("conflicting environment variable is shadowed by corresponding command-line
 * flag"), so no member made from the spec would ever start; earlier versions ignore it.
 */
function shadowProblem(version: string, env: unknown): string | undefined {
  if (!Array.isArray(env)) return undefined;
  const variables = shadowedVariables(version);
  for (const [i, e] of env.entries()) {
    // envProblem has taken each entry's name as a string.
    const name: unknown = e && typeof e === 'object' ? (e as Record<string, unknown>)['name'] : undefined;
    const flag = typeof name === 'string' ? variables.get(name) : undefined;
    if (flag)
      return `spec.pod.etcdEnv[${i}].name ${String(name)} is the variable of ${flag}, which the hook sets on every member's command: etcd 3.5+ exits at start on it (a variable shadowed by a command-line flag), earlier versions ignore it; remove it from spec.pod.etcdEnv`;
  }
  return undefined;
}

/** Go's proxy variables: etcd's peer transport dials through the proxy they name (http.ProxyFromEnvironment). */
const PROXY_VARIABLES: ReadonlySet<string> = new Set(['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']);

/**
 * A variable of spec.pod.etcdEnv that would change what the hook relies on in a member: an etcd variable (ETCD_) not
 * among its tuning (members.ts TUNING_VARIABLES: --wal-dir moves the WAL the check-data step looks for,
 * --enable-grpc-gateway and --listen-client-http-urls the HTTP gateway the hook speaks to), an etcdctl one
 * (ETCDCTL_API=2 and the others change what the probes' etcdctl runs and dials), or a proxy that peer traffic would
 * go through. Other names (GOMAXPROCS, GOMEMLIMIT, TZ...) are the tenant's.
 */
function etcdVariableProblem(env: unknown): string | undefined {
  if (!Array.isArray(env)) return undefined;
  for (const [i, e] of env.entries()) {
    // envProblem has taken each entry's name as a string.
    const name: unknown = e && typeof e === 'object' ? (e as Record<string, unknown>)['name'] : undefined;
    if (typeof name !== 'string') continue;
    const field = `spec.pod.etcdEnv[${i}].name ${name}`;
    if (name.startsWith('ETCDCTL_'))
      return `${field} is an etcdctl variable: the members' probes run etcdctl v3 against the member itself, and it would change what they run or dial; remove it from spec.pod.etcdEnv`;
    if (name.startsWith('ETCD_') && !TUNING_VARIABLES.has(name))
      return `${field} is not among the etcd tuning variables spec.pod.etcdEnv may set (docs/etcdcluster.md "etcdEnv"): where a member keeps its data and WAL, how it listens and serves its HTTP gateway, its peers and TLS are the hook's, which the data check, the probes and the hook rely on; remove it from spec.pod.etcdEnv`;
    if (PROXY_VARIABLES.has(name))
      return `${field} would send the members' peer traffic through a proxy; remove it from spec.pod.etcdEnv`;
  }
  return undefined;
}

/**
 * The affinity a member pod carries: spec.pod.affinity, its podAntiAffinity replaced by the hook's own when
 * spec.pod.antiAffinity is set (members.ts placement), so a term the pod never carries is not judged.
 */
function placedAffinity(pod: Record<string, unknown>): unknown {
  const affinity = pod['affinity'];
  if (!pod['antiAffinity'] || !affinity || typeof affinity !== 'object' || Array.isArray(affinity)) return affinity;
  const { podAntiAffinity: _replaced, ...rest } = affinity as Record<string, unknown>;
  return rest;
}

/**
 * The members' claims: a claim that picks its volume (volumeName, selector) or fills it from another namespace
 * (dataSourceRef.namespace) would let whoever writes the EtcdCluster bind a PersistentVolume made for someone else,
 * with the rights of the controller that creates the claims; then the storage request; then what the API server
 * refuses in a claim spec (no access mode or one it does not know, no storage request...), and a block volume (a
 * member mounts its claim as a directory): such a claim is never made, and the member that mounts it never starts.
 */
function claimProblem(claim: unknown): string | undefined {
  const c = (claim ?? {}) as { volumeName?: unknown; selector?: unknown; dataSourceRef?: { namespace?: unknown } };
  const field = 'spec.pod.persistentVolumeClaimSpec';
  if (c.volumeName !== undefined)
    return `${field}.volumeName is not allowed: a member's claim takes a volume its storage class provisions, not one chosen by name`;
  if (c.selector !== undefined)
    return `${field}.selector is not allowed: a member's claim takes a volume its storage class provisions, not existing volumes chosen by label`;
  if (c.dataSourceRef?.namespace !== undefined)
    return `${field}.dataSourceRef.namespace is not allowed: a member's volume is filled only from its own namespace`;
  if (claim === undefined || claim === null) return undefined;
  const storage = (c as { resources?: { requests?: { storage?: unknown } } }).resources?.requests?.storage;
  const wrong =
    storage === undefined
      ? undefined
      : typeof storage === 'string'
        ? quantityProblem(storage)
        : 'must be a quantity such as 1Gi';
  if (wrong) return `${field}.resources.requests.storage ${JSON.stringify(storage)} ${wrong}`;
  const apiServer = claimSpecProblem(field, claim);
  if (apiServer) return apiServer;
  return (c as { volumeMode?: unknown }).volumeMode === 'Block'
    ? `${field}.volumeMode "Block" is not allowed: a member mounts its claim as a directory (Filesystem)`
    : undefined;
}

/** The storage class a member claim names, when the claim spec is an object (undefined: the default class). */
function claimClassName(claim: unknown): unknown {
  return claim && typeof claim === 'object' ? (claim as { storageClassName?: unknown }).storageClassName : undefined;
}

/** The TLS Secrets' names: each a Secret a pod mounts (or the hook reads), so a DNS-1123 subdomain. */
function tlsNameProblem(tls: { static?: { member?: Record<string, unknown>; operatorSecret?: unknown } } | undefined) {
  const secrets: Array<[string, unknown]> = [
    ['spec.TLS.static.member.peerSecret', tls?.static?.member?.['peerSecret']],
    ['spec.TLS.static.member.serverSecret', tls?.static?.member?.['serverSecret']],
    ['spec.TLS.static.operatorSecret', tls?.static?.operatorSecret],
  ];
  for (const [field, name] of secrets) {
    const wrong = typeof name === 'string' ? ruleProblem('dns1123Subdomain', name) : undefined;
    if (wrong) return `${field} "${String(name)}" ${wrong}`;
  }
  return undefined;
}

/** The EtcdCluster's problems beyond its spec's schema: its name, then the values its children carry. */
export function etcdParentProblem(parent: ParentObject): string | undefined {
  return etcdNameProblem(parent) ?? etcdValueProblem(parent);
}

export { etcdChildNames };

/** The largest member list: the most members a cluster may have, and as many being replaced. */
const MAX_LISTED = 2 * MAX_SIZE;

/** The pod names an EtcdCluster wants: the members its status lists, of its own name (lib/podholders.ts). */
function listedMembers(holder: KubeObject): string[] {
  const list = (holder['status'] as { memberList?: unknown } | undefined)?.memberList;
  const prefix = `${holder.metadata.name ?? ''}-`;
  return (Array.isArray(list) ? (list as Array<{ name?: unknown } | null>).slice(0, MAX_LISTED) : [])
    .map((m) => m?.name)
    .filter((n): n is string => typeof n === 'string' && n.startsWith(prefix));
}

export const etcdcluster = defineComposite({
  name: 'etcdcluster',
  resource,
  spec: parser,
  parentProblem: etcdParentProblem,
  childNames: etcdChildNames,
  // A name refused for its children (InvalidSpec for good: a name cannot change) makes nothing: it holds no name from
  // a parent of another kind (lib/holders.ts holderWants).
  nameRefused: (holder) => etcdNameProblem(holder as ParentObject) !== undefined,
  // Its peer Service is `<name>`, its client Service `<name>-client`, its budget `<name>`, its policies
  // `<name>-members` and `<name>-restore-check`, a member's claim `<name>-<i>` (lib/holders.ts): a parent of another
  // kind held for one of them judges this cluster.
  nameShapes: [
    { apiVersion: 'v1', kind: 'Service' },
    { apiVersion: 'v1', kind: 'Service', suffix: '-client' },
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', suffix: '-members' },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', suffix: '-restore-check' },
    { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ordinal: true },
  ],
  // Members are `<name>-<i>`, the ones its status lists (a member replaced under a new name releases the old one).
  podNames: { suffixes: [''], wants: listedMembers },
  clients: etcdClients,
  // The etcd family's settings, and who may reach the members (network.ts).
  settings: (environment): EtcdClusterSettings => ({
    ...etcdSettings(environment),
    ...networkSettings(environment.env),
    allowSeLinuxLevel: podSeLinuxLevelAllowed(environment.env),
  }),
  // A member claim with no class, or of a class of pre-made volumes, binds pre-made volumes: only where the server
  // allows static binding (lib/storage-class.ts; customize asks for the named class). A named class not seen is no
  // invalid spec: the sync makes no new claim until it is seen, and keeps what exists (sync.ts holdForStorageClass).
  // Secrets, ConfigMaps and volume sources the spec names for its members: only where the server allows them
  // (references.ts); a running cluster so refused keeps its members (InvalidSpec keeps every child).
  settingsProblem: (spec, settings: EtcdClusterSettings, _parent, request) =>
    tolerationsPolicyProblem('spec.pod.tolerations', spec.pod?.tolerations, settings.podTolerations ?? []) ??
    seLinuxLevelProblem('spec.pod.securityContext', spec.pod?.securityContext, settings.allowSeLinuxLevel ?? false) ??
    metadataPolicyProblem('spec.pod.annotations', spec.pod?.annotations, settings.podMetadataPrefixes ?? [], ownKey) ??
    metadataPolicyProblem('spec.pod.labels', spec.pod?.labels, settings.podMetadataPrefixes ?? [], ownKey) ??
    referenceProblem(spec, settings.allowReferences) ??
    claimClassProblem(
      'spec.pod.persistentVolumeClaimSpec.storageClassName',
      claimClassName(spec.pod?.persistentVolumeClaimSpec),
      request.related,
      settings.allowStaticVolumes,
    ),
  // Up to one pod (and claim) more than the most members a cluster may have, each repeating spec.pod, the image and
  // the names; two Services, a PodDisruptionBudget and a NetworkPolicy.
  answerBudget: {
    estimate: (spec, parent) => {
      // A pod repeats spec.pod (its claim spec goes to the claim instead), the image twice, the TLS Secrets' names.
      const perMember =
        8192 +
        namesBytes(parent) +
        jsonBytes(spec.pod) +
        jsonBytes(spec.pod?.persistentVolumeClaimSpec) +
        2 * (jsonBytes(spec.repository) + jsonBytes(spec.version)) +
        2 * jsonBytes(spec.TLS);
      return {
        // (And a restore's record of what its check started, status.restore.checked: at most spec.pod again.)
        bytes: (MAX_SIZE + 1) * perMember + 4 * (2048 + namesBytes(parent)) + jsonBytes(spec.pod),
        what: `${MAX_SIZE + 1} members of ~${kib(perMember)} each (spec.pod)`,
      };
    },
    advice: 'make spec.pod smaller',
  },
  configProblems: (env) => [
    ...etcdSettingsProblems(env),
    ...networkSettingsProblems(env),
    ...podSeLinuxLevelProblems(env),
  ],
  childResources: [
    {
      apiVersion: 'v1',
      resource: 'pods',
      updateStrategy: { method: 'InPlace' },
      why: 'the hook rolls members itself, one at a time; in place changes only the image of the member it chose (a pod image is mutable), every other field stays as the pod was created',
    },
    serviceRule,
    {
      apiVersion: 'policy/v1',
      resource: 'poddisruptionbudgets',
      updateStrategy: { method: 'InPlace' },
      why: 'the budget follows the size (a quorum of it stays through node drains); changing it in place never evicts anything',
    },
    {
      apiVersion: 'v1',
      resource: 'persistentvolumeclaims',
      updateStrategy: { method: 'OnDelete' },
      why: 'a member data volume is never replaced or changed under a running member',
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      resource: 'networkpolicies',
      updateStrategy: { method: 'InPlace' },
      why: 'who may reach the members and what they may reach (the metrics and peer ports, the instance metadata service); changing it in place restarts nothing',
    },
  ],
  resyncPeriodSeconds: 30,
  effects: true,
  // Events (lib/events.ts): the membership changes made, the upgrade steps answered, the conditions changed.
  events: ETCDCLUSTER_EVENTS,
  eventsOf: upgradeEvents,
  // Every answer of the sync that keeps the observed children (a refused spec, a name held, an error, an answer not
  // given: lib/operator.ts) keeps the members' and the check pod's NetworkPolicy while they run, and says which is
  // missing (network.ts withMemberPolicy).
  kept: (request, response, settings, now) =>
    withMemberPolicy(request, response, settings ?? {}, servicesSelectOwn(request), now),
  sync,
  finalize: ({ request, settings, now }) => finalize(request, settings ?? {}, now),
  customize: (request) => {
    // The EtcdRestores of the namespace (a restore naming this cluster replaces it), and the TLS Secrets (checked
    // before any pod that mounts them is made, and the operator's client certificate).
    const names = [...new Set(Object.values(tlsSecretNames(request.parent?.['spec'])))].sort();
    // Confined to the cluster's namespace: a rule without one lists every namespace in v4.17
    // (pkg/controller/common/customize/manager.go L665-683), with names or without.
    const namespace = request.parent?.metadata.namespace ?? '';
    const rules: RelatedResourceRule[] = [
      { apiVersion: 'etcd.database.coreos.com/v1beta2', resource: 'etcdrestores', namespace },
    ];
    if (names.length) rules.push({ apiVersion: 'v1', resource: 'secrets', namespace, names });
    // The StorageClass the member claims name (cluster-scoped): whether it provisions volumes (settingsProblem).
    const pod = (request.parent?.['spec'] as { pod?: { persistentVolumeClaimSpec?: unknown } } | undefined)?.pod;
    rules.push(...storageClassRule(claimClassName(pod?.persistentVolumeClaimSpec)));
    // The NetworkPolicies of the namespace: where they govern the members' egress or ingress, the members' policy
    // adds no way out and lets in only what the cluster needs (network.ts clusterGovernance).
    rules.push(...namespacePolicyRules(request.parent));
    return { relatedResources: rules };
  },
});
