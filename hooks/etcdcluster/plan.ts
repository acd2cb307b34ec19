// The EtcdCluster decisions, pure: given the parent, its observed pods and what etcd says about its members,
// which one membership change (if any) to make, which pods should exist, and what to report.
//
// `decide` reads as the rules it applies, top to bottom; each rule is a small function that decides or passes to
// the next, over one view of the observed cluster computed once (plan/view.ts, plan/answered.ts):
//  0. A restore past its point of no return (its old members dropped) is finished before a newer EtcdRestore is
//     taken: the newer one waits, and the Restore condition says so (plan/restore-queue.ts).
//  1. A restore's check (plan/restore-check.ts): a restore already carried out whose record was lost is found
//     again; a new EtcdRestore is checked (its snapshot fetched and verified) while the cluster runs; refused, or
//     past its check, the old members are dropped.
//  2. The restore phases (plan/restore-phases.ts): replacing, the restored members started together from the
//     checked snapshot, started again when lost before they served, failed on a failed step or overdue, and no
//     bootstrap over a failed restore that left no member.
//  3. The version held (plan/upgrade-hold.ts): an upgrade etcd does not support is refused, a failed upgrade holds
//     every member at the version it ran; the upgrade records go on the pods.
//  4. The membership rules (plan/members.ts), as etcd-operator reconciled:
//     - no member pod (plan/no-pods.ts): wait for terminating pods; restart on claims or volumes; a majority or
//       every member lost with its data; else bootstrap, the initial members started together;
//     - etcd gives no member list (plan/silent.ts): a failed bootstrap starts again; a majority lost for good;
//       else wait for a quorum, restarting the members whose pod vanished on their volumes; a quorum kept away
//       past UNHEALTHY_REPLACE_SECONDS by members whose etcd keeps exiting is said so (plan/crash-loops.ts);
//     - etcd answers: a lost quorum stops everything (a majority lost for good is said so, and a majority
//       crash-looping past the limit, as above); NOSPACE; paused;
//       members restarted in place; then dead members are removed (their replacement is a later add); stuck
//       additions cancelled; a member unhealthy for UNHEALTHY_REPLACE_SECONDS replaced; a learner promoted;
//       every member healthy before the next change; then the size (scale up, as a learner where etcd has them,
//       none once additions failed MAX_FAILED_ADDITIONS times with this spec: additions.ts; scale down); then the version, one member at a time, the leader last; then members made with
//       restartPolicy Never move to restart in place, one at a time, the leader last; else at rest.
// At most one membership change per sync; the next sync (resyncAfterSeconds) takes the next step.
import { rfc3339, type ParentObject } from '../../lib/index.js';
import type { RestoreState } from '../etcdcommon/index.js';
import { clusterOf } from './members.js';
import { sanitize } from './pods.js';
import {
  afterCheck,
  asChecked,
  carriedOut,
  checking,
  newRecord,
  noMemberRuns,
  refused,
  servedResult,
} from './plan/restore-check.js';
import { decideRestore } from './plan/restore-phases.js';
import { behindRunning, withWaiting } from './plan/restore-queue.js';
import { rebuiltRestore } from './plan/restore-rebuilt.js';
import type { Decision, Observation } from './plan/types.js';
import type { EtcdClusterSpec } from './schema.js';

export { sanitize };
export type { Action, Decision, MemberReport, Observation } from './plan/types.js';
export { PENDING_ADD_SECONDS, UNHEALTHY_REPLACE_SECONDS } from './plan/types.js';
export { compareVersions, supportsLearners, upgradeRefusal } from './plan/versions.js';

/**
 * A restore replaces the cluster: an explicit request, and the only decision that drops every member.
 * First the old members are dropped (their data goes with them), then `size` members restored from the
 * snapshot start together. The record of a restore is the EtcdRestore's own status (sync.ts, pendingRestore).
 */
export function decide(parent: ParentObject, spec: EtcdClusterSpec, observation: Observation): Decision {
  const recorded = (parent.status as { restore?: RestoreState } | undefined)?.restore;
  // The running restore whose record was lost with the status, found again from its restored members
  // (plan/restore-rebuilt.ts).
  const claimsKnown = observation.claims !== undefined || !spec.pod?.persistentVolumeClaimSpec;
  const rebuilt = rebuiltRestore(recorded, observation, clusterOf(parent, spec).name, claimsKnown);
  const before = rebuilt ?? recorded;
  const withRecord = rebuilt ? { ...parent, status: { ...(parent.status ?? {}), restore: rebuilt } } : parent;
  // A restore past its point of no return (the old members dropped) is finished before a newer one is taken: the
  // newer one waits (plan/restore-queue.ts).
  const { obs, waiting } = behindRunning(before, observation);
  return withWaiting(decideRestores(withRecord, spec, obs, before), waiting, before);
}

function decideRestores(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  before: RestoreState | undefined,
): Decision {
  const pending = obs.restore && before?.uid !== obs.restore.uid ? obs.restore : undefined;
  const now = obs.now ? { since: rfc3339(obs.now) } : {};
  // A restore this cluster already carried out, whose record was lost with the status (and whose EtcdRestore does
  // not say succeeded yet): the observed members are its result, they are never dropped to restore it again.
  const resumed = carriedOut(parent, spec, obs, pending, now) ?? servedResult(parent, spec, obs, before, now);
  if (resumed) return resumed;
  // A new EtcdRestore is checked first (restore.ts): its snapshot fetched and verified while the cluster runs.
  if (pending && !spec.paused)
    return asChecked(
      checking(parent, spec, obs, newRecord(pending, noMemberRuns(parent, spec, obs, before), now), pending.source),
    );
  if (before?.phase !== 'Checking') return asChecked(decideRestore(parent, spec, obs));
  if (obs.restore?.uid !== before.uid)
    return asChecked(refused(parent, spec, obs, before, 'the EtcdRestore was deleted before its snapshot was checked'));
  return asChecked(afterCheck(parent, spec, { ...obs, restore: obs.restore }, before, now));
}
