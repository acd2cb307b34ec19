// A failed upgrade stops. The hook upgrades one member at a time by changing its pod's image in place;
// a member that then fails on the new version (its etcd keeps exiting or its image keeps being refused for
// UPGRADE_FAIL_SECONDS, its image name can never be pulled, or it stays unhealthy past UPGRADE_MEMBER_SECONDS) marks
// the upgrade failed: the member gets the image of the version the
// cluster ran back, in place (the same member, on its data), no other member is upgraded, and members made
// meanwhile take that version. A change of spec.repository is the same rollout (an image the members move to one
// at a time) and fails the same way: the member goes back to the image it ran. The record lives in
// status.upgradeFailed and is bound to the image that failed (repository and version): it holds as long as the spec
// names that image; another spec.version or spec.repository (the old one: a roll back; a mirror that has the tag; a
// newer version) clears it.
import { type KubeObject, rfc3339, sameImageTag } from '../../lib/index.js';
import { memberImage } from './members.js';
import {
  endedByNode,
  etcdExited,
  etcdNotRunning,
  evictedForOwnLimits,
  EXIT_GRACE_SECONDS,
  exitLasted,
  IMAGE_NEVER,
  IMAGE_WAITING,
  etcdContainerMark,
  laterOf,
  etcdWaiting,
  recordedClock,
  sanitize,
} from './pods.js';
import { parseJson } from '../../lib/index.js';

/**
 * The annotation a member pod upgraded in place carries until its member serves the new version: the version it ran
 * before. It tells a failed upgrade when every other member already runs the target (the last member upgraded),
 * where the version the cluster runs no longer does.
 */
export const UPGRADED_FROM = 'etcd.metaops.io/upgraded-from';

/**
 * When the pod was upgraded in place (set with UPGRADED_FROM, gone with it once its member serves the new version):
 * the upgrade's own clock, which runs whatever the quorum (in a cluster of 1 or 2 the member upgraded is needed for
 * quorum, and the members' unhealthy clocks stop while it is lost).
 */
export const UPGRADED_AT = 'etcd.metaops.io/upgraded-at';

/**
 * The image a member pod moved in place to another image ran before (set with UPGRADED_AT, gone with it once its
 * member serves): a change of spec.repository moves members without a change of version, and a failed move takes
 * the member back to exactly this image.
 */
export const UPGRADED_FROM_IMAGE = 'etcd.metaops.io/upgraded-from-image';

/**
 * The soak of a member upgraded in place (set on its pod by the answers while UPGRADED_AT is): when a sync first saw
 * its etcd exited or its image refused on the new image (UPGRADE_EXITED_AT: the failure clock, kept while it serves
 * between exits), and since when syncs have seen it serve without a break (UPGRADE_SERVING_SINCE). Its upgrade is
 * done, and the next member moved, only once it has served steadily for UPGRADE_SOAK_SECONDS (servedSteadily): a
 * member that serves a few seconds or minutes between crashes never gets a second member moved (quorum kept).
 */
export const UPGRADE_EXITED_AT = 'etcd.metaops.io/upgrade-exited-at';
export const UPGRADE_SERVING_SINCE = 'etcd.metaops.io/upgrade-serving-since';
/**
 * The etcd container UPGRADE_SERVING_SINCE saw serve (etcdContainerMark): another one started since restarts it, and
 * one started since on the same image (its restartCount grown, another containerID: restartedInSoak) is an exit of
 * the new version, counted as one seen waiting in CrashLoopBackOff is: the kubelet restarts an etcd whose last
 * restart is over 10 minutes old at once, and no sync may see it down.
 */
export const UPGRADE_SERVING_CONTAINER = 'etcd.metaops.io/upgrade-serving-container';

/**
 * When a sync first saw a member moved in place not serving after a sync had seen it serve (UPGRADE_SERVING_SINCE):
 * its unhealthy clock where the status records none (its quorum lost: a cluster of 1 or 2); gone once it serves. A
 * member that served since its move is never taken as unhealthy since the move.
 */
export const UPGRADE_DOWN_AT = 'etcd.metaops.io/upgrade-down-at';

/**
 * Where the upgrade's clock of a member upgraded in place starts, fixed by the first sync that saw its move (UPGRADED_AT):
 * the move's time, or that sync's own when the move is older than any unseen move can be (UPGRADE_UNSEEN_SECONDS). A move recorded by a clock that ran behind (a replica whose clock
 * was off, another replica answering the next sync) is then not read as an hour-old failure at the next sync.
 */
export const UPGRADE_SEEN_AT = 'etcd.metaops.io/upgrade-seen-at';

/**
 * The oldest a move (UPGRADED_AT) that no sync has seen yet can be: the hook asks to be called again within seconds
 * while an upgrade is under way, and Metacontroller resyncs; a move older at its first sight was recorded by a clock
 * that ran behind, and the upgrade's clock for it starts at that sight.
 */
export const UPGRADE_UNSEEN_SECONDS = 1800;

/**
 * The etcd container the pod ran when it was moved in place (etcdContainerMark of the observed pod, set with
 * UPGRADED_AT): a container reported since that is another (a restart, a new container) was made from the moved spec,
 * and runs its image whatever name its runtime reports it by (runsItsImage).
 */
export const UPGRADED_CONTAINER = 'etcd.metaops.io/upgraded-container';

/**
 * Set on a member pod whose upgrade in place is done (it served the new version steadily): the version it served.
 * Its later exits are timed as any upgraded member's are, never taken as those of an addition made meanwhile.
 */
export const UPGRADE_SERVED = 'etcd.metaops.io/upgrade-served';

/** How long a member upgraded to a new version may stay unhealthy before the upgrade is taken as failed. */
export const UPGRADE_MEMBER_SECONDS = 300;

/**
 * How long a member upgraded to a new version may keep failing the way a broken version does (its etcd exited and
 * not back: CrashLoopBackOff, its pod ended by itself; its image refused: ErrImagePull, ImagePullBackOff) before the
 * upgrade is taken as failed: one kill (OOM, a container-runtime restart) or one refused pull (a registry's rate
 * limit) is retried by the kubelet within its first back-off (10 s) and is no failed version. Measured by the
 * status's unhealthy clock (failureClock). An image no retry can pull (IMAGE_NEVER) fails at once.
 */
export const UPGRADE_FAIL_SECONDS = EXIT_GRACE_SECONDS;

/**
 * The soak: how long a member moved in place must serve its new image without a break, in one etcd container (its
 * restartCount and containerID, etcdContainerMark: a restart starts the soak again), by the hook's clock, before the
 * next member is moved, and before the rollout is done (the last good version is kept on every member pod, the
 * upgrade-mark, until the last member moved has soaked: a member that fails meanwhile fails the upgrade). A version
 * whose etcd serves a minute or two after each start and then exits (a panic on a request its clients send every
 * minute, on a lease or a compaction that comes round after startup) is caught by the member it was tried on, never
 * rolled to the next: a member that exits within the soak is timed by the exit clock (UPGRADE_FAIL_SECONDS) and
 * fails the upgrade at its next exit. Five minutes by default; the server's METAOPS_ETCD_UPGRADE_SOAK_SECONDS sets
 * it (20 to 3600; docs/etcdcluster.md, docs/operating.md).
 */
export const UPGRADE_SOAK_SECONDS = 300;

export interface UpgradeFailure {
  /** The version that failed (spec.version when it did). */
  version: string;
  /** The version the cluster ran, which its members keep. */
  from: string;
  /** The image that failed (spec.repository and spec.version when it did): the hold is bound to it. */
  image?: string;
  /** The image the member ran before, which the members keep (a record without it: spec.repository at `from`). */
  fromImage?: string;
  /** The member that failed on it, and how. */
  member: string;
  reason: string;
  since: string;
  /**
   * The fingerprint of the spec.pod of the moment it failed (members.ts podSpecFingerprint): the hold is bound to it
   * too (a memory limit the version needs, raised, tries again). A record without it holds whatever spec.pod says.
   */
  podSpec?: string;
}

/**
 * The failed upgrade the status records, when it is for the image the spec still names (`targetImage`; a record
 * from before images were recorded: for the version the spec asks for) and for the spec.pod it still names (`podSpec`,
 * its fingerprint; a record without one, or no `podSpec` given: whatever spec.pod says).
 */
export function recordedFailure(
  status: unknown,
  target: string,
  targetImage: string,
  podSpec?: string,
): UpgradeFailure | undefined {
  const r = (status as { upgradeFailed?: Partial<UpgradeFailure> } | undefined)?.upgradeFailed;
  if (!r || r.version !== target || (r.image !== undefined && r.image !== targetImage)) return undefined;
  const ok = [r.from, r.member, r.reason].every((v) => typeof v === 'string' && v);
  if (!ok) return undefined;
  // (Read by type: a fingerprint that is no string is none.)
  const recordedPod: unknown = r.podSpec;
  if (typeof recordedPod === 'string' && podSpec !== undefined && recordedPod !== podSpec) return undefined;
  const { fromImage, podSpec: _pod, ...kept } = r as UpgradeFailure;
  const rest: UpgradeFailure = typeof recordedPod === 'string' ? { ...kept, podSpec: recordedPod.slice(0, 64) } : kept;
  // A from-image that is not an image of `from` (edited by hand) is not one to run: spec.repository at `from`.
  return fromImage !== undefined && repositoryOf(fromImage, rest.from) !== undefined ? { ...rest, fromImage } : rest;
}

/** The repository of `img` when it is `<repository>:v<version>` (as image() makes them), else undefined. */
export function repositoryOf(img: string, version: string): string | undefined {
  const suffix = `:v${version}`;
  if (img.length > 512 || !img.endsWith(suffix) || /\s/.test(img)) return undefined;
  const repository = img.slice(0, -suffix.length);
  return repository && !repository.includes('@') ? repository : undefined;
}

/** The spec the members are made from while `failure` holds: the image that ran (its repository, its version). */
export function heldSpec<S extends { version: string; repository: string }>(spec: S, failure: UpgradeFailure): S {
  const repository = failure.fromImage ? repositoryOf(failure.fromImage, failure.from) : undefined;
  return { ...spec, version: failure.from, ...(repository ? { repository } : {}) };
}

/**
 * A member that failed on the target version while the cluster runs another: on the target image, and its etcd
 * has been exiting, or its image refused, for UPGRADE_FAIL_SECONDS or longer (failureClock), its image can never be
 * pulled (IMAGE_NEVER), or it has been unhealthy (as the status recorded, from no earlier than its pod shows:
 * recordedClock) for longer than UPGRADE_MEMBER_SECONDS. Until then the sync is called again (the upgrade under
 * way converges) and looks again.
 */
export function detectFailure(input: {
  pods: KubeObject[];
  targetImage: string;
  target: string;
  running: string | undefined;
  previous: unknown;
  now: Date | undefined;
  /** The members that serve now (etcd answered for them, or their pod is Ready). */
  healthy?: Set<string>;
  /** The version the cluster ran before the upgrade under way (UPGRADE_MARK), if one is. */
  upgradeFrom?: string | undefined;
  /** Whether the other members' own outage keeps quorum from this member (othersOutage). */
  outage?: (pod: string) => boolean;
  /**
   * Why that outage is the version's doing, if it is: it began after this member's move and the hook says it will
   * not heal (outageSinceMove).
   */
  lastingOutage?: (pod: KubeObject) => string | undefined;
  /** The version each member that serves reports. */
  versions?: Record<string, string | undefined>;
  /**
   * Whether the member's crash loop is one a change of spec.pod makes its pod again for, now or once it has failed
   * FAILED_STARTS starts (plan/respec.ts): then it is no failure of the version until it has been unhealthy past
   * UPGRADE_MEMBER_SECONDS (upgrade-hold.ts respecPending).
   */
  respecPending?: (pod: KubeObject) => boolean;
}): UpgradeFailure | undefined {
  const { target } = input;
  const since = unhealthySince(input.previous);
  const failed = unhealthySince(input.previous, true);
  for (const pod of input.pods) {
    if (!sameImageTag(memberImage(pod), input.targetImage)) continue;
    // The version this member ran before it was upgraded and has not served the target since (fromVersion).
    const recorded = pod.metadata.annotations?.[UPGRADED_FROM];
    // The image it ran before it was moved to the target (a change of spec.repository moves it at the same version).
    const recordedImage = movedFrom(pod, input.targetImage);
    const from = fromVersion(input, recorded, recordedImage);
    const name = pod.metadata.name!;
    // While the other members' own outage (their etcd down: an OOM kill, their node rebooted) keeps quorum from this
    // one, nothing it does is the image's doing: no member serves without a quorum. Unless that outage began after
    // its move and will not heal (lastingOutage): the members not moved keep exiting since it runs the new version
    // (something it sends them they cannot apply), and going back in place, on its data, is the one step left.
    if (!from) continue;
    if (input.outage?.(name)) {
      const lasting = input.lastingOutage?.(pod);
      if (lasting) return failureOf(input, { from, name, reason: lasting, recordedImage });
      continue;
    }
    // (What it was moved from, when it was moved in place: a member made on the target meanwhile was not.)
    const moved = recorded ?? recordedImage;
    const first = failingSince(pod, moved, since, input);
    const stale = pastMemberLimit(first, input.now);
    // A member moved in place whose crash loop is of short runs on a pod made from another spec.pod than the spec's,
    // with storage: the spec's may be what it needs (a memory limit the new version is OOMKilled under at start,
    // raised), and its pod is made again with it on its claim once the loop reads as "cannot start" (plan/respec.ts):
    // the upgrade waits for that rather than take it back to the last good version first (a hold bound to the
    // spec.pod of the moment would then keep the fix from ever reaching the new version). Bounded: unhealthy past
    // UPGRADE_MEMBER_SECONDS fails it.
    if (moved && !stale && input.respecPending?.(pod)) continue;
    const failing = brokenVersion(pod, moved, failed, input);
    const reason =
      failing && (stale || failing.lasted)
        ? failing.reason
        : stale
          ? `unhealthy since ${first}`
          : otherVersion(pod, moved, input.versions, target, input.now);
    if (reason) return failureOf(input, { from, name, reason, recordedImage });
  }
  return undefined;
}

/** Whether a member failing since `first` has been so for over UPGRADE_MEMBER_SECONDS by `now` (either unknown: no). */
function pastMemberLimit(first: string | undefined, now: Date | undefined): boolean {
  return now !== undefined && first !== undefined && now.getTime() - Date.parse(first) > UPGRADE_MEMBER_SECONDS * 1000;
}

/** The failed upgrade of member `name` to the target, moved from `from` (`recordedImage`), failed as `reason` says. */
function failureOf(
  input: { targetImage: string; target: string; now: Date | undefined },
  f: { from: string; name: string; reason: string; recordedImage: string | undefined },
): UpgradeFailure {
  return {
    version: input.target,
    from: f.from,
    image: input.targetImage,
    fromImage: f.recordedImage ?? `${repositoryOf(input.targetImage, input.target) ?? ''}:v${f.from}`,
    member: f.name,
    reason: f.reason,
    since: input.now ? rfc3339(input.now) : 'unknown',
  };
}

/**
 * Whether the other members' outage that keeps quorum from a member moved in place (`pod`, as observed) began after
 * its move: the answers paused its upgrade clock for it (UPGRADE_PAUSED, set only while a move is recorded) no
 * earlier than the move (UPGRADED_AT), and the quorum was lost (`lostSince`: Available's QuorumLost, as status
 * recorded it) no earlier than the move either. Unreadable records: no.
 */
export function outageSinceMove(pod: KubeObject, lostSince: string | undefined): boolean {
  const a = pod.metadata.annotations ?? {};
  const moved = Date.parse(a[UPGRADED_AT] ?? '');
  const paused = Date.parse(a[UPGRADE_PAUSED] ?? '');
  const lost = Date.parse(lostSince ?? '');
  return (
    (a[UPGRADED_FROM] !== undefined || a[UPGRADED_FROM_IMAGE] !== undefined) &&
    [moved, paused, lost].every(Number.isFinite) &&
    paused >= moved &&
    lost >= moved
  );
}

/**
 * Since when a member on the target version has been failing to serve, by the status's unhealthy clock or the
 * upgrade's own (UPGRADED_AT); none for a member that serves now or whose pod is Ready (whatever a clock says), nor
 * while its upgrade clock is paused (UPGRADE_PAUSED: it restarts when the others' outage is over). The status's
 * clock is read as the member's own is (recordedClock): never earlier than the observed pod shows, so that a stale
 * status (resent from before the member was Ready again, or its pod made again) fails no upgrade at once.
 */
function failingSince(
  pod: KubeObject,
  recorded: string | undefined,
  since: Map<string, string>,
  { healthy, now }: { healthy?: Set<string> | undefined; now: Date | undefined },
): string | undefined {
  const name = pod.metadata.name!;
  const a = pod.metadata.annotations ?? {};
  if (healthy?.has(name) || a[UPGRADE_PAUSED] !== undefined) return undefined;
  const status = recordedClock(since.get(name), pod, now);
  if (status) return status;
  // A member seen serving since its move is unhealthy since a sync first saw it down (UPGRADE_DOWN_AT), at the
  // earliest this one (the last sync saw it serve: UPGRADE_SERVING_SINCE), never since its move.
  if (a[UPGRADE_SERVING_SINCE] !== undefined) return now ? rfc3339(now) : undefined;
  const move = upgradeClock(pod, recorded, { healthy, now });
  const down = recordedTime(a[UPGRADE_DOWN_AT], now);
  return move && down ? laterOf(move, down) : move;
}

/**
 * Whether the etcd container of a member moved in place was restarted on its image since a sync saw it serve
 * (UPGRADE_SERVING_CONTAINER): its restartCount grew, or it is another container (containerID), on the same image.
 * Not the restart of the move itself: the container that served then ran the image it was moved from
 * (UPGRADED_CONTAINER, or another image in its mark).
 */
export function restartedInSoak(pod: KubeObject | undefined): boolean {
  const a = pod?.metadata.annotations ?? {};
  const before = a[UPGRADE_SERVING_CONTAINER];
  if (!before || before === a[UPGRADED_CONTAINER]) return false;
  const [count0, id0, , image0] = before.split('|');
  const [count1, id1, , image1] = etcdContainerMark(pod).split('|');
  if (!image0 || image0 !== image1) return false;
  const grew = Number(count1) > Number(count0);
  return grew || Boolean(id0 && id1 && id0 !== id1);
}

/**
 * How a member on the target image fails the way a broken version does, if it does: its etcd exited (CrashLoopBackOff,
 * its pod ended by itself), its image refused; and whether that counts yet (`lasted`): at once for an image no retry
 * can pull (IMAGE_NEVER), and for the exit of a member made on the target meanwhile (an addition, not upgraded in
 * place: `recorded` unset), whose addition is cancelled at its first exit (plan/members.ts, stuckAddition) so that
 * each one made again is seen exiting once; else once it has lasted UPGRADE_FAIL_SECONDS (failureClock).
 */
function brokenVersion(
  pod: KubeObject,
  recorded: string | undefined,
  clocks: Map<string, string>,
  input: { healthy?: Set<string> | undefined; now: Date | undefined; previous: unknown },
): { reason: string; lasted: boolean } | undefined {
  const waiting = etcdWaiting(pod);
  const exited = etcdExited(pod);
  const evicted = evictedForOwnLimits(pod);
  const reason = exited ? (waiting ?? 'its etcd exited') : waiting && IMAGE_WAITING.has(waiting) ? waiting : undefined;
  if (reason === undefined) {
    // Restarted by the kubelet at once since a sync saw it serve (no back-off: its last restart long ago), whatever
    // its health now: an exit, timed as the others are, from the first exit seen (UPGRADE_EXITED_AT).
    if (!recorded || !restartedInSoak(pod)) return undefined;
    return {
      reason: 'its etcd exited and was restarted',
      lasted: exitLasted(exitedAt(pod, input.now), input.now),
    };
  }
  const served = pod.metadata.annotations?.[UPGRADE_SERVED] !== undefined;
  // (Evicted for its own limits: its pod never runs again, no restart in place to wait for; the member goes with its
  // pod at this sync, plan/members.ts, so the failure is told now or never.)
  const lasted =
    evicted !== '' ||
    IMAGE_NEVER.has(reason) ||
    (exited && !recorded && !served) ||
    exitLasted(failureClock(pod, recorded, clocks, input), input.now);
  return { reason: evicted ? `evicted for its own limits: ${evicted}` : reason, lasted };
}

/** Whether `now` is `seconds` or more after `since` (neither unknown). */
function lastedFor(since: string | undefined, now: Date | undefined, seconds: number): boolean {
  const at = Date.parse(since ?? '');
  return now !== undefined && Number.isFinite(at) && now.getTime() - at >= seconds * 1000;
}

/**
 * Since when a member on the target image has been failing as a broken version does (its etcd exited, its image
 * refused): the status's unhealthy clock (for a member added that never started: its addition's, pendingSince), read
 * as recordedClock does (never earlier than the pod shows); it starts at the first sync that sees the member down, so that one exit or one refused pull seen by one sync fails nothing; never
 * earlier than the member got the image (UPGRADED_AT). Where the status's clocks stop (its last quorum lost: a
 * cluster of 1 or 2 needs the member upgraded), the upgrade's own clock (UPGRADED_AT). None for a member that serves.
 */
function failureClock(
  pod: KubeObject,
  recorded: string | undefined,
  since: Map<string, string>,
  input: { healthy?: Set<string> | undefined; now: Date | undefined; previous: unknown },
): string | undefined {
  const name = pod.metadata.name!;
  if (input.healthy?.has(name) || pod.metadata.annotations?.[UPGRADE_PAUSED] !== undefined) return undefined;
  // A member upgraded in place: from the first sync that saw it exit or refused on the new image (its soak record),
  // never from when it went down for another reason (its image pulled); none until a sync has seen that.
  if (recorded && pod.metadata.annotations?.[UPGRADED_AT] !== undefined) return exitedAt(pod, input.now);
  const status = recordedClock(since.get(name), pod, input.now);
  const upgraded = recorded ? upgradeStart(pod, input.now) : undefined;
  if (status) return laterOf(status, upgraded);
  return quorumLostIn(input.previous) ? upgradeClock(pod, recorded, input) : undefined;
}

/** Whether the status says quorum was lost (then no member's unhealthy clock runs in it). */
function quorumLostIn(previous: unknown): boolean {
  return (previous as { quorum?: { ok?: unknown } } | undefined)?.quorum?.ok === false;
}

/**
 * A member upgraded in place (UPGRADED_FROM, UPGRADED_AT) over UPGRADE_MEMBER_SECONDS ago that serves, but another
 * version than its image names (a tag that points at another build): the upgrade cannot finish; why, if so.
 */
function otherVersion(
  pod: KubeObject,
  recorded: string | undefined,
  versions: Record<string, string | undefined> | undefined,
  target: string,
  now: Date | undefined,
): string | undefined {
  const serves = versions?.[pod.metadata.name!];
  const at = Date.parse(upgradeStart(pod, now) ?? '');
  if (!recorded || !serves || serves === target || !now || !Number.isFinite(at)) return undefined;
  if (now.getTime() - at <= UPGRADE_MEMBER_SECONDS * 1000) return undefined;
  return `its image serves etcd ${serves}, not ${target}`;
}

/**
 * The version a member on the target image moved from: the one the cluster runs, or (every healthy member runs the
 * target already) the one it ran before it was upgraded (`recorded`), or (that member lost with its pod, or this one
 * made meanwhile) the one the upgrade under way started from; the target itself when it was moved to another
 * repository at the same version (`recordedImage`); else undefined: it was moved by no rollout.
 */
function fromVersion(
  input: { running: string | undefined; target: string; upgradeFrom?: string | undefined },
  recorded: string | undefined,
  recordedImage: string | undefined,
): string | undefined {
  const { running, target } = input;
  const versionFrom = running && running !== target ? running : (recorded ?? input.upgradeFrom);
  return versionFrom && versionFrom !== target ? versionFrom : recordedImage && target;
}

/** The image a member pod moved to `targetImage` ran before (UPGRADED_FROM_IMAGE), when it is another, else undefined. */
function movedFrom(pod: KubeObject, targetImage: string): string | undefined {
  const img = pod.metadata.annotations?.[UPGRADED_FROM_IMAGE];
  return img && img.length <= 512 && !sameImageTag(img, targetImage) ? img : undefined;
}

/**
 * Each member's clock as the status records it: since when it is unhealthy, or (`pending`: a member added that has
 * not started, which has no unhealthy clock) since when its addition is pending.
 */
function unhealthySince(previous: unknown, pending = false): Map<string, string> {
  const list = (previous as { memberList?: unknown } | undefined)?.memberList;
  const out = new Map<string, string>();
  for (const m of Array.isArray(list) ? list : []) {
    const r = m as { name?: unknown; unhealthySince?: unknown; pendingSince?: unknown } | null;
    const since = typeof r?.unhealthySince === 'string' ? r.unhealthySince : pending ? r?.pendingSince : undefined;
    if (typeof r?.name === 'string' && typeof since === 'string') out.set(r.name, since);
  }
  return out;
}

/** What Upgrading says of a failed upgrade: which member, how, what runs, how to roll back. */
export function failureMessage(f: UpgradeFailure): string {
  const failedRepository = f.image ? repositoryOf(f.image, f.version) : undefined;
  const fromRepository = f.fromImage ? repositoryOf(f.fromImage, f.from) : undefined;
  const moved = failedRepository !== undefined && fromRepository !== undefined && failedRepository !== fromRepository;
  if (moved && f.from === f.version)
    return (
      `member ${f.member} failed on ${f.image} (${f.reason}): the change of spec.repository is halted, ${f.member} ` +
      `runs ${f.fromImage} again and no other member is moved; set spec.repository to ${fromRepository} to roll ` +
      `back, or to a repository whose image works`
    );
  return (
    `member ${f.member} failed on ${f.version} (${f.reason}): the upgrade is halted, ${f.member} runs ${f.from} again ` +
    `and no other member is upgraded; ` +
    `set spec.version to ${f.from} to roll back, or to a version that works` +
    (moved
      ? ` (${f.member} runs ${f.fromImage}: spec.repository ${fromRepository} rolls the repository back too)`
      : '') +
    (f.image && IMAGE_WAITING.has(f.reason)
      ? `; the hold is on ${f.image}: a spec.repository that has the image lifts it too`
      : '')
  );
}

/**
 * The annotation every member pod carries while an upgrade is under way: `<from>-><target>`, the version the cluster
 * ran and the one upgraded to. It outlives the member being upgraded (lost with its pod and its UPGRADED_FROM) and
 * the status: a member made meanwhile that fails on the target is a failed upgrade. Removed once every member runs
 * the target (AtVersion), or when spec.version asks for another version.
 */
export const UPGRADE_MARK = 'etcd.metaops.io/upgrade';

/**
 * Set on a member upgraded in place (with UPGRADED_AT) while the other members' own outage keeps quorum from it (its
 * value: when that was first seen): its upgrade clock stops, and restarts (UPGRADED_AT: the end of the outage) once
 * the others are back. Removed then.
 */
export const UPGRADE_PAUSED = 'etcd.metaops.io/upgrade-paused';

/**
 * Whether the other voting members' own failures (their pod gone or ended, their etcd not running) leave too few of
 * them to form a quorum with `pod`: then its not serving is no evidence against the version it runs. Pods without a
 * status show no failure.
 */
export function othersOutage(pod: string, voters: readonly string[], pods: readonly KubeObject[]): boolean {
  const byName = new Map(pods.map((p) => [p.metadata.name!, p]));
  const all = voters.includes(pod) ? voters : [...voters, pod];
  const up = all.filter((n) => n === pod || (byName.has(n) && !etcdNotRunning(byName.get(n)!))).length;
  return up < Math.floor(all.length / 2) + 1;
}

/**
 * The upgrade clock of a member upgraded in place (`pod`, carrying UPGRADED_AT), as the answer should record it:
 * paused while the others' outage lasts (`outage`), restarted at `now` once it is over; one recorded ahead of `now`
 * (a clock that ran ahead when it was set) recorded as `now`, as it is read (notAhead).
 */
export function withUpgradeClock(pod: KubeObject, outage: boolean, now: string | undefined): KubeObject {
  const annotations = pod.metadata.annotations ?? {};
  if (!now || annotations[UPGRADED_AT] === undefined) return withAnnotation(pod, UPGRADE_PAUSED, undefined);
  const nowAt = Date.parse(now);
  if (Date.parse(annotations[UPGRADED_AT]) > nowAt) pod = withAnnotation(pod, UPGRADED_AT, now);
  if (Date.parse(annotations[UPGRADE_PAUSED] ?? '') > nowAt) pod = withAnnotation(pod, UPGRADE_PAUSED, now);
  if (outage) return withAnnotation(pod, UPGRADE_PAUSED, pod.metadata.annotations?.[UPGRADE_PAUSED] ?? now);
  if (annotations[UPGRADE_PAUSED] === undefined) return pod;
  return withAnnotation(withAnnotation(pod, UPGRADED_AT, now), UPGRADE_PAUSED, undefined);
}

/** The failed upgrade, kept on every member pod as well as in status: it holds when the status is lost. */
export const UPGRADE_FAILED = 'etcd.metaops.io/upgrade-failed';

const VERSION = /^\d+\.\d+\.\d+$/;

/** The version the cluster ran before the upgrade to `target` under way, as its member pods record it. */
export function markedFrom(pods: KubeObject[], target: string): string | undefined {
  for (const p of pods) {
    const [from, to] = (p.metadata.annotations?.[UPGRADE_MARK] ?? '').split('->');
    if (from && to === target && from !== target && VERSION.test(from)) return from;
  }
  return undefined;
}

/** The failed upgrade to `targetImage` (at `target`) a member pod records (UPGRADE_FAILED), if any. */
export function failureOnPods(
  pods: KubeObject[],
  target: string,
  targetImage: string,
  podSpec?: string,
): UpgradeFailure | undefined {
  for (const p of pods) {
    const text = p.metadata.annotations?.[UPGRADE_FAILED];
    if (!text || text.length > 2048) continue;
    try {
      const found = recordedFailure({ upgradeFailed: parseJson(text) as unknown }, target, targetImage, podSpec);
      if (found && VERSION.test(found.from)) return found;
    } catch {
      // Not ours (edited by hand): no record.
    }
  }
  return undefined;
}

/** The pod with `key` set to `value`, or without it (undefined); a copy, the pod itself untouched. */
export function withAnnotation(pod: KubeObject, key: string, value: string | undefined): KubeObject {
  const { [key]: was, ...rest } = pod.metadata.annotations ?? {};
  if (was === value) return pod;
  const annotations = value === undefined ? rest : { ...rest, [key]: value };
  return { ...pod, metadata: { ...pod.metadata, annotations } };
}

/**
 * The upgrade's own clock (UPGRADED_AT) for a member upgraded in place (`recorded`) that does not serve now and was not
 * ended by its node.
 */
function upgradeClock(
  pod: KubeObject,
  recorded: string | undefined,
  { healthy, now }: { healthy?: Set<string> | undefined; now: Date | undefined },
): string | undefined {
  const at = upgradeStart(pod, now);
  if (!recorded || !at) return undefined;
  return healthy?.has(pod.metadata.name!) || endedByNode(pod) ? undefined : at;
}

/**
 * When the upgrade's clock of a member moved in place starts, by the hook's own clock: its move (UPGRADED_AT, read as
 * now when ahead of it), never before the first sync that saw the move (UPGRADE_SEEN_AT, recorded by withSoakRecords;
 * now when not yet recorded, or recorded ahead of now). Undefined without a readable move.
 */
function upgradeStart(pod: KubeObject, now: Date | undefined): string | undefined {
  const a = pod.metadata.annotations ?? {};
  const at = notAhead(a[UPGRADED_AT], now);
  if (!at) return undefined;
  const seen = notAhead(a[UPGRADE_SEEN_AT], now);
  if (seen) return laterOf(at, seen);
  // Not seen yet by a sync: the move's own time, unless older than a move no sync has seen can be.
  return !now || now.getTime() - Date.parse(at) <= UPGRADE_UNSEEN_SECONDS * 1000 ? at : rfc3339(now);
}

/** A time recorded on a pod, when readable and not later than `now`; else undefined. */
function recordedTime(value: string | undefined, now: Date | undefined): string | undefined {
  const at = Date.parse(value ?? '');
  return value && value.length <= 64 && Number.isFinite(at) && (!now || at <= now.getTime()) ? value : undefined;
}

/**
 * A time recorded on a pod, when readable, read as `now` when it lies ahead of it (a clock that ran ahead when it was
 * recorded): a start of a clock that waits for no wall clock to catch up; else undefined.
 */
function notAhead(value: string | undefined, now: Date | undefined): string | undefined {
  const at = Date.parse(value ?? '');
  if (!value || value.length > 64 || !Number.isFinite(at)) return undefined;
  return now && at > now.getTime() ? rfc3339(now) : value;
}

/** When a sync first saw the member upgraded in place exit or refused on its new image (UPGRADE_EXITED_AT), if one did. */
function exitedAt(pod: KubeObject, now: Date | undefined): string | undefined {
  const a = pod.metadata.annotations ?? {};
  const exit = recordedTime(a[UPGRADE_EXITED_AT], now);
  // An UPGRADED_AT ahead of now bounds nothing (it is recorded as now by the answer, withUpgradeClock).
  return exit ? laterOf(exit, recordedTime(a[UPGRADED_AT], now)) : undefined;
}

/**
 * The soak records of a member upgraded in place, as the answer should carry them (`observed`: the pod as observed,
 * `healthy`: whether etcd answered for it now): UPGRADE_EXITED_AT set at the first sync that sees its etcd exited
 * or its image refused, kept after; UPGRADE_SERVING_SINCE set at the first sync that sees it serve, gone whenever it
 * does not. Neither on a pod without an upgrade in place under way (or one moved by this answer: a new soak).
 */
export function withSoakRecords(
  pod: KubeObject,
  observed: KubeObject | undefined,
  healthy: boolean,
  now: Date | undefined,
): KubeObject {
  const a = pod.metadata.annotations ?? {};
  const same =
    observed !== undefined &&
    a[UPGRADED_AT] !== undefined &&
    observed.metadata.annotations?.[UPGRADED_AT] === a[UPGRADED_AT] &&
    sameImageTag(memberImage(observed), memberImage(pod));
  if (!same || !now) {
    let cleared = pod;
    for (const key of [
      UPGRADE_EXITED_AT,
      UPGRADE_SERVING_SINCE,
      UPGRADE_SERVING_CONTAINER,
      UPGRADE_SEEN_AT,
      UPGRADE_DOWN_AT,
    ])
      cleared = withAnnotation(cleared, key, undefined);
    return cleared;
  }
  const at = rfc3339(now);
  // No record of the hook's is older than the move it follows (UPGRADED_AT): one that is was written by a clock that
  // ran behind, and is not known (its clock starts now); one ahead of now reads as now.
  const known = (value: string | undefined) => sinceMove(value, a[UPGRADED_AT], now);
  const failing = failingInSoak(observed);
  const exited = known(a[UPGRADE_EXITED_AT]) ?? (failing ? at : undefined);
  // Serving since the first sync that saw this etcd container serve: another container (a restart between two syncs,
  // whatever clock its node stamps its start with) starts the soak again.
  const mark = etcdContainerMark(observed);
  const sameContainer = a[UPGRADE_SERVING_CONTAINER] === mark;
  const serving =
    healthy && !failing ? ((sameContainer ? known(a[UPGRADE_SERVING_SINCE]) : undefined) ?? at) : undefined;
  // Down since the first sync that saw it not serve after one saw it serve; gone once it serves.
  const down = serving !== undefined ? undefined : downSince(a, known, at);
  let out = withAnnotation(withAnnotation(pod, UPGRADE_EXITED_AT, exited), UPGRADE_SERVING_SINCE, serving);
  out = withAnnotation(out, UPGRADE_SERVING_CONTAINER, serving !== undefined ? mark : undefined);
  out = withAnnotation(out, UPGRADE_DOWN_AT, down);
  return withAnnotation(out, UPGRADE_SEEN_AT, known(a[UPGRADE_SEEN_AT]) ?? upgradeStart(pod, now) ?? at);
}

/**
 * UPGRADE_DOWN_AT of a member moved in place that does not serve now (`a`: its pod's annotations): as recorded
 * (`known`), else `at` when the last sync saw it serve (UPGRADE_SERVING_SINCE), else none.
 */
function downSince(
  a: Record<string, string>,
  known: (value: string | undefined) => string | undefined,
  at: string,
): string | undefined {
  return known(a[UPGRADE_DOWN_AT]) ?? (a[UPGRADE_SERVING_SINCE] !== undefined ? at : undefined);
}

/**
 * Whether the observed member moved in place fails as a broken version does: its etcd exited (not back), its image
 * refused, or its etcd restarted on its image since a sync saw it serve (restartedInSoak).
 */
function failingInSoak(observed: KubeObject): boolean {
  const waiting = etcdWaiting(observed);
  return etcdExited(observed) || (waiting !== undefined && IMAGE_WAITING.has(waiting)) || restartedInSoak(observed);
}

/** A record of the soak (`value`), read as now when ahead of it, and not known when older than the move it follows. */
function sinceMove(value: string | undefined, moved: string | undefined, now: Date): string | undefined {
  const read = notAhead(value, now);
  const t = Date.parse(read ?? '');
  return Number.isFinite(t) && !(t < Date.parse(notAhead(moved, now) ?? '')) ? read : undefined;
}

/**
 * Whether a member upgraded in place has served steadily: syncs have seen its etcd container (the same one, by
 * etcdContainerMark, withSoakRecords) serve without a break (UPGRADE_SERVING_SINCE, by the hook's clock) for
 * `soakSeconds` or longer (UPGRADE_SOAK_SECONDS unless the server is set otherwise: METAOPS_ETCD_UPGRADE_SOAK_SECONDS).
 * No time the kubelet stamps is read: its node's clock may be off.
 */
export function servedSteadily(pod: KubeObject, now: Date | undefined, soakSeconds = UPGRADE_SOAK_SECONDS): boolean {
  const a = pod.metadata.annotations ?? {};
  const since = recordedTime(a[UPGRADE_SERVING_SINCE], now);
  return (
    since !== undefined && a[UPGRADE_SERVING_CONTAINER] === etcdContainerMark(pod) && lastedFor(since, now, soakSeconds)
  );
}

/**
 * The evictions of members on the image upgraded to (their pod ended by its node: `Failed` with a `status.reason`,
 * endedByNode; not one evicted for its own limits, pods.ts evictedForOwnLimits: that is the version's own failure, an
 * exit timed as any, brokenVersion), kept on every member pod answered while the upgrade is under way (JSON of UpgradeEvictions). One
 * eviction is the node's doing, no failed upgrade; MAX_UPGRADE_EVICTIONS of them, of members moved to the same image,
 * are the version's (it writes more to its emptyDir than the pod's ephemeral-storage limit, needs more memory than
 * its nodes have): the upgrade fails (evictionFailure), every member on the last good version.
 */
export const UPGRADE_EVICTIONS = 'etcd.metaops.io/upgrade-evictions';

/** Evictions of members on the image upgraded to after which the upgrade has failed. */
export const MAX_UPGRADE_EVICTIONS = 3;

export interface UpgradeEvictions {
  /** The image upgraded to: a record of another is not read. */
  image: string;
  /** The evictions seen, each once. */
  count: number;
  /** Which pods' evictions were counted (`<pod>|<its move, or its uid>`), the last MAX_UPGRADE_EVICTIONS. */
  seen: string[];
  /** The member last evicted, and what its node said. */
  member: string;
  last: string;
}

/** The record of evictions on `targetImage` the member pods carry (the one that counts most), if any. */
export function evictionsOnPods(pods: KubeObject[], targetImage: string): UpgradeEvictions | undefined {
  let found: UpgradeEvictions | undefined;
  for (const p of pods) {
    const text = p.metadata.annotations?.[UPGRADE_EVICTIONS];
    if (!text || text.length > 2048) continue;
    try {
      const r = parseJson(text) as Partial<UpgradeEvictions> | null;
      if (
        r?.image !== targetImage ||
        !Number.isSafeInteger(r.count) ||
        (r.count as number) < 1 ||
        !Array.isArray(r.seen) ||
        !r.seen.every((s) => typeof s === 'string') ||
        typeof r.member !== 'string' ||
        typeof r.last !== 'string'
      )
        continue;
      const rec: UpgradeEvictions = {
        image: targetImage,
        count: Math.min(r.count as number, MAX_UPGRADE_EVICTIONS),
        seen: r.seen.slice(-MAX_UPGRADE_EVICTIONS).map((s) => s.slice(0, 300)),
        member: r.member.slice(0, 64),
        last: r.last.slice(0, 200),
      };
      if (!found || rec.count > found.count) found = rec;
    } catch {
      // Not ours (edited by hand): no record.
    }
  }
  return found;
}

/**
 * The record with the evictions of member pods on `targetImage` observed now counted, each once (by its pod and its
 * move in place, UPGRADED_AT, or its uid: the same pod seen evicted at several syncs is one eviction; one made again
 * under its name and moved again is another).
 */
export function withEvictions(
  recorded: UpgradeEvictions | undefined,
  pods: KubeObject[],
  targetImage: string,
): UpgradeEvictions | undefined {
  let rec = recorded;
  for (const pod of pods) {
    if (!sameImageTag(memberImage(pod), targetImage) || !endedByNode(pod)) continue;
    const name = pod.metadata.name!;
    const key = `${name}|${pod.metadata.annotations?.[UPGRADED_AT] ?? pod.metadata.uid ?? ''}`.slice(0, 300);
    if (rec?.seen.includes(key)) continue;
    const status = (pod['status'] ?? {}) as { reason?: unknown; message?: unknown };
    const said = [status.reason, status.message].filter((x) => typeof x === 'string' && x).join(': ');
    rec = {
      image: targetImage,
      count: Math.min((rec?.count ?? 0) + 1, MAX_UPGRADE_EVICTIONS),
      seen: [...(rec?.seen ?? []), key].slice(-MAX_UPGRADE_EVICTIONS),
      member: name,
      last: sanitize(said || 'evicted', 160),
    };
  }
  return rec;
}

/**
 * The failed upgrade MAX_UPGRADE_EVICTIONS evictions of members on the image upgraded to make, from `from` (the
 * version the cluster ran), if they did.
 */
export function evictionFailure(
  rec: UpgradeEvictions | undefined,
  input: { target: string; targetImage: string; from: string | undefined; now: Date | undefined },
): UpgradeFailure | undefined {
  if (!rec || rec.count < MAX_UPGRADE_EVICTIONS || !input.from || input.from === input.target) return undefined;
  return failureOf(input, {
    from: input.from,
    name: rec.member,
    reason: `${rec.count} members on it were evicted by their nodes; the last, ${rec.member}: ${rec.last}`,
    recordedImage: undefined,
  });
}
