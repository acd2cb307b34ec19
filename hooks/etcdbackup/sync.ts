// EtcdBackup: the hook stays fast and stateless; the work runs in a child. A one-off backup is a Job, a
// periodic one a CronJob, each running `metaops etcd-backup` from this project's image. The hook reports the
// outcome from the Job and from the termination message of its pod (the CLI's JSON result).
import {
  childLabels,
  type CompositeSyncResponse,
  type ConditionInput,
  conditionsFor,
  currentStatus,
  type CustomizeRequest,
  type CustomizeResponse,
  isTerminal,
  keepObserved,
  type KubeObject,
  observed,
  observedNamed,
  type ParentObject,
  podDnsConfig,
  parentLabelOf,
  PODS_LABEL,
  recordedPodsLabel,
  relatedPodRules,
  RETRY_SECONDS,
  scrubAwsText,
  selectorLabels,
  specParser,
  type SyncHook,
  templateLabelled,
  isRecord,
} from '../../lib/index.js';
import type { JobStatus } from 'kubernetes-types/batch/v1.js';
import type { PodStatus } from 'kubernetes-types/core/v1.js';
import { METAOPS_CLI, restoreStateOf, s3Access, type EtcdSettings } from '../etcdcommon/index.js';
import {
  BACKUP_CLIENT_PREFIX,
  BACKUP_CLIENT_VALUE,
  backupClientLabel,
  clientService,
  etcdTargets,
  s3TargetProblem,
  tenancyOf,
  type BackupTenancy,
} from '../etcdcommon/tenancy.js';
import type { BackupResult } from './backup.js';
import { BREAK_REASONS, readResult, RESULT_BYTES, TERMINATION_MESSAGE_BYTES } from './result.js';
import { dateOfStamp, periodicSnapshot } from './lineage.js';
import { jobWithoutPod } from './events.js';
import { CLUSTER_NAME_PATTERN, EtcdBackupSpec, EtcdBackupStatus, type EtcdBackupSpec as Spec } from './schema.js';
import { Value } from '@sinclair/typebox/value';
import { parseJson, textOf } from '../../lib/index.js';

const APP = 'etcdbackup';
export const TLS_DIR = '/etc/metaops/etcd-tls';
const CLUSTERS = 'etcd.database.coreos.com/v1beta2';

/**
 * The parent label on the EtcdBackup's Job's (or CronJob's) pod template, by which customize asks for its backup pods
 * (lib/parent-label.ts): a keyed MAC of its kind, namespace and name, the same for a backup made again under its name
 * and one no tenant can compute for another namespace's. On Metacontroller v1.5.20 a rule by name/instance was matched
 * by labels alone, so that a pod of any namespace carrying them synced this backup as often as it was written.
 */
export const PARENT_LABEL = 'etcdbackup.metaops.io/parent-id';

const CLUSTER_NAME = new RegExp(CLUSTER_NAME_PATTERN);
// Checked here as well as in the CRD (a request may come from an older CRD): the cluster name becomes a host name.
export const parser = specParser(EtcdBackupSpec, (spec) => {
  if (!spec.etcdEndpoints?.length && !spec.clusterName) return 'spec.etcdEndpoints or spec.clusterName is required';
  if (spec.clusterName && !CLUSTER_NAME.test(spec.clusterName))
    return 'spec.clusterName must be the name of an EtcdCluster (a DNS label)';
  return undefined;
});

/** Step intervals a cron schedule keeps exactly: the divisors of an hour (minutes) and of a day (hours). */
const MINUTE_STEPS = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30];
const HOUR_STEPS = [1, 2, 3, 4, 6, 8, 12];
const DAY = 86_400;

/** The schedule a periodic backup keeps: its CronJob's, and what it means when that is not the interval asked. */
export interface EffectiveSchedule {
  cron: string;
  /**
   * The interval is longer than a day, which no cron schedule says: the CronJob fires hourly and its Job takes a
   * snapshot only once the newest of this EtcdBackup (read from S3) is at least the interval old (`--min-interval-seconds`).
   */
  checked: boolean;
  /** How the schedule differs from the interval asked; none when it keeps it exactly. */
  note?: string;
}

/** An interval in words: days, hours, minutes (at minute precision), and the seconds asked. */
function span(seconds: number): string {
  const parts: string[] = [];
  const d = Math.floor(seconds / DAY);
  const h = Math.floor((seconds % DAY) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  for (const [n, unit] of [
    [d, 'day'],
    [h, 'hour'],
    [m, 'minute'],
    [s, 'second'],
  ] as const)
    if (n > 0) parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
  return parts.join(' ') || '0 seconds';
}

/**
 * The schedule of an interval. Up to a day: a CronJob schedule rounded up to the next interval a cron schedule keeps
 * evenly (whole minutes that divide an hour, then whole hours that divide a day: `*\/45` would fire at :00 and :45,
 * so 45 minutes becomes hourly; above 12 hours, daily). Longer than a day (a cron schedule cannot say "every 3 days"):
 * hourly, each Job taking a snapshot only when the newest of this EtcdBackup is at least the interval old, so a
 * snapshot is taken every interval to interval plus an hour, never more often.
 */
export function effectiveSchedule(seconds: number): EffectiveSchedule {
  if (seconds > DAY)
    return {
      cron: '0 * * * *',
      checked: true,
      note: `an interval longer than a day is no cron schedule: the CronJob fires hourly, and its Job takes a snapshot only when the newest snapshot of this EtcdBackup (read from S3) is at least ${span(seconds)} old (${seconds}s), so one every ${span(seconds)} to ${span(seconds + 3600)}; the runs between take none`,
    };
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  const m = MINUTE_STEPS.find((st) => st >= minutes);
  const hours = Math.ceil(minutes / 60);
  const h = m === undefined ? HOUR_STEPS.find((st) => st >= hours) : undefined;
  const cron =
    m !== undefined
      ? m === 1
        ? '* * * * *'
        : `*/${m} * * * *`
      : h !== undefined
        ? h === 1
          ? '0 * * * *'
          : `0 */${h} * * *`
        : '0 0 * * *';
  const kept = m !== undefined ? m * 60 : h !== undefined ? h * 3600 : DAY;
  if (kept === seconds) return { cron, checked: false };
  return {
    cron,
    checked: false,
    note: `every ${span(kept)}: the next interval above the ${seconds}s asked that a cron schedule keeps evenly`,
  };
}

/** The CronJob schedule of an interval (effectiveSchedule). */
export function schedule(seconds: number): string {
  return effectiveSchedule(seconds).cron;
}

function podTemplate(
  parent: ParentObject,
  spec: Spec,
  image: string,
  endpoints: string[],
  /**
   * A periodic backup: the snapshots its prune spares; the etcd cluster ID (hex) each endpoint must answer with; and
   * the parent label's value (parentLabelOf).
   */
  {
    periodic,
    clusterIds,
    podLabel,
    clusters,
  }: { periodic: Spared | undefined; clusterIds: Record<string, string>; podLabel: string; clusters: string[] },
): Record<string, unknown> {
  const name = parent.metadata.name;
  const access = s3Access(spec.s3);
  const args = [
    'etcd-backup',
    '--endpoints',
    endpoints.join(','),
    '--s3-path',
    spec.s3.path,
    '--timeout-seconds',
    String(spec.backupPolicy.timeoutInSecond),
    ...(periodic ? ['--periodic', '--max-backups', String(spec.backupPolicy.maxBackups)] : []),
    // An interval no cron schedule keeps (longer than a day): the Job takes a snapshot only once the newest of this
    // EtcdBackup is that old (effectiveSchedule).
    ...(periodic && effectiveSchedule(spec.backupPolicy.backupIntervalInSecond).checked
      ? ['--min-interval-seconds', String(spec.backupPolicy.backupIntervalInSecond)]
      : []),
    // Snapshots an unfinished EtcdRestore of the namespace restores: never pruned (sparedSnapshots).
    ...(periodic?.all ? ['--spare-all'] : (periodic?.keys ?? []).flatMap((k) => ['--spare', k])),
    // Its lineage (lineage.ts): snapshots are recorded as this EtcdBackup's, and it prunes no other's.
    '--backup-uid',
    parent.metadata.uid ?? '',
    '--backup-name',
    `${parent.metadata.namespace ?? ''}/${name}`,
    // The cluster each endpoint must prove to be before anything is uploaded (its EtcdCluster's status.clusterID).
    ...Object.entries(clusterIds)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([url, id]) => ['--cluster-id', `${url}=${id}`]),
    ...access.args,
  ];
  const volumes = [...access.volumes];
  const mounts = [...access.mounts];
  if (spec.clientTLSSecret) {
    volumes.push({ name: 'etcd-tls', secret: { secretName: spec.clientTLSSecret } });
    mounts.push({ name: 'etcd-tls', mountPath: TLS_DIR, readOnly: true });
    args.push('--tls-dir', TLS_DIR);
  }
  const fixed = backupPodFixed();
  return {
    metadata: {
      labels: {
        ...childLabels(APP, name, 'backup'),
        ...(podLabel ? { [PARENT_LABEL]: podLabel } : {}),
        // The clusters it dials let it in by these where their namespace governs the members' ingress.
        ...Object.fromEntries(clusters.map((c) => [backupClientLabel(c), BACKUP_CLIENT_VALUE])),
      },
    },
    spec: {
      restartPolicy: fixed.pod.restartPolicy,
      securityContext: fixed.pod.securityContext,
      containers: [
        {
          name: 'backup',
          image,
          command: fixed.container.command,
          args,
          env: access.env,
          envFrom: access.envFrom,
          volumeMounts: mounts,
          terminationMessagePolicy: fixed.container.terminationMessagePolicy,
          securityContext: fixed.container.securityContext,
        },
      ],
      volumes,
      dnsConfig: fixed.pod.dnsConfig,
    },
  };
}

/**
 * The fields of a backup pod that no spec changes: the pod's and its one container's. A kept child is judged against
 * them (refused.ts), so both read them from here. Fresh objects at each call (an answer is never shared).
 */
export function backupPodFixed() {
  return {
    pod: {
      restartPolicy: 'Never',
      securityContext: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } },
      // It dials S3 (or STS, a custom endpoint) by name: looked up as it is first (lib/names.ts). A running Job keeps
      // its template (the Jobs' update strategy is OnDelete); a CronJob's next Jobs take it.
      dnsConfig: podDnsConfig(),
    },
    container: {
      command: [...METAOPS_CLI],
      terminationMessagePolicy: 'File',
      securityContext: {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      },
    },
  };
}

/** The backup's child: a Job for a one-off backup, a CronJob for a periodic one, dialling `endpoints`. */
export function backupChild(
  parent: ParentObject,
  spec: Spec,
  image: string,
  endpoints: string[],
  {
    spared = { keys: [], all: false },
    clusterIds = {},
    podLabel = parentLabelOf(undefined, parent),
    clusters = [],
  }: {
    /** Snapshots its prune spares (a periodic backup). */
    spared?: Spared;
    /** The etcd cluster ID (hex) each endpoint must answer with, by endpoint (provenClusters). */
    clusterIds?: Record<string, string>;
    /** The parent label's value its pods carry (parentLabelOf; by default the unkeyed value). */
    podLabel?: string;
    /**
     * The EtcdClusters of the namespace it dials: its pods carry backupClientLabel of each (a Job made before keeps
     * its pods' labels: a Job is never changed, OnDelete; a CronJob's next Jobs take them).
     */
    clusters?: readonly string[];
  } = {},
): KubeObject {
  const name = parent.metadata.name;
  const periodic = spec.backupPolicy.backupIntervalInSecond > 0;
  const jobSpec = {
    backoffLimit: 2,
    activeDeadlineSeconds: spec.backupPolicy.timeoutInSecond * 3,
    template: podTemplate(parent, spec, image, endpoints, {
      periodic: periodic ? spared : undefined,
      clusterIds,
      podLabel,
      clusters: [...new Set(clusters)].sort(),
    }),
  };
  const metadata = {
    name: `${name}-backup`,
    namespace: parent.metadata.namespace,
    labels: childLabels(APP, name, 'backup'),
  };
  if (!periodic) return { apiVersion: 'batch/v1', kind: 'Job', metadata, spec: jobSpec };
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata,
    spec: {
      schedule: schedule(spec.backupPolicy.backupIntervalInSecond),
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      jobTemplate: { metadata: { labels: childLabels(APP, name, 'backup') }, spec: jobSpec },
    },
  };
}

/**
 * What a dependency said (an S3 error, via the Job's result) goes into status short, printable, and without an AWS
 * account or IAM identity (ambient credentials are the operator's; lib/aws-text.ts).
 */
function short(text: string, max = 300): string {
  const clean = scrubAwsText(text)
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}

/** A backup pod not yet seen ended: neither in an ended phase nor with its backup container terminated. */
function runningBackup(pod: KubeObject): boolean {
  if (isTerminal(pod)) return false;
  const statuses = (pod['status'] as PodStatus | undefined)?.containerStatuses ?? [];
  return !statuses.find((s) => s.name === 'backup')?.state?.terminated;
}

/**
 * The CLI's result in a finished pod's termination message, with the time it finished: read by type (readResult);
 * none from a result that names its EtcdBackup by no readable UID.
 */
export function podResult(pod: KubeObject): { result: BackupResult; at: string } | undefined {
  const statuses = (pod['status'] as PodStatus | undefined)?.containerStatuses ?? [];
  const terminated = statuses.find((s) => s.name === 'backup')?.state?.terminated;
  if (!terminated?.message) return undefined;
  let parsed: unknown;
  try {
    parsed = parseJson(textOf(terminated.message));
  } catch {
    return { result: { succeeded: false, reason: unreadable(terminated) }, at: textOf(terminated.finishedAt) };
  }
  const result = readResult(parsed);
  if (!result) return undefined;
  // A result from before the CLI said its bucket: the bucket of the path its pod was given.
  if (result.bucket === undefined) {
    const bucket = podBucket(pod);
    if (bucket) result.bucket = bucket;
  }
  // The store it wrote to: the endpoint its pod was given (the CLI does not say it).
  const endpoint = specEndpoint(pod['spec']);
  if (endpoint !== undefined) result.endpoint = endpoint;
  return { result, at: textOf(terminated.finishedAt) };
}

/**
 * Why a termination message that is no JSON gives no result. The kubelet keeps the last TERMINATION_MESSAGE_BYTES of
 * the file and drops the front: a message that long was cut (a result written by a CLI before results were bounded),
 * and its tail is no reason; it is said as such, with the container's exit code (0: the run said it succeeded).
 * Anything else shorter is quoted (300 characters).
 */
function unreadable(terminated: { message?: string; exitCode?: number }): string {
  const text = textOf(terminated.message);
  // (Bytes the cut split are read back as U+FFFD: a few more bytes than were kept.)
  if (Buffer.byteLength(text) < TERMINATION_MESSAGE_BYTES - 4) return text.slice(0, 300);
  const code = typeof terminated.exitCode === 'number' ? `, its container exited ${terminated.exitCode}` : '';
  return (
    `the backup's result was longer than the ${TERMINATION_MESSAGE_BYTES} bytes the kubelet keeps of a termination ` +
    `message and was cut: it cannot be read${code}; a backup Job made by this version of the hook writes a result ` +
    `that fits`
  );
}

/** The `--s3-path` a pod spec's backup container was given, if any. */
function specPath(podSpec: unknown): string | undefined {
  const containers = (podSpec as { containers?: unknown } | undefined)?.containers;
  const backup = (Array.isArray(containers) ? containers : []).find(
    (c): c is { args?: unknown } => (c as { name?: unknown } | null)?.name === 'backup',
  );
  const args = Array.isArray(backup?.args) ? (backup.args as unknown[]) : [];
  const path = args[args.indexOf('--s3-path') + 1];
  return args.includes('--s3-path') && typeof path === 'string' && path.indexOf('/') > 0 ? path : undefined;
}

/**
 * The `--s3-endpoint` a pod spec's backup container was given: '' when it was given an `--s3-path` and no endpoint
 * (AWS's own); undefined when its arguments are not seen.
 */
function specEndpoint(podSpec: unknown): string | undefined {
  if (specPath(podSpec) === undefined) return undefined;
  const containers = (podSpec as { containers?: unknown[] }).containers as unknown[];
  const args = (containers.find((c) => (c as { name?: unknown } | null)?.name === 'backup') as { args: unknown[] })
    .args;
  const at = args.indexOf('--s3-endpoint');
  if (at < 0) return '';
  const endpoint = args[at + 1];
  return typeof endpoint === 'string' && endpoint.length <= 512 ? endpoint : undefined;
}
/** The endpoint the observed Job writes to (its pod template's arguments). */
const jobEndpoint = (job: KubeObject | undefined) =>
  specEndpoint((job?.['spec'] as { template?: { spec?: unknown } } | undefined)?.template?.spec);

/** The bucket of the `--s3-path` a pod spec's backup container was given, if any. */
function specBucket(podSpec: unknown): string | undefined {
  const path = specPath(podSpec);
  return path?.slice(0, path.indexOf('/'));
}
const podBucket = (pod: KubeObject) => specBucket(pod['spec']);
/** The bucket the observed Job writes to (its pod template's arguments). */
const jobBucket = (job: KubeObject | undefined) =>
  specBucket((job?.['spec'] as { template?: { spec?: unknown } } | undefined)?.template?.spec);

/**
 * Whether a status field of the last sync is carried: of the type the CRD's schema says (a status written by another
 * version, or edited, may hold anything: copied as it is, the whole status would be refused), within a result's
 * bounds, and a lineage break's reason one the Lineage condition knows.
 */
function carried(k: (typeof CARRIED)[number], v: unknown): boolean {
  if (v === undefined || !Value.Check(EtcdBackupStatus.properties[k], v)) return false;
  if (Buffer.byteLength(JSON.stringify(v)) > RESULT_BYTES) return false;
  const reason = (v as { previous?: { reason?: unknown } }).previous?.reason;
  return k !== 'lineage' || reason === undefined || BREAK_REASONS.has(textOf(reason));
}

/** The status fields a backup's outcome sets (with `Reason`, the mirror of `reason`): a one-off's record of a snapshot. */
const OUTCOME = [
  'succeeded',
  'reason',
  'etcdVersion',
  'etcdRevision',
  'lastSuccessDate',
  'key',
  'bucket',
  'endpoint',
  'clusterName',
  'clusterID',
] as const;

/** The status fields carried from one sync to the next: the outcome, and what a periodic backup's lineage says. */
const CARRIED = [...OUTCOME, 'lineage', 'pruneProblem'] as const;

type Status = Record<string, unknown>;
interface Previous {
  reason: string;
  key: string;
  revision: number;
  clusterID: string;
  date: string;
  restoredBy?: string;
  why?: string;
}
interface LineageStatus {
  clusterID: string;
  since: string;
  previous?: Previous;
}

/**
 * How far ahead of the API server's and the hook's clocks a node's clock is read to be, at most, when a snapshot's
 * time (`metaops-taken`, stamped by the backup pod's node) is ordered against a restore's: a node that runs a few
 * minutes ahead stamps the last snapshot of the old cluster after a restore that really came later.
 */
export const NODE_CLOCK_SLACK_SECONDS = 600;

/**
 * The EtcdRestore that explains a lineage break, if one does: a restore of one of the clusters the backup dials,
 * over (Restored), that replaced the members after the last snapshot of the lineage before: made after it, or
 * (its check took minutes, and a backup of the old cluster ran meanwhile) whose members were dropped after it
 * (status.restore.since). That snapshot's time is its node's (the clock rule): read as up to NODE_CLOCK_SLACK_SECONDS
 * ahead, and one ahead of the hook's `now` as now. A restore the lineage before began with (`credited`) explains
 * that break, not this one.
 */
function restoreExplaining(
  clusters: KubeObject[],
  brokeAfter: string,
  now: Date | undefined,
  credited: string | undefined,
): string | undefined {
  const stamped = Date.parse(brokeAfter);
  const bound = (now && stamped > now.getTime() ? now.getTime() : stamped) - NODE_CLOCK_SLACK_SECONDS * 1000;
  const after = (at: unknown) => typeof at === 'string' && Date.parse(at) >= bound;
  for (const cluster of clusters) {
    const r = restoreStateOf(cluster);
    if (
      r?.phase === 'Restored' &&
      typeof r.name === 'string' &&
      r.name &&
      r.name !== credited &&
      (after(r.created) || after(r.since))
    )
      return r.name;
  }
  return undefined;
}

/**
 * The lineage of the newest snapshot (a periodic backup's result, lineage.ts), kept in status: the same lineage
 * keeps what status holds (the break it began with, if any); a new one records its break, and the EtcdRestore that
 * explains it.
 */
export function lineageStatus(
  before: unknown,
  good: BackupResult,
  clusters: KubeObject[],
  now?: Date,
): LineageStatus | undefined {
  if (!good.lineage || !good.clusterId) return before as LineageStatus | undefined;
  const since = dateOfStamp(good.lineage);
  const kept = before as Partial<LineageStatus> | undefined;
  // The same lineage (one EtcdBackup begins one at a time): what status holds, with the break it began with.
  if (kept?.since === since) return kept as LineageStatus;
  const out: LineageStatus = { clusterID: good.clusterId, since };
  const b = good.lineageBreak;
  if (b) {
    const restoredBy = restoreExplaining(clusters, b.date, now, kept?.previous?.restoredBy);
    out.previous = {
      reason: b.reason,
      // What etcd said, from the Job's termination message: printable, bounded.
      ...(b.why ? { why: b.why.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 240) } : {}),
      key: b.key,
      revision: b.revision,
      clusterID: b.clusterId,
      date: b.date,
      ...(restoredBy ? { restoredBy } : {}),
    };
  }
  return out;
}

/** The Lineage condition of a periodic backup: what its pruning is confined to, and a break it began with. */
export function lineageCondition(lineage: LineageStatus, maxBackups: number) {
  const keeps = maxBackups > 0 ? `pruning keeps the ${maxBackups} newest of them` : 'every one is kept (maxBackups 0)';
  const scope = `snapshots of etcd cluster ${lineage.clusterID} taken by this EtcdBackup since ${lineage.since}: ${keeps}; no other snapshot under the path is ever pruned`;
  const p = lineage.previous;
  if (!p) return { type: 'Lineage', status: true as const, reason: 'Continuous', message: scope };
  const before = `the lineage before (its last snapshot ${p.key}, revision ${p.revision} of cluster ${p.clusterID}, ${p.date}) is kept, never pruned`;
  if (p.restoredBy)
    return {
      type: 'Lineage',
      status: true as const,
      reason: 'Restored',
      message: `a new lineage after EtcdRestore ${p.restoredBy}: ${scope}; ${before}`,
    };
  const what =
    p.reason === 'RevisionWentBack'
      ? `the revision of etcd cluster ${lineage.clusterID} went back from ${p.revision} with no EtcdRestore (the cluster was rebuilt or rolled back)`
      : p.reason === 'HistoryDiffers'
        ? `etcd cluster ${lineage.clusterID} holds another history up to revision ${p.revision} than the snapshot ${p.key} recorded, with no EtcdRestore (rebuilt with its identity, its revision grown again)`
        : p.reason === 'LineageUnproven'
          ? `etcd could not prove that cluster ${lineage.clusterID} still holds the history of the snapshot ${p.key} (${p.why ?? 'no answer'})`
          : `the etcd cluster changed from ${p.clusterID} to ${lineage.clusterID} with no EtcdRestore (lost and recreated under the same name?)`;
  return {
    type: 'Lineage',
    status: false as const,
    reason: p.reason,
    message: `${what}: a new lineage began; ${before} (delete it by hand once it is not needed); ${scope}`,
  };
}

/** The most snapshots a backup's Job is told to spare by name; beyond it, it prunes nothing (`--spare-all`). */
export const MAX_SPARED = 16;

/** Snapshots of the backup's path a prune must spare: their keys, or all of them. */
export interface Spared {
  keys: string[];
  all: boolean;
}

/** A restore under way in an EtcdCluster's status: past its check, its members fetch the snapshot recorded. */
const RESTORING = new Set(['Checking', 'Replacing', 'Restoring']);

/**
 * The periodic snapshots of this backup's path (`<bucket>/<key>_v<revision>_<date>`) that a restore under way names
 * (issues 30.2, 30.5: several resources sharing one external thing): those of the namespace's EtcdRestores that have
 * not finished (no status.succeeded), and those the namespace's EtcdClusters record as the snapshot of a restore in
 * progress (status.restore.s3: it carries on even when its EtcdRestore is deleted). Its members fetch that snapshot
 * after the old ones were dropped: pruning it would leave a cluster with neither. Sorted (the Job template is stable),
 * at most MAX_SPARED, else all.
 */
export function sparedSnapshots(
  request: SyncHook<Spec, unknown, EtcdSettings>['request'],
  namespace: string,
  path: string,
  clusters: KubeObject[],
): Spared {
  const at = path.indexOf('/');
  const bucket = path.slice(0, at);
  const base = path.slice(at + 1);
  const named: unknown[] = [
    ...observed(request.related, 'EtcdRestore', CLUSTERS)
      .filter((r) => (r.metadata.namespace ?? '') === namespace)
      .filter((r) => typeof (r['status'] as { succeeded?: unknown } | undefined)?.succeeded !== 'boolean')
      .map((r) => (r['spec'] as { s3?: { path?: unknown } } | undefined)?.s3?.path),
    ...clusters
      .map(restoreStateOf)
      .filter((r) => RESTORING.has(textOf(r?.phase)))
      .map((r) => r?.s3?.path),
  ];
  const keys = new Set<string>();
  for (const p of named) {
    if (typeof p !== 'string' || !p.startsWith(`${bucket}/`)) continue;
    const key = p.slice(bucket.length + 1);
    if (periodicSnapshot(base, key)) keys.add(key);
  }
  const sorted = [...keys].sort();
  return sorted.length > MAX_SPARED ? { keys: [], all: true } : { keys: sorted, all: false };
}

/** The largest etcd cluster ID (a uint64). */
const MAX_ID = (1n << 64n) - 1n;

/** An EtcdCluster's recorded etcd cluster ID (decimal in its status) in hex, as etcd's answers are compared. */
function recordedId(cluster: KubeObject): string | undefined {
  const id = (cluster['status'] as { clusterID?: unknown } | undefined)?.clusterID;
  if (typeof id !== 'string' || !/^[1-9][0-9]{0,19}$/.test(id) || BigInt(id) > MAX_ID) return undefined;
  return BigInt(id).toString(16);
}

/**
 * Whether the EtcdClusters a backup dials are provably the ones named: each records its etcd cluster ID (its hook
 * read it from its own members) and is held by no other parent for its pod names (status.heldBy: its client Service
 * could then select another's pods). The ID each endpoint must answer with, by endpoint, for the Job; or why the
 * backup waits.
 */
export function provenClusters(
  named: KubeObject[],
  endpoints: string[],
  serviceOf: (cluster: string) => string,
):
  | { ok: true; clusterIds: Record<string, string> }
  | { ok: false; reason: 'ClusterHeld' | 'ClusterIDUnknown'; message: string } {
  const clusterIds: Record<string, string> = {};
  for (const c of named) {
    const name = c.metadata.name!;
    const heldBy = (c['status'] as { heldBy?: unknown } | undefined)?.heldBy;
    if (Array.isArray(heldBy) && heldBy.length > 0) {
      const holders = heldBy
        .slice(0, 3)
        .map((h) => (h as { holder?: { kind?: unknown; name?: unknown } } | null)?.holder)
        .map((h) => `${textOf(h?.kind, '?')} ${textOf(h?.name, '?')}`);
      return {
        ok: false,
        reason: 'ClusterHeld',
        message: `EtcdCluster ${name} is held: ${[...new Set(holders)].join(', ')} holds names of its pods (its status.heldBy), so its client Service may answer for another cluster: no backup is taken until it is not held (rename or remove one of the two)`,
      };
    }
    const id = recordedId(c);
    if (!id)
      return {
        ok: false,
        reason: 'ClusterIDUnknown',
        message: `EtcdCluster ${name} records no etcd cluster ID yet (status.clusterID, read by its hook from its own members once they run): no backup is taken until it does, as nothing proves which cluster its client Service answers for`,
      };
    for (const url of endpoints) {
      let host = '';
      try {
        host = new URL(url).hostname;
      } catch {
        // not a URL: not this cluster's
      }
      if (host === serviceOf(name)) clusterIds[url] = id;
    }
  }
  return { ok: true, clusterIds };
}

/** The clusters of the backup's namespace (its customize asks for them; a v2 hook may send others). */
function namespaceClusters(request: SyncHook<Spec, unknown, EtcdSettings>['request'], namespace: string): KubeObject[] {
  return observed(request.related, 'EtcdCluster', CLUSTERS).filter((c) => (c.metadata.namespace ?? '') === namespace);
}

/**
 * The newest results of this EtcdBackup's finished backup pods: the newest, and the newest that succeeded (a
 * namesake's, deleted and recreated, is not this one's: its results carry another UID). Newest by the pods'
 * `creationTimestamp` (the API server's clock, one for every run), never first by `finishedAt`, which the kubelet
 * stamps with its node's clock: one run on a node whose clock is ahead would otherwise outrank every run after it, and
 * the failures meanwhile go unreported (the clock rule). `finishedAt` only orders pods made in the same second, or a
 * pod that carries no `creationTimestamp`.
 */
function newestResults(pods: KubeObject[], uid: string): { latest?: BackupResult; lastGood?: BackupResult } {
  const results = pods
    .map((pod) => {
      const r = podResult(pod);
      return r && { ...r, created: textOf(pod.metadata.creationTimestamp) || r.at };
    })
    .filter((r): r is { result: BackupResult; at: string; created: string } => r !== undefined)
    .filter((r) => r.result.backupUid === undefined || r.result.backupUid === uid)
    // A run that took no snapshot (the newest of this EtcdBackup is younger than its interval) says nothing new.
    .filter((r) => !r.result.skipped)
    .sort((a, b) => (a.created !== b.created ? byTime(b.created, a.created) : byTime(b.at, a.at)));
  const latest = results[0]?.result;
  const lastGood = results.find((r) => r.result.succeeded)?.result;
  return { ...(latest ? { latest } : {}), ...(lastGood ? { lastGood } : {}) };
}

/** Two Kubernetes times (RFC 3339, perhaps with fractions of a second) compared: as a sort's comparator. */
function byTime(a: string, b: string): number {
  const [x, y] = [Date.parse(a), Date.parse(b)];
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : -1) : 1;
  return x - y;
}

/** The outcome of the newest backup into the status carried over: success, reason, what the last good one wrote. */
function applyOutcome(
  status: Status,
  latest: BackupResult | undefined,
  lastGood: BackupResult | undefined,
  jobFailed: { message?: string } | undefined,
): void {
  if (latest) {
    status['succeeded'] = latest.succeeded;
    if (latest.succeeded) delete status['reason'];
    else status['reason'] = short(latest.reason ?? 'backup failed');
  }
  if (lastGood) {
    // (An endpoint not seen, its pod's and its Job's arguments both gone, keeps the one recorded for this key.)
    const sameKey = status['key'] === lastGood.key && status['bucket'] === lastGood.bucket;
    if (lastGood.endpoint !== undefined) status['endpoint'] = lastGood.endpoint;
    else if (lastGood.key && !sameKey) delete status['endpoint'];
    if (lastGood.etcdVersion) status['etcdVersion'] = lastGood.etcdVersion;
    if (lastGood.etcdRevision !== undefined) status['etcdRevision'] = lastGood.etcdRevision;
    if (lastGood.lastSuccessDate) status['lastSuccessDate'] = lastGood.lastSuccessDate;
    if (lastGood.key) status['key'] = lastGood.key;
    if (lastGood.bucket) status['bucket'] = lastGood.bucket;
    else if (lastGood.key) delete status['bucket'];
    if (lastGood.pruneProblem) status['pruneProblem'] = short(lastGood.pruneProblem);
    else delete status['pruneProblem'];
  }
  if (!latest && jobFailed) {
    status['succeeded'] = false;
    status['reason'] = short(textOf(jobFailed.message, 'the backup Job failed'));
  }
  mirrorReason(status);
}

function succeededCondition(spec: Spec, status: Status, note = '') {
  const bucket = textOf(status['bucket'], spec.s3.path.split('/')[0]);
  const problem = textOf(status['pruneProblem']);
  return {
    type: 'Ready',
    status: true as const,
    reason: 'BackupSucceeded',
    message: `snapshot at revision ${textOf(status['etcdRevision'], '?')} in s3://${bucket}/${textOf(status['key'], '?')}${note}${problem ? `; ${problem}` : ''}`,
  };
}

/**
 * A one-off backup is taken once: once its snapshot of this destination (the store's endpoint, bucket
 * and key) is recorded, nothing runs again: its Job is kept as it is while it is there, and not made again when it is
 * gone (a TTL, a clean-up). The same key in another bucket or another store is another snapshot, and a record of
 * another destination says nothing of this one: it is dropped (no snapshot claimed here). A record without its
 * bucket or endpoint (made before they were kept) runs once more; the CLI then finds its own snapshot there and
 * writes nothing (alreadyTaken). (The region and credentials are the Secret's: they name no other store.)
 */
function takenOnce(status: Status, spec: Spec, clusters: KubeObject[]): boolean {
  const at = spec.s3.path.indexOf('/');
  const [bucket, key] = [spec.s3.path.slice(0, at), spec.s3.path.slice(at + 1)];
  if (status['succeeded'] !== true) return false;
  if (
    status['key'] === key &&
    status['bucket'] === bucket &&
    status['endpoint'] === (spec.s3.endpoint ?? '') &&
    sameSource(status, spec, clusters)
  )
    return true;
  for (const k of [...OUTCOME, 'Reason']) delete status[k];
  return false;
}

/**
 * Whether the snapshot recorded is of the cluster the spec names: the EtcdCluster recorded is the one
 * named (clusterName edited: another cluster), and the etcd cluster ID recorded is the one that EtcdCluster records
 * now (recreated under its name: another cluster). What is not recorded (a record made before) is not compared.
 */
function sameSource(status: Status, spec: Spec, clusters: KubeObject[]): boolean {
  const name = status['clusterName'];
  if (typeof name === 'string' && name !== (spec.clusterName ?? '')) return false;
  const id = status['clusterID'];
  const cluster = clusters.find((c) => c.metadata.name === spec.clusterName);
  const now = cluster && recordedId(cluster);
  return typeof id !== 'string' || now === undefined || now === id;
}

export function sync(hook: SyncHook<Spec, unknown, EtcdSettings>): CompositeSyncResponse {
  const response = syncBackup(hook);
  const status = response.status ?? {};
  const labelled = podsLabel(hook.request, hook.parent, status, parentLabelOf(hook.settings, hook.parent));
  if (labelled !== undefined) status[PODS_LABEL] = labelled;
  return response;
}

/**
 * The parent label's value every backup pod whose result is still to be read carries (status.podsLabel), by which
 * customize asks for them (lib/parent-label.ts relatedPodRules): `current` when the status records it already, or when
 * no Job or CronJob is observed (any made now has it), or when the observed one's pod template carries it, or for a
 * one-off Job from before it whose outcome the status records (its pod is read no more); else the value recorded
 * before, if any. Until then the pods of a backup made before the label (or before a key change) are asked for by what
 * they carry too: its one-off Job, which is never changed, is not judged `ResultUnknown` for a result its pod holds. A
 * CronJob's template takes the value at the next sync; a Job it started before runs with pods without it, whose result
 * is not read (the status keeps the one before: nothing is judged).
 */
function podsLabel(
  request: SyncHook<Spec, unknown, EtcdSettings>['request'],
  parent: ParentObject,
  status: Record<string, unknown>,
  current: string,
): string | undefined {
  const recorded = recordedPodsLabel(parent);
  if (!current || recorded === current) return current || undefined;
  const name = `${parent.metadata.name}-backup`;
  const job = observedNamed(request.children, 'Job', 'batch/v1', name);
  const cron = observedNamed(request.children, 'CronJob', 'batch/v1', name);
  if (job && !templateLabelled(jobTemplate(job), PARENT_LABEL, current) && typeof status['succeeded'] !== 'boolean')
    return recorded;
  const cronJob = (cron?.['spec'] as { jobTemplate?: unknown } | undefined)?.jobTemplate;
  return !cron || templateLabelled(jobTemplate(cronJob), PARENT_LABEL, current) ? current : recorded;
}

/** The pod template of a Job (or of a CronJob's jobTemplate), as observed. */
function jobTemplate(job: unknown): unknown {
  return ((job as { spec?: unknown } | null | undefined)?.spec as { template?: unknown } | null | undefined)?.template;
}

function syncBackup({
  request,
  parent,
  spec,
  now,
  settings,
}: SyncHook<Spec, unknown, EtcdSettings>): CompositeSyncResponse {
  const namespace = parent.metadata.namespace ?? '';
  const periodic = spec.backupPolicy.backupIntervalInSecond > 0;
  const previous = currentStatus(parent) as Status;
  const { status, job, pods, lastGood } = recordedResults(request, parent, previous);

  const clusters = namespaceClusters(request, namespace);
  if (!periodic && takenOnce(status, spec, clusters)) {
    const note = job ? '' : ' (taken once: the Job is not made again)';
    status['conditions'] = conditionsFor(parent, [succeededCondition(spec, status, note)], now);
    return { status, children: job ? [keepObserved(job)] : [] };
  }

  const policy = tenancyOf(settings);
  const reach = reachable(namespace, spec, clusters, policy);
  if (!reach.ok) {
    const response = waiting(parent, status, reach.why, now);
    if (!reach.retry) delete response.resyncAfterSeconds;
    return response;
  }
  const spared = periodic ? sparedSnapshots(request, namespace, spec.s3.path, clusters) : { keys: [], all: false };
  const child = backupChild(parent, spec, settings.image, reach.endpoints, {
    spared,
    clusterIds: reach.clusterIds,
    podLabel: parentLabelOf(settings, parent),
    clusters: reach.dialled.map((c) => c.metadata.name!),
  });
  if (periodic) scheduleStatus(status, spec.backupPolicy.backupIntervalInSecond);
  if (periodic && lastGood) {
    const lineage = lineageStatus(status['lineage'], lastGood, reach.dialled, now);
    if (lineage) status['lineage'] = lineage;
  }

  const ready = readiness(spec, status, { periodic, job, pods, now });
  const conditions = [ready.condition];
  if (periodic && status['lineage'])
    conditions.push(lineageCondition(status['lineage'] as LineageStatus, spec.backupPolicy.maxBackups));
  status['conditions'] = conditionsFor(parent, conditions, now);
  const response: CompositeSyncResponse = { status, children: [child] };
  if (ready.pending) response.resyncAfterSeconds = RETRY_SECONDS.soon;
  return response;
}

/** Ready, and whether a one-off backup is still to be looked at again soon (its Job under way). */
function readiness(
  spec: Spec,
  status: Status,
  o: { periodic: boolean; job: KubeObject | undefined; pods: KubeObject[]; now: Date },
): { condition: ConditionInput; pending: boolean } {
  const done = status['succeeded'] === true || status['succeeded'] === false;
  if (done) return { condition: readyCondition(spec, status, o.periodic, done), pending: false };
  // A Job whose pods the API server refuses (admission) says so, rather than "running" for ever: events.ts.
  const refused = jobWithoutPod(o.job, o.pods, o.now);
  // A one-off Job that completed, its result lost: not running, and not taken as far as anyone can show. Nothing
  // changes until the Job does (its deletion syncs the backup again): nothing is polled.
  // A pod of it not yet seen ended (the Job's Complete seen before the pod's end, two caches): its result is on its
  // way, not lost.
  const lost = o.periodic || o.pods.some(runningBackup) ? undefined : resultLost(o.job, spec);
  if (lost) return { condition: refused ?? lost, pending: false };
  return { condition: refused ?? readyCondition(spec, status, o.periodic, done), pending: !o.periodic };
}

/**
 * The status carried from the last sync with what the backup pods say of the last backup (the newest finished pod
 * says how it went), and the Job and pods it was read from.
 */
function recordedResults(
  request: SyncHook<Spec, unknown, EtcdSettings>['request'],
  parent: ParentObject,
  previous: Status,
) {
  const status: Status = {};
  for (const k of CARRIED) if (carried(k, previous[k])) status[k] = previous[k];
  const pods = observed(request.related, 'Pod', 'v1');
  const { latest, lastGood } = newestResults(pods, parent.metadata.uid ?? '');
  const job = observedNamed(request.children, 'Job', 'batch/v1', `${parent.metadata.name}-backup`);
  const jobStatus = (job?.['status'] ?? {}) as JobStatus;
  const jobFailed = jobStatus.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  // (A result that names no bucket, from a CLI before it did and a pod without its arguments: the Job's; its
  // endpoint likewise.)
  const fallback = jobBucket(job);
  const endpoint = jobEndpoint(job);
  let good = lastGood && !lastGood.bucket && fallback ? { ...lastGood, bucket: fallback } : lastGood;
  if (good && good.endpoint === undefined && endpoint !== undefined) good = { ...good, endpoint };
  applyOutcome(status, latest, good, jobFailed);
  if (lastGood) recordSource(status, lastGood, job);
  return { status, job, pods, lastGood };
}

/**
 * The source of the snapshot recorded: the etcd cluster ID its result names (hex, as etcd gave it), and
 * the EtcdCluster the Job that took it dialled (the client label of its pod template: a Job is never changed). A
 * result read while no Job says which cluster it dialled keeps the name recorded for the same key.
 */
function recordSource(status: Status, good: BackupResult, job: KubeObject | undefined): void {
  const id = good.clusterId;
  if (typeof id === 'string' && /^[0-9a-f]{1,16}$/.test(id)) status['clusterID'] = id;
  else delete status['clusterID'];
  const dialled = dialledCluster(job);
  if (dialled !== undefined) status['clusterName'] = dialled;
}

/** The one EtcdCluster a backup Job dialled, by the client label of its pod template (undefined: none, or several). */
function dialledCluster(job: KubeObject | undefined): string | undefined {
  const labels = (jobTemplate(job) as { metadata?: { labels?: unknown } } | undefined)?.metadata?.labels;
  const dialled = Object.keys(isRecord(labels) ? labels : {})
    .filter((k) => k.startsWith(BACKUP_CLIENT_PREFIX))
    .map((k) => k.slice(BACKUP_CLIENT_PREFIX.length));
  return dialled.length === 1 ? dialled[0] : undefined;
}

/**
 * What the backup may reach and, of it, the clusters proven the ones named (their IDs recorded, their
 * names their own): their endpoints and IDs; or why it runs nothing. Refused, it runs nothing (a CronJob made before
 * is dropped) and is looked at again only for a cluster not found; unproven, it waits.
 */
function reachable(namespace: string, spec: Spec, clusters: KubeObject[], policy: BackupTenancy) {
  const names = clusters.map((c) => c.metadata.name!);
  const targets = etcdTargets(namespace, spec, names, policy);
  const s3Problem = s3TargetProblem(namespace, spec.s3, policy);
  if (s3Problem || !targets.ok) {
    const why = s3Problem
      ? { reason: 'NotAllowed', message: s3Problem }
      : (targets as { reason: string; message: string });
    return { ok: false as const, why, retry: why.reason === 'ClusterNotFound' };
  }
  const dialled = clusters.filter((c) => targets.clusters.includes(c.metadata.name!));
  const proven = provenClusters(dialled, targets.endpoints, (c) => clientService(c, namespace, policy));
  if (!proven.ok) return { ok: false as const, why: proven, retry: true };
  return { ok: true as const, dialled, endpoints: targets.endpoints, clusterIds: proven.clusterIds };
}

/**
 * A one-off backup's Job that completed while no result of it is read: its pod is gone (garbage-collected, its node
 * replaced) or carries no termination message, and the status records no outcome (lost, or written over). The Job
 * completing says its CLI exited 0, not which snapshot it wrote, nor that the snapshot is still there: the hook reads
 * no S3, and a Job's status is no proof of a snapshot. So it is neither running nor succeeded: the condition says
 * what is known and how to have the snapshot found (the Job made again finds its own snapshot at the key, writes
 * nothing, and reports it as taken: backup.ts oneOffBackup, alreadyTaken). Undefined for any other Job.
 */
function resultLost(job: KubeObject | undefined, spec: Spec) {
  const s = (job?.['status'] ?? {}) as JobStatus;
  const complete = s.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') || (s.succeeded ?? 0) > 0;
  if (!job || !complete) return undefined;
  const name = job.metadata.name ?? '';
  const when = typeof s.completionTime === 'string' ? ` at ${short(s.completionTime, 40)}` : '';
  const template = (job['spec'] as { template?: { spec?: unknown } } | undefined)?.template?.spec;
  const ranAt = specEndpoint(template);
  const path = specPath(template);
  // s3.endpoint edited likewise: the same path in another store is another snapshot.
  const ran =
    path !== undefined && ranAt !== undefined && ranAt !== (spec.s3.endpoint ?? '')
      ? `${path} at ${ranAt || "AWS's own endpoint"}`
      : path;
  const otherCluster = ranForOtherCluster(job, spec, `the backup Job ${name} completed${when}`);
  if (otherCluster) return otherCluster;
  if (ran !== undefined && ran !== spec.s3.path)
    // s3.path (or s3.endpoint) edited since the Job was made (a Job is never changed: OnDelete): its run says
    // nothing of this path.
    return {
      type: 'Ready',
      status: false as const,
      reason: 'ResultUnknown',
      message: `the backup Job ${name} completed${when} for s3://${short(ran, 1100)}, not for s3://${spec.s3.path} (s3.path or s3.endpoint was edited since; a Job is never changed): no snapshot is known at the path asked. Delete the Job ${name} to take it there`,
    };
  return {
    type: 'Ready',
    status: false as const,
    reason: 'ResultUnknown',
    message: `the backup Job ${name} completed${when}, but its result is lost (its pod is gone or says nothing, and the status records none): whether s3://${spec.s3.path} holds this EtcdBackup's snapshot is not known here, so it is not reported as taken. To have it found, delete the Job ${name}: made again, it finds this EtcdBackup's snapshot at the key and writes nothing (a one-off backup never overwrites one; if the key holds none, it takes one then)`,
  };
}

/**
 * The condition of a completed one-off Job made for another EtcdCluster than the one named now (clusterName edited
 * since: a Job is never changed): its snapshot is of that cluster. Undefined for a Job of this one, or not known.
 */
function ranForOtherCluster(job: KubeObject, spec: Spec, completed: string) {
  const dialled = dialledCluster(job);
  if (dialled === undefined || spec.clusterName === undefined || dialled === spec.clusterName) return undefined;
  const name = job.metadata.name ?? '';
  return {
    type: 'Ready',
    status: false as const,
    reason: 'ResultUnknown',
    message: `${completed} for EtcdCluster ${dialled}, not for ${spec.clusterName} (clusterName was edited since; a Job is never changed): no snapshot of ${spec.clusterName} is known. Delete the Job ${name} to take one (a one-off backup never overwrites a snapshot: name another s3.path if the key holds ${dialled}'s)`,
  };
}

/** Ready as the Job's state says: running (a periodic one waiting for its first backup), succeeded, or failed. */
function readyCondition(spec: Spec, status: Status, periodic: boolean, done: boolean) {
  if (!done)
    return {
      type: 'Ready',
      status: false as const,
      reason: 'Running',
      message: periodic
        ? `waiting for the first backup (${textOf(status['schedule'])}${status['scheduleNote'] ? `: ${textOf(status['scheduleNote'])}` : ''})`
        : 'the backup Job is running',
    };
  return status['succeeded']
    ? succeededCondition(spec, status)
    : { type: 'Ready', status: false as const, reason: 'BackupFailed', message: textOf(status['reason']) };
}

/** A backup that runs nothing (refused, or waiting for its cluster to be proven the one named): looked at again. */
function waiting(
  parent: ParentObject,
  status: Status,
  why: { reason: string; message: string },
  now: Date,
): CompositeSyncResponse {
  status['conditions'] = conditionsFor(parent, [{ type: 'Ready', status: false, ...why }], now);
  return { status, children: [], resyncAfterSeconds: RETRY_SECONDS.failure };
}

/** The schedule kept, as its CronJob has it, and how it differs from the interval asked (effectiveSchedule). */
function scheduleStatus(status: Status, seconds: number): void {
  const kept = effectiveSchedule(seconds);
  status['schedule'] = kept.cron;
  if (kept.note) status['scheduleNote'] = kept.note;
}

/** The failure reason, under etcd-operator's spelling too (its BackupStatus says `Reason`). */
function mirrorReason(status: Status): void {
  if (typeof status['reason'] === 'string') status['Reason'] = status['reason'];
}

/** The backup pods (labelled by the Job template), for their termination messages, and the namespace's clusters. */
export function customize(request: CustomizeRequest, settings?: EtcdSettings): CustomizeResponse {
  return {
    relatedResources: [
      // By its parent label, which no other tenant can compute (and by the value or the name/instance labels its pods
      // carried before, while pods from before it may exist).
      ...relatedPodRules(
        request.parent,
        PARENT_LABEL,
        request.parent ? parentLabelOf(settings, request.parent) : '',
        selectorLabels(APP, request.parent?.metadata.name ?? ''),
      ),
      // The clusters a backup may dial are its namespace's own; confined to it (a rule without a
      // namespace lists every namespace in v4.17: pkg/controller/common/customize/manager.go L665-683).
      { apiVersion: CLUSTERS, resource: 'etcdclusters', namespace: request.parent?.metadata.namespace ?? '' },
      // The namespace's EtcdRestores: a periodic backup never prunes the snapshot one under way restores
      // (sparedSnapshots). A rule by namespace alone: the same answer whatever restores exist (v4 caches it per
      // parent uid and generation), and a restore created or finished syncs the backup again (its informer).
      { apiVersion: CLUSTERS, resource: 'etcdrestores', namespace: request.parent?.metadata.namespace ?? '' },
    ],
  };
}
