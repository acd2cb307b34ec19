// The EtcdCluster decisions, pure: given the parent, its observed pods and what etcd says about its members,
// which one membership change (if any) to make, which pods should exist, and what to report.
//
// Order of concerns, as etcd-operator reconciled: a lost quorum stops everything; then dead members are
// removed (their replacement is a later add); then the size; then the version, one member at a time.
// At most one membership change per sync; the next sync (resyncAfterSeconds) takes the next step.
import { isPodReady, type KubeObject, type ParentObject, rfc3339 } from '../../lib/index.js';
import type { RestoreState } from '../etcdcommon/index.js';
import {
  clusterOf,
  image,
  memberIndex,
  memberName,
  etcdVersion,
  podOfMember,
  RESTORED_BY,
  type RestoreSource,
} from './members.js';
import { sanitize, sanitizeAws } from './pods.js';
import {
  detectFailure,
  failureMessage,
  failureOnPods,
  markedFrom,
  recordedFailure,
  UPGRADE_FAILED,
  UPGRADE_MARK,
  othersOutage,
  withAnnotation,
  withUpgradeClock,
  type UpgradeFailure,
} from './upgrade.js';
import { checkVerdict, pinOf, recordedSource, restoreCheckPod, restoreOverdue, sameCheck } from './restore.js';
import type { EtcdClusterSpec } from './schema.js';
import { restoreFailed, withOutcomes } from './plan/conditions.js';
import {
  failedInitStep,
  initFailure,
  isMemberReport,
  lastIndexOf,
  liveMemberClaims,
  MAJORITY_LOST,
  noMembersLeft,
  podsWereCreated,
} from './plan/evidence.js';
import { restoredMembers } from './plan/member-pods.js';
import { decideMembers } from './plan/members.js';
import type { Decision, MemberReport, Observation } from './plan/types.js';
import { compareVersions, upgradeRefusal } from './plan/versions.js';

export { sanitize };
export type { Action, Decision, MemberReport, Observation } from './plan/types.js';
export { PENDING_ADD_SECONDS, UNHEALTHY_REPLACE_SECONDS } from './plan/types.js';
export { compareVersions, supportsLearners, upgradeRefusal } from './plan/versions.js';

/**
 * A restore replaces the cluster: an explicit request, and the only decision that drops every member.
 * First the old members are dropped (their data goes with them), then `size` members restored from the
 * snapshot start together. The record of a restore is the EtcdRestore's own status (sync.ts, pendingRestore).
 */
export function decide(parent: ParentObject, spec: EtcdClusterSpec, obs: Observation): Decision {
  const before = (parent.status as { restore?: RestoreState } | undefined)?.restore;
  const pending = obs.restore && before?.uid !== obs.restore.uid ? obs.restore : undefined;
  const now = obs.now ? { since: rfc3339(obs.now) } : {};
  // A restore this cluster already carried out, whose record was lost with the status (and whose EtcdRestore does
  // not say succeeded yet): the observed members are its result, they are never dropped to restore it again.
  const resumed = carriedOut(parent, spec, obs, pending, now);
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

/** A restore whose check runs (`before`, Checking): its check pod's verdict, and the drop once it passed. */
function afterCheck(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation & { restore: NonNullable<Observation['restore']> },
  before: RestoreState,
  now: { since?: string },
): Decision {
  // A check pod made for another restore, or with other arguments (the EtcdRestore's spec edited since), proves
  // nothing: it is dropped, and a new one checks (the deadline still counts from the first).
  const expected = restoreCheckPod(parent, spec, obs.restore.source, before.uid);
  const check = obs.restoreCheck && sameCheck(obs.restoreCheck, expected) ? obs.restoreCheck : undefined;
  const verdict = checkVerdict(check, before.since, obs.now);
  // A check pod its node ended (evicted by a drain) proved nothing either: dropped, and a new one checks.
  if ((obs.restoreCheck && !check) || verdict.state === 'again')
    return { ...checking(parent, spec, obs, before, obs.restore.source), restoreCheck: undefined } as Decision;
  if (verdict.state === 'failed') return refused(parent, spec, obs, before, verdict.reason);
  if (verdict.state === 'waiting' || spec.paused) return checking(parent, spec, obs, before, obs.restore.source);
  // The snapshot is there and intact: only now are the old members dropped.
  const { noMembers: _none, ...replacing } = before;
  // Past this point there is no way back: the snapshot checked (and what its check pinned) is recorded, and the
  // restore carries on from it even if its EtcdRestore is edited or deleted (sync.ts, carriedOn).
  const pin = pinOf(check, obs.restore.source, before.uid);
  return decideRestore(parent, spec, obs, {
    ...replacing,
    phase: 'Replacing',
    s3: obs.restore.source.s3,
    ...(pin ? { snapshot: pin } : {}),
    ...now,
  });
}

/** The cluster as `restore` left it, when the observed members are its result (see resultOf); else undefined. */
function carriedOut(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  restore: Observation['restore'],
  now: { since?: string },
): Decision | undefined {
  const phase = restore && !spec.paused ? resultOf(restore, obs) : undefined;
  if (!restore || !phase) return undefined;
  return asChecked(decideRestore(withRecord(parent, restore, phase, now), spec, obs));
}

/** The parent with the record of `restore` in its status, at `phase` (a record lost with the status, found again). */
function withRecord(
  parent: ParentObject,
  restore: NonNullable<Observation['restore']>,
  phase: RestoreState['phase'],
  now: { since?: string },
): ParentObject {
  const record: RestoreState = {
    uid: restore.uid,
    name: restore.name,
    phase,
    ...(restore.created ? { created: restore.created } : {}),
    ...now,
  };
  return { ...parent, status: { ...(parent.status ?? {}), restore: record } };
}

/**
 * Whether the observed members are `restore`'s result: every member pod was started for it (RESTORED_BY names its
 * uid) from its snapshot (its fetch step reads the restore's path). Restored once one serves (etcd answers, or a pod is Ready: its readiness
 * probe asks etcd), Restoring before. Undefined when they are not (or there is no member pod).
 */
function resultOf(
  restore: NonNullable<Observation['restore']>,
  obs: Observation,
): 'Restored' | 'Restoring' | undefined {
  const ours = (p: KubeObject) =>
    p.metadata.annotations?.[RESTORED_BY] === restore.uid && restoredFrom(p) === restore.source.s3.path;
  if (obs.pods.length === 0 || !obs.pods.every(ours)) return undefined;
  return obs.etcd || obs.pods.some(isPodReady) ? 'Restored' : 'Restoring';
}

/** The snapshot path a member pod was restored from (its fetch step's `--s3-path`), if it was. */
function restoredFrom(pod: KubeObject): string | undefined {
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
function noMemberRuns(
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
function newRecord(
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
function checking(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  record: RestoreState,
  source: RestoreSource,
): Decision {
  const check = restoreCheckPod(parent, spec, source, record.uid);
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
function refused(
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
function asChecked(d: Decision): Decision {
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

/**
 * The restore phases once its check passed (`replacing`: the restore to replace the cluster with now), then the
 * membership rules.
 */
// eslint-disable-next-line max-lines-per-function, complexity -- the restore phases before the membership rules; to be split with decideMembers (review item 5), after its mutation tests (issue 23)
function decideRestore(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  replacing?: RestoreState,
): Decision {
  const before = (parent.status as { restore?: RestoreState } | undefined)?.restore;
  // While replacing: no member, no membership call, pods as `pods` says; the ordinals keep growing.
  const restoring = (
    pods: KubeObject[],
    lastMemberIndex: number,
    restore: RestoreState,
    message: string,
  ): Decision => ({
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
  });
  const c = clusterOf(parent, spec);
  const seen = [...obs.pods.map((p) => p.metadata.name!), ...obs.terminating].map((n) => memberIndex(c.name, n) ?? -1);
  const lastIndex = Math.max(
    (parent.status as { lastMemberIndex?: number } | undefined)?.lastMemberIndex ?? -1,
    ...seen,
    -1,
  );
  // The snapshot the restored members fetch: the one checked (recorded in status when the old members were
  // dropped), never the EtcdRestore's spec as edited since; a record from before that field, the spec.
  const source = checkedSource(before, obs);
  // A failed upgrade holds the cluster on the version it ran: the restored members run that one too, and the
  // hold is carried while the restore runs (its members' pods, which recorded it, are the ones dropped).
  const hold =
    recordedFailure(parent.status, etcdVersion(spec.version)) ?? failureOnPods(obs.pods, etcdVersion(spec.version));
  const start = (names: string[], uid: string, from: RestoreSource): KubeObject[] =>
    restoredMembers(parent, hold ? { ...spec, version: hold.from } : spec, names, from, uid);
  const restoringHeld = (...args: Parameters<typeof restoring>): Decision => {
    const d = restoring(...args);
    if (hold) d.upgradeFailed = hold;
    return d;
  };
  if (replacing && obs.restore) {
    return restoringHeld(
      [],
      lastIndex,
      replacing,
      `EtcdRestore ${replacing.name}: replacing the cluster with the snapshot ${replacing.s3?.path ?? obs.restore.source.s3.path}`,
    );
  }
  if (before?.phase === 'Replacing' && obs.restore?.uid === before.uid && source) {
    if (obs.pods.length > 0 || obs.terminating.length > 0)
      return restoringHeld([], lastIndex, before, 'waiting for the old members to go');
    // Every member is restored from the snapshot and they start together (etcd's documented way to restore a
    // multi-member cluster): no growth from a seed, so no voter is ever added before its pod runs.
    const names = Array.from({ length: spec.size }, (_, i) => memberName(c.name, lastIndex + 1 + i));
    return restoringHeld(
      start(names, obs.restore.uid, source),
      lastIndex + spec.size,
      // Its deadline (RESTORE_SECONDS) counts from here: the old members are gone.
      { ...before, phase: 'Restoring', ...(obs.now ? { since: rfc3339(obs.now) } : {}) },
      `members ${names.join(', ')} start from the snapshot ${source.s3.path}`,
    );
  }
  if (
    before?.phase === 'Replacing' &&
    obs.restore?.uid !== before.uid &&
    obs.pods.length === 0 &&
    obs.terminating.length === 0 &&
    !oldMembersKept(parent, c.name, obs)
  ) {
    // The EtcdRestore went (deleted) after the old members were dropped: past that point its checked snapshot is the
    // only data left, and the restore carries on from the record; without one, nothing is bootstrapped empty over it.
    if (obs.recordedRestore?.uid === before.uid)
      return decideRestore(parent, spec, { ...obs, restore: obs.recordedRestore });
    return restoreFailed(lastIndex, {
      ...before,
      phase: 'Failed',
      reason: 'the EtcdRestore was deleted before the restore started',
    });
  }
  if (
    before?.phase === 'Restoring' &&
    obs.pods.length > 0 &&
    obs.pods.length + obs.terminating.length < spec.size &&
    podsWereCreated(parent) &&
    !obs.etcd &&
    !obs.pods.some(isPodReady) &&
    obs.restore?.uid === before.uid
  ) {
    // Some restored members vanished before any served: they hold only the snapshot; all start again from it.
    return restoringHeld(
      [],
      lastIndex,
      before,
      'restored members were lost before they served: starting the restore again',
    );
  }
  if (before?.phase === 'Restoring' && obs.pods.length === 0 && obs.terminating.length === 0) {
    // The restored members vanished before they ran (a drain during the fetch): they start again from the
    // snapshot, never as an empty cluster; without the EtcdRestore, the restore ends failed.
    if (obs.restore?.uid !== before.uid && obs.recordedRestore?.uid === before.uid)
      return decideRestore(parent, spec, { ...obs, restore: obs.recordedRestore });
    if (obs.restore?.uid !== before.uid || !source)
      return restoreFailed(lastIndex, {
        ...before,
        phase: 'Failed',
        reason: 'the restored members were lost and the EtcdRestore is gone',
      });
    const names = Array.from({ length: spec.size }, (_, i) => memberName(c.name, lastIndex + 1 + i));
    return restoringHeld(
      start(names, obs.restore.uid, source),
      lastIndex + spec.size,
      before,
      `the restored members were lost before they ran: ${names.join(', ')} start again from the snapshot ${source.s3.path}`,
    );
  }
  if (before?.phase === 'Restoring') {
    // A member's restore steps failed (its init step, which fetches and restores the snapshot, exited with an
    // error): the restore ends failed, with the reason; its members are dropped and nothing else is started
    // until a new EtcdRestore. Only on that evidence, and only while no member serves: a member that crashed
    // after its restore, or etcd silent for a moment, is not a failed restore.
    // (Under restartPolicy Never the pod failed; under Always the kubelet retries the step, which failed.)
    const failed = obs.pods.find((p) => failedInitStep(p) !== undefined);
    if (failed && !obs.etcd && !obs.pods.some(isPodReady))
      return restoreFailed(lastIndex, { ...before, phase: 'Failed', reason: initFailure(failed) });
    // Nor may it wait forever: restored members that have not served within RESTORE_SECONDS end it failed, naming
    // why their pods wait (an image that cannot be pulled, a node that never comes, a fetch that hangs).
    const overdue = !obs.etcd && !obs.pods.some(isPodReady) ? restoreOverdue(before, obs.pods, obs.now) : undefined;
    if (overdue) return restoreFailed(lastIndex, { ...before, phase: 'Failed', reason: overdue });
  }
  if (
    !before &&
    obs.failedRestore &&
    obs.pods.length === 0 &&
    obs.terminating.length === 0 &&
    liveMemberClaims(c.name, obs).length === 0
  ) {
    // The status (and with it the restore's record) is lost, no member is left, and the newest EtcdRestore says it
    // failed: the failure may have dropped every member. Its record on the EtcdRestore holds as the status's would:
    // nothing is bootstrapped empty over the data, until a new EtcdRestore (or the failed one is deleted).
    const f = obs.failedRestore;
    return restoreFailed(lastIndex, {
      uid: f.uid,
      name: f.name,
      phase: 'Failed',
      reason: f.reason,
      noMembers: true,
      ...(f.created ? { created: f.created } : {}),
    });
  }
  if (noMembersLeft(before)) {
    // A failed restore left no member: nothing is bootstrapped over it (an empty cluster would look healthy); while
    // the members it dropped are still being deleted, it reads failed all the same. (One refused by its check
    // dropped nothing: the cluster goes on as any other.)
    if (obs.pods.length === 0) return restoreFailed(lastIndex, before!);
  }
  // An upgrade etcd does not support (a minor downgrade, a skipped minor, another major) is refused: the cluster
  // carries on at the version it runs (new or restarted members too), and a condition says why.
  // The version the members run: what the healthy ones say, else (none answers) the one status last reported.
  const lastReported = (parent.status as { currentVersion?: unknown } | undefined)?.currentVersion;
  const running =
    Object.values(obs.health)
      .filter((h) => h.healthy && h.version)
      .map((h) => h.version!)
      .sort(compareVersions)[0] ??
    (typeof lastReported === 'string' && /^\d+\.\d+\.\d+$/.test(lastReported) ? lastReported : undefined);
  const refused = running ? upgradeRefusal(running, etcdVersion(spec.version)) : undefined;
  // A member that failed on the version upgraded to halts the upgrade (upgrade.ts): every member on the version the
  // cluster ran, as long as spec.version asks for the one that failed.
  const target = etcdVersion(spec.version);
  const upgradeFrom = markedFrom(obs.pods, target);
  const voters = votingMembers(parent, spec, obs);
  const outage = (pod: string) => othersOutage(pod, voters, obs.pods);
  const failure = refused
    ? undefined
    : (recordedFailure(parent.status, target) ??
      failureOnPods(obs.pods, target) ??
      detectFailure({
        pods: obs.pods,
        targetImage: image(spec),
        target: etcdVersion(spec.version),
        running,
        previous: parent.status,
        now: obs.now,
        upgradeFrom,
        outage,
        versions: Object.fromEntries(
          Object.entries(obs.health).map(([n, h]) => [n, h.healthy ? h.version : undefined]),
        ),
        // (A Ready pod serves too: its probe asks etcd in the pod, on the version it runs, whether or not the hook
        // can reach it.)
        healthy: new Set([
          ...Object.entries(obs.health)
            .filter(([, h]) => h.healthy)
            .map(([n]) => n),
          ...obs.pods.filter(isPodReady).map((p) => p.metadata.name!),
        ]),
      }));
  const held = refused ? running! : failure?.from;
  const d = withOutcomes(
    upgradeRecords(
      decideMembers(parent, held ? { ...spec, version: held } : spec, obs, Boolean(held), failure?.member),
      target,
      failure,
      upgradeFrom ?? running,
      { answered: obs.etcd !== undefined, outage, ...(obs.now ? { now: rfc3339(obs.now) } : {}) },
    ),
  );
  if (failure) {
    d.conditions = [
      ...d.conditions.filter((x) => x.type !== 'Upgrading'),
      { type: 'Upgrading', status: false, reason: 'UpgradeFailed', message: failureMessage(failure) },
    ];
    delete d.targetVersion;
    d.upgradeFailed = failure;
  }
  if (refused) {
    d.conditions = [
      ...d.conditions.filter((x) => x.type !== 'Upgrading'),
      {
        type: 'Upgrading',
        status: false,
        reason: 'UpgradeRefused',
        message: `spec.version ${etcdVersion(spec.version)} is refused: ${refused}; the cluster stays at ${running}`,
      },
    ];
    delete d.targetVersion;
  }
  if (before) {
    if (before.phase === 'Failed') {
      d.restore = before;
      return d;
    }
    // Restored once the restored members serve with a quorum: the snapshot is then the cluster's data.
    // (Or once a restored member is Ready: its readiness probe asks etcd, so it serves the snapshot, even when
    // the hook cannot reach it.)
    // (Only a restore whose members were started: the old members of one never started are not its result.)
    const restored =
      before.phase === 'Restored' ||
      // (A quorum that holds is one etcd reported, of at least one voting member.)
      (before.phase === 'Restoring' && (d.quorum?.ok === true || obs.pods.some(isPodReady)));
    d.restore = { ...before, phase: restored ? 'Restored' : before.phase };
  }
  return d;
}

/**
 * The upgrade records on every member pod answered (upgrade.ts), which outlive the status and a lost member: the
 * upgrade under way (UPGRADE_MARK, from its start until every member runs the target) and a failed one
 * (UPGRADE_FAILED, while it holds).
 */
function upgradeRecords(
  d: Decision,
  target: string,
  failure: UpgradeFailure | undefined,
  from: string | undefined,
  o: { answered: boolean; outage: (pod: string) => boolean; now?: string },
): Decision {
  const upgrading = d.targetVersion !== undefined || d.pods.some((p) => markedFrom([p], target));
  const done = d.conditions.some((c) => c.type === 'Upgrading' && c.reason === 'AtVersion');
  const mark = upgrading && !done && from && from !== target ? `${from}->${target}` : undefined;
  const failed = failure ? JSON.stringify(failure) : undefined;
  const record = (p: KubeObject) => {
    const upgrade = withUpgradeClock(
      withAnnotation(withAnnotation(p, UPGRADE_MARK, mark), UPGRADE_FAILED, failed),
      o.outage(p.metadata.name!),
      o.now,
    );
    return o.answered ? withAnnotation(upgrade, MAJORITY_LOST, undefined) : upgrade;
  };
  return { ...d, pods: d.pods.map(record), fallbackPods: d.fallbackPods.map(record) };
}

/**
 * The voting members, by pod name: as etcd lists them, else as the status last recorded them (learners left out)
 * with the member pods observed.
 */
function votingMembers(parent: ParentObject, spec: EtcdClusterSpec, obs: Observation): string[] {
  const c = clusterOf(parent, spec);
  if (obs.etcd) return obs.etcd.members.filter((m) => !m.isLearner).map((m) => podOfMember(c, m) ?? m.id);
  const list = (parent.status as { memberList?: unknown } | undefined)?.memberList;
  const known = (Array.isArray(list) ? list : [])
    .filter((m): m is MemberReport => isMemberReport(m) && m.learner !== true)
    .map((m) => m.name);
  return [...new Set([...known, ...obs.pods.map((p) => p.metadata.name!)])];
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
