// EtcdBackup: the hook stays fast and stateless; the work runs in a child. A one-off backup is a Job, a
// periodic one a CronJob, each running `metaops etcd-backup` from this project's image. The hook reports the
// outcome from the Job and from the termination message of its pod (the CLI's JSON result).
import { conditionsFor, currentStatus } from '../../lib/hook.js';
import type { JobStatus } from 'kubernetes-types/batch/v1.js';
import type { PodStatus } from 'kubernetes-types/core/v1.js';
import { RETRY_SECONDS } from '../../lib/errors.js';
import type { SyncHook } from '../../lib/operator.js';
import { childLabels, selectorLabels } from '../../lib/labels.js';
import type {
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import { observed, observedNamed } from '../../lib/objects.js';
import { specParser } from '../../lib/spec.js';
import { METAOPS_CLI, s3Access, type EtcdSettings } from '../etcdcommon/index.js';
import type { BackupResult } from './backup.js';
import { jobWithoutPod } from './events.js';
import { CLUSTER_NAME_PATTERN, EtcdBackupSpec, type EtcdBackupSpec as Spec } from './schema.js';

const APP = 'etcdbackup';
const TLS_DIR = '/etc/metaops/etcd-tls';

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

/**
 * A CronJob schedule for an interval, rounded up to the next interval a cron schedule keeps evenly: whole
 * minutes that divide an hour, then whole hours that divide a day (`*\/45` would fire at :00 and :45, so 45
 * minutes becomes hourly). Intervals above 12 hours back up daily.
 */
export function schedule(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  const m = MINUTE_STEPS.find((s) => s >= minutes);
  if (m !== undefined) return m === 1 ? '* * * * *' : `*/${m} * * * *`;
  const hours = Math.ceil(minutes / 60);
  const h = HOUR_STEPS.find((s) => s >= hours);
  if (h !== undefined) return h === 1 ? '0 * * * *' : `0 */${h} * * *`;
  return '0 0 * * *';
}

export function endpointsOf(parent: ParentObject, spec: Spec): string[] {
  if (spec.etcdEndpoints?.length) return spec.etcdEndpoints;
  const scheme = spec.clientTLSSecret ? 'https' : 'http';
  return [`${scheme}://${spec.clusterName}-client.${parent.metadata.namespace ?? 'default'}.svc:2379`];
}

function podTemplate(parent: ParentObject, spec: Spec, image: string, periodic: boolean): Record<string, unknown> {
  const name = parent.metadata.name!;
  const access = s3Access(spec.s3);
  const args = [
    'etcd-backup',
    '--endpoints',
    endpointsOf(parent, spec).join(','),
    '--s3-path',
    spec.s3.path,
    '--timeout-seconds',
    String(spec.backupPolicy.timeoutInSecond),
    ...(periodic ? ['--periodic', '--max-backups', String(spec.backupPolicy.maxBackups)] : []),
    ...access.args,
  ];
  const volumes = [...access.volumes];
  const mounts = [...access.mounts];
  if (spec.clientTLSSecret) {
    volumes.push({ name: 'etcd-tls', secret: { secretName: spec.clientTLSSecret } });
    mounts.push({ name: 'etcd-tls', mountPath: TLS_DIR, readOnly: true });
    args.push('--tls-dir', TLS_DIR);
  }
  return {
    metadata: { labels: childLabels(APP, name, 'backup') },
    spec: {
      restartPolicy: 'Never',
      securityContext: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'backup',
          image,
          command: METAOPS_CLI,
          args,
          env: access.env,
          envFrom: access.envFrom,
          volumeMounts: mounts,
          terminationMessagePolicy: 'File',
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          },
        },
      ],
      volumes,
    },
  };
}

export function backupChild(parent: ParentObject, spec: Spec, image: string): KubeObject {
  const name = parent.metadata.name!;
  const periodic = spec.backupPolicy.backupIntervalInSecond > 0;
  const jobSpec = {
    backoffLimit: 2,
    activeDeadlineSeconds: spec.backupPolicy.timeoutInSecond * 3,
    template: podTemplate(parent, spec, image, periodic),
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

/** What a dependency said (an S3 error, via the Job's result) goes into status short and printable only. */
function short(text: string, max = 300): string {
  const clean = text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}

/** The CLI's result in a finished pod's termination message, with the time it finished. */
export function podResult(pod: KubeObject): { result: BackupResult; at: string } | undefined {
  const statuses = (pod['status'] as PodStatus | undefined)?.containerStatuses ?? [];
  const terminated = statuses.find((s) => s.name === 'backup')?.state?.terminated;
  if (!terminated?.message) return undefined;
  try {
    return { result: JSON.parse(terminated.message) as BackupResult, at: String(terminated.finishedAt ?? '') };
  } catch {
    return {
      result: { succeeded: false, reason: String(terminated.message).slice(0, 300) },
      at: String(terminated.finishedAt ?? ''),
    };
  }
}

// eslint-disable-next-line complexity -- the backup's status merges the previous one, the newest result and the Job's state: one `if` per field kept
export function sync({
  request,
  parent,
  spec,
  now,
  settings,
}: SyncHook<Spec, unknown, EtcdSettings>): CompositeSyncResponse {
  const image = settings.image;
  const name = parent.metadata.name!;
  const periodic = spec.backupPolicy.backupIntervalInSecond > 0;
  const child = backupChild(parent, spec, image);
  const previous = currentStatus(parent) as Record<string, unknown>;

  // The newest finished backup pod says how the last backup went.
  const results = observed(request.related, 'Pod', 'v1')
    .map(podResult)
    .filter((r): r is { result: BackupResult; at: string } => r !== undefined)
    .sort((a, b) => (a.at < b.at ? 1 : -1));
  const latest = results[0]?.result;
  const lastGood = results.find((r) => r.result.succeeded)?.result;
  const job = observedNamed(request.children, 'Job', 'batch/v1', `${name}-backup`);
  const jobStatus = (job?.['status'] ?? {}) as JobStatus;
  const jobFailed = jobStatus.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');

  const status: Record<string, unknown> = {};
  for (const k of ['succeeded', 'reason', 'etcdVersion', 'etcdRevision', 'lastSuccessDate', 'key']) {
    if (previous[k] !== undefined) status[k] = previous[k];
  }
  if (latest) {
    status['succeeded'] = latest.succeeded;
    if (latest.succeeded) delete status['reason'];
    else status['reason'] = short(String(latest.reason ?? 'backup failed'));
  }
  if (lastGood) {
    if (lastGood.etcdVersion) status['etcdVersion'] = lastGood.etcdVersion;
    if (lastGood.etcdRevision !== undefined) status['etcdRevision'] = lastGood.etcdRevision;
    if (lastGood.lastSuccessDate) status['lastSuccessDate'] = lastGood.lastSuccessDate;
    if (lastGood.key) status['key'] = lastGood.key;
  }
  if (!latest && jobFailed) {
    status['succeeded'] = false;
    status['reason'] = short(jobFailed.message ?? 'the backup Job failed');
  }
  const done = status['succeeded'] === true || status['succeeded'] === false;
  // A Job whose pods the API server refuses (admission) says so, rather than "running" for ever: events.ts.
  const refused = done ? undefined : jobWithoutPod(job, observed(request.related, 'Pod', 'v1'), now);
  const condition = refused
    ? refused
    : !done
      ? {
          type: 'Ready',
          status: false as const,
          reason: 'Running',
          message: periodic
            ? `waiting for the first backup (${(child['spec'] as { schedule: string }).schedule})`
            : 'the backup Job is running',
        }
      : status['succeeded']
        ? {
            type: 'Ready',
            status: true as const,
            reason: 'BackupSucceeded',
            message: `snapshot at revision ${status['etcdRevision']} in s3://${spec.s3.path.split('/')[0]}/${status['key']}`,
          }
        : { type: 'Ready', status: false as const, reason: 'BackupFailed', message: String(status['reason']) };
  status['conditions'] = conditionsFor(parent, [condition], now);
  const response: CompositeSyncResponse = { status, children: [child] };
  if (!done && !periodic) response.resyncAfterSeconds = RETRY_SECONDS.soon;
  return response;
}

/** The backup pods (labelled by the Job template), for their termination messages. */
export function customize(request: CustomizeRequest): CustomizeResponse {
  return {
    relatedResources: [
      {
        apiVersion: 'v1',
        resource: 'pods',
        labelSelector: { matchLabels: selectorLabels(APP, request.parent?.metadata.name ?? '') },
      },
    ],
  };
}
