// One view of the observed cluster, computed once per sync: what every membership rule (members.ts) reads.
import { keepObserved, type KubeObject, type ParentObject, rfc3339 } from '../../../lib/index.js';
import type { MemberHealth } from '../../etcdcommon/etcd.js';
import {
  type Cluster,
  clusterOf,
  etcdVersion,
  image,
  memberImage,
  memberImageAsWritten,
  memberIndex,
  memberPod,
  podOfPeerURL,
} from '../members.js';
import { etcdContainerMark, etcdWaiting, IMAGE_WAITING } from '../pods.js';
import type { EtcdClusterSpec } from '../schema.js';
import {
  servedSteadily,
  UPGRADED_CONTAINER,
  UPGRADED_FROM,
  UPGRADED_FROM_IMAGE,
  type UpgradeFailure,
  withAnnotation,
} from '../upgrade.js';
import { isMemberReport, liveMemberClaims } from './evidence.js';
import { initialCluster, upgradeDone, withImage, withOperatorSteps } from './member-pods.js';
import type { Decision, MemberReport, Observation } from './types.js';
import { atImage, compareVersions, versionOfImage } from './versions.js';

/** What the status last said (the hook's own record, fed back: it may be lost or stale). */
export interface Previous {
  phase?: string;
  reason?: string;
  lastMemberIndex?: number;
  memberList?: unknown[];
}

export interface View {
  parent: ParentObject;
  /** The spec the members are built from (spec.version held at the version that ran while an upgrade is held). */
  spec: EtcdClusterSpec;
  /**
   * The spec every member pod this answer makes (made again, restarted on its claim, added, a replacement) is built
   * from: `spec`, or while an upgrade has not soaked (under way, or asked for and not begun) `spec` at the last good
   * version: no pod is made on a version no member has soaked; the upgrade moves members to it one at a time.
   */
  made: EtcdClusterSpec;
  /** The image of `made`. */
  madeImage: string;
  obs: Observation;
  c: Cluster;
  targetImage: string;
  targetVersion: string;
  previous: Previous;
  /** No member's image is changed (an upgrade was refused; new members take the running version). */
  holdVersion: boolean;
  /** The member a failed upgrade names, given back the version the cluster ran. */
  rollBack?: string;
  /** When that failure was seen and the member given back that version (UpgradeFailure.since). */
  rollBackSince?: string;
  /** The observed pods as answered: upgrade records done, stuck images unstuck (copies: the request is never written). */
  kept: KubeObject[];
  /** The highest ordinal ever seen: ordinals only grow, the next member takes one more. */
  lastMemberIndex: number;
  /** Member claims seen and not being deleted: while etcd does not answer, they are kept whatever status says. */
  claimsSeen: string[];
  storage: boolean;
  /**
   * The members this cluster had when etcd last answered (with their IDs): they stay members, and keep their
   * claims, whatever happened to their pods, until removed on purpose.
   */
  known: MemberReport[];
  /** What every membership answer carries. */
  base: Pick<Decision, 'fallbackPods' | 'lastMemberIndex' | 'targetVersion' | 'keepClaims' | 'additionsFailed'>;
  podByName: Map<string, KubeObject>;
  /** The pod with the spec's image when it is stuck on its own (see stuckOnImage); else as it is. */
  unstick: (p: KubeObject) => KubeObject;
  /**
   * With storage, a member's data is its claim: a member whose claim is gone (or being deleted) has lost its data,
   * whether or not etcd answers. It is never made again under its old identity (an empty member with its old ID
   * counts in the raft majority and can overwrite the others' data): it is lost, and replaced (remove + add).
   */
  claimGone: (pod: string) => boolean;
  /** A pod's member health as observed; unhealthy when nothing was observed. */
  healthOf: (pod: string) => MemberHealth;
  /**
   * Pods of known members, recreated under the same name on the same claim: etcd restarts them from their data as
   * the same member (same ID); the initial-cluster flags are ignored when the data directory exists. A member that
   * started is made so only on its data: its pod's first step checks the claim holds it (members.ts checkData).
   */
  restartPods: (missing: MemberReport[]) => KubeObject[];
}

/**
 * The view of the observed cluster the membership rules read; `holdVersion` as in View, `rollBack` the failed upgrade
 * whose member is given back the version the cluster ran (View's rollBack and rollBackSince), `lastGood` the version
 * member pods are made on while an upgrade has not soaked (View's made).
 */
export function viewOf(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  // Stryker disable next-line BooleanLiteral: never defaulted: decideMembers passes its own
  holdVersion = false,
  {
    rollBack: failed,
    lastGood,
  }: { rollBack?: Pick<UpgradeFailure, 'member' | 'since'> | undefined; lastGood?: string | undefined } = {},
): View {
  const rollBack = failed?.member;
  const made = lastGood ? { ...spec, version: lastGood } : spec;
  const c = clusterOf(parent, spec);
  const targetImage = image(spec);
  const targetVersion = etcdVersion(spec.version);
  const previous = (parent.status ?? {}) as Previous;
  const stuck = stuckOnImage(obs, targetImage, targetVersion, rollBack);
  const unstick = (p: KubeObject): KubeObject =>
    stuck.has(p.metadata.name!) ? withImage(p, targetImage, targetVersion, stillMoving(p, obs.now)) : p;
  const kept = upgradesDone(obs)
    .map(unstick)
    .map((p, i) => withOperatorSteps(p, obs.pods[i]!, obs.operatorImage))
    .map((p, i) => withRollBackClock(p, obs.pods[i]!, failed, targetImage, obs.now));
  const lastMemberIndex = lastIndexSeen(c, obs, previous);
  const claimsSeen = liveMemberClaims(c.name, obs);
  const storage = Boolean(spec.pod?.persistentVolumeClaimSpec);
  const known = knownMembers(c, previous);
  return {
    ...{
      parent,
      spec,
      made,
      madeImage: image(made),
      obs,
      c,
      targetImage,
      targetVersion,
      previous,
      holdVersion,
      rollBack,
    },
    ...(failed ? { rollBackSince: failed.since } : {}),
    ...{ kept, lastMemberIndex, claimsSeen, storage, known, unstick },
    base: {
      fallbackPods: kept,
      lastMemberIndex,
      targetVersion: undefined,
      keepClaims: obs.etcd ? [] : claimsSeen,
      // (Carried by every answer but the one at size: additions.ts.)
      additionsFailed: obs.additions?.record,
    },
    podByName: new Map(obs.pods.map((p) => [p.metadata.name, p])),
    claimGone: (pod) =>
      storage &&
      obs.claims !== undefined &&
      (!obs.claims.includes(pod) || Boolean(obs.terminatingClaims?.includes(pod))),
    healthOf: (pod) => (Object.hasOwn(obs.health, pod) ? obs.health[pod]! : { healthy: false }),
    restartPods: (missing) =>
      missing.map((m) =>
        memberPod({
          parent,
          spec: made,
          name: m.name,
          initialCluster: initialCluster(
            c,
            known.map((k) => ({ pod: k.name })),
          ),
          state: 'existing',
          // A member that started (no addition pending) has data: etcd starts only on it (members.ts checkData).
          requireData: !m.pendingSince,
        }),
      ),
  };
}

/**
 * The observed pods, copied; a member upgraded (or moved to another repository) in place that served the version of
 * its image: its upgrade is done.
 */
function upgradesDone(obs: Observation): KubeObject[] {
  return obs.pods.map((p) =>
    moving(p) && upgradeServed(p, obs) ? upgradeDone(keepObserved(p), versionOfImage(memberImage(p))) : keepObserved(p),
  );
}

/**
 * Whether a member moved in place serves the version of its image, and has steadily (servedSteadily): one that
 * serves a few seconds between crashes has not.
 */
export function upgradeServed(p: KubeObject, obs: Pick<Observation, 'health' | 'now' | 'upgradeSoakSeconds'>): boolean {
  const h = obs.health[p.metadata.name!];
  return (
    runsItsImage(p) &&
    h?.healthy === true &&
    h.version !== undefined &&
    h.version === versionOfImage(memberImage(p)) &&
    servedSteadily(p, obs.now, obs.upgradeSoakSeconds)
  );
}

/** Ordinals only grow: the highest ever seen (status, pods, members etcd lists). */
export function lastIndexSeen(c: Cluster, obs: Observation, previous: Previous): number {
  const seen = [
    ...obs.pods.map((p) => p.metadata.name),
    ...obs.terminating,
    // Stryker disable next-line StringLiteral: memberIndex and podOfPeerURL find no member in any placeholder
    ...(obs.etcd?.members ?? []).flatMap((m) => [m.name, podOfPeerURL(c, m.peerURLs[0] ?? '') ?? '']),
  ]
    .map((n) => memberIndex(c.name, n))
    .filter((i): i is number => i !== undefined);
  return Math.max(typeof previous.lastMemberIndex === 'number' ? previous.lastMemberIndex : -1, ...seen, -1);
}

/** The members status recorded with their IDs, none counted healthy until etcd says so (leader dropped). */
function knownMembers(c: Cluster, previous: Previous): MemberReport[] {
  // Stryker disable next-line ArrayDeclaration: a string is no MemberReport: the filter drops it
  return (Array.isArray(previous.memberList) ? previous.memberList : [])
    .filter((m): m is MemberReport => isMemberReport(m) && Boolean(m.id) && memberIndex(c.name, m.name) !== undefined)
    .map(({ leader: _leader, ...m }) => ({ ...m, healthy: false }));
}

/**
 * The member pods whose etcd cannot start on their image, by name. One whose image cannot be pulled (a version that
 * does not exist) gets the spec's image in place, whatever else is decided: a fixed spec un-sticks it even while
 * quorum is lost. (Decided on the observed pod, which has a status; applied to its copy.)
 * So does one whose etcd keeps exiting on an image other than the spec's (a failed upgrade rolled back, or a
 * spec.version put back): the same member, on its data, starts again on the version that ran.
 * So does a member moved in place and not soaked when the spec names again the image it ran (a roll back by
 * spec.version: movedBack), whatever its health.
 * Never forward to a newer version than its own, unless it is the member being upgraded (UPGRADED_FROM): members
 * whose etcd keeps exiting on the version they ran (an OOM kill, their node) are no upgrade's to move, all at once
 * and while quorum is lost, their crash then blamed on the new version; the upgrade takes them one at a time once
 * they are back.
 */
function stuckOnImage(obs: Observation, targetImage: string, targetVersion: string, rollBack?: string): Set<string> {
  // (Moving it to the target's version, or to the target's repository at its own version.)
  const upgradesIt = (p: KubeObject) => {
    const own = versionOfImage(memberImage(p));
    return own !== undefined && compareVersions(own, targetVersion) <= 0;
  };
  const crashingBehind = (p: KubeObject) => etcdWaiting(p) === 'CrashLoopBackOff' && upgradesIt(p) && !moving(p);
  // A member moved in place, not soaked, whose move the spec takes back (spec.version or spec.repository set to what it
  // ran: a roll back): it is no upgrade's any more, and waiting for it to serve (a version that hangs) would end in its
  // replacement, its data deleted; it gets the image it ran back in place, whatever its health.
  const movedBack = (p: KubeObject) => {
    const a = p.metadata.annotations ?? {};
    return moving(p) && (atImage(a[UPGRADED_FROM_IMAGE], targetImage) || a[UPGRADED_FROM] === targetVersion);
  };
  return new Set(
    obs.pods
      .filter(
        (p) =>
          !atImage(memberImage(p), targetImage) &&
          // Stryker disable next-line StringLiteral: no placeholder is an image-pull reason
          (IMAGE_WAITING.has(etcdWaiting(p) ?? '') ||
            (etcdWaiting(p) === 'CrashLoopBackOff' && !crashingBehind(p)) ||
            movedBack(p) ||
            p.metadata.name === rollBack),
      )
      .map((p) => p.metadata.name),
  );
}

/**
 * When the member a failed upgrade names was first seen on the image it was given back (the version the cluster ran),
 * recorded on its pod as the answer carries it: from then on it runs that version again, and its failing there is
 * its own, no longer the upgrade's (members.ts, rollBackClock). Kept as first seen; taken off every other pod, and
 * off every pod once no failure holds.
 */
export const ROLLED_BACK_AT = 'etcd.metaops.io/rolled-back-at';

/**
 * The etcd container the member a failed upgrade names ran when first seen so (etcdContainerMark), recorded then: a container reported since that is another was made from the spec given back (runsGivenImage).
 */
export const ROLLED_BACK_CONTAINER = 'etcd.metaops.io/rolled-back-container';

function withRollBackClock(
  pod: KubeObject,
  observed: KubeObject,
  failed: Pick<UpgradeFailure, 'member' | 'since'> | undefined,
  heldImage: string,
  now: Date | undefined,
): KubeObject {
  if (!failed || pod.metadata.name !== failed.member)
    return withAnnotation(withAnnotation(pod, ROLLED_BACK_AT, undefined), ROLLED_BACK_CONTAINER, undefined);
  // (One later than now, which the hook never wrote, is seen again now.)
  const seen = Date.parse(observed.metadata.annotations?.[ROLLED_BACK_AT] ?? '');
  if (Number.isFinite(seen) && (!now || seen <= now.getTime())) return pod;
  // The container it ran when first seen named by the failure (on the failed image, as a rule: the answer gives the
  // image back), recorded then and kept.
  const recorded = observed.metadata.annotations?.[ROLLED_BACK_CONTAINER];
  const mark = recorded ?? etcdContainerMark(observed);
  const on = now !== undefined && runsGivenImage(observed, heldImage, recorded);
  return withAnnotation(
    withAnnotation(pod, ROLLED_BACK_AT, on ? rfc3339(now) : undefined),
    ROLLED_BACK_CONTAINER,
    on ? undefined : mark,
  );
}

/**
 * Whether the observed pod runs `img`, given it back: its spec names it, and its etcd container reports that image,
 * or reports none (judged by its spec), or is another than the one it ran when first seen given it back (`recorded`,
 * etcdContainerMark: a runtime may report an image by another name, and a container started since was made from the
 * spec of the moment). No time the kubelet stamps is compared with the hook's clock: its node's clock may be off.
 */
function runsGivenImage(pod: KubeObject, img: string, recorded: string | undefined): boolean {
  if (!atImage(memberImage(pod), img)) return false;
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  const etcd = Array.isArray(statuses)
    ? (statuses as Array<{ name?: unknown; image?: unknown } | null>).find((c) => c?.name === 'etcd')
    : undefined;
  if (typeof etcd?.image !== 'string' || reportsSpecImage(etcd.image, pod, img)) return true;
  return recorded !== undefined && etcdContainerMark(pod) !== recorded;
}

/** The first rule's decision, in the order given: each rule decides, or passes (undefined) to the next. */
export function firstDecision<V>(
  view: V,
  rules: ReadonlyArray<(view: V) => Decision | undefined>,
): Decision | undefined {
  for (const rule of rules) {
    const d = rule(view);
    if (d) return d;
  }
  return undefined;
}

/** Whether the pod records a move in place to its image under way (UPGRADED_FROM, UPGRADED_FROM_IMAGE). */
export function moving(p: KubeObject): boolean {
  const a = p.metadata.annotations ?? {};
  return a[UPGRADED_FROM] !== undefined || a[UPGRADED_FROM_IMAGE] !== undefined;
}

/** An image as a runtime may report it: without docker.io/ and library/ (Docker Hub's defaults). */
const normalized = (img: string) => img.replace(/^docker\.io\//, '').replace(/^library\//, '');

/**
 * Whether the image an etcd container status reports is its pod's: the image given (`given`), or the one its spec
 * writes (memberImageAsWritten: a runtime reports the digest an admission policy pinned it to as the spec says it).
 */
function reportsSpecImage(reported: string, pod: KubeObject, given: string): boolean {
  const written = memberImageAsWritten(pod);
  return (
    normalized(reported) === normalized(given) ||
    (written !== undefined && normalized(reported) === normalized(written))
  );
}

/**
 * Whether the pod's etcd container runs the image its spec names since it was moved to it (UPGRADED_FROM_IMAGE): its
 * status reports that image (never while it reports the image it was moved from, or none running), or it is another
 * running container than the one it ran at the move (UPGRADED_CONTAINER,
 * etcdContainerMark: restarted, made again; a runtime may report the image by its digest). A move at the same version
 * (another repository) is invisible in the version the member serves: its old container answers until the kubelet
 * restarts it. A pod whose status says nothing of its etcd container (none reported), or moved without that record,
 * is judged by its member's answer alone. No time the kubelet stamps is compared with the hook's clock.
 */
export function runsItsImage(p: KubeObject): boolean {
  const a = p.metadata.annotations ?? {};
  if (a[UPGRADED_FROM_IMAGE] === undefined) return true;
  const statuses = (p['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  const etcd = Array.isArray(statuses)
    ? (statuses as Array<{ name?: unknown; image?: unknown; state?: { running?: unknown } } | null>).find(
        (c) => c?.name === 'etcd',
      )
    : undefined;
  if (!etcd) return true;
  const want = memberImage(p);
  const reported = typeof etcd.image === 'string' ? normalized(etcd.image) : undefined;
  if (reported !== undefined && want !== undefined && reportsSpecImage(etcd.image as string, p, want)) return true;
  // The image it was moved from, or no container running: not (yet) the image of its spec.
  if (reported === normalized(a[UPGRADED_FROM_IMAGE]) || !etcd.state?.running) return false;
  const recorded = a[UPGRADED_CONTAINER];
  return recorded === undefined || etcdContainerMark(p) !== recorded;
}

/**
 * The move a member stuck on its image mid-upgrade (UPGRADED_FROM) keeps when given the spec's image (a new
 * spec.version while its failure was timed): the version and image it ran before, and a new clock; none for another
 * (a member stuck on an image that never ran: no version to go back to).
 */
function stillMoving(
  p: KubeObject,
  now: Date | undefined,
): { from?: string; fromImage?: string; at?: string } | undefined {
  const a = p.metadata.annotations ?? {};
  if (a[UPGRADED_FROM] === undefined) return undefined;
  return {
    from: a[UPGRADED_FROM],
    ...(a[UPGRADED_FROM_IMAGE] !== undefined ? { fromImage: a[UPGRADED_FROM_IMAGE] } : {}),
    ...(now ? { at: rfc3339(now) } : {}),
  };
}
