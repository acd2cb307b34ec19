// EtcdRestore: the work is done by the EtcdCluster hook (a restore naming a cluster replaces it, see
// hooks/etcdcluster/plan.ts); this hook reports its progress from the cluster's status.
import {
  type CompositeSyncResponse,
  conditionsFor,
  type CustomizeRequest,
  type CustomizeResponse,
  observedNamed,
  RETRY_SECONDS,
  scrubAwsText,
  specParser,
  textOf,
  type SyncHook,
} from '../../lib/index.js';
import { EtcdRestoreSpec, type EtcdRestoreSpec as Spec } from './schema.js';
import {
  alreadyRestored,
  restoresCarriedOut,
  pastNoReturn,
  refusedByCheck,
  replacedMembers,
  RESTORE_SLACK_SECONDS,
  restoreStateOf,
  type EtcdSettings,
  type RestoreState,
} from '../etcdcommon/index.js';
import { restoreSourceProblem, tenancyOf } from '../etcdcommon/tenancy.js';
import { checkedRecordFrom, checkedRecordOf, type CheckedRecord } from '../etcdcommon/pin.js';

export const parser = specParser(EtcdRestoreSpec);
const CLUSTERS = 'etcd.database.coreos.com/v1beta2';

export function customize(request: CustomizeRequest): CustomizeResponse {
  const parent = request.parent;
  if (!parent) return { relatedResources: [] };
  const name = (parent['spec'] as { etcdCluster?: { name?: string } } | undefined)?.etcdCluster?.name;
  // Only a string names a cluster; and only in the restore's own namespace (v4.17 lists a names rule without a
  // namespace across all of them: pkg/controller/common/customize/manager.go L665-683).
  if (typeof name !== 'string' || !name) return { relatedResources: [] };
  return {
    relatedResources: [
      {
        apiVersion: CLUSTERS,
        resource: 'etcdclusters',
        namespace: parent.metadata.namespace ?? '',
        names: [name],
      },
    ],
  };
}

/** The restore was created before the cluster, beyond the slack the cluster hook allows (it never acts). */
function olderThan(
  restore: { metadata: { creationTimestamp?: string } },
  cluster: { metadata: { creationTimestamp?: string } },
): boolean {
  // Stryker disable next-line StringLiteral: no fallback is a time (Date.parse gives NaN for any of them)
  const r = Date.parse(restore.metadata.creationTimestamp ?? '');
  // Stryker disable next-line StringLiteral: no fallback is a time (Date.parse gives NaN for any of them)
  const c = Date.parse(cluster.metadata.creationTimestamp ?? '');
  // A time missing or unreadable (NaN) compares false: not older.
  return r < c - RESTORE_SLACK_SECONDS * 1000;
}

/**
 * Whether the restore a cluster took (`state`, created at `took`) was taken instead of this one (`name`, created at
 * `born`): made after it, or in the same second under another name (one apply of both). One under this name of the
 * same second that its check refused is this one's predecessor, deleted and recreated: this one is taken next.
 */
function takenInstead(state: Partial<RestoreState>, name: string | undefined, took: number, born: number): boolean {
  if (took !== born) return took > born;
  return state.name !== name || !refusedByCheck(state);
}

/**
 * Whether this EtcdRestore's own status said the cluster was past its point of no return with it: its sticky
 * `membersDropped` (never unset once written), or its Ready condition of that moment (a status written before it).
 */
function wasPastNoReturn(parent: RestoreView['parent']): boolean {
  if ((parent.status as { membersDropped?: unknown } | undefined)?.membersDropped === true) return true;
  const conditions = (parent.status as { conditions?: unknown } | undefined)?.conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some(
      (c) =>
        (c as { type?: unknown } | null)?.type === 'Ready' &&
        pastNoReturn({ phase: (c as { reason?: unknown }).reason as RestoreState['phase'] }),
    )
  );
}

/**
 * What this restore's check verified, kept in its own status once its old members were dropped: the record written
 * first is kept for good (sticky, as membersDropped); else the cluster's record of this restore past its point of no
 * return (`s3` and its pin `snapshot`, recorded when the members were dropped).
 */
function checkedOf(parent: RestoreView['parent'], state: Partial<RestoreState> | undefined): CheckedRecord | undefined {
  const uid = parent.metadata.uid ?? parent.metadata.name ?? '';
  const kept = checkedRecordOf(parent.status, uid);
  if (kept) return kept;
  return replacedMembers(state) ? checkedRecordFrom(state, uid) : undefined;
}

/** What the restore hook reads: this EtcdRestore, its cluster as observed, and the cluster's record of a restore. */
interface RestoreView {
  parent: SyncHook<Spec, unknown, EtcdSettings>['parent'];
  spec: Spec;
  cluster: ReturnType<typeof observedNamed>;
  state: Partial<RestoreState> | undefined;
  /** The cluster's record of a restore is this EtcdRestore's. */
  mine: boolean;
}

/** What the restore says: final once `succeeded` is set; Ready's reason and message. */
interface Outcome {
  succeeded: boolean | undefined;
  reason: string;
  message: string;
}

export function sync({
  request,
  parent,
  spec,
  now,
  settings,
}: SyncHook<Spec, unknown, EtcdSettings>): CompositeSyncResponse {
  const previous = (parent.status ?? {}) as { succeeded?: unknown; reason?: unknown };
  // observedNamed: own keys only (a cluster named "constructor" must not resolve), in the restore's namespace.
  const namespace = parent.metadata.namespace ?? '';
  const cluster = observedNamed(request.related, 'EtcdCluster', CLUSTERS, spec.etcdCluster.name, namespace);
  const state = restoreStateOf(cluster);
  const mine = state !== undefined && state.uid === (parent.metadata.uid ?? parent.metadata.name);
  // A source outside the namespace's own: the cluster hook never restores from it; not final, so a
  // corrected spec can still act.
  const refused = restoreSourceProblem(parent, tenancyOf(settings));
  // The record of a restore lives here: once it succeeded or failed, it is final and never acts again (the
  // EtcdCluster hook ignores an EtcdRestore whose status.succeeded is set), whatever the cluster's status says.
  const recorded = typeof previous.succeeded === 'boolean' ? previous.succeeded : undefined;
  const view: RestoreView = { parent, spec, cluster, state, mine };
  const { succeeded, reason, message } =
    recorded === undefined && refused
      ? {
          succeeded: undefined,
          reason: 'NotAllowed',
          message: `${refused}; EtcdCluster ${spec.etcdCluster.name} is left as it is`,
        }
      : recorded !== undefined
        ? recordedOutcome(recorded, previous.reason, spec)
        : outcome(view);
  const status: Record<string, unknown> = {
    conditions: conditionsFor(parent, [{ type: 'Ready', status: succeeded === true, reason, message }], now),
  };
  // The old members dropped for this restore: kept for good in its own status (the cluster's record of it can be
  // lost; the cluster then finds this restore again from it, hooks/etcdcluster/sync.ts restoreOfStatus).
  if (wasPastNoReturn(parent) || (mine && replacedMembers(state))) status['membersDropped'] = true;
  // With it, what the check verified (the source and the pin): the cluster's record of it goes with a lost status.
  const checked = checkedOf(parent, mine ? state : undefined);
  if (checked) status['checked'] = checked;
  // status.succeeded is set only once the restore is over: its presence is what makes the restore final.
  if (succeeded !== undefined) status['succeeded'] = succeeded;
  if (succeeded !== true) status['reason'] = message;
  const response: CompositeSyncResponse = { status, children: [] };
  if (succeeded === undefined && !refused) response.resyncAfterSeconds = RETRY_SECONDS.soon;
  return response;
}

/** A restore that succeeded or failed says so for good. */
function recordedOutcome(succeeded: boolean, reason: unknown, spec: Spec): Outcome {
  return succeeded
    ? {
        succeeded,
        reason: 'Restored',
        message: `EtcdCluster ${spec.etcdCluster.name} was restored from the snapshot ${spec.s3.path}`,
      }
    : { succeeded, reason: 'RestoreFailed', message: scrubAwsText(textOf(reason, 'the restore failed')) };
}

/** A restore not over yet, in the order the outcomes take precedence: too old, replayed, not taken, no cluster, progress. */
function outcome(v: RestoreView): Outcome {
  const clusterName = v.spec.etcdCluster.name;
  if (v.cluster && olderThan(v.parent, v.cluster))
    return {
      succeeded: false,
      reason: 'OlderThanCluster',
      message: `this EtcdRestore was made before EtcdCluster ${clusterName} (it was deleted and recreated since): it will not act on it; create a new EtcdRestore`,
    };
  if (!v.mine && alreadyRestored(v.state, v.parent.metadata.name, v.spec.s3, restoresCarriedOut(v.cluster)))
    return {
      succeeded: false,
      reason: 'AlreadyRestored',
      message: `EtcdCluster ${clusterName} was already restored from ${v.spec.s3.path} by an EtcdRestore of this name (its status records it): this one, made again under the name, will not roll the cluster back over the writes made since; to restore it again on purpose, create an EtcdRestore under a new name`,
    };
  const ended = notTaken(v);
  if (ended) return ended;
  if (!v.cluster)
    return {
      succeeded: undefined,
      reason: 'ClusterNotFound',
      message: `EtcdCluster ${clusterName} does not exist in this namespace`,
    };
  return progress(v);
}

/**
 * The newer EtcdRestore the cluster took instead of this one, once its fate is known: this one never acts (the
 * cluster hook ignores EtcdRestores older than the last it took). Superseded once that one replaced the members;
 * not taken, with nothing restored, once its check refused it; undefined while it is checked (or none was taken).
 */
function notTaken(v: RestoreView): Outcome | undefined {
  const by = takenBy(v);
  if (by === undefined) return undefined;
  const clusterName = v.spec.etcdCluster.name;
  if (replacedMembers(v.state))
    return {
      succeeded: false,
      reason: 'RestoreSuperseded',
      message: `EtcdCluster ${clusterName} was restored by the newer EtcdRestore ${by}; this one will not act`,
    };
  if (refusedByCheck(v.state))
    return {
      succeeded: false,
      reason: 'NotTaken',
      message: `EtcdCluster ${clusterName} took the EtcdRestore ${by} (made after this one, or with it) instead of this one, and its check refused it: nothing was restored; this one will not act (create a new EtcdRestore to restore from its snapshot)`,
    };
  return undefined;
}

/**
 * The name of the EtcdRestore the cluster took instead of this one, if it took one. Compared by UID, not only by
 * time: creation times have a resolution of one second, so an EtcdRestore recreated under its name (another UID)
 * may carry the very time of the one it replaces (sync.ts, pendingRestore).
 */
function takenBy({ parent, state, mine }: RestoreView): string | undefined {
  if (state === undefined || mine || state.created === undefined) return undefined;
  // A newer one its check refused took nothing from this one once this one dropped the old members (its own status
  // said so: the cluster's record of it lost meanwhile, found again from its restored members, plan/restore-rebuilt.ts).
  if (refusedByCheck(state) && wasPastNoReturn(parent)) return undefined;
  const born = parent.metadata.creationTimestamp ? Date.parse(parent.metadata.creationTimestamp) : NaN;
  return takenInstead(state, parent.metadata.name, Date.parse(textOf(state.created)), born)
    ? textOf(state.name)
    : undefined;
}

/** Where the cluster is with this restore (or that it has not started it). */
function progress({ spec, state, mine }: RestoreView): Outcome {
  const clusterName = spec.etcdCluster.name;
  const own = mine ? state : undefined;
  if (own?.phase === 'Restored')
    return {
      succeeded: true,
      reason: 'Restored',
      // The snapshot its check verified (the cluster's record), not the spec if edited since.
      message: `EtcdCluster ${clusterName} runs from the snapshot ${textOf(own.s3?.path, spec.s3.path)}`,
    };
  if (own?.phase === 'Failed')
    return {
      succeeded: false,
      reason: 'RestoreFailed',
      // The cluster's words come from S3 (its check, its members' init step): scrubbed there, and here again for a
      // status written before that (lib/aws-text.ts).
      message: `the snapshot could not be restored: ${scrubAwsText(textOf(own.reason, 'a restored member failed')).slice(0, 200)}`,
    };
  if (own)
    return {
      succeeded: undefined,
      reason: textOf(own.phase, 'Pending'),
      message: `EtcdCluster ${clusterName}: ${textOf(own.phase, 'Pending')}`,
    };
  // Another restore past its point of no return (its old members dropped) is finished first (plan/restore-queue.ts).
  if (pastNoReturn(state))
    return {
      succeeded: undefined,
      reason: 'Waiting',
      message: `EtcdCluster ${clusterName} is being restored by EtcdRestore ${textOf(state?.name)} (its old members dropped): this one is checked once that restore has ended`,
    };
  return {
    succeeded: undefined,
    reason: 'Pending',
    message: `waiting for EtcdCluster ${clusterName} to start the restore`,
  };
}
