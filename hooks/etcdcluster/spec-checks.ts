// What an EtcdCluster's spec is checked for before anything is made from it, beyond its schema's types: the schema's
// bounds and the version and domain rules (parser), the names its name makes and the values its children carry
// (etcdParentProblem), what the server's settings allow (etcdSettingsProblem); and the same checks on what a restore's
// check recorded (status.restore.checked: checkedRecordProblem), which the restored members are made from. Apart from
// index.ts (the operator's definition), so that the sync can run them without importing the definition.
import {
  affinityProblem,
  allObserved,
  annotationConfinementProblem,
  annotationReachProblem,
  claimClassProblem,
  claimSpecProblem,
  type CompositeSyncRequest,
  confinementProblem,
  envProblem,
  imageProblem,
  metadataPolicyProblem,
  parentNameProblem,
  type ParentObject,
  podSecurityContextProblem,
  quantityProblem,
  resourcesProblem,
  ruleProblem,
  seLinuxLevelProblem,
  specParser,
  stringMapProblem,
  tolerationsPolicyProblem,
  tolerationsProblem,
} from '../../lib/index.js';
import { plainDomain } from '../etcdcommon/index.js';
import { memberLabelKeys, ownKey, shadowedVariables, TUNING_VARIABLES } from './members.js';
import type { EtcdClusterSettings } from './network.js';
import { quotaSpellingProblem } from './quota.js';
import { referenceProblem } from './references.js';
import { madeAsChecked } from './restore.js';
import { DEFAULT_REPOSITORY, DOMAIN_PATTERN, EtcdClusterSpec, MAX_SIZE, VERSION_PATTERN } from './schema.js';
import { tlsSpecProblem } from './tls.js';

const DOMAIN = new RegExp(DOMAIN_PATTERN);
// Checked here as well as in the CRD: a request may come from an older CRD, or straight to the webhook. Every
// field that goes into a URL the hook dials is a DNS name, or the spec is refused (nothing is dialled).
export const parser = specParser(EtcdClusterSpec, (spec) => {
  if (!VERSION_PATTERN.test(spec.version.trim()))
    return `spec.version is ${JSON.stringify(spec.version)}: expected an etcd version such as "3.5.17"`;
  for (const field of ['clusterDomain', 'ClusterDomain'] as const) {
    const domain = spec.pod?.[field];
    if (domain && (domain.length > 200 || !DOMAIN.test(domain)))
      return `spec.pod.${field} must be a DNS name such as "cluster.local"`;
  }
  // etcd-operator's spelling and ours name one field: both set, they must agree.
  const [lower, upper] = [spec.pod?.clusterDomain, spec.pod?.ClusterDomain];
  if (lower && upper && plainDomain(lower) !== plainDomain(upper))
    return `spec.pod.clusterDomain ${JSON.stringify(lower)} and spec.pod.ClusterDomain ${JSON.stringify(upper)} (etcd-operator's spelling of the same field) differ: set one of them`;
  if (spec.size > MAX_SIZE) return `spec.size is at most ${MAX_SIZE}`;
  return tlsSpecProblem(spec);
});

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
  const shadow =
    shadowProblem(version, pod['etcdEnv']) ??
    etcdVariableProblem(pod['etcdEnv']) ??
    quotaSpellingProblem(pod['etcdEnv']);
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
export function claimClassName(claim: unknown): unknown {
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

/**
 * What the server's settings refuse of a valid spec: tolerations, an SELinux level, the pods' metadata prefixes, the
 * Secrets, ConfigMaps and volume sources it names for its members (references.ts), a member claim's storage class
 * (lib/storage-class.ts).
 */
export function etcdSettingsProblem(
  spec: EtcdClusterSpec,
  settings: EtcdClusterSettings,
  request: Pick<CompositeSyncRequest, 'related'>,
): string | undefined {
  return (
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
    )
  );
}

/**
 * Why a spec without spec.pod.persistentVolumeClaimSpec is refused while the cluster has member claims (observed
 * PersistentVolumeClaim children), or undefined: the members' data is on them, and a sync that answers no claim has
 * Metacontroller delete every one (the deletion held only while a pod mounts it: the next pod lost loses its data, a
 * majority lost together the cluster's). Taking the field out (a GitOps source that dropped it, an older manifest
 * applied) is no explicit decision to delete every member's data: refused (InvalidSpec, every child kept) until the
 * field is back. A cluster moves to no storage as a new cluster restored from a backup.
 */
export function storageTakenOutProblem(
  spec: EtcdClusterSpec,
  request: Pick<CompositeSyncRequest, 'children'>,
): string | undefined {
  if (spec.pod?.persistentVolumeClaimSpec) return undefined;
  const claims = allObserved(request.children).filter((c) => c.kind === 'PersistentVolumeClaim');
  if (claims.length === 0) return undefined;
  return `spec.pod.persistentVolumeClaimSpec is not set while this cluster has ${claims.length} member claim${claims.length === 1 ? '' : 's'} holding its members' data: without it no claim would be answered and every one would be deleted; put spec.pod.persistentVolumeClaimSpec back (a cluster moves to no storage as a new EtcdCluster restored from a backup)`;
}

/** The spec fields a restore's record carries (status.restore.checked), by the record's name for each. */
const RECORDED: ReadonlyArray<[RegExp, string]> = [
  [/\bspec\.pod\.(etcdEnv|busyboxImage|resources)\b/g, 'status.restore.checked.$1'],
  [/\bspec\.(version|repository)\b/g, 'status.restore.checked.$1'],
];

/**
 * What the spec's checks refuse of a restore's record of what its check started (status.restore.checked: the
 * restored members' version, repository, busyboxImage, etcdEnv and resources, restore.ts checkedOf), the field named
 * as the record's; undefined for a record they accept, or none. The record lives in the status, which whoever may
 * write `etcdclusters/status` can write: it is checked as the spec is (the schema's bounds, the version, the images,
 * the etcdEnv allowlist and its references under the server's settings) on the spec the restored members would be
 * made from (madeAsChecked), before anything is made from it. `spec` is the spec as checked for this call: every
 * field the record does not carry has passed already, so a problem found is the record's. A record present but not
 * readable as one (not an object, no version or repository string) is refused too.
 */
export function checkedRecordProblem(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  checked: unknown,
  settings: EtcdClusterSettings,
  request: Pick<CompositeSyncRequest, 'related'>,
): string | undefined {
  if (checked === undefined) return undefined;
  const made = madeAsChecked(spec, checked);
  if (made === spec)
    return 'status.restore.checked is not a record of what the check started (an object with a version and a repository, busyboxImage a string, etcdEnv a list of objects, resources an object)';
  const parsed = parser.parse(made);
  const problem = !parsed.ok
    ? parsed.message
    : (etcdValueProblem({ ...parent, spec: parsed.spec }) ?? etcdSettingsProblem(parsed.spec, settings, request));
  return problem === undefined ? undefined : RECORDED.reduce((text, [from, to]) => text.replace(from, to), problem);
}
