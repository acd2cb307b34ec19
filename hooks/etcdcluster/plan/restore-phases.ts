// The restore phases once a restore's check passed, in order, before the version and membership rules
// (upgrade-hold.ts, members.ts): the cluster being replaced (Replacing: the old members dropped, then every
// restored member started together from the checked snapshot); the EtcdRestore deleted past that point; restored
// members lost before they served (all start again); a restore step that failed or is overdue (Failed); a failed
// restore whose record was lost with the status, or that left no member (nothing bootstrapped over it). A restore
// record in status follows the cluster: Restored once the restored members serve.
import { isPodReady, keepObserved, type KubeObject, type ParentObject, rfc3339 } from '../../../lib/index.js';
import type { RestoreState } from '../../etcdcommon/index.js';
import {
  type Cluster,
  clusterOf,
  etcdVersion,
  image,
  memberIndex,
  memberName,
  podSpecFingerprint,
  type RestoreSource,
} from '../members.js';
import { memberNamesNotAskedFor } from '../names.js';
import { freeRun, takenFrom } from './ordinals.js';
import { sanitize } from '../pods.js';
import { madeAsChecked, recordedSource, RESTORE_SECONDS, restoreDeadlinePassed, restoreOverdue } from '../restore.js';
import type { EtcdClusterSpec } from '../schema.js';
import { failureOnPods, heldSpec, markedFrom, recordedFailure, type UpgradeFailure } from '../upgrade.js';
import { lastGoodVersion } from './versions.js';
import { restoreFailed } from './conditions.js';
import { failedInitStep, initFailure, liveMemberClaims, noMembersLeft, podsWereCreated } from './evidence.js';
import { restoredMembers } from './member-pods.js';
import type { Decision, Observation } from './types.js';
import { decideVersion } from './upgrade-hold.js';
import { firstDecision } from './view.js';

/** What the restore phases read, computed once. */
interface RestoreView {
  parent: ParentObject;
  spec: EtcdClusterSpec;
  obs: Observation;
  /** The restore recorded in status, if any. */
  before: RestoreState | undefined;
  /** The restore to replace the cluster with now (its check just passed), if any. */
  replacing: RestoreState | undefined;
  c: Cluster;
  /** The highest member ordinal the status recorded or a pod shows: ordinals keep growing through a restore. */
  lastIndex: number;
  /**
   * The snapshot the restored members fetch: the one checked (recorded in status when the old members were
   * dropped), never the EtcdRestore's spec as edited since; a record from before that field, the spec.
   */
  source: RestoreSource | undefined;
  /**
   * A failed upgrade holds the cluster on the version it ran: the restored members run that one too, and the hold is
   * carried while the restore runs (its members' pods, which recorded it, are the ones dropped).
   */
  hold: UpgradeFailure | undefined;
  /**
   * An upgrade not soaked (under way, or asked for: spec.version newer than the version the members ran, as status
   * last reported it or the upgrade-mark says): the restored members run the last good version, and the upgrade
   * moves them one at a time once they serve (plan/versions.ts lastGoodVersion).
   */
  lastGood: string | undefined;
}

/**
 * The restore phases once its check passed (`replacing`: the restore to replace the cluster with now), then the
 * version and membership rules.
 */
export function decideRestore(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  replacing?: RestoreState,
): Decision {
  const v = restoreView(parent, spec, obs, replacing);
  return (
    firstDecision(v, [
      replacingNow,
      pausedWhileReplacing,
      recordRefused,
      startRestoredMembers,
      restoreDeletedAfterDrop,
      restoredLostBeforeServing,
      restoredVanished,
      restoreStepFailed,
      failedRestoreStatusLost,
      failedRestoreLeftNone,
    ]) ?? withRestoreRecord(decideVersion(parent, spec, obs), v)
  );
}

function restoreView(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  replacing: RestoreState | undefined,
): RestoreView {
  const before = (parent.status as { restore?: RestoreState } | undefined)?.restore;
  const c = clusterOf(parent, spec);
  const seen = [...obs.pods.map((p) => p.metadata.name), ...obs.terminating].map((n) => memberIndex(c.name, n) ?? -1);
  const lastIndex = Math.max(
    (parent.status as { lastMemberIndex?: number } | undefined)?.lastMemberIndex ?? -1,
    ...seen,
    -1,
  );
  const hold = heldBy(parent, spec, obs);
  const lastGood = hold ? undefined : restoreLastGood(parent, spec, obs);
  return { parent, spec, obs, before, replacing, c, lastIndex, source: checkedSource(before, obs), hold, lastGood };
}

/**
 * The failed upgrade that holds the cluster on the version it ran, as the status or the member pods record it: for
 * the image and the spec.pod the spec names (plan/upgrade-hold.ts).
 */
function heldBy(parent: ParentObject, spec: EtcdClusterSpec, obs: Observation): UpgradeFailure | undefined {
  const target = etcdVersion(spec.version);
  const podSpec = podSpecFingerprint(spec);
  return (
    recordedFailure(parent.status, target, image(spec), podSpec) ??
    failureOnPods(obs.pods, target, image(spec), podSpec)
  );
}

/**
 * The last good version of an upgrade not soaked, for a restore: the upgrade-mark's, else the version the members last
 * reported (status.currentVersion: the lowest any member ran, which stands for etcd's cluster version too).
 */
function restoreLastGood(parent: ParentObject, spec: EtcdClusterSpec, obs: Observation): string | undefined {
  const target = etcdVersion(spec.version);
  const reported = (parent.status as { currentVersion?: unknown } | undefined)?.currentVersion;
  const current = typeof reported === 'string' ? reported : undefined;
  return lastGoodVersion(target, markedFrom(obs.pods, target) ?? current, current);
}

/**
 * The spec the restored members are made from, and their images checked with (restore-check.ts): at the version a
 * failed upgrade holds the cluster on, else at the last good version of an upgrade not soaked, else the spec.
 */
export function restoredSpec(parent: ParentObject, spec: EtcdClusterSpec, obs: Observation): EtcdClusterSpec {
  const hold = heldBy(parent, spec, obs);
  if (hold) return heldSpec(spec, hold);
  const lastGood = restoreLastGood(parent, spec, obs);
  return lastGood ? { ...spec, version: lastGood } : spec;
}

/**
 * Where a restore past its check fetches from: the snapshot its check verified, as status recorded it (`s3`, and
 * its pin `snapshot`), never the EtcdRestore's spec as edited since. A record without `s3` (written before it was
 * kept) falls back on the EtcdRestore's spec.
 */
function checkedSource(before: RestoreState | undefined, obs: Observation): RestoreSource | undefined {
  if (obs.recordedRestore && obs.recordedRestore.uid === before?.uid) return obs.recordedRestore.source;
  if (!before?.s3 || !obs.restore) return obs.restore?.source;
  return recordedSource(before, obs.restore.source.image);
}

/** While replacing: no member, no membership call, pods as `pods` says; the ordinals keep growing; the hold carried. */
function restoring(
  v: RestoreView,
  pods: KubeObject[],
  lastMemberIndex: number,
  restore: RestoreState,
  message: string,
): Decision {
  return {
    pods,
    fallbackPods: pods,
    phase: 'Creating',
    reason: 'Restoring',
    conditions: [
      { type: 'Available', status: false, reason: 'Restoring', message },
      { type: 'Recovering', status: true, reason: 'Restoring', message },
    ],
    members: [],
    lastMemberIndex,
    converging: true,
    restore,
    ...(v.hold ? { upgradeFailed: v.hold } : {}),
  };
}

/**
 * Every member restored from the snapshot, under new names, started together (etcd's documented way to restore a
 * multi-member cluster): no growth from a seed, so no voter is ever added before its pod runs.
 */
function restoredPods(
  v: RestoreView,
  restore: { uid: string; name: string },
  source: RestoreSource,
): { names: string[]; pods: KubeObject[]; last: number } {
  const { parent, spec } = v;
  // Consecutive ordinals above the last, none of whose names another owner holds (ordinals.ts freeRun).
  const { first } = freeRun(v.obs, v.lastIndex, spec.size);
  const names = Array.from({ length: spec.size }, (_, i) => memberName(v.c.name, first + i));
  const pods = restoredMembers(parent, madeSpec(v), names, source, restore);
  return { names, pods, last: first + spec.size - 1 };
}

/**
 * The spec restored members are made from (restoredPods, restoredOnTheirClaims; restoredSpec for the check): at the
 * version a failed upgrade holds the cluster on, else at the last good version of an upgrade not soaked, else the spec.
 */
function madeSpec(v: RestoreView): EtcdClusterSpec {
  const { spec } = v;
  const made = v.hold ? heldSpec(spec, v.hold) : v.lastGood ? { ...spec, version: v.lastGood } : spec;
  // As its check started them (the restore's record, restore.ts madeAsChecked): an edit since reaches later pods.
  return v.before?.checked ? madeAsChecked(made, v.before.checked) : made;
}

/**
 * spec.paused while a restore replaces the members (Replacing, Restoring): the pods as they are, none made, dropped or
 * made again (a restored member lost is not answered by starting the restore again), and the deadline waits: once
 * unpaused, the restore goes on from where it is, its deadline counted afresh from then. (A restore's check does not
 * start while paused: restore-check.ts.)
 */
function pausedWhileReplacing(v: RestoreView): Decision | undefined {
  const { before, obs } = v;
  if (!v.spec.paused || (before?.phase !== 'Replacing' && before?.phase !== 'Restoring')) return undefined;
  const message = `spec.paused is true: EtcdRestore ${before.name} (${before.phase}) waits, no member pod made or dropped`;
  const d = restoring(
    v,
    obs.pods.map(keepObserved),
    v.lastIndex,
    // Its deadline counts from the end of the pause (`since` moves on while paused).
    { ...before, ...(obs.now && before.phase === 'Restoring' ? { since: rfc3339(obs.now) } : {}) },
    message,
  );
  d.conditions.push({ type: 'Paused', status: true, reason: 'SpecPaused', message });
  d.converging = false;
  return d;
}

/** The check just passed: the old members are dropped. */
function replacingNow(v: RestoreView): Decision | undefined {
  const { replacing, obs } = v;
  if (!replacing || !obs.restore) return undefined;
  const path = replacing.s3?.path ?? obs.restore.source.s3.path;
  return restoring(
    v,
    [],
    v.lastIndex,
    replacing,
    `EtcdRestore ${replacing.name}: replacing the cluster with the snapshot ${path}`,
  );
}

/**
 * The restored members are to be made (the old members gone; or restored ones lost before they served, to start
 * again) and the restore's record of what its check started, which they are made from, is one the spec's checks
 * refuse (obs.checkedRefused, spec-checks.ts checkedRecordProblem: whoever may write the status could have written
 * it). Doubt: nothing is made from it, and nothing else either: the check pod that knew what it ran is gone, and the
 * spec as it is now is not what the check ran. The restore ends failed with the field named (RestoreFailed, a
 * Warning Event): nothing is bootstrapped over the cluster (failedRestoreLeftNone), and a new EtcdRestore, checked
 * again, restores it. Only once nothing of the cluster runs (no pod observed, none going): it drops nothing that was
 * not already dropped; a record changed under running members is not read, so nothing is done on it.
 */
function recordRefused(v: RestoreView): Decision | undefined {
  const { before, obs } = v;
  if (!obs.checkedRefused || (before?.phase !== 'Replacing' && before?.phase !== 'Restoring')) return undefined;
  if (obs.pods.length > 0 || obs.terminating.length > 0) return undefined;
  // (The record refused is not kept: a failed restore makes nothing.)
  const { checked: _refused, ...failed } = before;
  return restoreFailed(v.lastIndex, {
    ...failed,
    phase: 'Failed',
    reason: sanitize(`no member made from a record the spec's checks refuse: ${obs.checkedRefused}`, 200),
  });
}

/** Replacing: once the old members went, the restored members start from the checked snapshot (Restoring). */
function startRestoredMembers(v: RestoreView): Decision | undefined {
  const { before, obs, source } = v;
  if (before?.phase !== 'Replacing' || obs.restore?.uid !== before.uid || !source) return undefined;
  if (obs.pods.length > 0 || obs.terminating.length > 0)
    return restoring(v, [], v.lastIndex, before, 'waiting for the old members to go');
  // Restored members whose names the customize answer in use did not ask for are held (names.ts), and a held answer
  // keeps the status as it was: past RESTORE_SECONDS since the drop the restore ends failed, never Replacing for good.
  // (A restore checks this before it drops the members: restore-check.ts afterCheck; this is one dropped before.)
  const unasked = memberNamesNotAskedFor(v.parent, freeRun(obs, v.lastIndex, v.spec.size).first, v.spec.size);
  if (unasked.length > 0 && restoreDeadlinePassed(before.since, obs.now))
    return restoreFailed(v.lastIndex, {
      ...before,
      phase: 'Failed',
      reason: sanitize(
        `the restored members ${unasked.slice(0, 3).join(', ')} could not be started within ${RESTORE_SECONDS / 60} minutes: their names were not asked for in this generation (MemberNameNotChecked)`,
        200,
      ),
    });
  const { names, pods, last } = restoredPods(v, obs.restore, source);
  return restoring(
    v,
    pods,
    last,
    // Its deadline (RESTORE_SECONDS) counts from here: the old members are gone.
    { ...before, phase: 'Restoring', ...(obs.now ? { since: rfc3339(obs.now) } : {}) },
    `members ${names.join(', ')} start from the snapshot ${source.s3.path}`,
  );
}

/**
 * Old members kept after an EtcdRestore went before they were dropped (reported since, or their claims still live):
 * they hold the data, and a loss of their pods is answered as for any cluster.
 */
function oldMembersKept(parent: ParentObject, cluster: string, obs: Observation): boolean {
  // Asked only with a restore record, which lives in the status: the status is there.
  const reported = (parent.status as { memberList?: unknown }).memberList;
  return (Array.isArray(reported) && reported.length > 0) || liveMemberClaims(cluster, obs).length > 0;
}

/**
 * The EtcdRestore went (deleted) after the old members were dropped: past that point its checked snapshot is the
 * only data left, and the restore carries on from the record; without one, nothing is bootstrapped empty over it.
 */
function restoreDeletedAfterDrop(v: RestoreView): Decision | undefined {
  const { before, obs } = v;
  if (
    before?.phase !== 'Replacing' ||
    obs.restore?.uid === before.uid ||
    obs.pods.length > 0 ||
    obs.terminating.length > 0 ||
    oldMembersKept(v.parent, v.c.name, obs)
  )
    return undefined;
  if (obs.recordedRestore?.uid === before.uid)
    return decideRestore(v.parent, v.spec, { ...obs, restore: obs.recordedRestore });
  return restoreFailed(v.lastIndex, {
    ...before,
    phase: 'Failed',
    reason: 'the EtcdRestore was deleted before the restore started',
  });
}

/**
 * How many restored members the restore made: the members its `restore-snapshot` step names in its initial cluster
 * (every restored pod names the whole run), not spec.size, which may have been raised or lowered since (the scale
 * follows the restore). `size` when no observed pod says (observed data: read by type, bounded).
 */
export function restoredRun(pods: readonly KubeObject[], size: number): number {
  for (const pod of pods.slice(0, 64)) {
    const inits = (pod['spec'] as { initContainers?: unknown } | undefined)?.initContainers;
    const step = Array.isArray(inits)
      ? (inits.slice(0, 16) as Array<{ name?: unknown; command?: unknown } | null>).find(
          (c) => c?.name === 'restore-snapshot',
        )
      : undefined;
    const command = Array.isArray(step?.command) ? (step.command.slice(0, 64) as unknown[]) : [];
    const arg = command.find((a): a is string => typeof a === 'string' && a.startsWith('--initial-cluster='));
    if (arg) return arg.slice('--initial-cluster='.length).split(',').length;
  }
  return size;
}

/** Some restored members vanished before any served: they hold only the snapshot; all start again from it. */
function restoredLostBeforeServing(v: RestoreView): Decision | undefined {
  const { before, obs } = v;
  if (
    before?.phase !== 'Restoring' ||
    obs.pods.length === 0 ||
    obs.pods.length + obs.terminating.length >= restoredRun(obs.pods, v.spec.size) ||
    !podsWereCreated(v.parent) ||
    obs.etcd ||
    obs.pods.some(isPodReady) ||
    obs.restore?.uid !== before.uid
  )
    return undefined;
  return restoring(
    v,
    [],
    v.lastIndex,
    before,
    'restored members were lost before they served: starting the restore again',
  );
}

/**
 * The restored members vanished before they ran (a drain during the fetch): they start again from the snapshot,
 * never as an empty cluster; without the EtcdRestore, the restore ends failed.
 */
function restoredVanished(v: RestoreView): Decision | undefined {
  const { before, obs, source } = v;
  if (before?.phase !== 'Restoring' || obs.pods.length > 0 || obs.terminating.length > 0) return undefined;
  if (obs.restore?.uid !== before.uid && obs.recordedRestore?.uid === before.uid)
    return decideRestore(v.parent, v.spec, { ...obs, restore: obs.recordedRestore });
  if (obs.restore?.uid !== before.uid || !source)
    return restoreFailed(v.lastIndex, {
      ...before,
      phase: 'Failed',
      reason: 'the restored members were lost and the EtcdRestore is gone',
    });
  // A name of the run given out taken by another owner since (its pod's or claim's create refused): that member could
  // never start, nor the restore end. None of the run started (no pod), so none holds more than the snapshot: the
  // restore starts again under names nobody holds, as it would have taken them had the name been taken before.
  const moved = takenOfRun(v);
  if (moved.length > 0) {
    const { names, pods, last } = restoredPods(v, obs.restore, source);
    return restoring(
      v,
      pods,
      last,
      before,
      sanitize(
        `${takenText(moved)}: the restored members start under names nobody holds, ${names.join(', ')}, from the snapshot ${source.s3.path}`,
        400,
      ),
    );
  }
  const made = restoredOnTheirClaims(v, obs.restore, source);
  if (made)
    return restoring(
      v,
      made.pods,
      made.last,
      before,
      `members ${made.names.join(', ')} start from the snapshot ${source.s3.path}`,
    );
  const { names, pods, last } = restoredPods(v, obs.restore, source);
  return restoring(
    v,
    pods,
    last,
    before,
    `the restored members were lost before they ran: ${names.join(', ')} start again from the snapshot ${source.s3.path}`,
  );
}

/**
 * The names of the run the restore last gave out (the spec.size ordinals up to the last) that another owner holds, as
 * the customize answer in use saw them (Observation.ordinals): a pod or claim another parent made under the name
 * between the answer that gave it out and Metacontroller's create (a StatefulSet `x` of template `data` names its
 * claims `data-x-<i>`), which never becomes the cluster's. Asked only once none of the run has a pod.
 */
function takenOfRun(v: RestoreView): ReturnType<typeof takenFrom> {
  const first = v.lastIndex - v.spec.size + 1;
  return first < 0 ? [] : takenFrom(v.obs, first, v.spec.size);
}

/** The names another owner took and their holders, in words (at most three listed). */
function takenText(taken: ReturnType<typeof takenFrom>): string {
  const listed = taken
    .slice(0, 3)
    .map((t) => `${t.name} belongs to ${t.holder}`)
    .join('; ');
  return `${listed}${taken.length > 3 ? ` (and ${taken.length - 3} more)` : ''}`;
}

/**
 * The restored members whose claims exist and whose pods are not made (yet): with storage a new member's pod is
 * answered only once its claim is observed as the cluster's (sync.ts childrenOf), so the restore's first answer makes
 * the claims and the next the pods. Every live member claim is one of the names the restore gave out (the spec.size
 * ordinals up to the last): the same members start under those names from the snapshot (their restore steps keep a
 * member's data that is there already: etcdcommon/snapshot.ts). Undefined otherwise (no claim, or the pods were made
 * and vanished: restoredPods).
 */
function restoredOnTheirClaims(
  v: RestoreView,
  restore: { uid: string; name: string },
  source: RestoreSource,
): { names: string[]; pods: KubeObject[]; last: number } | undefined {
  const { parent, spec } = v;
  const claims = liveMemberClaims(v.c.name, v.obs);
  const first = v.lastIndex - spec.size + 1;
  // (Pods that existed and vanished (PodsCreated=True) start again under new names: restoredPods.)
  if (claims.length === 0 || first < 0 || podsWereCreated(parent)) return undefined;
  const names = Array.from({ length: spec.size }, (_, i) => memberName(v.c.name, first + i));
  if (!claims.every((n) => names.includes(n))) return undefined;
  const pods = restoredMembers(parent, madeSpec(v), names, source, restore);
  return { names, pods, last: v.lastIndex };
}

/**
 * A member's restore steps failed (its init step, which fetches and restores the snapshot, exited with an error):
 * the restore ends failed, with the reason; its members are dropped and nothing else is started until a new
 * EtcdRestore. Only on that evidence, and only while no member serves: a member that crashed after its restore, or
 * etcd silent for a moment, is not a failed restore. (Under restartPolicy Never the pod failed; under Always the
 * kubelet retries the step, which failed.) Nor may it wait forever: restored members that have not served within
 * RESTORE_SECONDS end it failed, naming why their pods wait (an image that cannot be pulled, a node that never
 * comes, a fetch that hangs).
 */
function restoreStepFailed(v: RestoreView): Decision | undefined {
  const { before, obs } = v;
  if (before?.phase !== 'Restoring') return undefined;
  const serving = Boolean(obs.etcd) || obs.pods.some(isPodReady);
  const failed = obs.pods.find((p) => failedInitStep(p) !== undefined);
  if (failed && !serving)
    return restoreFailed(v.lastIndex, { ...before, phase: 'Failed', reason: initFailure(failed) });
  const overdue = !serving ? restoreOverdue(before, obs.pods, obs.now) : undefined;
  if (!overdue) return undefined;
  // A restored member whose etcd runs holds the restored data and may yet serve once its peers start (their pods
  // stuck on an image, a node): the restored members are kept, never deleted for time; the restore ends failed all
  // the same, saying so, and the members are the cluster's if they serve (a new EtcdRestore replaces them).
  const runs = obs.pods.filter(etcdRuns).map((p) => p.metadata.name);
  const ended = restoreFailed(v.lastIndex, {
    ...before,
    phase: 'Failed',
    reason: runs.length
      ? sanitize(`${overdue}; the restored members are kept (etcd runs in ${runs.join(', ')})`, 300)
      : overdue,
  });
  if (runs.length === 0) return ended;
  const kept = obs.pods.map(keepObserved);
  return { ...ended, pods: kept, fallbackPods: kept };
}

/** Whether the pod's etcd container runs (observed data, read by type). */
function etcdRuns(pod: KubeObject): boolean {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  return (
    Array.isArray(statuses)
      ? (statuses.slice(0, 16) as Array<{ name?: unknown; state?: { running?: unknown } } | null>)
      : []
  ).some((s) => s?.name === 'etcd' && Boolean(s.state?.running));
}

/**
 * The status (and with it the restore's record) is lost, no member is left, and the newest EtcdRestore says it
 * failed: the failure may have dropped every member. Its record on the EtcdRestore holds as the status's would:
 * nothing is bootstrapped empty over the data, until a new EtcdRestore (or the failed one is deleted).
 */
function failedRestoreStatusLost(v: RestoreView): Decision | undefined {
  const { before, obs } = v;
  const f = obs.failedRestore;
  if (before || !f || obs.pods.length > 0 || obs.terminating.length > 0 || liveMemberClaims(v.c.name, obs).length > 0)
    return undefined;
  return restoreFailed(v.lastIndex, {
    uid: f.uid,
    name: f.name,
    phase: 'Failed',
    reason: f.reason,
    noMembers: true,
    ...(f.created ? { created: f.created } : {}),
  });
}

/**
 * A failed restore left no member: nothing is bootstrapped over it (an empty cluster would look healthy); while the
 * members it dropped are still being deleted, it reads failed all the same. (One refused by its check dropped
 * nothing: the cluster goes on as any other.)
 */
function failedRestoreLeftNone(v: RestoreView): Decision | undefined {
  if (!noMembersLeft(v.before) || v.obs.pods.length > 0) return undefined;
  return restoreFailed(v.lastIndex, v.before!);
}

/**
 * The restore record after the membership rules: a failed one kept as it is; Restored once the restored members
 * serve with a quorum (a quorum that holds is one etcd reported, of at least one voting member), or once a restored
 * member is Ready (its readiness probe asks etcd, so it serves the snapshot, even when the hook cannot reach it).
 * (Only a restore whose members were started: the old members of one never started are not its result.)
 */
function withRestoreRecord(d: Decision, v: RestoreView): Decision {
  const { before, obs } = v;
  if (!before) return d;
  // (What its check started is kept only while its members are made: a record that ended drops it.)
  const { checked: _checked, ...ended } = before;
  if (before.phase === 'Failed') {
    d.restore = ended;
    return d;
  }
  const restored =
    // Stryker disable next-line StringLiteral: no phase is '': a Restored record keeps its phase below either way
    before.phase === 'Restored' ||
    (before.phase === 'Restoring' && (d.quorum?.ok === true || obs.pods.some(isPodReady)));
  d.restore = restored ? { ...ended, phase: 'Restored' } : before;
  return d;
}
