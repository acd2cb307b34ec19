// What EtcdBackup and EtcdRestore syncs tell in Events (lib/events.ts), and how an EtcdBackup's status says that
// its Job could not create a pod (a refusal by admission, Pod Security `restricted` for one).
import type { JobStatus } from 'kubernetes-types/batch/v1.js';
import {
  type CompositeSyncRequest,
  type CompositeSyncResponse,
  type ConditionEventRules,
  type ConditionInput,
  type EventSpec,
  type KubeObject,
} from '../../lib/index.js';

/** EtcdBackup: a failed backup (the CLI's result or the Job's Failed condition), a Job without a pod, a bad spec. */
export const ETCDBACKUP_EVENTS: ConditionEventRules = {
  action: 'Backup',
  warnings: new Set([
    'BackupFailed',
    'PodNotCreated',
    'InvalidSpec',
    'NotAllowed',
    'ClusterNotFound',
    'RevisionWentBack',
    'EtcdClusterChanged',
    'HistoryDiffers',
    'LineageUnproven',
    'ResultUnknown',
  ]),
  normals: new Set(['Restored']),
};

/** EtcdRestore: the restore's outcome, and a cluster that is not there. */
export const ETCDRESTORE_EVENTS: ConditionEventRules = {
  action: 'Restore',
  warnings: new Set([
    'RestoreFailed',
    'RestoreSuperseded',
    'NotTaken',
    'AlreadyRestored',
    'OlderThanCluster',
    'ClusterNotFound',
    'InvalidSpec',
    'NotAllowed',
  ]),
  // Waiting: another restore, past its point of no return, is finished first.
  normals: new Set(['Restored', 'Waiting']),
};

/**
 * A backup written: the answer reports a snapshot (status.key) that the current status did not. A periodic backup
 * writes a new key each time, each one event, and a Warning when its pruning was skipped or stopped; the same
 * answer fed back says nothing.
 */
export function backupWritten(request: CompositeSyncRequest, response: CompositeSyncResponse): EventSpec[] {
  const before = (request.parent.status ?? {}) as { key?: unknown };
  const after = (response.status ?? {}) as {
    key?: unknown;
    succeeded?: unknown;
    etcdRevision?: unknown;
    pruneProblem?: unknown;
  };
  if (typeof after.key !== 'string' || !after.key || after.key === before.key || after.succeeded !== true) return [];
  const events: EventSpec[] = [
    {
      type: 'Normal',
      reason: 'BackupSucceeded',
      action: 'Backup',
      note: `snapshot at revision ${String(after.etcdRevision ?? '?')} written to ${after.key}`,
      subject: after.key,
    },
  ];
  if (typeof after.pruneProblem === 'string' && after.pruneProblem)
    events.push({
      type: 'Warning',
      reason: 'PruneFailed',
      action: 'Prune',
      note: after.pruneProblem,
      subject: after.key,
    });
  return events;
}

/** How long a backup Job may have no pod at all before the status says that its pods are refused. */
export const JOB_POD_ABSENT_SECONDS = 60;

/**
 * A backup Job that, JOB_POD_ABSENT_SECONDS after its creation, has no pod (none active, succeeded or failed, none
 * observed): the Job controller's creates are refused (Pod Security admission, a quota); it records FailedCreate
 * events on the Job. Undefined otherwise.
 */
export function jobWithoutPod(job: KubeObject | undefined, pods: KubeObject[], now: Date): ConditionInput | undefined {
  if (!job || pods.length > 0) return undefined;
  const s = (job['status'] ?? {}) as JobStatus;
  if ((s.active ?? 0) > 0 || (s.succeeded ?? 0) > 0 || (s.failed ?? 0) > 0) return undefined;
  if (s.conditions?.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True'))
    return undefined;
  const born = Date.parse(job.metadata.creationTimestamp ?? '');
  if (!Number.isFinite(born) || now.getTime() - born < JOB_POD_ABSENT_SECONDS * 1000) return undefined;
  const name = job.metadata.name ?? '';
  return {
    type: 'Ready',
    status: false,
    reason: 'PodNotCreated',
    message: `the backup Job ${name} has created no pod in ${JOB_POD_ABSENT_SECONDS} s: the API server refuses its pods (for a namespace that enforces Pod Security, see the FailedCreate events: kubectl describe job ${name})`,
  };
}
