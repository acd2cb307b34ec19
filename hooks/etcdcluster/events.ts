// What an EtcdCluster sync tells in Events (lib/events.ts), and how its status says that a member pod it answered
// was never created (a refusal by admission, Pod Security `restricted` for one).
import {
  type CompositeSyncRequest,
  type CompositeSyncResponse,
  type ConditionEventRules,
  type ConditionInput,
  type EventSpec,
  type KubeObject,
  observed,
  previousConditions,
  sameImageTag,
} from '../../lib/index.js';
import { memberImage } from './members.js';

/** Condition reasons of an EtcdCluster that are failures: each is a Warning event when a condition takes it. */
export const ETCDCLUSTER_EVENTS: ConditionEventRules = {
  action: 'Reconcile',
  warnings: new Set([
    'EtcdCallFailed',
    'QuorumLost',
    'AllMembersLost',
    'MajorityLost',
    'MajorityCrashLooping',
    // A member made again on its claim found none of its data there: not started under its old ID, replaced.
    'MemberDataLost',
    'NoSpace',
    'DataCorrupt',
    'RestoreFailed',
    'UpgradeRefused',
    'UpgradeFailed',
    'RestoreRefused',
    'ForeignMember',
    'InvalidMemberList',
    'ClusterDomainNotAllowed',
    'PodNotCreated',
    'NetworkPolicyNotCreated',
    'InvalidSpec',
    'TLSFailed',
    'EtcdUnreachable',
    'ScaleUpRefused',
    'ScaleUpFailed',
    // A bootstrap whose starts kept failing stopped (bootstraps.ts): the message says how and how to retry.
    'BootstrapFailed',
    // A child's name another owner holds (lib/ownership.ts): the message names the holder.
    'PodNameTaken',
    'ServiceNameTaken',
    'PodDisruptionBudgetNameTaken',
    'NetworkPolicyNameTaken',
    'PersistentVolumeClaimNameTaken',
    // Claims wait for a StorageClass not seen (a typo, a class not made yet): a new cluster (Available=False), a
    // scale-up or a member's replacement (ClaimsHeld=True) waits without a deadline, so it is told.
    'StorageClassNotSeen',
    // No member pod is made with a backend quota under the cluster's data (quota.ts): MembersHeld=True, no deadline.
    'QuotaBelowData',
  ]),
  trueIsFailure: new Set(['ClaimsHeld', 'MembersHeld']),
  // A newer EtcdRestore waits for the restore past its point of no return (plan/restore-queue.ts).
  normals: new Set(['RestoreWaiting']),
};

/**
 * A membership change the hook made in this call (it succeeded): MemberAdded (with `skipped`, the member names it
 * skipped because another owner holds them: plan/ordinals.ts freeRun; cut to keep the note under the API
 * server's 1 kB), MemberRemoved, MemberPromoted.
 */
export function memberEvent(
  action: {
    type: 'add' | 'remove' | 'promote';
    pod: string;
    learner?: boolean;
    why?: string;
  },
  skipped?: string,
): EventSpec {
  if (action.type === 'add') {
    return {
      type: 'Normal',
      reason: 'MemberAdded',
      action: 'MemberAdd',
      note: `added member ${action.pod}${action.learner ? ' as a learner' : ''}${skipped ? `; ${skipped.slice(0, 600)}` : ''}`,
      subject: action.pod,
    };
  }
  if (action.type === 'remove') {
    return {
      type: 'Normal',
      reason: 'MemberRemoved',
      action: 'MemberRemove',
      note: `removed member ${action.pod}${action.why ? ` (${action.why})` : ''}`,
      subject: action.pod,
    };
  }
  return {
    type: 'Normal',
    reason: 'MemberPromoted',
    action: 'MemberPromote',
    note: `promoted learner ${action.pod} to a voting member`,
    subject: action.pod,
  };
}

/**
 * An upgrade step: a member pod the answer gives another etcd image than it has (the hook upgrades one member at
 * a time). Once Metacontroller applied it, the pod has that image and the same answer says nothing. The images
 * are read before the sync runs and compared with the answer after.
 */
export function upgradeEvents(request: CompositeSyncRequest): (response: CompositeSyncResponse) => EventSpec[] {
  const before = new Map(observed(request.children, 'Pod', 'v1').map((p) => [p.metadata.name, memberImage(p)]));
  return (response) => upgradesIn(before, response);
}

function upgradesIn(before: Map<string, string | undefined>, response: CompositeSyncResponse): EventSpec[] {
  const out: EventSpec[] = [];
  for (const child of response.children ?? []) {
    const pod = child as KubeObject;
    if (pod.kind !== 'Pod' || !pod.metadata?.name) continue;
    const had = before.get(pod.metadata.name);
    const wants = memberImage(pod);
    // (The same image, however an admission policy pinned the observed one: memberImage reads the one given.)
    if (had === undefined || wants === undefined || sameImageTag(had, wants)) continue;
    out.push({
      type: 'Normal',
      reason: 'UpgradingMember',
      action: 'Upgrade',
      note: `upgrading member ${pod.metadata.name}: ${had} -> ${wants}`,
      subject: `${pod.metadata.name}/${wants}`,
    });
  }
  return out;
}

/** How long a member pod the hook answers may stay absent before the status calls it not created. */
export const POD_ABSENT_SECONDS = 60;

/**
 * The PodsCreated condition: whether every member pod the answer asks for exists. Metacontroller creates the
 * pods the hook answers; when the API server refuses one (Pod Security admission, a quota, a webhook), v4.17
 * returns the error of the create (pkg/controller/common/manage_children.go L626-633), keeps the status the hook
 * answered (pkg/controller/composite/controller.go L722-745: status is written whatever manageChildren said), and
 * records a Warning event `SyncError` with the API server's message on the parent (L612-618); v1.5.20 does the
 * same (L559-573 and L467-472). The hook is never told: it sees the pod absent at every sync. A pod it answered that is still absent
 * POD_ABSENT_SECONDS after it was first missed (the time this condition went False, carried in its
 * lastTransitionTime) is reported as PodNotCreated, naming the pods and where the refusal is.
 */
export function podsCreated(
  parent: { status?: unknown },
  observedPods: string[],
  answeredPods: string[],
  now: Date,
): ConditionInput {
  const have = new Set(observedPods);
  const absent = answeredPods.filter((p) => !have.has(p)).sort();
  if (absent.length === 0)
    return { type: 'PodsCreated', status: true, reason: 'PodsExist', message: 'every member pod exists' };
  const prev = previousConditions(parent.status).find((c) => c.type === 'PodsCreated');
  const since = prev && prev.status === 'False' && prev.lastTransitionTime ? Date.parse(prev.lastTransitionTime) : NaN;
  const names = absent.slice(0, 5).join(', ') + (absent.length > 5 ? ` and ${absent.length - 5} more` : '');
  if (Number.isFinite(since) && now.getTime() - since >= POD_ABSENT_SECONDS * 1000) {
    return {
      type: 'PodsCreated',
      status: false,
      reason: 'PodNotCreated',
      message:
        `pod ${names} has not been created ${POD_ABSENT_SECONDS} s after it was asked for: the API server refused it ` +
        '(for a namespace that enforces Pod Security, see the SyncError event on this EtcdCluster: kubectl describe)',
    };
  }
  return {
    type: 'PodsCreated',
    status: false,
    reason: 'CreatingPods',
    message: `waiting for pod ${names} to be created`,
  };
}

/**
 * Whether the last answer's member pods were never created (PodsCreated=False in the current status) while
 * nothing of them is left (no pod, none terminating, no claim): a bootstrap refused by admission. A new bootstrap
 * then takes the same names again rather than the next ordinals: no process and no data ever had them, and new
 * names at every sync would change the status at every sync (under Metacontroller, whose create fails at once,
 * a hot loop of syncs and refused creates).
 */
export function neverCreated(
  status: unknown,
  obs: { pods: unknown[]; terminating: unknown[]; claims?: unknown[] },
): boolean {
  if (obs.pods.length > 0 || obs.terminating.length > 0 || (obs.claims?.length ?? 0) > 0) return false;
  return previousConditions(status).some((c) => c.type === 'PodsCreated' && c.status === 'False');
}
