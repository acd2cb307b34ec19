// Where an EtcdBackup or EtcdRestore of a namespace may reach: the author of either is a tenant, and
// the backup Job and the restore's init step run with what the spec names. So:
//   - the snapshot's key lives under the namespace's own prefix (`<bucket>/<namespace>/...`): no tenant writes,
//     prunes or restores another's snapshots in a shared bucket;
//   - credentials come from the tenant's own Secret (`s3.awsSecret`); the pod's ambient credentials (a node's
//     role, shared by every namespace) only where a cluster admin allows them (METAOPS_BACKUP_AMBIENT_CREDENTIALS);
//   - `s3.endpoint` only from the server's allowlist (METAOPS_BACKUP_S3_ENDPOINTS), AWS's own by default;
//   - `etcdEndpoints` only the in-cluster names of the namespace's own EtcdClusters (or METAOPS_BACKUP_ETCD_ENDPOINTS).
// Shared by the EtcdBackup and EtcdRestore hooks and by the EtcdCluster hook, which starts no restore from a source
// refused here. Pure: the server's settings come in, a verdict goes out.

import { ruleProblem } from '../../lib/index.js';

/** One allowlist entry: a URL, for every namespace or for one (`namespace=URL`). */
export interface AllowEntry {
  namespace?: string;
  url: string;
}

/** What the server lets backups and restores reach, from its environment (never from a custom resource). */
export interface BackupTenancy {
  /** Namespaces whose backups and restores may run without `awsSecret`, with the pod's own credentials. */
  ambient: { all: boolean; namespaces: readonly string[] };
  /** S3-compatible endpoints a spec may name (`s3.endpoint`); none: AWS's own only. */
  s3Endpoints: readonly AllowEntry[];
  /** etcd endpoints outside the namespace's own EtcdClusters that a backup may snapshot. */
  etcdEndpoints: readonly AllowEntry[];
  /**
   * The DNS domains a client Service may be named in (`<svc>.<ns>.svc.<domain>`): the server's one cluster domain
   * setting, METAOPS_ETCD_CLUSTER_DOMAIN (default cluster.local), then METAOPS_ETCD_CLUSTER_DOMAINS, as the
   * EtcdCluster hook reads them (etcdSettings in index.ts).
   */
  clusterDomains: readonly string[];
}

export const AMBIENT_ENV = 'METAOPS_BACKUP_AMBIENT_CREDENTIALS';
export const S3_ENDPOINTS_ENV = 'METAOPS_BACKUP_S3_ENDPOINTS';
export const ETCD_ENDPOINTS_ENV = 'METAOPS_BACKUP_ETCD_ENDPOINTS';

/** The default: every backup brings its own Secret, AWS's endpoint only, the namespace's own clusters only. */
export const STRICT_TENANCY: BackupTenancy = Object.freeze({
  ambient: Object.freeze({ all: false, namespaces: Object.freeze([]) }),
  s3Endpoints: Object.freeze([]),
  etcdEndpoints: Object.freeze([]),
  clusterDomains: Object.freeze(['cluster.local']),
});

/** The etcd client port of an EtcdCluster's client Service. */
const CLIENT_PORT = '2379';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * A URL as compared with the allowlists: `scheme://host[:port][/path]` lower-cased by the URL parser, without a
 * trailing slash; undefined for anything else (not http(s), credentials, a query or a fragment: an address that
 * could say more than where to connect).
 */
export function normalUrl(text: string): string | undefined {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (u.username || u.password || u.search || u.hash || text.includes('?') || text.includes('#')) return undefined;
  if (text.includes('@')) return undefined;
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

function entries(value: string | undefined): { entries: AllowEntry[]; problems: string[] } {
  const out: AllowEntry[] = [];
  const problems: string[] = [];
  for (const item of list(value)) {
    const eq = item.indexOf('=');
    const namespace = eq > 0 ? item.slice(0, eq) : undefined;
    const url = normalUrl(eq > 0 ? item.slice(eq + 1) : item);
    if (namespace !== undefined && !DNS_LABEL.test(namespace)) problems.push(`namespace ${JSON.stringify(namespace)}`);
    else if (!url) problems.push(JSON.stringify(item));
    else out.push(namespace === undefined ? { url } : { namespace, url });
  }
  return { entries: out, problems };
}

/**
 * The backup settings of the server's environment; `clusterDomains` are the server's cluster domains as
 * etcdSettings reads them (METAOPS_ETCD_CLUSTER_DOMAIN and METAOPS_ETCD_CLUSTER_DOMAINS, checked there).
 */
export function tenancyFromEnv(
  env: NodeJS.ProcessEnv,
  clusterDomains: readonly string[] = STRICT_TENANCY.clusterDomains,
): BackupTenancy {
  const ambient = list(env[AMBIENT_ENV]);
  return {
    ambient: { all: ambient.includes('*'), namespaces: ambient.filter((n) => n !== '*') },
    s3Endpoints: entries(env[S3_ENDPOINTS_ENV]).entries,
    etcdEndpoints: entries(env[ETCD_ENDPOINTS_ENV]).entries,
    clusterDomains,
  };
}

/** What is wrong with these settings (checked at startup: the server refuses to run rather than ignore one). */
export function tenancyProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  for (const name of [AMBIENT_ENV, S3_ENDPOINTS_ENV, ETCD_ENDPOINTS_ENV]) {
    if (env[name] !== undefined && list(env[name]).length === 0)
      problems.push(`${name} is empty: list values, or unset it for the default`);
  }
  for (const ns of list(env[AMBIENT_ENV]))
    if (ns !== '*' && !DNS_LABEL.test(ns)) problems.push(`${AMBIENT_ENV}: ${JSON.stringify(ns)} is not a namespace`);
  for (const name of [S3_ENDPOINTS_ENV, ETCD_ENDPOINTS_ENV]) {
    for (const bad of entries(env[name]).problems)
      problems.push(`${name}: ${bad} is not an http(s) URL or namespace=URL (no credentials, query or fragment)`);
  }
  return problems;
}

/** The settings an operator was given, or the strict default when it was given none. */
export function tenancyOf(settings: { backup?: BackupTenancy | undefined } | undefined): BackupTenancy {
  return settings?.backup ?? STRICT_TENANCY;
}

function allowed(allowlist: readonly AllowEntry[], namespace: string, url: string): boolean {
  return allowlist.some((e) => e.url === url && (e.namespace === undefined || e.namespace === namespace));
}

/** May this namespace's pods use their ambient credentials? */
export function ambientAllowed(policy: BackupTenancy, namespace: string): boolean {
  return policy.ambient.all || policy.ambient.namespaces.includes(namespace);
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{0,62}$/;
/** Characters a key segment may not hold: control characters and the backslash (a path separator elsewhere). */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const KEY_UNSAFE = /[\u0000-\u001f\u007f\\]/;

/** An S3 location as EtcdBackup and EtcdRestore name it. */
export interface S3Target {
  path: string;
  awsSecret?: string | undefined;
  endpoint?: string | undefined;
}

/**
 * Why an S3 location is not this namespace's to use, naming the field and the rule, or undefined when it is:
 * `<bucket>/<namespace>/<key>` with no empty, `.` or `..` segment; `awsSecret` unless the namespace may use ambient
 * credentials; `endpoint` only from the allowlist.
 */
export function s3TargetProblem(namespace: string, s3: S3Target, policy: BackupTenancy): string | undefined {
  const at = s3.path.indexOf('/');
  const bucket = at > 0 ? s3.path.slice(0, at) : '';
  const key = at > 0 ? s3.path.slice(at + 1) : '';
  const prefix = `${namespace}/`;
  if (!BUCKET.test(bucket))
    return `spec.s3.path ${JSON.stringify(s3.path)} must be "<bucket>/${prefix}<key>" with a bucket name of lower-case letters, digits, dots and hyphens`;
  if (!key.startsWith(prefix) || key.length === prefix.length)
    return `spec.s3.path ${JSON.stringify(s3.path)} must be "${bucket}/${prefix}<key>": the snapshots of namespace ${namespace} live under its own prefix "${prefix}"`;
  const segments = key.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..') || KEY_UNSAFE.test(key))
    return `spec.s3.path ${JSON.stringify(s3.path)}: a key with an empty, "." or ".." segment, a backslash or a control character is refused`;
  // The Secret's name goes into the child's secretKeyRef and volume: one the API server refuses makes no pod, and
  // the restore would wait for one (a spec from before the CRD's pattern, or an EtcdRestore as the cluster sees it).
  const secretProblem = s3.awsSecret === undefined ? undefined : ruleProblem('dns1123Subdomain', s3.awsSecret);
  if (secretProblem) return `spec.s3.awsSecret ${JSON.stringify(s3.awsSecret)} ${secretProblem} (a Secret's name)`;
  if (!s3.awsSecret && !ambientAllowed(policy, namespace))
    return `spec.s3.awsSecret is required: without it the pod would use the credentials of the node it runs on, shared by every namespace (a cluster admin allows them for namespace ${namespace} with ${AMBIENT_ENV})`;
  if (s3.endpoint !== undefined) {
    const url = normalUrl(s3.endpoint);
    if (!url || !allowed(policy.s3Endpoints, namespace, url))
      return `spec.s3.endpoint ${JSON.stringify(s3.endpoint)} is not allowed: only the endpoints a cluster admin lists in ${S3_ENDPOINTS_ENV} for this namespace (without one, AWS's own)`;
  }
  return undefined;
}

/** What a backup may dial, or why not. */
export type EtcdTargets =
  | { ok: true; endpoints: string[]; clusters: string[] }
  | { ok: false; reason: 'NotAllowed' | 'ClusterNotFound'; message: string };

export interface EtcdTargetSpec {
  etcdEndpoints?: string[] | undefined;
  clusterName?: string | undefined;
  clientTLSSecret?: string | undefined;
}

/**
 * The EtcdCluster an in-cluster name of this namespace points at: `<cluster>-client` alone, or followed by
 * `.<namespace>`, `.<namespace>.svc` or `.<namespace>.svc.<cluster domain>`; undefined for any other host.
 */
export function clusterOfHost(host: string, namespace: string, clusterDomains: readonly string[]): string | undefined {
  const [first = '', ...rest] = host.split('.');
  if (!first.endsWith('-client')) return undefined;
  const cluster = first.slice(0, -'-client'.length);
  if (!DNS_LABEL.test(cluster)) return undefined;
  const tail = rest.join('.');
  const forms = ['', namespace, `${namespace}.svc`, ...clusterDomains.map((d) => `${namespace}.svc.${d}`)];
  return forms.includes(tail) ? cluster : undefined;
}

/**
 * The fully qualified name of an EtcdCluster's client Service, in the server's cluster domain (the first of
 * `clusterDomains`). Never a relative name: the Job's pod resolves with `ndots:5`, so `<svc>.<ns>.svc` would be
 * tried as `<svc>.<ns>.svc.svc.<domain>` first, a pod of namespace `svc`, which a tenant may own.
 */
export function clientService(cluster: string, namespace: string, policy: BackupTenancy): string {
  return `${cluster}-client.${namespace}.svc.${policy.clusterDomains[0] ?? STRICT_TENANCY.clusterDomains[0]}`;
}

/**
 * The endpoints a backup dials: each spec endpoint on the server's allowlist as given, or one naming an EtcdCluster
 * of the namespace (its client Service on port 2379) as that Service's fully qualified name (clientService);
 * `clusterName`'s client Service. `clusters` are the EtcdClusters the namespace holds. Anything else is refused; a cluster not there
 * (yet) is ClusterNotFound.
 */
export function etcdTargets(
  namespace: string,
  spec: EtcdTargetSpec,
  clusters: readonly string[],
  policy: BackupTenancy,
): EtcdTargets {
  const scheme = spec.clientTLSSecret ? 'https' : 'http';
  const endpoints: string[] = [];
  const named: string[] = [];
  const missing = (cluster: string, field: string): EtcdTargets => ({
    ok: false,
    reason: 'ClusterNotFound',
    message: `${field} names EtcdCluster ${cluster}, which namespace ${namespace} does not hold`,
  });
  if (spec.etcdEndpoints?.length) {
    for (const [i, text] of spec.etcdEndpoints.entries()) {
      const field = `spec.etcdEndpoints[${i}]`;
      const url = normalUrl(text);
      if (url && allowed(policy.etcdEndpoints, namespace, url)) {
        endpoints.push(url);
        continue;
      }
      const u = url ? new URL(url) : undefined;
      const cluster = u ? clusterOfHost(u.hostname, namespace, policy.clusterDomains) : undefined;
      if (!u || cluster === undefined || u.port !== CLIENT_PORT || u.pathname !== '/')
        return {
          ok: false,
          reason: 'NotAllowed',
          message: `${field} ${JSON.stringify(text)} is not allowed: a backup dials only the client Service of an EtcdCluster of namespace ${namespace} (http(s)://<cluster>-client[.${namespace}[.svc]]:${CLIENT_PORT}), or an endpoint a cluster admin lists in ${ETCD_ENDPOINTS_ENV}`,
        };
      if (!clusters.includes(cluster)) return missing(cluster, field);
      endpoints.push(`${u.protocol}//${clientService(cluster, namespace, policy)}:${CLIENT_PORT}`);
      named.push(cluster);
    }
  } else if (spec.clusterName) {
    if (!clusters.includes(spec.clusterName)) return missing(spec.clusterName, 'spec.clusterName');
    endpoints.push(`${scheme}://${clientService(spec.clusterName, namespace, policy)}:${CLIENT_PORT}`);
    named.push(spec.clusterName);
  }
  return { ok: true, endpoints: [...new Set(endpoints)], clusters: [...new Set(named)] };
}

/**
 * Whether an endpoint a backup child was made to dial is one today's rules would give it: an endpoint on the server's
 * allowlist for this namespace, or the client Service of an EtcdCluster of the namespace by its fully qualified name
 * in one of the server's cluster domains, on the client port (what etcdTargets writes; never a relative name, which
 * the pod would look up in another namespace first). For a child made by an earlier metaops, read back while its
 * spec is refused (hooks/etcdbackup/refused.ts): whether the cluster still exists is not asked here.
 */
export function dialledEndpointAllowed(endpoint: string, namespace: string, policy: BackupTenancy): boolean {
  const url = normalUrl(endpoint);
  if (!url) return false;
  if (allowed(policy.etcdEndpoints, namespace, url)) return true;
  const u = new URL(url);
  const cluster = clusterOfHost(u.hostname, namespace, policy.clusterDomains);
  return (
    cluster !== undefined &&
    u.port === CLIENT_PORT &&
    u.pathname === '/' &&
    policy.clusterDomains.some((d) => u.hostname === `${cluster}-client.${namespace}.svc.${d}`)
  );
}

/**
 * Why an EtcdRestore (as observed: its spec unchecked) may not restore from its source, or undefined: the same
 * rules as a backup's, in the restore's own namespace. The EtcdCluster hook starts no restore from a refused
 * source; the EtcdRestore hook says why.
 */
export function restoreSourceProblem(
  restore: { metadata: { namespace?: string | undefined }; spec?: unknown },
  policy: BackupTenancy,
): string | undefined {
  const s3 = (restore.spec as { s3?: unknown } | undefined)?.s3 as Record<string, unknown> | undefined;
  const path = s3?.['path'];
  if (typeof path !== 'string') return 'spec.s3.path is required';
  // Present but not text is refused, never read as absent (which would mean the pod's own credentials).
  for (const field of ['awsSecret', 'endpoint'])
    if (s3?.[field] !== undefined && typeof s3[field] !== 'string') return `spec.s3.${field} must be a string`;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return s3TargetProblem(
    restore.metadata.namespace ?? '',
    { path, awsSecret: text(s3?.['awsSecret']), endpoint: text(s3?.['endpoint']) },
    policy,
  );
}

/**
 * The label a backup pod carries for each EtcdCluster of its namespace it dials (`client.etcd.metaops.io/<cluster>:
 * backup`), by which that cluster's members' NetworkPolicy lets it in on the client port where the namespace's own
 * policies govern the members' ingress (hooks/etcdcluster/network.ts). Only pods of the cluster's namespace are let in
 * by it (a podSelector without a namespaceSelector): a pod of another namespace carrying it reaches nothing.
 */
export function backupClientLabel(cluster: string): string {
  return `${BACKUP_CLIENT_PREFIX}${cluster}`;
}

/** The prefix of backupClientLabel's keys. */
export const BACKUP_CLIENT_PREFIX = 'client.etcd.metaops.io/';

/** backupClientLabel's value. */
export const BACKUP_CLIENT_VALUE = 'backup';
