// The version rules around the membership rules: an upgrade etcd does not support (a minor downgrade, a skipped
// minor, another major) is refused, and a member that failed on the version upgraded to halts the upgrade
// (upgrade.ts): either holds every member at the version the cluster ran; the membership rules decide with the
// version held; the upgrade records go on the pods answered.
import { isPodReady, type KubeObject, type ParentObject, rfc3339 } from '../../../lib/index.js';
import { clusterOf, etcdVersion, image, memberImage, podOfMember, podSpecFingerprint } from '../members.js';
import type { EtcdClusterSpec } from '../schema.js';
import {
  detectFailure,
  evictionFailure,
  evictionsOnPods,
  failureMessage,
  failureOnPods,
  heldSpec,
  markedFrom,
  othersOutage,
  outageSinceMove,
  recordedFailure,
  UPGRADE_EVICTIONS,
  UPGRADE_FAILED,
  UPGRADE_MARK,
  type UpgradeEvictions,
  type UpgradeFailure,
  withEvictions,
  withAnnotation,
  withSoakRecords,
  withUpgradeClock,
} from '../upgrade.js';
import { withOutcomes } from './conditions.js';
import { crashLoopVerdict, MAJORITY_CRASH_LOOPING } from './crash-loops.js';
import { isMemberReport, MAJORITY_LOST } from './evidence.js';
import { madeFromOtherSpec, restoreReplacing, shortCrashLoop } from './respec.js';
import { decideMembers } from './members.js';
import { additionsMemory, withAdditionsOnPods } from '../additions.js';
import { bootstrapMemory, withBootstrapOnPods } from '../bootstraps.js';
import type { Decision, MemberReport, Observation } from './types.js';
import { atImage, compareVersions, lastGoodVersion, upgradeRefusal, versionOfImage } from './versions.js';

/** The membership decision with the version held where an upgrade was refused or failed, and the upgrade records. */
export function decideVersion(parent: ParentObject, spec: EtcdClusterSpec, obs: Observation): Decision {
  const target = etcdVersion(spec.version);
  const running = runningVersion(parent, obs);
  const refused = running ? upgradeRefusal(running, target) : undefined;
  const upgradeFrom = markedFrom(obs.pods, target);
  const voters = votingMembers(parent, spec, obs);
  const outage = (pod: string) => othersOutage(pod, voters, obs.pods);
  const lastingOutage = outageNotHealing(parent, obs, voters, target, Boolean(spec.pod?.persistentVolumeClaimSpec));
  // Members on the image upgraded to evicted by their nodes, each counted once (upgrade.ts withEvictions).
  const evictions = refused ? undefined : withEvictions(evictionsOnPods(obs.pods, image(spec)), obs.pods, image(spec));
  const failure = refused
    ? undefined
    : upgradeFailure(parent, spec, obs, { running, upgradeFrom, outage, lastingOutage, evictions });
  const held = refused ? { ...spec, version: running! } : failure ? heldSpec(spec, failure) : undefined;
  // An upgrade that has not soaked (asked for, under way, its last member soaking): every pod made meanwhile runs the
  // last good version; the upgrade moves members to the target one at a time, each soaked (plan/members.ts).
  // (Before the mark: the lowest version the member pods' images name; without a pod, the version running.)
  const imaged = obs.pods.length > 0 ? lowestImageVersion(obs.pods) : running;
  const lastGood = held ? undefined : lastGoodVersion(target, upgradeFrom ?? imaged, obs.etcd?.clusterVersion);
  const additions = additionsMemory(parent, spec, obs.pods);
  const bootstrap = bootstrapMemory(parent, spec, obs.pods);
  const d = withOutcomes(
    withAdditionsOnPods(
      withBootstrapOnPods(
        upgradeRecords(
          decideMembers(parent, held ?? spec, { ...obs, additions, bootstrap }, Boolean(held), {
            rollBack: failure,
            lastGood,
          }),
          target,
          failure,
          upgradeFrom ?? running,
          {
            answered: obs.etcd !== undefined,
            outage,
            obs,
            evictions,
            ...(obs.now ? { now: rfc3339(obs.now) } : {}),
          },
        ),
      ),
    ),
  );
  if (failure) {
    upgrading(d, { type: 'Upgrading', status: false, reason: 'UpgradeFailed', message: failureMessage(failure) });
    d.upgradeFailed = failure;
  } else if (!refused) underWay(d, obs, target, image(spec), upgradeFrom);
  if (failure)
    namedInCrashLoops(
      d,
      `the upgrade to ${failure.version} failed (Upgrading): ${failure.member} runs ${failure.from} again`,
    );
  if (refused) {
    const message = `spec.version ${target} is refused: ${refused}; the cluster stays at ${running}`;
    upgrading(d, { type: 'Upgrading', status: false, reason: 'UpgradeRefused', message });
  }
  return d;
}

/**
 * Why the other members' outage that keeps quorum from a member moved in place is the version's doing, if it is: it
 * began after the move (outageSinceMove), and the hook itself says the quorum will not come back
 * (MajorityCrashLooping: a majority's etcd keeps exiting, the quorum lost for over UNHEALTHY_REPLACE_SECONDS). The
 * member moved then goes back to the last good version in place, on its data (the others may crash on what it sends
 * them); a shorter outage, or one that began before the move, is no evidence against the version.
 */
function outageNotHealing(
  parent: ParentObject,
  obs: Observation,
  voters: string[],
  target: string,
  storage: boolean,
): ((pod: KubeObject) => string | undefined) | undefined {
  const loops = crashLoopVerdict(parent, obs.pods, voters, obs.now, storage);
  if (!loops) return undefined;
  const named = loops.looping.slice(0, 3).join(', ') + (loops.looping.length > 3 ? ', …' : '');
  return (pod) =>
    outageSinceMove(pod, loops.since)
      ? `${loops.looping.length} of ${voters.length} members (${named}) keep exiting since it runs ${target}: ` +
        `quorum lost since ${loops.since}, ${MAJORITY_CRASH_LOOPING}`
      : undefined;
}

/**
 * While etcd is silent or the quorum is lost, the membership rules say nothing of an upgrade under way (the rule that
 * moves members runs only with a quorum): Upgrading and targetVersion kept from the member pods' records (the
 * upgrade-mark, the members on the target image), naming the members moved. Whoever reads a lost quorum's status is
 * told first that a member was moved to another version.
 */
function underWay(d: Decision, obs: Observation, target: string, targetImage: string, from: string | undefined): void {
  if (d.conditions.some((c) => c.type === 'Upgrading') || (obs.etcd !== undefined && d.quorum?.ok !== false)) return;
  if (!from || !d.pods.some((p) => markedFrom([p], target))) return;
  const on = obs.pods.filter((p) => atImage(memberImage(p), targetImage)).map((p) => p.metadata.name);
  const named = on.slice(0, 5).join(', ') + (on.length > 5 ? `, and ${on.length - 5} more` : '');
  const moved = on.length
    ? `${named} moved to ${target} (${on.length} of ${obs.pods.length} member pods)`
    : `no member moved to ${target} yet`;
  const message =
    `the upgrade from ${from} to ${target} is under way: ${moved}; no member is moved while etcd does not answer ` +
    `with a quorum`;
  d.conditions = [...d.conditions, { type: 'Upgrading', status: true, reason: 'WaitingForQuorum', message }];
  d.targetVersion = target;
  namedInCrashLoops(d, message);
}

/** The MajorityCrashLooping conditions of `d`, if any, with `upgrade` said at the end of their message. */
function namedInCrashLoops(d: Decision, upgrade: string): void {
  d.conditions = d.conditions.map((c) =>
    c.reason === MAJORITY_CRASH_LOOPING && c.message !== undefined ? { ...c, message: `${c.message}; ${upgrade}` } : c,
  );
}

/** The lowest version the images of `pods` name, if any names one. */
function lowestImageVersion(pods: KubeObject[]): string | undefined {
  return pods
    .map((p) => versionOfImage(memberImage(p)))
    .filter((v): v is string => v !== undefined && /^\d+\.\d+\.\d+$/.test(v))
    .sort(compareVersions)[0];
}

/** The Upgrading condition of `d` replaced by `condition`; no target version while the upgrade is held. */
function upgrading(d: Decision, condition: Decision['conditions'][number]): void {
  d.conditions = [...d.conditions.filter((x) => x.type !== 'Upgrading'), condition];
  delete d.targetVersion;
}

/** The version the members run: what the healthy ones say (the lowest), else (none answers) the one status last reported. */
function runningVersion(parent: ParentObject, obs: Observation): string | undefined {
  const lastReported = (parent.status as { currentVersion?: unknown } | undefined)?.currentVersion;
  return (
    Object.values(obs.health)
      .filter((h) => h.healthy && h.version)
      .map((h) => h.version!)
      .sort(compareVersions)[0] ??
    (typeof lastReported === 'string' && /^\d+\.\d+\.\d+$/.test(lastReported) ? lastReported : undefined)
  );
}

/**
 * A failed upgrade: as status recorded it, else as the member pods recorded it, else as seen now (upgrade.ts). A
 * member that serves is no failure: healthy as etcd says, or Ready (its probe asks etcd in the pod, on the version
 * it runs, whether or not the hook can reach it).
 */
function upgradeFailure(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  o: {
    running?: string;
    upgradeFrom?: string;
    outage: (pod: string) => boolean;
    lastingOutage: ((pod: KubeObject) => string | undefined) | undefined;
    evictions: UpgradeEvictions | undefined;
  },
): UpgradeFailure | undefined {
  const target = etcdVersion(spec.version);
  // The hold is bound to the spec.pod it failed on too: a change of it (a memory limit the version needs, raised)
  // tries again, once per change (a failure seen now records the spec.pod of the moment).
  const podSpec = podSpecFingerprint(spec);
  const held =
    recordedFailure(parent.status, target, image(spec), podSpec) ??
    failureOnPods(obs.pods, target, image(spec), podSpec);
  if (held) return held;
  const seen =
    // Members on the image upgraded to evicted again and again: the version's doing (its storage, its memory).
    evictionFailure(o.evictions, {
      target,
      targetImage: image(spec),
      from: o.upgradeFrom ?? (o.running !== target ? o.running : undefined),
      now: obs.now,
    }) ??
    detectFailure({
      pods: obs.pods,
      targetImage: image(spec),
      target,
      running: o.running,
      previous: parent.status,
      now: obs.now,
      upgradeFrom: o.upgradeFrom,
      outage: o.outage,
      ...(o.lastingOutage ? { lastingOutage: o.lastingOutage } : {}),
      respecPending: respecPending(parent, spec, obs),
      versions: Object.fromEntries(Object.entries(obs.health).map(([n, h]) => [n, h.healthy ? h.version : undefined])),
      // (A Ready pod serves too: its probe asks etcd in the pod, on the version it runs, whether or not the hook
      // can reach it.)
      healthy: new Set([
        ...Object.entries(obs.health)
          .filter(([, h]) => h.healthy)
          .map(([n]) => n),
        ...obs.pods.filter(isPodReady).map((p) => p.metadata.name),
      ]),
    });
  return seen ? { ...seen, podSpec } : undefined;
}

/**
 * Whether a member pod's crash loop is respec's to end (plan/respec.ts, remadeForSpec), now or once it has failed
 * FAILED_STARTS starts: with storage, its claim there (not being deleted), no restore replacing the members, made
 * from another spec.pod than the spec's, its etcd in a crash loop of short runs (shortCrashLoop). Without storage a
 * member that started is never made again (its data lives in its pod): no.
 */
export function respecPending(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
): (pod: KubeObject) => boolean {
  if (!spec.pod?.persistentVolumeClaimSpec || restoreReplacing(parent)) return () => false;
  const claimThere = (name: string) =>
    obs.claims === undefined || (obs.claims.includes(name) && !obs.terminatingClaims?.includes(name));
  return (pod) => claimThere(pod.metadata.name!) && madeFromOtherSpec(pod, spec) && shortCrashLoop(pod);
}

/**
 * The upgrade records on every member pod answered (upgrade.ts), which outlive the status and a lost member: the
 * upgrade under way (UPGRADE_MARK, from its start until every member runs the target) and a failed one
 * (UPGRADE_FAILED, while it holds). Once etcd answers, a majority-lost record (MAJORITY_LOST) goes.
 */
function upgradeRecords(
  d: Decision,
  target: string,
  failure: UpgradeFailure | undefined,
  from: string | undefined,
  o: {
    answered: boolean;
    outage: (pod: string) => boolean;
    obs: Observation;
    evictions: UpgradeEvictions | undefined;
    now?: string;
  },
): Decision {
  const observed = new Map(o.obs.pods.map((p) => [p.metadata.name, p]));
  const upgrading = d.targetVersion !== undefined || d.pods.some((p) => markedFrom([p], target));
  const done = d.conditions.some((c) => c.type === 'Upgrading' && c.reason === 'AtVersion');
  const mark = upgrading && !done && from && from !== target ? `${from}->${target}` : undefined;
  const failed = failure ? JSON.stringify(failure) : undefined;
  // The evictions on the image upgraded to, while it is under way (none once it is done, failed or asked no more).
  const evicted = mark && !failure && o.evictions ? JSON.stringify(o.evictions) : undefined;
  const record = (p: KubeObject) => {
    const name = p.metadata.name!;
    const marked = withAnnotation(withAnnotation(p, UPGRADE_MARK, mark), UPGRADE_FAILED, failed);
    const upgrade = withSoakRecords(
      withUpgradeClock(withAnnotation(marked, UPGRADE_EVICTIONS, evicted), o.outage(name), o.now),
      observed.get(name),
      o.obs.health[name]?.healthy === true,
      o.obs.now,
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
  return [...new Set([...known, ...obs.pods.map((p) => p.metadata.name)])];
}
