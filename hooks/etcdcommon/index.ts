// What the etcd family (EtcdCluster, EtcdBackup, EtcdRestore) shares, in one place: the metaops image their
// children run, how a child reaches S3, the status.restore contract between EtcdCluster and EtcdRestore, and the
// clients (the etcd member API, the image setting). No operator imports another; they import this.
import { hash } from 'node:crypto';
import {
  clusterDomainOf,
  clusterDomainProblem,
  plainDomain,
  type ClientEnvironment,
  perReplica,
  replicasOf,
  type KubeObject,
} from '../../lib/index.js';
import {
  HttpEtcdClient,
  Limiter,
  SERVER_MAX_CALLS,
  Shares,
  TENANT_MAX_CALLS,
  TENANT_MAX_SYNCS,
  type EtcdClient,
  type TlsFiles,
} from './etcd.js';
import { NamespaceShares } from './clientcache.js';
import { tenancyFromEnv, type BackupTenancy } from './tenancy.js';
import {
  podMetadataPrefixesOf,
  podMetadataPrefixesProblems,
  podTolerationsOf,
  podTolerationsProblems,
  staticVolumesAllowed,
  staticVolumesProblems,
} from '../../lib/index.js';
import {
  etcdReferencesAllowed,
  etcdReferencesProblems,
  labelKeyFrom,
  type ParentLabelSettings,
} from '../../lib/index.js';
import { parseJson } from '../../lib/index.js';

/** This project's image when METAOPS_IMAGE is not set: the children that run `metaops` commands use it. */
export const METAOPS_IMAGE_DEFAULT = 'ghcr.io/metaops/metaops:0.1.0';
/** The `metaops` command line of those children (main/cli.ts in the image). */
export const METAOPS_CLI = ['node', '/app/dist/main/cli.js'];

/**
 * What a periodic backup appends to its path's key (etcdbackup/backup.ts, periodicKey): `_v<revision>_<stamp>`, the
 * revision and the stamp captured, and `-<owner>` (the writing EtcdBackup's UID) only when another EtcdBackup of the
 * same path took that key in the same second. The one definition: a restore's check (snapshot.ts, prunable) and
 * pruning (etcdbackup/lineage.ts) read keys by it. A restore's copy (`<key>.restore-<uid>`) has a `.` the owner part
 * never has, and stays outside it.
 */
export const PERIODIC_SUFFIX = /_v(\d+)_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z)(?:-([0-9a-z][0-9a-z-]{0,62}))?$/;

export const AWS_DIR = '/etc/metaops/aws';

/** Where a backup lives or comes from: the bucket path, the AWS Secret, a compatible endpoint. */
export interface S3Location {
  awsSecret?: string | undefined;
  endpoint?: string | undefined;
  forcePathStyle?: boolean | undefined;
}

/** The keys of an `awsSecret` a child reads, each by name: no other key of the Secret reaches its environment. */
export const AWS_SECRET_KEYS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
] as const;

/**
 * The S3 access of a child container. With an `awsSecret`: its credentials only, never the pod's ambient ones
 * (the node's role is every namespace's): the listed keys one by one (envFrom would hand the tenant the whole
 * environment, NODE_OPTIONS and AWS_ENDPOINT_URL included), and its `credentials`/`config` files mounted where
 * `metaops` reads their keys itself (`--aws-dir`; the SDK never loads them, so no `credential_process` or
 * `endpoint_url` of theirs runs), with the instance metadata service turned off. Without one (a namespace the
 * server allows ambient credentials, see tenancy.ts): the SDK's default chain.
 *
 * `optionalVolume`: the Secret's volume does not hold the pod back when the Secret is gone. A pod that needs the
 * Secret only sometimes (a restored member's fetch step, which needs it once and afterwards finds its data kept; a
 * restore's check, whose answer names a missing Secret) starts without it, and `metaops` refuses to use any other
 * credentials when it does need them (main/cli.ts, NoCredentials).
 */
export function s3Access(
  source: S3Location,
  { optionalVolume = false }: { optionalVolume?: boolean } = {},
): {
  env: unknown[];
  envFrom: unknown[];
  volumes: unknown[];
  mounts: unknown[];
  args: string[];
} {
  const args: string[] = [];
  if (source.endpoint) args.push('--s3-endpoint', source.endpoint);
  if (source.forcePathStyle) args.push('--force-path-style');
  if (!source.awsSecret) return { env: [], envFrom: [], volumes: [], mounts: [], args };
  const secretName = source.awsSecret;
  return {
    env: [
      ...AWS_SECRET_KEYS.map((key) => ({
        name: key,
        valueFrom: { secretKeyRef: { name: secretName, key, optional: true } },
      })),
      { name: 'AWS_EC2_METADATA_DISABLED', value: 'true' },
      // The SDK reads no files of its own: metaops reads the Secret's (--aws-dir).
      { name: 'AWS_SHARED_CREDENTIALS_FILE', value: '/dev/null' },
      { name: 'AWS_CONFIG_FILE', value: '/dev/null' },
    ],
    envFrom: [],
    volumes: [{ name: 'aws', secret: optionalVolume ? { secretName, optional: true } : { secretName } }],
    mounts: [{ name: 'aws', mountPath: AWS_DIR, readOnly: true }],
    args: [...args, '--aws-dir', AWS_DIR],
  };
}

/**
 * Progress of a restore, kept in the EtcdCluster's status.restore: Checking (the snapshot fetched and verified, the
 * cluster untouched) -> Replacing (old members dropped) -> Restoring -> Restored; or Failed.
 */
export interface RestoreState {
  uid: string;
  name: string;
  phase: 'Checking' | 'Replacing' | 'Restoring' | 'Restored' | 'Failed';
  /** When the current phase began (Checking, Restoring): their deadlines count from it. */
  since?: string;
  /**
   * The restore ended before any member was dropped (its check failed) while members ran: the cluster runs as it
   * was. Never set when no member ran as it came (they may have been dropped by this very restore, its record lost).
   */
  untouched?: boolean;
  /** Its check refused it: this restore dropped nothing (set with `untouched`, or alone when no member ran). */
  refused?: boolean;
  /** The EtcdRestore's creationTimestamp: an older EtcdRestore never acts after this one. */
  created?: string;
  /** Why it failed: a short, sanitised message (the init step's own reason when it wrote one). */
  reason?: string;
  /**
   * The cluster had no member when this restore came: one before it failed after dropping them. Until this one
   * replaces the cluster, nothing is started (an empty cluster would look healthy), and a refusal leaves it so.
   */
  noMembers?: boolean;
  /**
   * The snapshot checked, recorded when the old members are dropped (Replacing): past that point the restore carries
   * on from it even if the EtcdRestore is deleted (its data is the only data left).
   */
  s3?: { path: string; awsSecret?: string; endpoint?: string; forcePathStyle?: boolean };
  /**
   * What the check verified, recorded with `s3`: the sha256 of its bytes, and the version or the copy where they
   * stay (snapshot.ts, pin). Every restored member fetches those bytes and refuses any other.
   */
  snapshot?: { sha256: string; versionId?: string; pinnedPath?: string };
  /**
   * What the check started the restored members' etcd and images as (etcdcluster restore.ts checkedOf), recorded with
   * `s3`: the restored members are made so (an edit of the spec after the check passed reaches pods made later).
   */
  checked?: CheckedSpec;
  /**
   * While Checking: the check's running container (`id`: its pod's uid, containerID and restartCount) and when the
   * hook first saw it run (`seen`, the hook's own clock). A check at work is spared from then, never from the start
   * its node's clock stamped (etcdcluster restore.ts, checkFetchSeen).
   */
  checkFetch?: { id: string; seen: string };
  /**
   * While Checking: the check pods dropped as runs that proved nothing (`runs`), when the last was (`at`, the hook's
   * clock) and what its run ended on (`last`): the next is made only after a back-off (etcdcluster restore.ts,
   * checkBackoff), and a refusal at the deadline names `last`.
   */
  checkAgain?: { runs: number; at: string; last: string };
}

/** The spec fields a restore's check started the restored members' etcd and images with (RestoreState.checked). */
export interface CheckedSpec {
  version: string;
  repository: string;
  busyboxImage?: string;
  etcdEnv?: unknown[];
  resources?: Record<string, unknown>;
}

/** Whether a restore record is of one its check refused: it dropped nothing (`untouched` before `refused` was kept). */
export function refusedByCheck(r: Partial<RestoreState> | undefined): boolean {
  return r?.phase === 'Failed' && (r.refused === true || r.untouched === true);
}

/**
 * Whether a restore record is past its point of no return and not ended: its check passed and the old members were
 * dropped (Replacing), or its restored members run (Restoring). It is finished (or fails by its deadline) before
 * any newer EtcdRestore is taken.
 */
export function pastNoReturn(r: Partial<RestoreState> | undefined): boolean {
  return r?.phase === 'Replacing' || r?.phase === 'Restoring';
}

/**
 * Whether the restore a record is of replaced the cluster's members (dropped them, at least): past its point of no
 * return, restored, or failed after that. Not while it is checked, nor once its check refused it.
 */
export function replacedMembers(r: Partial<RestoreState> | undefined): boolean {
  return pastNoReturn(r) || r?.phase === 'Restored' || (r?.phase === 'Failed' && !refusedByCheck(r));
}

/** A restore a cluster carried out, as its status keeps it (status.restoresCarriedOut): name and snapshot. */
export interface RestoreCarriedOut {
  name: string;
  path: string;
  endpoint?: string;
}

/** How many restores carried out a cluster's status keeps (the oldest go first). */
export const RESTORES_KEPT = 16;

/** The restores carried out a cluster's status records (status.restoresCarriedOut), the readable ones, bounded. */
export function restoresCarriedOut(cluster: object | undefined): RestoreCarriedOut[] {
  const status = (cluster as { status?: unknown } | undefined)?.status;
  const list = (status as { restoresCarriedOut?: unknown } | undefined)?.restoresCarriedOut;
  return (Array.isArray(list) ? list.slice(-RESTORES_KEPT) : []).filter(
    (e): e is RestoreCarriedOut =>
      typeof (e as RestoreCarriedOut | null)?.name === 'string' &&
      typeof (e as RestoreCarriedOut).path === 'string' &&
      ['string', 'undefined'].includes(typeof (e as RestoreCarriedOut).endpoint),
  );
}

/**
 * The annotation on an EtcdCluster's member pods that records the restores the cluster had carried out when the pod
 * was made (status.restoresCarriedOut of that moment, JSON, RESTORES_KEPT at most): restored members record those
 * carried out before theirs, and members added later inherit them. It outlives a lost status, so that an EtcdRestore
 * made again under the name of one of them is known as carried out (never replayed over a later restore's members).
 * Never taken from spec.pod (the etcd.metaops.io prefix is the hooks' own).
 */
export const RESTORES_CARRIED_OUT = 'etcd.metaops.io/restores-carried-out';

/** The annotation's value for a cluster's history (undefined when it is empty). */
export function restoresCarriedOutAnnotation(history: RestoreCarriedOut[]): string | undefined {
  const kept = history.slice(-RESTORES_KEPT).map((e) => ({
    name: e.name,
    path: e.path,
    ...(e.endpoint ? { endpoint: e.endpoint } : {}),
  }));
  return kept.length > 0 ? JSON.stringify(kept) : undefined;
}

/**
 * The restores carried out the cluster's status and its member pods record (RESTORES_CARRIED_OUT: observed data,
 * any of it may be malformed: what is not a readable entry is skipped), each name and snapshot once, the newest
 * RESTORES_KEPT, the status's last. A pod's entry for a restore whose result runs (`results`: the name and snapshot
 * path live members were restored for) is left to that result.
 */
export function restoresCarriedOutKnown(
  cluster: object | undefined,
  pods: readonly KubeObject[],
  results: ReadonlyArray<{ name?: string | undefined; path?: string | undefined }> = [],
): RestoreCarriedOut[] {
  const out: RestoreCarriedOut[] = [];
  // A restore whose own result runs (a member restored for it, by name and snapshot) is judged from those members
  // (etcdcluster plan/restore-check.ts resultOf: carried out, still starting, or in doubt), not from a history.
  const ownResult = (e: RestoreCarriedOut) => results.some((r) => r.name === e.name && r.path === e.path);
  const add = (e: RestoreCarriedOut) => {
    const at = out.findIndex((o) => sameRestore(o, e.name, e));
    if (at >= 0) out.splice(at, 1);
    out.push(e);
  };
  for (const p of pods.slice(0, 64)) {
    const raw = p.metadata?.annotations?.[RESTORES_CARRIED_OUT];
    if (typeof raw !== 'string' || raw.length > 64 * 1024) continue;
    let parsed: unknown;
    try {
      parsed = parseJson(raw);
    } catch {
      continue;
    }
    restoresCarriedOut({ status: { restoresCarriedOut: parsed } })
      .filter((e) => !ownResult(e))
      .forEach(add);
  }
  restoresCarriedOut(cluster).forEach(add);
  return out.slice(-RESTORES_KEPT);
}

/**
 * The restores carried out a cluster's status should keep: those it kept (`kept`), with `record` when Restored (it
 * last), each name and snapshot once, the newest RESTORES_KEPT.
 */
export function withRestoreCarriedOut(
  kept: RestoreCarriedOut[],
  record: Partial<RestoreState> | undefined,
): RestoreCarriedOut[] {
  if (record?.phase !== 'Restored' || typeof record.name !== 'string' || typeof record.s3?.path !== 'string')
    return kept.slice(-RESTORES_KEPT);
  const entry: RestoreCarriedOut = { name: record.name, path: record.s3.path };
  if (record.s3.endpoint) entry.endpoint = record.s3.endpoint;
  const others = kept.filter((e) => !sameRestore(e, entry.name, entry));
  return [...others, entry].slice(-RESTORES_KEPT);
}

const sameRestore = (e: RestoreCarriedOut, name: string | undefined, s3: { path?: unknown; endpoint?: unknown }) =>
  e.name === name && e.path === s3.path && (e.endpoint ?? '') === (s3.endpoint ?? '');

/**
 * Whether an EtcdRestore (its name and source) is one a cluster carried out already: its record says so (the same
 * name, the same snapshot (path and endpoint), Restored), or its history of restores carried out (`history`,
 * status.restoresCarriedOut) names it, a later restore since or not. One made again under its name (a GitOps tool
 * after the advised delete, a namespace restore of object backups) would roll the cluster back: it is refused instead.
 */
export function alreadyRestored(
  record: Partial<RestoreState> | undefined,
  name: string | undefined,
  s3: { path?: unknown; endpoint?: unknown } | undefined,
  history: RestoreCarriedOut[] = [],
): boolean {
  if (history.some((e) => sameRestore(e, name, s3 ?? {}))) return true;
  return (
    record?.phase === 'Restored' &&
    record.name === name &&
    record.s3?.path === s3?.path &&
    (record.s3?.endpoint ?? '') === (s3?.endpoint ?? '')
  );
}

/** The restore state an EtcdCluster's status holds, if any. */
export function restoreStateOf(cluster: object | undefined): Partial<RestoreState> | undefined {
  const status = (cluster as { status?: unknown } | undefined)?.status;
  if (!status || typeof status !== 'object') return undefined;
  const restore = (status as { restore?: unknown }).restore;
  return restore && typeof restore === 'object' ? (restore as Partial<RestoreState>) : undefined;
}

/**
 * How much older than its cluster an EtcdRestore may be and still act: one `kubectl apply` of both may stamp the
 * restore a moment before the cluster.
 */
export const RESTORE_SLACK_SECONDS = 5;

/** The etcd family's clients. */
export interface EtcdClients {
  /**
   * A client for etcd's member API, with the operator's TLS material when the cluster uses TLS; `namespace` is the
   * cluster's (a TLS client is kept within that namespace's share, clientcache.ts).
   */
  etcd(tls?: TlsFiles, namespace?: string): EtcdClient;
}

/** The etcd family's settings (an EtcdBackup's parent label's key: lib/parent-label.ts). */
export interface EtcdSettings extends ParentLabelSettings {
  /** This project's image (METAOPS_IMAGE), for the children that run `metaops` commands. */
  image: string;
  /**
   * The Kubernetes cluster's DNS domain (METAOPS_ETCD_CLUSTER_DOMAIN, default cluster.local): member names are
   * looked up as `<pod>.<cluster>.<namespace>.svc.<domain>`, whatever a spec says.
   */
  clusterDomain?: string;
  /**
   * The other domains a spec's pod.clusterDomain may name (METAOPS_ETCD_CLUSTER_DOMAINS, comma-separated; none
   * by default): the server's own domain and these, nothing else.
   */
  allowedDomains?: string[];
  /**
   * Where backups and restores may reach (tenancy.ts; their etcdEndpoints in the domains above); the strict
   * default when absent.
   */
  backup?: BackupTenancy;
  /**
   * Whether a member claim may take `storageClassName: ""` (static binding to pre-made volumes):
   * METAOPS_ALLOW_STATIC_VOLUMES, lib/config.ts. Refused when absent.
   */
  allowStaticVolumes?: boolean;
  /** The taint keys a member pod may tolerate besides a node that stopped reporting (METAOPS_POD_TOLERATIONS). */
  podTolerations?: readonly string[];
  /** The label and annotation key prefixes a member pod may carry besides the defaults (METAOPS_POD_METADATA_PREFIXES). */
  podMetadataPrefixes?: readonly string[];
  /**
   * Whether an EtcdCluster's spec may name Secrets and ConfigMaps (spec.pod.etcdEnv valueFrom) and volume sources
   * (the claim spec's dataSource, dataSourceRef) for its members: METAOPS_ETCD_ALLOW_REFERENCES, lib/config.ts.
   * Refused when absent (etcdcluster/references.ts).
   */
  allowReferences?: boolean;
  /**
   * The upgrade soak (METAOPS_ETCD_UPGRADE_SOAK_SECONDS, default 300, from 20 to 3600): how long a member moved to a
   * new version must serve it, one etcd container without a restart, before the next member is moved and before the
   * rollout is done (etcdcluster/upgrade.ts, UPGRADE_SOAK_SECONDS).
   */
  upgradeSoakSeconds?: number;
}

/** The bounds of METAOPS_ETCD_UPGRADE_SOAK_SECONDS: no shorter than an exit's bound (UPGRADE_FAIL_SECONDS), an hour at most. */
export const UPGRADE_SOAK_BOUNDS = { min: 20, max: 3600 } as const;

/** METAOPS_ETCD_UPGRADE_SOAK_SECONDS as read (undefined: not set or not a whole number within bounds). */
function upgradeSoakOf(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env['METAOPS_ETCD_UPGRADE_SOAK_SECONDS']?.trim();
  if (raw === undefined || !/^\d{1,6}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= UPGRADE_SOAK_BOUNDS.min && n <= UPGRADE_SOAK_BOUNDS.max ? n : undefined;
}

// The cluster domain setting is the server's (lib/names.ts): the etcd family names it, the MySQL hook reads it too.
export { CLUSTER_DOMAIN_DEFAULT, plainDomain } from '../../lib/index.js';

function domainList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map(plainDomain)
    .filter((d) => d !== '');
}

export function etcdSettings({ env }: ClientEnvironment): EtcdSettings {
  const upgradeSoakSeconds = upgradeSoakOf(env);
  const clusterDomain = clusterDomainOf(env);
  const allowedDomains = domainList(env['METAOPS_ETCD_CLUSTER_DOMAINS']);
  return {
    image: env['METAOPS_IMAGE'] ?? METAOPS_IMAGE_DEFAULT,
    clusterDomain,
    allowedDomains,
    // One cluster domain setting for the whole server: a backup's endpoints are checked against the same domains.
    backup: tenancyFromEnv(env, [clusterDomain, ...allowedDomains]),
    allowStaticVolumes: staticVolumesAllowed(env),
    podTolerations: podTolerationsOf(env),
    podMetadataPrefixes: podMetadataPrefixesOf(env),
    allowReferences: etcdReferencesAllowed(env),
    labelKey: labelKeyFrom(env),
    ...(upgradeSoakSeconds !== undefined ? { upgradeSoakSeconds } : {}),
  };
}

/** What is wrong with the etcd settings of the server's environment (the server refuses to start). */
export function etcdSettingsProblems(env: NodeJS.ProcessEnv): string[] {
  const { clusterDomain, allowedDomains } = etcdSettings({ env });
  return [
    ...[clusterDomain!, ...allowedDomains!].flatMap((d) => clusterDomainProblem(d) ?? []),
    ...staticVolumesProblems(env),
    ...podTolerationsProblems(env),
    ...podMetadataPrefixesProblems(env),
    ...etcdReferencesProblems(env),
    ...(env['METAOPS_ETCD_UPGRADE_SOAK_SECONDS'] !== undefined && upgradeSoakOf(env) === undefined
      ? [
          `METAOPS_ETCD_UPGRADE_SOAK_SECONDS=${JSON.stringify(env['METAOPS_ETCD_UPGRADE_SOAK_SECONDS'])}: expected a whole number of seconds from ${UPGRADE_SOAK_BOUNDS.min} to ${UPGRADE_SOAK_BOUNDS.max}`,
        ]
      : []),
  ];
}

/** A tenant's syncs dialling at once in one replica of the server (METAOPS_REPLICAS, lib/server-replicas.ts). */
export function tenantMaxSyncsOf(env: NodeJS.ProcessEnv): number {
  return perReplica(TENANT_MAX_SYNCS, replicasOf(env));
}

export function etcdClients({ env }: ClientEnvironment = { env: {} }): EtcdClients {
  // perf: docs/performance.md. One client per TLS identity of a namespace, kept while used: it remembers which
  // gateway prefix each endpoint serves (/v3alpha for the default 3.2.13), which would otherwise cost two extra calls
  // every sync, and each member's TLS session. The plain client is one for the server and always kept.
  const clients = new NamespaceShares<EtcdClient>();
  // One cap on calls to etcd in flight for the whole server, whichever cluster or TLS identity they are for.
  const limiter = new Limiter(SERVER_MAX_CALLS);
  // And one per tenant (a namespace), over its clusters and TLS identities: its syncs dialling at once, what this
  // replica allows of TENANT_MAX_SYNCS (the Deployment's replicas each keep their own count).
  const tenants = new Shares(TENANT_MAX_CALLS);
  const tenantMaxSyncs = tenantMaxSyncsOf(env);
  const plain = new HttpEtcdClient({ limiter, tenants, tenantMaxSyncs });
  return {
    etcd: (tls, namespace = '') => {
      if (!tls) return plain;
      const key = hash('sha256', JSON.stringify([tls.ca ?? '', tls.cert ?? '', tls.key ?? '']));
      let client = clients.get(namespace, key);
      if (!client)
        clients.set(namespace, key, (client = new HttpEtcdClient({ tls, limiter, tenants, tenantMaxSyncs })));
      return client;
    },
  };
}
