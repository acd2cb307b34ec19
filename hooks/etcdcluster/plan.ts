// The EtcdCluster decisions, pure: given the parent, its observed pods and what etcd says about its members,
// which one membership change (if any) to make, which pods should exist, and what to report.
//
// Order of concerns, as etcd-operator reconciled: a lost quorum stops everything; then dead members are
// removed (their replacement is a later add); then the size; then the version, one member at a time.
// At most one membership change per sync; the next sync (resyncAfterSeconds) takes the next step.
import { neverCreated } from './events.js';
import {
  type ConditionInput,
  isPodReady,
  keepObserved,
  type KubeObject,
  type ParentObject,
  previousConditions,
  rfc3339,
} from '../../lib/index.js';
import type { EtcdMember, MemberHealth } from '../etcdcommon/etcd.js';
import type { RestoreState } from '../etcdcommon/index.js';
import {
  clientURL,
  clusterOf,
  image,
  memberIndex,
  memberName,
  memberPod,
  memberImage,
  etcdVersion,
  peerURL,
  podOfMember,
  RESTORED_BY,
  podOfPeerURL,
  type Cluster,
  type RestoreSource,
} from './members.js';
import {
  crashLooping,
  DEAD_PHASES,
  etcdWaiting,
  IMAGE_WAITING,
  phaseOf,
  podWaiting,
  sanitize,
  sanitizeAws,
} from './pods.js';
import {
  detectFailure,
  failureMessage,
  failureOnPods,
  markedFrom,
  recordedFailure,
  UPGRADE_FAILED,
  UPGRADE_MARK,
  UPGRADED_AT,
  UPGRADED_FROM,
  othersOutage,
  withAnnotation,
  withUpgradeClock,
  type UpgradeFailure,
} from './upgrade.js';
import {
  checkVerdict,
  pinOf,
  recordedSource,
  restoreCheckPod,
  restoreOverdue,
  sameCheck,
  transientFailure,
} from './restore.js';
import type { EtcdClusterSpec } from './schema.js';

export { sanitize };

export type Action =
  | { type: 'add'; pod: string; peerURL: string; learner: boolean }
  | { type: 'remove'; id: string; pod: string; why: string }
  | { type: 'promote'; id: string; pod: string };

export interface Observation {
  /** Observed member pods that are not being deleted. */
  pods: KubeObject[];
  /** Names of observed pods being deleted. */
  terminating: string[];
  /** The member list, when etcd answered. */
  etcd?: { members: EtcdMember[]; clusterVersion?: string };
  etcdError?: string;
  /** The time of this sync (for how long a member has been unhealthy); without it no member is replaced for that. */
  now?: Date;
  /** Names of the observed member claims; undefined when the request did not say (then they are assumed). */
  claims?: string[];
  /** Names of observed claims that are being deleted (a subset of `claims`). */
  terminatingClaims?: string[];
  /** Health of each observed pod's member, by pod name. */
  health: Record<string, MemberHealth>;
  /** The newest EtcdRestore naming this cluster, if any. */
  restore?: { uid: string; name: string; source: RestoreSource; created?: string };
  /** The restore recorded in status with its checked snapshot (sync.ts, carriedOn): carried on once its EtcdRestore went. */
  recordedRestore?: { uid: string; name: string; source: RestoreSource; created?: string };
  /** The newest finished EtcdRestore of this cluster when it failed (its status.succeeded false), if any. */
  failedRestore?: { uid: string; name: string; reason: string; created?: string };
  /** The pod checking the restore's snapshot, as observed (restore.ts), if any. */
  restoreCheck?: KubeObject;
}

/** A restore that failed: Failed/RestoreFailed, no pod, until the user creates a new EtcdRestore. */
function restoreFailed(lastMemberIndex: number, restore: RestoreState): Decision {
  const message = `EtcdRestore ${restore.name} failed (${restore.reason ?? 'a restored member did not start'}); fix the cause and create a new EtcdRestore`;
  return {
    pods: [],
    fallbackPods: [],
    phase: 'Failed',
    reason: 'RestoreFailed',
    conditions: [
      { type: 'Available', status: false, reason: 'RestoreFailed', message },
      { type: 'Recovering', status: true, reason: 'RestoreFailed', message },
    ],
    members: [],
    lastMemberIndex,
    converging: false,
    restore,
  };
}

/** The reason a pod's init step gave (the CLI's JSON `reason` in its termination message: S3's words), scrubbed. */
function initFailure(pod: KubeObject): string {
  const failed = failedInitStep(pod);
  if (!failed) return 'a restored member failed';
  const t = failed.terminated;
  let reason = t.reason ?? 'Error';
  try {
    const parsed = JSON.parse(t.message ?? '') as { reason?: unknown };
    if (typeof parsed.reason === 'string') reason = parsed.reason;
  } catch {
    if (t.message) reason = t.message;
  }
  return sanitizeAws(`${failed.name ?? 'init'}: ${reason}`);
}

export interface MemberReport {
  name: string;
  id?: string;
  peerURL?: string;
  clientURL?: string;
  healthy: boolean;
  leader?: boolean;
  learner?: boolean;
  version?: string;
  /** An etcd alarm the member raised (NOSPACE: its backend reached the quota; writes are refused). */
  alarm?: string;
  /** Since when a started member is seen unhealthy while etcd answers (kept as first seen: no churn). */
  unhealthySince?: string;
  /** Since when an addition (a learner, or a voter that never started) is seen waiting for its member to start. */
  pendingSince?: string;
}

/** A started member unhealthy for longer than this, while the others keep quorum without it, is replaced. */
export const UNHEALTHY_REPLACE_SECONDS = 600;
/**
 * An addition whose member has not started (and caught up, for a learner) after this long is cancelled: its pod
 * cannot be scheduled, its image cannot be pulled, it crashes before it answers. The next sync adds a new member
 * with the spec of the moment, so nothing waits forever on one pod, and a fixed spec is taken at once.
 */
export const PENDING_ADD_SECONDS = 600;

export interface Decision {
  action?: Action;
  /** The pods that should exist once the action (if any) succeeded. */
  pods: KubeObject[];
  /** The pods to keep if the action fails. */
  fallbackPods: KubeObject[];
  phase: 'Creating' | 'Running' | 'Failed';
  reason?: string;
  conditions: ConditionInput[];
  members: MemberReport[];
  quorum?: { members: number; healthy: number; needed: number; ok: boolean; down: string[] };
  lastMemberIndex: number;
  currentVersion?: string;
  targetVersion?: string;
  /** Whether another step is pending (drives resyncAfterSeconds). */
  converging: boolean;
  restore?: RestoreState;
  /**
   * Observed claims kept although no pod or reported member names them: while etcd does not answer, every
   * member claim seen is kept (status may be lost or stale; a claim goes only on a recorded decision).
   */
  keepClaims?: string[];
  /** The pod that checks a pending restore's snapshot (restore.ts), answered beside the members. */
  restoreCheck?: KubeObject;
  /** A failed upgrade that holds the cluster at the version it ran (upgrade.ts), kept in status. */
  upgradeFailed?: UpgradeFailure;
  /** With an action: the member list once it succeeded (a member removed on purpose leaves it at once). */
  onSuccess?: { members: MemberReport[] };
  /** With an action: the pods kept as they are when it fails, and the last ordinal (an add gives its one back). */
  onFailure?: { pods: KubeObject[]; lastMemberIndex: number };
}

/** The answer for either outcome of the decision's action, decided here rather than edited by the caller. */
function withOutcomes(d: Decision): Decision {
  const a = d.action;
  if (!a) return d;
  return {
    ...d,
    onSuccess: { members: a.type === 'remove' ? d.members.filter((m) => m.name !== a.pod) : d.members },
    onFailure: { pods: d.fallbackPods, lastMemberIndex: a.type === 'add' ? d.lastMemberIndex - 1 : d.lastMemberIndex },
  };
}

/**
 * The pod with the etcd container on `img`. `from`: the version its member ran before (an upgrade), recorded on the
 * pod (UPGRADED_FROM) until the member serves `version`; without it (a roll back, an unstick) the record goes.
 */
function withImage(pod: KubeObject, img: string, version: string, from?: string, at?: string): KubeObject {
  const copy = keepObserved(pod);
  // Copies of the spec and its containers: the observed pod (the request) is never written to.
  const spec = copy['spec'] ? { ...(copy['spec'] as Record<string, unknown>) } : undefined;
  if (spec) copy['spec'] = spec;
  const containers = Array.isArray(spec?.['containers'])
    ? (spec!['containers'] as Array<{ name?: string; image?: string }>).map((c) => ({ ...c }))
    : undefined;
  if (spec && containers) spec['containers'] = containers;
  const container = containers?.find((c) => c.name === 'etcd') ?? containers?.[0];
  if (container) container.image = img;
  const { [UPGRADED_FROM]: _was, [UPGRADED_AT]: _at, ...annotations } = copy.metadata.annotations ?? {};
  copy.metadata.annotations = {
    ...annotations,
    'etcd.version': version,
    ...(from && from !== version ? { [UPGRADED_FROM]: from, ...(at ? { [UPGRADED_AT]: at } : {}) } : {}),
  };
  return copy;
}

/** The pod without the upgrade record: its member served the version of its image. */
function upgradeDone(pod: KubeObject): KubeObject {
  const { [UPGRADED_FROM]: _was, [UPGRADED_AT]: _at, ...annotations } = pod.metadata.annotations ?? {};
  return { ...pod, metadata: { ...pod.metadata, annotations } };
}

/**
 * The members among `names` whose data is gone for good. Without storage: the pod deleted (unobserved, or being
 * deleted) or finished (Failed, Succeeded: it never runs again, its emptyDir goes with it). With storage: the claim
 * gone or being deleted while the pod is gone too (`claimGone`); a member's data lives on its claim, and a member
 * whose claim is there is made again on it.
 */
function lostForGood(
  names: string[],
  obs: Observation,
  storage: boolean,
  claimGone: (name: string) => boolean,
): Array<{ name: string; how: string }> {
  const byName = new Map(obs.pods.map((p) => [p.metadata.name!, p]));
  if (storage) {
    return names
      .filter((name) => claimGone(name) && (!byName.has(name) || obs.terminating.includes(name)))
      .map((name) => ({ name, how: 'pod and claim deleted' }));
  }
  return names.flatMap((name) => {
    const pod = byName.get(name);
    if (!pod || obs.terminating.includes(name)) return [{ name, how: 'pod deleted' }];
    const phase = phaseOf(pod);
    return DEAD_PHASES.has(phase) ? [{ name, how: `pod ${phase}` }] : [];
  });
}

/**
 * A majority lost for good, as recorded on the surviving member pods when it was seen (the lost members, and how
 * many voting members there were): the lost pods are gone from what is observed, and the status may be lost too.
 * Read only while etcd does not answer; removed once it does.
 */
const MAJORITY_LOST = 'etcd.metaops.io/majority-lost';

function majorityLostOnPods(
  pods: KubeObject[],
): { lost: Array<{ name: string; how: string }>; voters: number } | undefined {
  for (const p of pods) {
    const text = p.metadata.annotations?.[MAJORITY_LOST];
    if (!text || text.length > 4096) continue;
    try {
      const r = JSON.parse(text) as { lost?: unknown; voters?: unknown };
      const lost = Array.isArray(r.lost)
        ? r.lost.filter(
            (l): l is { name: string; how: string } =>
              typeof (l as { name?: unknown })?.name === 'string' && typeof (l as { how?: unknown })?.how === 'string',
          )
        : [];
      if (lost.length > 0 && typeof r.voters === 'number' && Number.isInteger(r.voters) && r.voters >= lost.length)
        return { lost: lost.map((l) => ({ name: sanitize(l.name, 64), how: sanitize(l.how, 64) })), voters: r.voters };
    } catch {
      // Not ours: no record.
    }
  }
  return undefined;
}

/** What Available says when a majority lost its data: who, how, and the way out. */
function majorityLostMessage(lost: Array<{ name: string; how: string }>, members: number, storage = false): string {
  return (
    `${lost.length} of ${members} members lost with their data (${lost.map((l) => `${l.name}: ${l.how}`).join(', ')}` +
    `${storage ? '' : '; no storage'}): quorum cannot come back; restore from a backup (EtcdRestore) or delete and recreate the EtcdCluster`
  );
}

function versionOfImage(img: string | undefined): string | undefined {
  const tag = img?.split(':').pop();
  return tag ? etcdVersion(tag) : undefined;
}

/** etcd supports learners (non-voting members that catch up before they count) from 3.4. */
export function supportsLearners(clusterVersion: string | undefined): boolean {
  if (!clusterVersion) return false;
  const [major, minor] = clusterVersion.split('.').map(Number);
  return (major ?? 0) > 3 || ((major ?? 0) === 3 && (minor ?? 0) >= 4);
}

function initialCluster(c: Cluster, members: Array<{ pod: string }>): string {
  return members.map((m) => `${m.pod}=${peerURL(c, m.pod)}`).join(',');
}

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

/** Whether a restore record leaves the cluster without members: failed after dropping them, or refused on none. */
function noMembersLeft(r: RestoreState | undefined): boolean {
  return r?.phase === 'Failed' && (!r.untouched || r.noMembers === true);
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

/** The highest member ordinal the status recorded or a pod shows. */
function lastIndexOf(parent: ParentObject, spec: EtcdClusterSpec, obs: Observation): number {
  const c = clusterOf(parent, spec);
  const seen = [...obs.pods.map((p) => p.metadata.name!), ...obs.terminating].map((n) => memberIndex(c.name, n) ?? -1);
  return Math.max((parent.status as { lastMemberIndex?: number } | undefined)?.lastMemberIndex ?? -1, ...seen, -1);
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

/** The members of a restore, all started together from its snapshot. */
// eslint-disable-next-line max-params -- the parent, its spec, the cluster, the names, the snapshot and its restore
function restoredMembers(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  c: Cluster,
  names: string[],
  source: RestoreSource,
  restoreUid: string,
): KubeObject[] {
  const all = initialCluster(
    c,
    names.map((pod) => ({ pod })),
  );
  return names.map((pod) =>
    memberPod({ parent, spec, name: pod, initialCluster: all, state: 'new', restore: source, restoreUid }),
  );
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
    restoredMembers(parent, hold ? { ...spec, version: hold.from } : spec, c, names, from, uid);
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

/** The member claims observed that are not being deleted. */
function liveMemberClaims(cluster: string, obs: Observation): string[] {
  // Stryker disable next-line ArrayDeclaration: a name that is no member's is filtered out, the same as no claim
  return (obs.claims ?? []).filter((n) => memberIndex(cluster, n) !== undefined && !obs.terminatingClaims?.includes(n));
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

/** `holdVersion`: no member's image is changed (an upgrade was refused; new members take the running version). */
// eslint-disable-next-line max-lines-per-function, complexity -- the membership rules of the header, in order; named steps are review item 5, done once the mutation tests guard every rule (issue 23)
function decideMembers(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  holdVersion = false,
  rollBack?: string,
): Decision {
  const c = clusterOf(parent, spec);
  const targetImage = image(spec);
  const targetVersion = etcdVersion(spec.version);
  const previous = (parent.status ?? {}) as {
    phase?: string;
    reason?: string;
    lastMemberIndex?: number;
    memberList?: unknown[];
  };
  // A member upgraded in place that served the version of its image: its upgrade is done (upgrade.ts).
  const kept = obs.pods.map((p) => {
    const h = obs.health[p.metadata.name!];
    const done =
      p.metadata.annotations?.[UPGRADED_FROM] !== undefined &&
      h?.healthy === true &&
      h.version !== undefined &&
      h.version === versionOfImage(memberImage(p));
    return done ? upgradeDone(keepObserved(p)) : keepObserved(p);
  });

  // Ordinals only grow: the next member takes one more than any ever seen.
  const seen = [
    ...obs.pods.map((p) => p.metadata.name!),
    ...obs.terminating,
    ...(obs.etcd?.members ?? []).flatMap((m) => [m.name, podOfPeerURL(c, m.peerURLs[0] ?? '') ?? '']),
  ]
    .map((n) => memberIndex(c.name, n))
    .filter((i): i is number => i !== undefined);
  let lastMemberIndex = Math.max(
    typeof previous.lastMemberIndex === 'number' ? previous.lastMemberIndex : -1,
    ...seen,
    -1,
  );

  // Member claims seen and not being deleted: while etcd does not answer, they are kept whatever status says.
  const claimsSeen = liveMemberClaims(c.name, obs);
  // A member pod whose etcd cannot start on its image (it cannot be pulled: a version that does not exist) gets
  // the spec's image in place, whatever else is decided: a fixed spec un-sticks it even while quorum is lost.
  // (Decided on the observed pod, which has a status; applied to its copy.)
  // So does one whose etcd keeps exiting on an image other than the spec's (a failed upgrade rolled back, or a
  // spec.version put back): the same member, on its data, starts again on the version that ran.
  // Never forward to a newer version than its own, unless it is the member being upgraded (UPGRADED_FROM): members
  // whose etcd keeps exiting on the version they ran (an OOM kill, their node) are no upgrade's to move, all at once
  // and while quorum is lost, their crash then blamed on the new version; the upgrade takes them one at a time once
  // they are back (issue 30.4).
  const upgradesIt = (p: KubeObject) => {
    const own = versionOfImage(memberImage(p));
    return own !== undefined && compareVersions(own, targetVersion) < 0;
  };
  const crashingBehind = (p: KubeObject) =>
    etcdWaiting(p) === 'CrashLoopBackOff' && upgradesIt(p) && p.metadata.annotations?.[UPGRADED_FROM] === undefined;
  const stuckOnImage = new Set(
    obs.pods
      .filter(
        (p) =>
          memberImage(p) !== targetImage &&
          (IMAGE_WAITING.has(podWaiting(p) ?? '') ||
            (etcdWaiting(p) === 'CrashLoopBackOff' && !crashingBehind(p)) ||
            p.metadata.name === rollBack),
      )
      .map((p) => p.metadata.name!),
  );
  const unstick = (p: KubeObject): KubeObject =>
    stuckOnImage.has(p.metadata.name!) ? withImage(p, targetImage, targetVersion) : p;
  kept.splice(0, kept.length, ...kept.map(unstick));
  const base = {
    fallbackPods: kept,
    lastMemberIndex,
    targetVersion: undefined as string | undefined,
    keepClaims: obs.etcd ? [] : claimsSeen,
  };
  const podByName = new Map(obs.pods.map((p) => [p.metadata.name!, p]));

  const storage = Boolean(spec.pod?.persistentVolumeClaimSpec);
  // With storage, a member's data is its claim: a member whose claim is gone (or being deleted) has lost its data,
  // whether or not etcd answers. It is never made again under its old identity (an empty member with its old ID
  // counts in the raft majority and can overwrite the others' data): it is lost, and replaced (remove + add).
  const claimGone = (pod: string) =>
    storage && obs.claims !== undefined && (!obs.claims.includes(pod) || Boolean(obs.terminatingClaims?.includes(pod)));
  // The members this cluster had when etcd last answered (with their IDs): they stay members, and keep their
  // claims, whatever happened to their pods, until removed on purpose.
  const known: MemberReport[] = (Array.isArray(previous.memberList) ? previous.memberList : [])
    .filter((m): m is MemberReport => isMemberReport(m) && Boolean(m.id) && memberIndex(c.name, m.name) !== undefined)
    .map(({ leader: _leader, ...m }) => ({ ...m, healthy: false }));
  const markDown = (m: MemberReport): MemberReport => ({ ...m, healthy: false });
  // Pods of known members, recreated under the same name on the same claim: etcd restarts them from their
  // data as the same member (same ID); the initial-cluster flags are ignored when the data directory exists.
  const restartPods = (missing: MemberReport[]) =>
    missing.map((m) =>
      memberPod({
        parent,
        spec,
        name: m.name,
        initialCluster: initialCluster(
          c,
          known.map((k) => ({ pod: k.name })),
        ),
        state: 'existing',
      }),
    );

  // No pods at all.
  if (obs.pods.length === 0) {
    if (obs.terminating.length > 0) {
      return {
        ...base,
        pods: [],
        phase: 'Creating',
        conditions: [scaling(true, 'WaitingForTermination', `waiting for ${obs.terminating.join(', ')} to go`)],
        members: known,
        converging: true,
      };
    }
    // Whether the cluster ever held data: it ran, or it already reported every member lost (its own status
    // fed back: a second sync must not bootstrap an empty cluster over the first one's verdict).
    const storedOnClaims = storage && claimsSeen.length > 0;
    const everRan =
      previous.phase === 'Running' || previous.reason === 'AllMembersLost' || known.length > 0 || storedOnClaims;
    if (storage && known.length === 0 && claimsSeen.length > 0) {
      // Claims but no known member (status lost, or the members never reported): each claim's member starts
      // again on it under its name; etcd restarts from the data where there is some, and the initial cluster
      // of those names is the one they were bootstrapped with, so nothing is made empty over data.
      const all = initialCluster(
        c,
        claimsSeen.map((pod) => ({ pod })),
      );
      const message = `every member pod is gone; starting ${claimsSeen.join(', ')} again on their volumes`;
      return {
        ...base,
        pods: claimsSeen.map((pod) => memberPod({ parent, spec, name: pod, initialCluster: all, state: 'new' })),
        phase: 'Running',
        reason: 'MembersRestarting',
        conditions: [available(false, 'MembersRestarting', message), recovering(true, 'RestartingMembers', message)],
        members: [],
        converging: true,
      };
    }
    if (everRan && storage && known.length > 0) {
      const lost = lostForGood(
        known.map((m) => m.name),
        obs,
        storage,
        claimGone,
      );
      const onClaims = known.filter((m) => !lost.some((l) => l.name === m.name));
      if (known.length - lost.length < Math.floor(known.length / 2) + 1) {
        const message = majorityLostMessage(lost, known.length, storage);
        return {
          ...base,
          pods: restartPods(onClaims),
          phase: 'Failed',
          reason: 'MajorityLost',
          conditions: [available(false, 'MajorityLost', message), recovering(true, 'MajorityLost', message)],
          members: known,
          converging: false,
        };
      }
      const message = `every member pod is gone; restarting ${onClaims.map((m) => m.name).join(', ')} on their volumes${lost.length ? ` (${lost.map((l) => l.name).join(', ')}: claim deleted, replaced once a quorum is back)` : ''}`;
      return {
        ...base,
        pods: restartPods(onClaims),
        phase: 'Running',
        reason: 'MembersRestarting',
        conditions: [available(false, 'MembersRestarting', message), recovering(true, 'RestartingMembers', message)],
        members: known,
        converging: true,
      };
    }
    if (everRan) {
      const message =
        'every member pod is gone and with them the data; restore from a backup (EtcdRestore) or delete and recreate the EtcdCluster';
      return {
        ...base,
        pods: [],
        phase: 'Failed',
        reason: 'AllMembersLost',
        conditions: [available(false, 'AllMembersLost', message), recovering(true, 'AllMembersLost', message)],
        members: known,
        converging: false,
      };
    }
    // Bootstrap: the initial members start together (--initial-cluster-state=new for all of them), so no
    // single member that never starts can cost a quorum that a one-by-one growth would have had to keep.
    // A bootstrap refused by admission (its pods never created) is answered again under the same names (events.ts).
    if (neverCreated(parent.status, obs)) lastMemberIndex = Math.max(-1, lastMemberIndex - spec.size);
    const initial = Array.from({ length: spec.size }, (_, i) => memberName(c.name, lastMemberIndex + 1 + i));
    lastMemberIndex += spec.size;
    const all = initialCluster(
      c,
      initial.map((pod) => ({ pod })),
    );
    return {
      ...base,
      lastMemberIndex,
      pods: initial.map((pod) => memberPod({ parent, spec, name: pod, initialCluster: all, state: 'new' })),
      phase: 'Creating',
      conditions: [
        available(false, 'Bootstrapping', `starting members ${initial.join(', ')}`),
        scaling(true, 'Bootstrapping', `${initial.length} initial members`),
      ],
      members: [],
      converging: true,
    };
  }

  const healthOf = (pod: string) => (Object.hasOwn(obs.health, pod) ? obs.health[pod]! : { healthy: false });
  // Pods exist but no member list: bootstrapping, or quorum lost. No membership change either way.
  if (!obs.etcd) {
    const podNames = new Set(obs.pods.map((p) => p.metadata.name!));
    // (Not while a restore runs: its members carry the snapshot; a failed restore is decided in decide().)
    const restorePhase = (parent.status as { restore?: RestoreState } | undefined)?.restore?.phase;
    const restoringNow = restorePhase === 'Restoring';
    // A member pod is Ready only when its etcd serves (the readiness probe asks etcd), so a cluster with a Ready
    // pod has formed and may hold data, whether or not the hook can reach it (a wrong operatorSecret, a network
    // policy): from then on it is never treated as a bootstrap again.
    const formed = obs.pods.some(isPodReady);
    // (Nor while Replacing: pods seen then are old members kept when the EtcdRestore went before they were dropped.)
    const bootstrapping =
      previous.phase === 'Creating' && known.length === 0 && !restoringNow && restorePhase !== 'Replacing' && !formed;
    // A bootstrap that cannot finish (a member failed, or the spec changed since: a typo fixed) starts over
    // with the current spec; nothing was stored in it: the hook wrote Creating when it started these members,
    // has seen no member Ready since, and none is Ready now. The claims go with the pods (explicit decision).
    const vanished = obs.pods.length + obs.terminating.length < spec.size && podsWereCreated(parent);
    if (bootstrapping && (vanished || obs.pods.some((p) => crashLooping(p) || memberImage(p) !== targetImage))) {
      const message = 'a member of the bootstrap failed or the spec changed: starting the bootstrap again';
      return {
        ...base,
        keepClaims: [],
        pods: [],
        phase: 'Creating',
        conditions: [available(false, 'Bootstrapping', message), scaling(true, 'RestartingBootstrap', message)],
        members: [],
        converging: true,
      };
    }
    // With storage, members whose pod vanished come back on their volumes (quorum may need them).
    // (Not those whose claim is gone: their data went with it.)
    const missing = storage
      ? known.filter((m) => !podNames.has(m.name) && !obs.terminating.includes(m.name) && !claimGone(m.name))
      : [];
    // Members known only by their claims (the hook never had their IDs: it could not reach etcd, or status was
    // lost) come back on them too, unless bootstrapping (their data directory may be empty).
    const byClaim =
      storage && !bootstrapping
        ? claimsSeen.filter((n) => !known.some((m) => m.name === n) && !podNames.has(n) && !obs.terminating.includes(n))
        : [];
    const peers = [...new Set([...known.map((m) => m.name), ...claimsSeen])].map((pod) => ({ pod }));
    const hasData = (name: string) =>
      known.some((m) => m.name === name) || (!bootstrapping && claimsSeen.includes(name));
    const pods = [
      // (A crashed pod is dropped so that the next sync recreates it on its claim: decided on the observed pod,
      // which has a phase; `kept` holds copies without status.)
      ...kept.filter(
        (_, i) => !(storage && DEAD_PHASES.has(phaseOf(obs.pods[i]!)) && hasData(obs.pods[i]!.metadata.name!)),
      ),
      ...restartPods(missing),
      ...byClaim.map((pod) =>
        memberPod({ parent, spec, name: pod, initialCluster: initialCluster(c, peers), state: 'existing' }),
      ),
    ];
    if (byClaim.length > 0) missing.push(...byClaim.map((name) => ({ name, healthy: false })));
    // No member's unhealthy clock runs while etcd does not answer (as while quorum is lost, below): after an outage a
    // member slower to return is not replaced, nor its upgrade failed, for the time the whole cluster was down.
    const members: MemberReport[] = [
      ...known.filter((m) => !podNames.has(m.name)).map(markDown),
      ...obs.pods.map((p) => {
        const k = known.find((m) => m.name === p.metadata.name);
        return { ...(k ?? { name: p.metadata.name! }), healthy: healthOf(p.metadata.name!).healthy };
      }),
    ]
      .map(({ unhealthySince: _clock, ...m }: MemberReport) => m)
      .sort((a, b) => (memberIndex(c.name, a.name) ?? 0) - (memberIndex(c.name, b.name) ?? 0));
    const downNames = members.filter((m) => !m.healthy).map((m) => m.name);
    // Creating only while the hook's own record says it is bootstrapping (status lost: not assumed).
    const creating = bootstrapping || (previous.phase === 'Creating' && restoringNow && !formed);
    const unreachable = !creating && formed;
    // The kind of failure only: the raw error alternates between syncs (status churn); it goes to the log.
    const message = creating
      ? 'waiting for the first members to answer'
      : unreachable
        ? `members are Ready but the hook cannot reach etcd; no membership change until it can (check TLS.static.operatorSecret and network policies)${missing.length ? `; restarting ${missing.map((m) => m.name).join(', ')} on their volumes` : ''}`
        : `etcd does not answer: ${downNames.length} of ${members.length} members down (${downNames.join(', ') || 'none'}); no membership change until a quorum is back${missing.length ? `; restarting ${missing.map((m) => m.name).join(', ')} on their volumes` : ''}`;
    const reason = unreachable ? 'EtcdUnreachable' : 'QuorumLost';
    const quorumOf = {
      members: members.length,
      healthy: members.length - downNames.length,
      needed: Math.floor(members.length / 2) + 1,
      ok: false,
      down: downNames,
    };
    // Without storage, members whose pods were deleted or finished never return (see the member-list case).
    // A majority of the voting members (a learner that catches up votes in no quorum): known as learners when etcd
    // last answered, they are counted neither among the lost nor among the voters.
    const learners = new Set(known.filter((m) => m.learner === true).map((m) => m.name));
    const voters = members.filter((m) => !learners.has(m.name)).length;
    const counted = creating
      ? []
      : lostForGood(
          known.filter((m) => !learners.has(m.name)).map((m) => m.name),
          obs,
          storage,
          claimGone,
        );
    // The status lost: the loss as recorded on the surviving member pods (MAJORITY_LOST) when it was seen.
    const recorded = known.length === 0 && !creating ? majorityLostOnPods(obs.pods) : undefined;
    const lost = recorded?.lost ?? counted;
    const voting = recorded?.voters ?? voters;
    if (lost.length > 0 && voting - lost.length < Math.floor(voting / 2) + 1) {
      const lostMessage = majorityLostMessage(lost, voting, storage);
      const record = JSON.stringify({ lost, voters: voting });
      return {
        ...base,
        pods: pods.map((p) => withAnnotation(p, MAJORITY_LOST, record)),
        phase: 'Failed',
        reason: 'MajorityLost',
        conditions: [available(false, 'MajorityLost', lostMessage), recovering(true, 'MajorityLost', lostMessage)],
        members,
        quorum: quorumOf,
        converging: false,
      };
    }
    return {
      ...base,
      pods,
      phase: creating ? 'Creating' : 'Running',
      ...(creating ? {} : { reason }),
      conditions: creating
        ? [available(false, 'Bootstrapping', message), scaling(true, 'Bootstrapping', message)]
        : [available(false, reason, message), recovering(true, reason, message)],
      members,
      quorum: quorumOf,
      converging: true,
    };
  }

  // Match members and pods by peer URL (a member has no name until it starts), else by the member's name: the
  // list is this cluster's (its cluster ID was checked), and a pod counts as healthy only when its own answer
  // carries the member's ID (observe.ts).
  const members = obs.etcd.members.map((m) => {
    const pod = podOfMember(c, m);
    return { member: m, pod, observed: pod ? podByName.get(pod) : undefined };
  });
  const memberPods = new Set(members.map((m) => m.pod).filter(Boolean));
  const leaderId = Object.values(obs.health).find((h) => h.healthy && h.leader)?.leader;
  const readyPod = (pod: string) => {
    const p = podByName.get(pod);
    return p !== undefined && isPodReady(p);
  };
  // eslint-disable-next-line complexity -- one member's report: every field is optional on the wire
  const reports: MemberReport[] = members.map(({ member, pod }) => {
    const h = pod ? healthOf(pod) : { healthy: false };
    const report: MemberReport = { name: pod ?? member.name, id: member.id, healthy: h.healthy };
    if (member.peerURLs[0]) report.peerURL = member.peerURLs[0];
    if (pod) report.clientURL = clientURL(c, pod);
    if (leaderId && member.id === leaderId) report.leader = true;
    if (member.isLearner) report.learner = true;
    if (h.version) report.version = h.version;
    if (h.alarm) report.alarm = h.alarm;
    // (No clock while its pod is Ready: its readiness probe asks etcd in the pod, so it serves, and the hook's own
    // failure to reach it or read its status is no evidence against it. Never destroy on doubt.)
    if (!h.healthy && !h.alarm && pod && member.name && !member.isLearner && !readyPod(pod)) {
      const since = known.find((k) => k.name === pod)?.unhealthySince ?? (obs.now ? rfc3339(obs.now) : undefined);
      if (since) report.unhealthySince = since;
    }
    if (!h.healthy && (member.isLearner || !member.name)) {
      const since = known.find((k) => k.name === report.name)?.pendingSince ?? (obs.now ? rfc3339(obs.now) : undefined);
      if (since) report.pendingSince = since;
    }
    return report;
  });
  // A member with the NOSPACE alarm answers (reads, its raft) but /health says false: it counts for quorum,
  // and is reported as out of space, not as down.
  const alive = (pod: string | undefined) =>
    Boolean(pod && (healthOf(pod).healthy || healthOf(pod).alarm === 'NOSPACE'));
  const voting = members.filter((m) => !m.member.isLearner);
  const healthyVoting = voting.filter((m) => alive(m.pod));
  const needed = Math.floor(voting.length / 2) + 1;
  const down = voting.filter((m) => !alive(m.pod)).map((m) => m.pod ?? m.member.id);
  const quorum = {
    members: voting.length,
    healthy: healthyVoting.length,
    needed,
    ok: healthyVoting.length >= needed,
    down,
  };
  const versions = reports.filter((r) => r.healthy && r.version).map((r) => r.version!);
  const currentVersion = versions.sort(compareVersions)[0] ?? versionOfImage(memberImage(obs.pods[0]!));
  const common = { ...base, members: reports, quorum, currentVersion };

  // Pods of members whose pod is missing: a member added whose pod create failed, and (with storage) any
  // member whose pod was lost: it comes back under the same name on its claim, as the same member.
  // A started member whose pod and claim are both gone has lost its data: it is replaced (remove + add) as
  // without storage, never restarted empty under its old identity.
  const dataGone = claimGone;
  const recreated: KubeObject[] = [];
  for (const m of members) {
    if (
      (storage || !m.member.name) &&
      m.pod &&
      !m.observed &&
      !obs.terminating.includes(m.pod) &&
      !(m.member.name && dataGone(m.pod))
    ) {
      const peers = members.filter((x) => x.pod && (x.member.name || x === m)).map((x) => ({ pod: x.pod! }));
      recreated.push(
        memberPod({ parent, spec, name: m.pod, initialCluster: initialCluster(c, peers), state: 'existing' }),
      );
    }
  }
  // With storage, a member pod that finished (crashed; restartPolicy Never) is dropped so that the next sync
  // recreates it on its claim, as the same member.
  const finishedWithStorage = storage
    ? obs.pods
        .filter((p) => memberPods.has(p.metadata.name!) && DEAD_PHASES.has(phaseOf(p)))
        .map((p) => p.metadata.name!)
    : [];

  if (!quorum.ok) {
    // No member's unhealthy clock runs while quorum is lost: after an outage, a member slower to return is not
    // replaced at once for the time the whole cluster was down.
    for (const r of reports) delete r.unhealthySince;
    const pods = [...kept.filter((p) => !finishedWithStorage.includes(p.metadata.name!)), ...recreated];
    // Without storage, voting members whose pod was deleted or finished never return: when they leave fewer than
    // a quorum, the loss is for good, and said so (nothing is changed: the pods stay as evidence).
    const lost = lostForGood(
      voting.filter((m) => m.member.name && m.pod).map((m) => m.pod!),
      obs,
      storage,
      claimGone,
    );
    if (voting.length - lost.length < needed) {
      const message = majorityLostMessage(lost, voting.length, storage);
      return {
        ...common,
        pods,
        phase: 'Failed',
        reason: 'MajorityLost',
        conditions: [available(false, 'MajorityLost', message), recovering(true, 'MajorityLost', message)],
        converging: false,
      };
    }
    const message = `${quorum.healthy} of ${quorum.members} members healthy, ${needed} needed; down: ${down.join(', ')}. No membership change until they return.`;
    return {
      ...common,
      pods,
      phase: 'Running',
      reason: 'QuorumLost',
      conditions: [available(false, 'QuorumLost', message), recovering(true, 'QuorumLost', message)],
      converging: true,
    };
  }
  // Available says how many more failures the cluster tolerates once a member is down (Degraded).
  const runningConditions = (extra: ConditionInput[]): ConditionInput[] => [
    down.length === 0
      ? available(true, 'QuorumAvailable', `${quorum.healthy} of ${quorum.members} members healthy`)
      : available(true, 'Degraded', degraded(quorum)),
    ...extra,
  ];

  const noSpace = reports.filter((r) => r.alarm === 'NOSPACE').map((r) => r.name);
  if (noSpace.length > 0) {
    const message = `etcd raised the NOSPACE alarm (${noSpace.join(', ')}): writes are refused until space is freed (compact and defragment, or raise --quota-backend-bytes through pod.etcdEnv) and the alarm is disarmed; no membership change meanwhile`;
    return {
      ...common,
      pods: kept,
      phase: 'Running',
      reason: 'NoSpace',
      conditions: [available(false, 'NoSpace', message), recovering(true, 'NoSpace', message)],
      converging: true,
    };
  }

  if (spec.paused) {
    return {
      ...common,
      pods: kept,
      phase: 'Running',
      conditions: runningConditions([
        {
          type: 'Paused',
          status: true,
          reason: 'SpecPaused',
          message: 'spec.paused is true: no membership change or upgrade is made',
        },
      ]),
      converging: false,
    };
  }

  // Pods that are not members (a removal whose pod delete failed, leftovers): not part of the cluster, dropped.
  const live = obs.pods.filter((p) => memberPods.has(p.metadata.name!) && !DEAD_PHASES.has(phaseOf(p)));
  const livePods = [...live.map(keepObserved).map(unstick), ...recreated];

  if (recreated.length > 0 || finishedWithStorage.length > 0) {
    const names = [...recreated.map((p) => p.metadata.name!), ...finishedWithStorage];
    return {
      ...common,
      pods: livePods,
      phase: 'Running',
      conditions: runningConditions([
        recovering(
          true,
          'RestartingMember',
          `restarting ${names.join(', ')} as the same member${names.length > 1 ? 's' : ''}`,
        ),
      ]),
      converging: true,
    };
  }

  // 1. A dead member (its pod gone or finished) without storage, or with its claim gone too: remove it; its
  // replacement is a later add.
  const dead = members.find(
    (m) =>
      m.member.name &&
      m.pod &&
      (!m.observed || DEAD_PHASES.has(phaseOf(m.observed))) &&
      !obs.terminating.includes(m.pod) &&
      (!storage || dataGone(m.pod)),
  );
  if (dead) {
    return {
      ...common,
      action: { type: 'remove', id: dead.member.id, pod: dead.pod!, why: 'dead' },
      pods: livePods.filter((p) => p.metadata.name !== dead.pod),
      phase: 'Running',
      conditions: runningConditions([
        recovering(
          true,
          'ReplacingDeadMember',
          `member ${dead.pod} is gone: removing it, a new member will replace it`,
        ),
      ]),
      converging: true,
    };
  }

  // 2. A pending addition that cannot finish is cancelled: a learner or a member that never started, when
  // the size was lowered, or its pod failed, or the spec changed since (it is removed; a later add takes the
  // current spec). Removing a learner never costs quorum; a voter only while the quorum holds without it.
  // An addition still pending after PENDING_ADD_SECONDS is cancelled too (a pod that stays Pending: an image
  // that cannot be pulled, no node to run it).
  const expired = (m: (typeof members)[number]) => {
    const since = reports[members.indexOf(m)]?.pendingSince;
    return Boolean(obs.now && since && obs.now.getTime() - Date.parse(since) > PENDING_ADD_SECONDS * 1000);
  };
  const pending = members.filter((m) => (m.member.isLearner || !m.member.name) && !(m.pod && healthOf(m.pod).healthy));
  // (Not the member a failed upgrade names, while that failure holds: it is given back the version the cluster
  // ran, in place, and joins on it; cancelling it would add its replacement again and again.)
  const stuck = pending.find(
    (m) =>
      (m.pod === undefined || m.pod !== rollBack || members.length > spec.size) &&
      (members.length > spec.size ||
        !m.pod ||
        (m.observed && (crashLooping(m.observed) || memberImage(m.observed) !== targetImage)) ||
        expired(m)),
  );
  if (stuck && (stuck.member.isLearner || quorum.healthy >= Math.floor((voting.length - 1) / 2) + 1)) {
    const name = stuck.pod ?? stuck.member.id;
    const why =
      expired(stuck) &&
      members.length <= spec.size &&
      stuck.pod &&
      stuck.observed &&
      !crashLooping(stuck.observed) &&
      memberImage(stuck.observed) === targetImage
        ? `did not start within ${PENDING_ADD_SECONDS / 60} minutes${podWaiting(stuck.observed) ? ` (${podWaiting(stuck.observed)})` : ''}: its addition is cancelled, a new member will be added`
        : 'never started: its addition is cancelled';
    return {
      ...common,
      action: { type: 'remove', id: stuck.member.id, pod: name, why: 'cancel' },
      pods: livePods.filter((p) => p.metadata.name !== stuck.pod),
      phase: 'Running',
      conditions: runningConditions([scaling(true, 'CancellingAddition', `member ${name} ${why}`)]),
      converging: true,
    };
  }

  const unhealthy = reports.filter((r) => !r.healthy).map((r) => r.name);
  const waiting = (
    reason: string,
    message: string,
    condition: (s: boolean, r: string, m: string) => ConditionInput,
  ): Decision => ({
    ...common,
    pods: livePods,
    phase: 'Running',
    conditions: runningConditions([condition(true, reason, message)]),
    converging: true,
  });

  // 2b. A started member that stays unhealthy (its pod exists but it never answers again: a node gone dark, data
  // that cannot be read) is replaced once it has been so for UNHEALTHY_REPLACE_SECONDS, while the others keep
  // quorum without it: removed (its claim with it, as a recorded decision), then a new member is added.
  // (Not the member a failed upgrade names, while that failure holds: it is given back the version it ran, on its
  // data, and stays a member; changing spec.version ends the hold.)
  const stale = obs.now
    ? reports.find(
        (r) =>
          r.unhealthySince &&
          r.name !== rollBack &&
          obs.now!.getTime() - Date.parse(r.unhealthySince) > UNHEALTHY_REPLACE_SECONDS * 1000,
      )
    : undefined;
  if (stale && quorum.healthy >= Math.floor((voting.length - 1) / 2) + 1) {
    return {
      ...common,
      action: { type: 'remove', id: stale.id!, pod: stale.name, why: 'unhealthy' },
      pods: livePods.filter((p) => p.metadata.name !== stale.name),
      phase: 'Running',
      conditions: runningConditions([
        recovering(
          true,
          'ReplacingUnhealthyMember',
          `member ${stale.name} has been unhealthy since ${stale.unhealthySince} (over ${UNHEALTHY_REPLACE_SECONDS / 60} minutes): removing it, a new member will replace it`,
        ),
      ]),
      converging: true,
    };
  }

  // 3. A learner that caught up is promoted to a voting member.
  const learner = members.find((m) => m.member.isLearner);
  if (learner) {
    if (!learner.pod || !healthOf(learner.pod).healthy) {
      return waiting('WaitingForLearner', `waiting for learner ${learner.pod ?? learner.member.id} to start`, scaling);
    }
    return {
      ...common,
      action: { type: 'promote', id: learner.member.id, pod: learner.pod },
      pods: livePods,
      phase: 'Running',
      conditions: runningConditions([scaling(true, 'PromotingLearner', `promoting ${learner.pod} to a voting member`)]),
      converging: true,
    };
  }
  if (unhealthy.length > 0) {
    const ready = unhealthy.filter(readyPod);
    return waiting(
      'WaitingForHealthy',
      `waiting for ${unhealthy.join(', ')} to be healthy before the next change${ready.length ? ` (${ready.join(', ')}: pod Ready, but the hook cannot reach its etcd or read its status: check network policies and TLS.static.operatorSecret; not replaced for that)` : ''}`,
      scaling,
    );
  }

  // 4. Size: add one member (as a learner where etcd supports it) or remove one.
  if (members.length < spec.size) {
    const learnerAdd = supportsLearners(obs.etcd.clusterVersion);
    // Without learners (etcd < 3.4), a second voter added to a one-member cluster makes a quorum of two with one
    // member running: if the new member never starts, the cluster stops, and removing it needs the quorum it
    // lost. etcd allows this one add despite --strict-reconfig-check (its recovery case); metaops does not make
    // it. From two started members on, a voter that never starts leaves the quorum whole (and is cancelled).
    if (!learnerAdd && voting.length < 2) {
      const versionKnown = obs.etcd.clusterVersion !== undefined;
      const message = versionKnown
        ? `etcd ${obs.etcd.clusterVersion} has no learners: a second member added to a one-member cluster stops it if it never starts. ` +
          'Upgrade to 3.4 or later first (one minor version at a time) and the size is then reached with learners, ' +
          `or back the cluster up and restore it (EtcdBackup, EtcdRestore): the ${spec.size} restored members start together`
        : 'waiting for etcd to report its cluster version before growing a one-member cluster (without learners, before 3.4, that growth is refused)';
      return {
        ...common,
        pods: livePods,
        phase: 'Running',
        conditions: runningConditions([scaling(false, versionKnown ? 'ScaleUpRefused' : 'WaitingForVersion', message)]),
        converging: !versionKnown,
      };
    }
    lastMemberIndex += 1;
    const pod = memberName(c.name, lastMemberIndex);
    const peers = [...members.filter((m) => m.pod).map((m) => ({ pod: m.pod! })), { pod }];
    return {
      ...common,
      lastMemberIndex,
      action: { type: 'add', pod, peerURL: peerURL(c, pod), learner: learnerAdd },
      pods: [
        ...livePods,
        memberPod({ parent, spec, name: pod, initialCluster: initialCluster(c, peers), state: 'existing' }),
      ],
      phase: 'Running',
      conditions: runningConditions([
        scaling(true, 'ScalingUp', `adding member ${pod} (${members.length + 1} of ${spec.size})`),
      ]),
      converging: true,
    };
  }
  if (members.length > spec.size) {
    // The highest ordinal that is not the leader.
    const victim =
      [...members]
        .filter((m) => m.pod)
        .sort((a, b) => (memberIndex(c.name, b.pod!) ?? 0) - (memberIndex(c.name, a.pod!) ?? 0))
        .find((m) => m.member.id !== leaderId) ?? members[0]!;
    return {
      ...common,
      action: { type: 'remove', id: victim.member.id, pod: victim.pod!, why: 'scale down' },
      pods: livePods.filter((p) => p.metadata.name !== victim.pod),
      phase: 'Running',
      conditions: runningConditions([
        scaling(true, 'ScalingDown', `removing member ${victim.pod} (${members.length - 1} of ${spec.size})`),
      ]),
      converging: true,
    };
  }

  // 5. Version: one member at a time, the leader last; the next only once the last one runs the new version.
  const outdated = holdVersion ? [] : live.filter((p) => memberImage(p) !== targetImage);
  if (outdated.length > 0) {
    const upgraded = live.filter((p) => memberImage(p) === targetImage);
    const lagging = upgraded.find((p) => reports.find((r) => r.name === p.metadata.name)?.version !== targetVersion);
    const next = lagging
      ? undefined
      : [...outdated].sort((a, b) => {
          const la = reports.find((r) => r.name === a.metadata.name)?.leader ? 1 : 0;
          const lb = reports.find((r) => r.name === b.metadata.name)?.leader ? 1 : 0;
          return la - lb || (memberIndex(c.name, a.metadata.name!) ?? 0) - (memberIndex(c.name, b.metadata.name!) ?? 0);
        })[0];
    const pods = livePods.map((p) =>
      next && p.metadata.name === next.metadata.name
        ? withImage(
            next,
            targetImage,
            targetVersion,
            reports.find((r) => r.name === next.metadata.name)?.version ?? versionOfImage(memberImage(next)),
            obs.now ? rfc3339(obs.now) : undefined,
          )
        : p,
    );
    const message = next
      ? `upgrading ${next.metadata.name} to ${targetVersion} (${upgraded.length} of ${live.length} done)`
      : `waiting for ${lagging!.metadata.name} to run ${targetVersion}`;
    return {
      ...common,
      targetVersion,
      pods,
      phase: 'Running',
      conditions: runningConditions([
        { type: 'Upgrading', status: true, reason: next ? 'UpgradingMember' : 'WaitingForMember', message },
      ]),
      converging: true,
    };
  }

  // 6. Members made before restart in place (restartPolicy Never: a crash of a majority of them is for good) move
  // to it, one at a time, the leader last, only while every member is healthy. restartPolicy cannot change in
  // place: with storage the pod is made again on its claim (the same member, on its data); without, the member is
  // replaced (removed, then a new one added), only while the others keep a quorum and never the only member; before
  // 3.4 (no learners) only while two voters stay, since the add back is refused to a one-member cluster (4.).
  const replaceable = voting.length >= (supportsLearners(obs.etcd.clusterVersion) ? 2 : 3);
  const never = neverRestarting(live, reports, storage || replaceable);
  if (never) {
    const name = never.metadata.name!;
    const id = reports.find((r) => r.name === name)?.id;
    const message = `${name} was made with restartPolicy Never (before restart in place): ${storage ? 'making its pod again on its volume' : 'replacing it with a member that restarts in place'}`;
    return {
      ...common,
      ...(storage || !id ? {} : { action: { type: 'remove' as const, id, pod: name, why: 'restart in place' } }),
      pods: livePods.filter((p) => p.metadata.name !== name),
      phase: 'Running',
      conditions: runningConditions([recovering(true, 'MovingToRestartInPlace', message)]),
      converging: true,
    };
  }

  return {
    ...common,
    pods: livePods,
    phase: 'Running',
    conditions: runningConditions([
      scaling(false, 'AtSize', `${members.length} members`),
      { type: 'Upgrading', status: false, reason: 'AtVersion', message: `every member runs ${targetVersion}` },
      recovering(false, 'Healthy', `every member is healthy${stayNever(live)}`),
    ]),
    converging: recreated.length > 0 || live.length !== obs.pods.length,
  };
}

/** What the status says of member pods left on restartPolicy Never (they could not be moved without a loss). */
function stayNever(live: KubeObject[]): string {
  const names = live
    .filter((p) => (p['spec'] as { restartPolicy?: unknown } | undefined)?.restartPolicy === 'Never')
    .map((p) => p.metadata.name!);
  if (names.length === 0) return '';
  return `; ${names.slice(0, 3).join(', ')}${names.length > 3 ? ', ...' : ''} made before restart in place (restartPolicy Never): moved once the cluster has storage, 3 members, or etcd 3.4+ with 2`;
}

/** The next member pod made with restartPolicy Never to move to restart in place (the leader last), if any may. */
function neverRestarting(live: KubeObject[], reports: MemberReport[], may: boolean): KubeObject | undefined {
  if (!may) return undefined;
  const leader = (p: KubeObject) => (reports.find((r) => r.name === p.metadata.name)?.leader ? 1 : 0);
  return live
    .filter((p) => (p['spec'] as { restartPolicy?: unknown } | undefined)?.restartPolicy === 'Never')
    .sort((a, b) => leader(a) - leader(b))[0];
}

function isMemberReport(m: unknown): m is MemberReport {
  return typeof m === 'object' && m !== null && typeof (m as { name?: unknown }).name === 'string';
}

/**
 * Every pod of the last answer existed at the last sync (PodsCreated=True in status): pods missing now vanished
 * (deleted, evicted), as opposed to pods admission never let be created, which must not start anything over.
 */
function podsWereCreated(parent: ParentObject): boolean {
  return previousConditions(parent.status).some((c) => c.type === 'PodsCreated' && c.status === 'True');
}

type Terminated = { exitCode: number; message?: string; reason?: string };
type InitStatus = {
  name?: string;
  state?: { terminated?: Terminated; running?: unknown };
  lastState?: { terminated?: Terminated };
};
const failedExit = (t: Terminated | undefined) => typeof t?.exitCode === 'number' && t.exitCode !== 0;

/**
 * The first of the pod's restore steps (the snapshot fetch and restore; not the DNS wait) that exited with an
 * error, if any, and how: as it ended (restartPolicy Never), or as it last ended before the kubelet tries it again
 * (Always). A step the kubelet runs again, or that succeeded since, has not failed; nor has one that S3 failed for a
 * moment (503 SlowDown, a reset connection: restore.ts transientFailure), which the kubelet retries within the
 * restore's deadline.
 */
function failedInitStep(pod: KubeObject): { name?: string; terminated: Terminated } | undefined {
  const statuses = (pod['status'] as { initContainerStatuses?: unknown } | undefined)?.initContainerStatuses;
  if (!Array.isArray(statuses)) return undefined;
  const retried = (pod['spec'] as { restartPolicy?: unknown } | undefined)?.restartPolicy !== 'Never';
  for (const s of statuses as Array<InitStatus | null>) {
    if (!s || s.name === 'check-dns') continue;
    const now = s.state?.terminated;
    if (s.state?.running || (now && !failedExit(now))) continue;
    const terminated = failedExit(now) ? now! : s.lastState?.terminated;
    if (failedExit(terminated) && !(retried && transientFailure(terminated!.message)))
      return { ...(s.name ? { name: s.name } : {}), terminated: terminated! };
  }
  return undefined;
}

/** How a quorum with members down stands: who is down and how many more failures it tolerates. */
function degraded(q: { members: number; healthy: number; needed: number; down: string[] }): string {
  const spare = q.healthy - q.needed;
  const tolerance =
    spare === 0 ? 'one more failure loses quorum' : `${spare} more failure${spare > 1 ? 's' : ''} tolerated`;
  return `${q.healthy} of ${q.members} members healthy (down: ${q.down.join(', ')}): ${tolerance}`;
}

function available(status: boolean, reason: string, message: string): ConditionInput {
  return { type: 'Available', status, reason, message };
}
function scaling(status: boolean, reason: string, message: string): ConditionInput {
  return { type: 'Scaling', status, reason, message };
}
function recovering(status: boolean, reason: string, message: string): ConditionInput {
  return { type: 'Recovering', status, reason, message };
}

/** Why etcd cannot go from `current` to `target` in place, or undefined when it can (one minor up, any patch). */
export function upgradeRefusal(current: string, target: string): string | undefined {
  const [cMajor, cMinor] = current.split('.').map((x) => Number.parseInt(x, 10));
  const [tMajor, tMinor] = target.split('.').map((x) => Number.parseInt(x, 10));
  if (cMajor === undefined || cMinor === undefined || tMajor === undefined || tMinor === undefined) return undefined;
  if (tMajor !== cMajor) return `a change of major version (${cMajor} to ${tMajor}) is not supported`;
  if (tMinor < cMinor)
    return `a downgrade from ${cMajor}.${cMinor} to ${tMajor}.${tMinor} is not supported in place (restore a backup instead)`;
  if (tMinor > cMinor + 1)
    return `etcd upgrades one minor version at a time (${cMajor}.${cMinor} to ${cMajor}.${cMinor + 1} first)`;
  return undefined;
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
