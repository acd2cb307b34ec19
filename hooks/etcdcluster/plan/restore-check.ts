// A restore's check phase, before any member is dropped (plan.ts, decide): a new EtcdRestore is recorded Checking
// and its snapshot fetched and verified by a check pod beside the running cluster (restore.ts); the check's verdict
// then refuses it (the cluster as it was) or lets the old members be dropped (Replacing, restore-phases.ts). A
// restore already carried out whose record was lost with the status is found again from its members.
import {
  claimsHeldCondition,
  isPodReady,
  keepObserved,
  type KubeObject,
  type ParentObject,
} from '../../../lib/index.js';
import type { RestoreState } from '../../etcdcommon/index.js';
import { clusterOf, RESTORED_BY, RESTORED_NAME, type RestoreSource } from '../members.js';
import { sanitize, sanitizeAws } from '../pods.js';
import { memberNamesNotAskedFor } from '../names.js';
import { freeRun, takenFrom } from './ordinals.js';
import {
  againReason,
  CHECK_CHANGED,
  checkBackingOff,
  checkedSize,
  checkedOf,
  checkFetchSeen,
  checkVerdict,
  droppedCheck,
  pinOf,
  RESTORE_SECONDS,
  restoreCheckPod,
  restoreDeadlinePassed,
  fitProblem,
  sameCheck,
} from '../restore.js';
import type { EtcdClusterSpec } from '../schema.js';
import { restoreFailed } from './conditions.js';
import { lastIndexOf, liveMemberClaims, noMembersLeft } from './evidence.js';
import { decideRestore, restoredSpec } from './restore-phases.js';
import type { Decision, Observation } from './types.js';

/** A restore whose check runs (`before`, Checking): its check pod's verdict, and the drop once it passed. */
export function afterCheck(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation & { restore: NonNullable<Observation['restore']> },
  before: RestoreState,
  now: { since?: string },
): Decision {
  // A check pod made for another restore, or with other arguments (the EtcdRestore's spec edited since), proves
  // nothing: it is dropped, and a new one checks (the deadline still counts from the first).
  const expected = restoreCheckPod(parent, restoredSpec(parent, spec, obs), obs.restore.source, before.uid);
  const check = obs.restoreCheck && sameCheck(obs.restoreCheck, expected) ? obs.restoreCheck : undefined;
  const verdict = checkVerdict(check, before.since, obs.now, before.checkFetch, before.checkAgain?.last);
  const { checkFetch: _seen, ...kept } = before;
  const { checkAgain: _again, ...unseen } = kept;
  // A check pod its node ended (evicted by a drain) proved nothing either: dropped, and a new one checks. Each new
  // one after a back-off (restore.ts checkBackoff: 10 s, doubling, at most 160 s; each fetches the whole snapshot,
  // from an S3 that may have asked for fewer requests); what the dropped run ended on is recorded, so that a refusal
  // at the deadline names it whichever sync the deadline falls on (restore.ts droppedCheck).
  if ((obs.restoreCheck && !check) || verdict.state === 'again') return dropped(parent, spec, obs, before, check);
  if (verdict.state === 'failed') return refused(parent, spec, obs, unseen, verdict.reason);
  // Its container at work is timed from when this hook first saw it run (restore.ts checkFetchSeen), never from the
  // start its node's clock stamped: that sight is kept in the record while it is checked.
  const fetch = checkFetchSeen(check, before.checkFetch, before.since, obs.now);
  // (Its drops kept while it is checked: the back-off and the refusal at the deadline read them.)
  const seen: RestoreState = fetch ? { ...kept, checkFetch: fetch } : kept;
  if (verdict.state === 'waiting' || spec.paused) return checking(parent, spec, obs, seen, obs.restore.source);
  // A snapshot the restored members cannot hold on their data volumes is refused while the running members still
  // hold the data (restore.ts, roomProblem).
  // Nor one over the backend quota they run with (restore.ts, quotaProblem): they would refuse every write.
  const noRoom = fitProblem(spec, checkedSize(check));
  if (noRoom) return refused(parent, spec, obs, before, noRoom);
  // The restored members could get no claim (their StorageClass not seen): the running members are not dropped; the
  // restore waits at its passed check, and says why (it carries on once the class is seen).
  if (obs.claimsHeld) {
    const d = checking(parent, spec, obs, seen, obs.restore.source);
    return { ...d, conditions: [...d.conditions, claimsHeldCondition(obs.claimsHeld)] };
  }
  // The restored members would take names the customize answer in use did not ask for (names.ts): they would be
  // held (MemberNameNotChecked) once the running members are gone, leaving none. The running members are not dropped;
  // the restore waits at its passed check and says why (it carries on once the generation changes and the names are
  // asked for), and ends refused, the cluster as it was, past RESTORE_SECONDS since its check began.
  // (They take consecutive ordinals none of whose names another owner holds, ordinals.ts freeRun; when no such run
  // was asked for, the next ones: a name there another owner holds would hold them too, with no member left.)
  const last = lastIndexOf(parent, spec, obs);
  const { first } = freeRun(obs, last, spec.size);
  const unasked = memberNamesNotAskedFor(parent, first, spec.size);
  const taken = unasked.length > 0 ? [] : takenFrom(obs, first, spec.size);
  if (unasked.length > 0 || taken.length > 0) {
    const why = unasked.length > 0 ? namesWait(unasked, parent, spec) : takenWait(taken);
    if (restoreDeadlinePassed(before.since, obs.now))
      return refused(parent, spec, obs, before, `${why}, for ${RESTORE_SECONDS / 60} minutes`);
    const d = checking(parent, spec, obs, seen, obs.restore.source);
    return {
      ...d,
      conditions: [
        ...d.conditions,
        {
          type: 'MemberNamesHeld',
          status: true,
          reason: unasked.length > 0 ? 'MemberNameNotChecked' : 'MemberNameTaken',
          message: `EtcdRestore ${before.name}: ${why}`,
        },
      ],
    };
  }
  // The snapshot is there and intact: only now are the old members dropped.
  const { noMembers: _none, ...replacing } = unseen;
  // Past this point there is no way back: the snapshot checked (and what its check pinned) is recorded, and the
  // restore carries on from it even if its EtcdRestore is edited or deleted (sync.ts, carriedOn).
  const pin = pinOf(check, obs.restore.source, before.uid);
  return decideRestore(parent, spec, obs, {
    ...replacing,
    phase: 'Replacing',
    s3: obs.restore.source.s3,
    ...(pin ? { snapshot: pin } : {}),
    // And what the check started the restored members as: they are made so (restore.ts checkedOf, madeAsChecked).
    checked: checkedOf(restoredSpec(parent, spec, obs)),
    ...now,
  });
}

/**
 * The check pod observed dropped as a run that proved nothing (`check`: it, when it is the one asked for; else one
 * changed at admission or made for another check), recorded (restore.ts droppedCheck) for the back-off before the
 * next and for a refusal at the deadline.
 */
function dropped(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation & { restore: NonNullable<Observation['restore']> },
  before: RestoreState,
  check: KubeObject | undefined,
): Decision {
  const checkAgain = droppedCheck(before.checkAgain, check ? againReason(check) : CHECK_CHANGED, obs.now);
  const record: RestoreState = { ...before, ...(checkAgain ? { checkAgain } : {}) };
  return { ...checking(parent, spec, obs, record, obs.restore.source), restoreCheck: undefined } as Decision;
}

/** Why a restore whose restored members' names another owner holds waits (no member dropped). */
function takenWait(taken: ReadonlyArray<{ name: string; holder: string }>): string {
  const listed = taken
    .slice(0, 3)
    .map((t) => `${t.name} belongs to ${t.holder}`)
    .join('; ');
  const more = taken.length > 3 ? ` (and ${taken.length - 3} more)` : '';
  return sanitize(
    `its snapshot passed its check, but the restored members' names are held by other owners (${listed}${more}) and no run of free names was asked for, so no running member is dropped; delete or rename what holds them`,
    300,
  );
}

/** Why a restore whose restored members' names were not asked for waits (no member dropped). */
function namesWait(unasked: string[], parent: ParentObject, spec: EtcdClusterSpec): string {
  const listed = unasked.slice(0, 3).join(', ') + (unasked.length > 3 ? ` (and ${unasked.length - 3} more)` : '');
  return sanitize(
    `its snapshot passed its check, but the restored members ${listed} would take names Metacontroller's related objects for generation ${parent.metadata.generation ?? 0} of ${clusterOf(parent, spec).name} were not asked for, so no running member is dropped; any change of the spec asks for them`,
    300,
  );
}

/**
 * The cluster as `restore` left it, when the observed members are its result (see resultOf); else undefined. Members
 * that are its result in part and something else beside (doubt): the restore is refused, the members kept.
 */
export function carriedOut(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  restore: Observation['restore'],
  now: { since?: string },
): Decision | undefined {
  const result = restore && !spec.paused ? resultOf(restore, obs) : undefined;
  if (!restore || !result) return undefined;
  if (result.phase === 'Doubt')
    return asChecked(refused(parent, spec, obs, newRecord(restore, false, now), result.reason));
  // Carried out by another EtcdRestore of its name and snapshot (this one made again): recorded as that one's, so
  // that this one is told AlreadyRestored (hooks/etcdbackup/restore.ts), never replayed.
  const { phase, by } = result;
  if (phase === 'Restored' && by !== restore.uid)
    return asChecked(
      decideRestore(withRecord(parent, { uid: by, name: restore.name, s3: restore.source.s3 }, phase, now), spec, obs),
    );
  return asChecked(decideRestore(withRecord(parent, restore, phase, now), spec, obs));
}

/**
 * The status lost (no record of a restore), the members serve as the result of an EtcdRestore that has not said it
 * finished (sync.ts, restoreOfPods): its record is found again, Restored, before a newer EtcdRestore is checked, so
 * that it ends as what it did (never NotTaken by the newer one's refusal) and a replay of it is known.
 */
export function servedResult(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  before: RestoreState | undefined,
  now: { since?: string },
): Decision | undefined {
  const own = obs.recordedRestore;
  if (before || !own || obs.restore?.uid === own.uid || spec.paused) return undefined;
  const result = resultOf(own, obs);
  if (result?.phase !== 'Restored' || result.by !== own.uid) return undefined;
  return asChecked(decideRestore(withRecord(parent, { ...own, s3: own.source.s3 }, 'Restored', now), spec, obs));
}

/** The parent with the record of `restore` in its status, at `phase` (a record lost with the status, found again). */
function withRecord(
  parent: ParentObject,
  restore: { uid: string; name: string; created?: string; s3?: RestoreState['s3'] },
  phase: RestoreState['phase'],
  now: { since?: string },
): ParentObject {
  const record: RestoreState = {
    uid: restore.uid,
    name: restore.name,
    phase,
    ...(restore.created ? { created: restore.created } : {}),
    ...(restore.s3 ? { s3: restore.s3 } : {}),
    ...now,
  };
  return { ...parent, status: { ...(parent.status ?? {}), restore: record } };
}

type Result = { phase: 'Restored' | 'Restoring'; by: string } | { phase: 'Doubt'; reason: string };

/**
 * Whether the observed members are `restore`'s result: the member pods started for it (RESTORED_BY names its uid,
 * or RESTORED_NAME its name: the EtcdRestore made again under its name after the status was lost) from its snapshot
 * (its fetch step reads the restore's path), all for one EtcdRestore; beside them only members that carry no
 * restore's record (they joined the restored cluster since: a member replaced, a scale-up, so it served). Restored
 * once one serves (etcd answers, a pod is Ready: its readiness probe asks etcd, or a member joined), Restoring
 * before. Undefined when no member pod is (nothing of it to keep). Doubt when some are and the others carry another
 * restore's record (or the restore's own from another snapshot): nothing shows a replay would not roll the cluster
 * back, so it is refused and the members are kept.
 */
function resultOf(restore: NonNullable<Observation['restore']>, obs: Observation): Result | undefined {
  const by = (p: KubeObject) => p.metadata.annotations?.[RESTORED_BY];
  const ours = (p: KubeObject) => {
    const a = p.metadata.annotations ?? {};
    const uid = by(p);
    return (
      uid !== undefined &&
      (uid === restore.uid || a[RESTORED_NAME] === restore.name) &&
      restoredFrom(p) === restore.source.s3.path
    );
  };
  const result = obs.pods.filter(ours);
  const uid = result[0] ? by(result[0]) : undefined;
  if (uid === undefined) return undefined;
  const others = obs.pods.filter((p) => !ours(p));
  if (result.some((p) => by(p) !== uid) || others.some((p) => by(p) !== undefined))
    return {
      phase: 'Doubt',
      reason: sanitize(
        `members restored by an EtcdRestore of this name from ${restore.source.s3.path} run beside members of another restore: it is not carried out again over them (an EtcdRestore under a new name restores on purpose)`,
        200,
      ),
    };
  const served = obs.etcd !== undefined || obs.pods.some(isPodReady) || others.length > 0;
  // Made again under its name: only a restore that served is known as carried out (one still starting is its own).
  if (uid !== restore.uid && !served) return undefined;
  return { phase: served ? 'Restored' : 'Restoring', by: uid };
}

/** The snapshot path a member pod was restored from (its fetch step's `--s3-path`), if it was. */
export function restoredFrom(pod: KubeObject): string | undefined {
  const init = (pod['spec'] as { initContainers?: Array<{ name?: string; args?: unknown[] }> } | undefined)
    ?.initContainers;
  const args = init?.find((x) => x.name === 'fetch-snapshot')?.args ?? [];
  const at = args.indexOf('--s3-path');
  const path = at >= 0 ? args[at + 1] : undefined;
  return typeof path === 'string' ? path : undefined;
}

/**
 * Whether no member runs as a new restore comes: one before it failed after dropping them, or no member pod and no
 * member claim is left (the cluster is new, or its status was lost after a restore dropped its members: never
 * bootstrapped empty beside the check, and a refusal then leaves nothing "as it was").
 */
export function noMemberRuns(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  before: RestoreState | undefined,
): boolean {
  if (noMembersLeft(before)) return true;
  // Claims the request did not list may hold members' data: not known to be none.
  const claimsKnown = obs.claims !== undefined || !spec.pod?.persistentVolumeClaimSpec;
  return obs.pods.length === 0 && claimsKnown && liveMemberClaims(clusterOf(parent, spec).name, obs).length === 0;
}

/** The record of a new EtcdRestore, Checking from now. */
export function newRecord(
  pending: NonNullable<Observation['restore']>,
  noMembers: boolean,
  now: { since?: string },
): RestoreState {
  return {
    uid: pending.uid,
    name: pending.name,
    phase: 'Checking',
    ...(pending.created ? { created: pending.created } : {}),
    ...(noMembers ? { noMembers: true } : {}),
    ...now,
  };
}

/** The cluster as it is while its restore's snapshot is checked, with the check pod beside its members. */
export function checking(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  record: RestoreState,
  source: RestoreSource,
): Decision {
  // (The images the restored members will run: restoredSpec.)
  const made = restoreCheckPod(parent, restoredSpec(parent, spec, obs), source, record.uid);
  // A check pod that runs for this restore is answered as it was made: a pod's spec cannot change in place (a check
  // made by an earlier metaops, without its DNS settings, would otherwise be an update the API server refuses).
  // After a check pod dropped as a run that proved nothing, none is made until its back-off passed (afterCheck).
  const check = checkBackingOff(record.checkAgain, obs.now)
    ? undefined
    : obs.restoreCheck && sameCheck(obs.restoreCheck, made)
      ? keepObserved(obs.restoreCheck)
      : made;
  if (record.noMembers) {
    // No member to keep running meanwhile (a restore before this one failed after dropping them): none is
    // started, and status speaks of this restore, not of the one that failed.
    const message = `no member runs; EtcdRestore ${record.name}: its snapshot is fetched and checked, then the restored members start`;
    return {
      ...restoreFailed(lastIndexOf(parent, spec, obs), record),
      phase: 'Creating',
      reason: 'Restoring',
      conditions: [
        { type: 'Available', status: false, reason: 'Restoring', message },
        { type: 'Recovering', status: true, reason: 'Restoring', message },
      ],
      restoreCheck: check,
      converging: true,
    };
  }
  const { restore: _ignored, ...running } = obs;
  const d = decideRestore(parent, spec, running);
  return { ...d, restore: record, restoreCheck: check, converging: true };
}

/** A restore ended before any member was dropped: the cluster as it is, the record failed with the reason. */
export function refused(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  record: RestoreState,
  reason: string,
): Decision {
  const ended: RestoreState = { ...record, phase: 'Failed', reason: sanitizeAws(reason, 200), refused: true };
  // With no member running when it came (a restore before it failed after dropping them, a status lost after this
  // one's members were dropped, a new cluster), there is no cluster "as it was": held, nothing started, and it is
  // not recorded as having left one untouched.
  if (record.noMembers) return restoreFailed(lastIndexOf(parent, spec, obs), ended);
  ended.untouched = true;
  const { restore: _ignored, ...running } = obs;
  const d = decideRestore(parent, spec, running);
  return { ...d, restore: ended };
}

/** The Restore condition while a restore's check runs, and once one ended with the cluster untouched. */
export function asChecked(d: Decision): Decision {
  const r = d.restore;
  if (r?.phase === 'Checking') {
    d.conditions = [
      ...d.conditions,
      {
        type: 'Restore',
        status: true,
        reason: 'CheckingSnapshot',
        message: `EtcdRestore ${r.name}: its snapshot is fetched and checked before any member is dropped`,
      },
    ];
  } else if (r?.phase === 'Failed' && (r.untouched || r.refused)) {
    // "As it was" only when members ran as it came: with none (a status lost after this restore dropped them, a
    // restore before it that failed after dropping them), it says so.
    const after = r.untouched
      ? 'the cluster is as it was'
      : 'no member runs, and none is started until an EtcdRestore replaces the cluster';
    d.conditions = [
      ...d.conditions,
      {
        type: 'Restore',
        status: false,
        reason: 'RestoreRefused',
        message: `EtcdRestore ${r.name} was not carried out: ${r.reason ?? 'its snapshot check failed'}; ${after}`,
      },
    ];
  }
  return d;
}
