// The membership rules, in the order of plan.ts's header. Without member pods (no-pods.ts) and while etcd gives no
// member list (silent.ts) no membership change is made. Once etcd answers, over its member list (answered.ts):
// a lost quorum stops everything; then CORRUPT, then NOSPACE; a paused spec; members restarted in place; then dead members are
// removed (their replacement is a later add), stuck additions cancelled, the long unhealthy replaced; a learner
// promoted; then the size; then the version, one member at a time; then members made before restart in place move
// to it, one at a time. At most one membership change per sync; the next sync (resyncAfterSeconds) takes the next
// step.
import {
  type ConditionInput,
  type KubeObject,
  previousConditions,
  rfc3339,
  type ParentObject,
} from '../../../lib/index.js';
import { memberImage, memberIndex, memberName, memberPod, peerURL } from '../members.js';
import { crashLooping, DEAD_PHASES, endedByNode, etcdExited, etcdWaiting, exitLasted, phaseOf } from '../pods.js';
import type { EtcdClusterSpec } from '../schema.js';
import { answeredOf, type Answered, type Listed } from './answered.js';
import { available, majorityLostMessage, recovering, scaling } from './conditions.js';
import { crashLoopVerdict } from './crash-loops.js';
import { lostForGood } from './evidence.js';
import { initialCluster, withImage } from './member-pods.js';
import { noPods } from './no-pods.js';
import { freeRun, skippedText } from './ordinals.js';
import { etcdSilent } from './silent.js';
import {
  type Decision,
  type MemberReport,
  type Observation,
  PENDING_ADD_SECONDS,
  UNHEALTHY_REPLACE_SECONDS,
} from './types.js';
import { atImage, supportsLearners, versionOfImage } from './versions.js';
import {
  additionsStopped,
  howItFailed,
  MAX_ENDED_ADDITIONS,
  MAX_FAILED_ADDITIONS,
  nextAdditionAt,
  RETRY_ADDITIONS,
  stoppedMessage,
  stoppedWhy,
  withEndedAddition,
  withFailedAddition,
  withoutEnded,
  youngPod,
} from '../additions.js';
import { firstDecision, moving, ROLLED_BACK_AT, runsItsImage, upgradeServed, viewOf } from './view.js';
import { UPGRADE_SOAK_SECONDS, type UpgradeFailure } from '../upgrade.js';

/**
 * The membership decision over one view of the observed cluster. `holdVersion`: no member's image is changed (an
 * upgrade was refused; new members take the running version); `rollBack`: the failed upgrade, whose member is given
 * back the version the cluster ran; `lastGood`: the version member pods are made on while an upgrade has not soaked
 * (View.made).
 */
export function decideMembers(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  obs: Observation,
  // Stryker disable next-line BooleanLiteral: never defaulted: upgrade-hold.ts passes Boolean(held)
  holdVersion = false,
  version: { rollBack?: Pick<UpgradeFailure, 'member' | 'since'> | undefined; lastGood?: string | undefined } = {},
): Decision {
  const v = viewOf(parent, spec, obs, holdVersion, version);
  if (obs.pods.length === 0) return noPods(v);
  if (!obs.etcd) return etcdSilent(v);
  const a = answeredOf(v, obs.etcd);
  return (
    firstDecision(a, [
      quorumLost,
      dataCorrupt,
      noSpace,
      paused,
      restartingMembers,
      replaceDataLost,
      removeDead,
      cancelAddition,
      replaceUnhealthy,
      promoteLearner,
      waitForHealthy,
      scaleUp,
      scaleDown,
      upgrade,
      moveToRestartInPlace,
    ]) ?? atRest(a)
  );
}

/** The answer while quorum holds: the pods as they run, the conditions after Available, another step pending. */
function running(a: Answered, extra: ConditionInput[], more: Partial<Decision> = {}): Decision {
  return {
    ...a.common,
    pods: a.livePods,
    phase: 'Running',
    conditions: a.runningConditions(extra),
    converging: true,
    ...more,
  };
}

/** A removal of `pod` (member `id`), its pod dropped from the answer. */
function removal(a: Answered, remove: { id: string; pod: string; why: string }, condition: ConditionInput): Decision {
  return running(a, [condition], {
    action: { type: 'remove', ...remove },
    pods: a.livePods.filter((p) => p.metadata.name !== remove.pod),
  });
}

/**
 * Quorum lost: no membership change until the members return, and no member's unhealthy clock runs (after an outage,
 * a member slower to return is not replaced at once for the time the whole cluster was down). Without storage,
 * voting members whose pod was deleted or finished never return: when they leave fewer than a quorum, the loss is
 * for good, and said so (nothing is changed: the pods stay as evidence).
 */
function quorumLost(a: Answered): Decision | undefined {
  const { quorum } = a;
  if (quorum.ok) return undefined;
  for (const r of a.reports) delete r.unhealthySince;
  const pods = [...a.kept.filter((p) => !a.finishedWithStorage.includes(p.metadata.name!)), ...a.recreated];
  const lost = lostForGood(
    a.voting.filter((m) => m.member.name && m.pod).map((m) => m.pod!),
    a.obs,
    a.storage,
    a.claimGone,
  );
  if (a.voting.length - lost.length < quorum.needed) {
    const message = majorityLostMessage(lost, a.voting.length, a.storage);
    return {
      ...a.common,
      pods,
      phase: 'Failed',
      reason: 'MajorityLost',
      conditions: [available(false, 'MajorityLost', message), recovering(true, 'MajorityLost', message)],
      converging: false,
    };
  }
  const loops = crashLoopVerdict(
    a.parent,
    a.obs.pods,
    a.voting.map((m) => m.pod ?? m.member.id),
    a.obs.now,
    a.storage,
  );
  if (loops)
    return {
      ...a.common,
      pods,
      phase: 'Running',
      reason: loops.reason,
      conditions: loops.conditions,
      converging: false,
    };
  // Members lost for good (without storage, their pod deleted or finished; with it, their claim gone) never return:
  // said apart, they are replaced once the quorum is back.
  const returning = quorum.down.filter((p) => !lost.some((l) => l.name === p));
  const goneText = lost.length
    ? ` Lost for good: ${lost.map((l) => `${l.name} (${l.how})`).join(', ')}; replaced once the quorum is back.`
    : '';
  const message = `${quorum.healthy} of ${quorum.members} members healthy, ${quorum.needed} needed; down: ${quorum.down.join(', ')}.${goneText} No membership change until ${returning.length === quorum.down.length ? 'they return' : returning.length ? `${returning.join(', ')} ${returning.length > 1 ? 'return' : 'returns'}` : 'the quorum is back'}.`;
  // A member whose claim came back without its data waits too: removing it needs a quorum (replaceDataLost).
  const gone = dataLostText(a);
  return {
    ...a.common,
    pods,
    phase: 'Running',
    reason: 'QuorumLost',
    conditions: [
      available(false, 'QuorumLost', message),
      gone
        ? recovering(true, 'MemberDataLost', `${gone}; it is replaced once a quorum holds without it (${message})`)
        : recovering(true, 'QuorumLost', message),
    ],
    converging: true,
  };
}

/**
 * What the members whose claim came back without their data (Answered.dataLost) say, as a condition tells it, or
 * undefined when there are none.
 */
function dataLostText(a: Answered): string | undefined {
  if (a.dataLost.length === 0) return undefined;
  const names = a.dataLost.map((d) => d.listed.pod!);
  const one = names.length === 1;
  return (
    `member${one ? '' : 's'} ${names.join(', ')} came back on ${one ? 'a claim' : 'claims'} holding none of ${one ? 'its' : 'their'} data ` +
    `(${a.dataLost[0]!.said}): not started under ${one ? 'its' : 'their'} old member ID${one ? '' : 's'}`
  );
}

/**
 * A member that started, made again on its claim, whose data check found none of its data there (an empty volume: a
 * replaced local disk, a volume restored from the wrong snapshot, a data directory removed by hand; pods.ts
 * dataMissing). Its etcd never runs under its old ID (it would vote with an empty log and could lose a write a
 * majority acknowledged): like a member whose claim is gone, it is removed (its pod and claim with it, a recorded
 * decision), only while the quorum holds without it, and a new member under a new name replaces it (a later add).
 * While the quorum is lost nothing is removed (quorumLost says why).
 */
function replaceDataLost(a: Answered): Decision | undefined {
  const text = dataLostText(a);
  const first = a.dataLost[0];
  if (!text || !first) return undefined;
  const { member, pod } = first.listed;
  if (!member.isLearner && !quorumWithoutOne(a))
    return running(
      a,
      [recovering(true, 'MemberDataLost', `${text}; not removed: the quorum would not hold without it`)],
      {
        pods: a.livePods,
      },
    );
  return removal(
    a,
    { id: member.id, pod: pod!, why: 'data lost' },
    recovering(
      true,
      'MemberDataLost',
      `${text}; removing member ${pod} (ID ${member.id}), a new member will replace it`,
    ),
  );
}

/**
 * etcd raised the CORRUPT alarm (its corruption check found a member whose data disagrees with the others): every
 * write is refused, reads and the quorum go on. Said as such (not as a quorum lost), naming the member the alarm
 * names, and the way out; no membership change is made meanwhile (which member holds the right data is the admin's
 * call, etcd's docs: find it, remove it, disarm; an alarm of an ID that is no longer a member is disarmed by
 * alarms.ts).
 */
function dataCorrupt(a: Answered): Decision | undefined {
  const reporting = a.reports.filter((r) => r.alarm === 'CORRUPT').map((r) => r.name);
  if (reporting.length === 0) return undefined;
  const named = (a.obs.alarms ?? [])
    .filter((x) => x.alarm === 'CORRUPT')
    .map((x) => {
      const r = a.reports.find((m) => m.id === x.memberId);
      return r ? `${r.name} (ID ${x.memberId})` : `ID ${x.memberId}`;
    });
  // Without a list in this sync (etcd's alarm list goes through raft and may time out while /health answers), the
  // member named when it last answered is named still: the status stays as it is until a list says otherwise.
  const last = a.obs.alarms === undefined ? namedLast(a.parent) : undefined;
  const who = named.length ? [...new Set(named)].join(', ') : last;
  const which = who
    ? `found member ${who} whose data disagrees with the others`
    : `found a member whose data disagrees with the others (etcdctl alarm list names it)`;
  const message = `etcd raised the CORRUPT alarm (reported by ${reporting.join(', ')}): its corruption check ${which}; every write is refused until the alarm is disarmed, reads are served; no membership change meanwhile. The way out (etcd's docs, data corruption): compare the members (etcdctl endpoint hashkv --cluster), remove the member whose data disagrees (etcdctl member remove <ID>), then etcdctl alarm disarm (an alarm whose member is no longer a member is disarmed by metaops); restore from a backup taken before the alarm if in doubt`;
  const u = underAlarm(a, message);
  return {
    ...u.decision,
    reason: 'DataCorrupt',
    conditions: [available(false, 'DataCorrupt', u.available), recovering(true, 'DataCorrupt', u.recovering)],
  };
}

/** One member a CORRUPT alarm names, as dataCorrupt says it: `<pod> (ID <id>)`, or `ID <id>` of no member. */
const NAMED = String.raw`(?:[-a-z0-9.]{1,253} \(ID [0-9]{1,20}\)|ID [0-9]{1,20})`;
const NAMED_BEFORE = new RegExp(
  String.raw`^etcd raised the CORRUPT alarm \(reported by [^)]*\): its corruption check found member (${NAMED}(?:, ${NAMED}){0,15}) whose data disagrees`,
);

/**
 * The members the CORRUPT alarm named when etcd's alarm list last answered, as the status's `DataCorrupt` said them
 * (read by their shape: pod names and IDs only), or undefined.
 */
export function namedLast(parent: ParentObject): string | undefined {
  const available = previousConditions(parent.status).find((c) => c.type === 'Available');
  if (available?.reason !== 'DataCorrupt' || typeof available.message !== 'string') return undefined;
  return NAMED_BEFORE.exec(available.message.slice(0, 4096))?.[1];
}

/** etcd raised the NOSPACE alarm: writes are refused, and no membership change is made meanwhile. */
function noSpace(a: Answered): Decision | undefined {
  const members = a.reports.filter((r) => r.alarm === 'NOSPACE').map((r) => r.name);
  if (members.length === 0) return undefined;
  const message = `etcd raised the NOSPACE alarm (${members.join(', ')}): writes are refused until space is freed (compact, defragment every member, then etcdctl alarm disarm); no membership change meanwhile. A higher quota in pod.etcdEnv (ETCD_QUOTA_BACKEND_BYTES) reaches only member pods made after it is set, not the running members`;
  const u = underAlarm(a, message);
  return {
    ...u.decision,
    reason: 'NoSpace',
    conditions: [available(false, 'NoSpace', u.available), recovering(true, 'NoSpace', u.recovering)],
  };
}

/**
 * The answer under an alarm said by `said` (its reason and conditions the caller's): no membership change, but the
 * members etcd lists keep their pods, as while the quorum is lost: a member whose pod is missing is made again (with
 * storage on its claim, as the same member; an addition that never started, its first pod), and with storage a member
 * pod that finished is dropped to be made again on its claim. Making a member's pod again adds nothing to the
 * cluster's data and no member to its list: without it the cluster would run short of its fault tolerance for as long
 * as the alarm lasts (and NOSPACE's way out, defragmenting every member, could not reach the member that is gone).
 */
function underAlarm(
  a: Answered,
  said: string,
): { decision: Omit<Decision, 'reason' | 'conditions'>; available: string; recovering: string } {
  // Paused (spec.paused stops every change): the pods as they are, and no alarm disarmed (alarms.ts), said so.
  const paused = Boolean(a.spec.paused);
  const held = (a.obs.heldAlarms ?? []).map((x) => `${x.alarm} of ID ${x.memberId}`);
  const message = paused
    ? `${said}. spec.paused is true: no pod is made${held.length ? ` and no alarm disarmed (${held.join(', ')}: no member has the ID)` : ''} until it is false`
    : said;
  const dropped = new Set(paused ? [] : a.finishedWithStorage);
  const again = paused ? [] : [...a.recreated.map((p) => p.metadata.name!), ...a.finishedWithStorage];
  const restarting = again.length
    ? `${message}. Meanwhile ${again.join(', ')} ${again.length > 1 ? 'are' : 'is'} made again as the same member${again.length > 1 ? 's' : ''}`
    : message;
  return {
    decision: {
      ...a.common,
      pods: [...a.kept.filter((p) => !dropped.has(p.metadata.name!)), ...(paused ? [] : a.recreated)],
      phase: 'Running',
      converging: true,
    },
    available: message,
    recovering: restarting,
  };
}

/** spec.paused: the pods as they are, no membership change or upgrade. */
function paused(a: Answered): Decision | undefined {
  if (!a.spec.paused) return undefined;
  return running(
    a,
    [
      {
        type: 'Paused',
        status: true,
        reason: 'SpecPaused',
        message: 'spec.paused is true: no membership change or upgrade is made',
      },
    ],
    { pods: a.kept, converging: false },
  );
}

/**
 * Members whose pod is made again (recreated) or dropped to be (finished, with storage): the same members. A member
 * that never started (etcd lists it without a name: an addition, a replacement) whose first pod is made on its claim
 * restarts nothing: its addition goes on as such (Scaling), said by the rules after.
 */
function restartingMembers(a: Answered): Decision | undefined {
  const started = new Set(a.members.filter((m) => m.member.name && m.pod).map((m) => m.pod!));
  const names = [...a.recreated.map((p) => p.metadata.name!).filter((n) => started.has(n)), ...a.finishedWithStorage];
  if (names.length === 0) return undefined;
  // (Those that could not start on the spec.pod they were made from are made again with the spec's: plan/respec.ts.)
  const respec = a.remade.length
    ? `; ${a.remade.join(', ')} could not start on the spec.pod ${a.remade.length > 1 ? 'they were' : 'it was'} made from: made again with the spec's`
    : '';
  const restarting = `restarting ${names.join(', ')} as the same member${names.length > 1 ? 's' : ''}${respec}`;
  // An upgrade under way is still said while a member is made again (with storage the member moved, which could not
  // start on the spec.pod it was made from, is made again on the last good version: the rollout moves it again).
  const upgradeToo =
    upgradeUnderWay(a) || (!a.holdVersion && a.recreated.some((p) => !atImage(memberImage(p), a.targetImage)));
  if (!upgradeToo) return running(a, [recovering(true, 'RestartingMember', restarting)]);
  const upgrading = {
    type: 'Upgrading',
    status: true,
    reason: 'WaitingForMember',
    message: `the upgrade to ${a.targetVersion} is under way: ${restarting}`,
  };
  return running(a, [recovering(true, 'RestartingMember', restarting), upgrading], {
    targetVersion: a.targetVersion,
  });
}

/**
 * 1. A dead member (its pod gone or finished) without storage, or with its claim gone too: remove it; its
 * replacement is a later add.
 */
function removeDead(a: Answered): Decision | undefined {
  const dead = a.members.find(
    (m) =>
      m.member.name &&
      m.pod &&
      (!m.observed || DEAD_PHASES.has(phaseOf(m.observed))) &&
      !a.obs.terminating.includes(m.pod) &&
      (!a.storage || a.claimGone(m.pod)),
  );
  if (!dead) return undefined;
  return removal(
    a,
    { id: dead.member.id, pod: dead.pod!, why: 'dead' },
    recovering(true, 'ReplacingDeadMember', `member ${dead.pod} is gone: removing it, a new member will replace it`),
  );
}

/** Whether the quorum holds without one more voting member. */
function quorumWithoutOne(a: Answered): boolean {
  return a.quorum.healthy >= Math.floor((a.voting.length - 1) / 2) + 1;
}

/** Whether an addition has been pending for longer than PENDING_ADD_SECONDS. */
function expired(a: Answered, m: Listed): boolean {
  // Stryker disable next-line OptionalChaining: m is one of a.members, and reports maps them one to one
  const since = a.reports[a.members.indexOf(m)]?.pendingSince;
  return Boolean(a.obs.now && since && a.obs.now.getTime() - Date.parse(since) > PENDING_ADD_SECONDS * 1000);
}

/**
 * The pending addition that cannot finish, if any: a learner or a member that never started, when the size was
 * lowered, or its pod failed, or the spec changed since, or it is pending past PENDING_ADD_SECONDS (a pod that stays
 * Pending: an image that cannot be pulled, no node to run it). (The member a failed upgrade names is given back the
 * version the cluster ran, in place, and joins on it: cancelling it at once would add its replacement again and
 * again. It is cancelled only once it has run that version for PENDING_ADD_SECONDS without joining: rollBackClock.)
 */
function stuckAddition(a: Answered): Listed | undefined {
  // A member that never started whose pod name another owner holds: its pod can never be made (takenHolder).
  const taken = a.members.find((m) => takenHolder(a, m) !== undefined);
  if (taken) return taken;
  const over = a.members.length > a.spec.size + moveSlot(a);
  const pending = a.members.filter(
    (m) => (m.member.isLearner || !m.member.name) && !(m.pod && a.healthOf(m.pod).healthy),
  );
  const rolledBackStuck = (pod: string) => {
    const since = rollBackClock(a, pod);
    return Boolean(a.obs.now && since && a.obs.now.getTime() - Date.parse(since) > PENDING_ADD_SECONDS * 1000);
  };
  return pending.find(
    (m) =>
      (m.pod === undefined || m.pod !== a.rollBack || over || rolledBackStuck(m.pod)) &&
      (over || !m.pod || (m.observed && (exitedForGood(a, m) || !madeOnSpec(a, m.observed))) || expired(a, m)),
  );
}

/**
 * Whether the etcd of a pending addition exited for good: its pod ended (it never runs again), or it has stayed
 * exited past the grace one kill gets (pods.ts exitLasted, from its status clock exitedSince): the kubelet restarts
 * an etcd killed once in place after its back-off, and the member then catches up as itself.
 */
function exitedForGood(a: Answered, m: Listed): boolean {
  if (!m.observed || !crashLooping(m.observed)) return false;
  // Stryker disable next-line OptionalChaining: m is one of a.members, and reports maps them one to one
  return DEAD_PHASES.has(phaseOf(m.observed)) || exitLasted(a.reports[a.members.indexOf(m)]?.exitedSince, a.obs.now);
}

/**
 * Whether a member pod runs an image of the spec of the moment: the target's, or the one pods are made on while an
 * upgrade has not soaked (View.made: the last good version). An addition on another was made for an older spec.
 */
function madeOnSpec(a: Answered, pod: KubeObject): boolean {
  const img = memberImage(pod);
  return atImage(img, a.targetImage) || atImage(img, a.madeImage);
}

/**
 * Who holds the pod name of a member that never started (etcd gave it no name: it joined nothing, holds no data) and
 * whose pod is not observed as this cluster's (Observation.unstartedTaken), if so: that pod can never be created, so
 * the member never starts. A member that started, or whose pod is observed, is never so judged (it stays, and the
 * taken name holds the cluster: sync.ts heldForNames).
 */
function takenHolder(a: Answered, m: Listed): string | undefined {
  return takenBy(a, m)?.holder;
}

/** The entry of Observation.unstartedTaken for `m` (takenHolder), if any. */
function takenBy(a: Answered, m: Listed): { holder: string; what?: 'pod' | 'claim' } | undefined {
  if (m.member.name || !m.pod || m.observed) return undefined;
  return a.obs.unstartedTaken?.find((t) => t.pod === m.pod);
}

/**
 * Whether the stuck addition failed on the spec of the moment (its etcd exited, or it did not start in time), and the
 * record with it: after MAX_FAILED_ADDITIONS no member is added again (additions.ts). Not one cancelled for a change
 * of the spec or the size. One whose pod its node ended before its etcd could fail (refused at admission, evicted:
 * endedByNode) is no failed addition (`ended`): the record counts it apart, and the next addition waits a back-off
 * (additions.ts withEndedAddition).
 */
function failedAddition(a: Answered, stuck: Listed, name: string) {
  const onSpec =
    a.members.length <= a.spec.size + moveSlot(a) &&
    stuck.pod !== undefined &&
    stuck.observed !== undefined &&
    madeOnSpec(a, stuck.observed);
  const ended = onSpec && endedByNode(stuck.observed!);
  const failed = onSpec && !ended && (etcdExited(stuck.observed!) || expired(a, stuck));
  const now = a.obs.now ? rfc3339(a.obs.now) : 'unknown';
  const reason = howItFailed(stuck.observed, `did not start within ${PENDING_ADD_SECONDS / 60} minutes`);
  const record =
    failed && a.obs.additions
      ? withFailedAddition(a.obs.additions, { member: name, reason, now })
      : ended && a.obs.additions
        ? withEndedAddition(a.obs.additions, { member: name, reason, now })
        : a.common.additionsFailed;
  return { failed, ended, record };
}

/**
 * 2. A pending addition that cannot finish is cancelled (it is removed; a later add takes the current spec).
 * Removing a learner never costs quorum; a voter only while the quorum holds without it.
 */
function cancelAddition(a: Answered): Decision | undefined {
  const stuck = stuckAddition(a);
  if (!stuck || !(stuck.member.isLearner || quorumWithoutOne(a))) return undefined;
  const name = stuck.pod ?? stuck.member.id;
  const taken = takenBy(a, stuck);
  if (taken !== undefined)
    return running(
      a,
      [
        scaling(
          true,
          'CancellingAddition',
          taken.what === 'claim'
            ? `member ${name} never started and its claim name belongs to ${taken.holder}: it holds no data and its pod is never made on another owner's volume, so it is removed from etcd; a new member will be added under the next member name nobody holds`
            : `member ${name} never started and its pod name belongs to ${taken.holder}: it holds no data and its pod cannot be made, so it is removed from etcd; a new member will be added under the next member name nobody holds`,
        ),
      ],
      {
        action: { type: 'remove', id: stuck.member.id, pod: name, why: 'cancel' },
        pods: a.livePods.filter((p) => p.metadata.name !== stuck.pod),
      },
    );
  const { failed, ended, record } = failedAddition(a, stuck, name);
  const { why, count } = cancelledText(stuck, { failed, ended, record });
  return running(a, [scaling(true, 'CancellingAddition', `member ${name} ${why}${count}`)], {
    additionsFailed: record,
    action: { type: 'remove', id: stuck.member.id, pod: name, why: 'cancel' },
    pods: a.livePods.filter((p) => p.metadata.name !== stuck.pod),
  });
}

/** What the cancel of a stuck addition says: why, and how it counts (a failed addition, or one its node ended). */
function cancelledText(
  stuck: Listed,
  { failed, ended, record }: ReturnType<typeof failedAddition>,
): { why: string; count: string } {
  const last = (failed || ended) && additionsStopped(record);
  const why = ended
    ? `was ended by its node before its etcd ran (${record?.reason ?? 'pod Failed'}): no failed addition; its addition is cancelled${last ? '' : ', a new member will be added after a back-off'}`
    : failed && !crashLooping(stuck.observed!)
      ? `did not start within ${PENDING_ADD_SECONDS / 60} minutes${etcdWaiting(stuck.observed) ? ` (${etcdWaiting(stuck.observed)})` : ''}: its addition is cancelled${last ? '' : ', a new member will be added'}`
      : 'never started: its addition is cancelled';
  const count =
    failed && record
      ? ` (failed addition ${record.members.length} of ${MAX_FAILED_ADDITIONS}${last ? ': no member is added again' : ''})`
      : ended && record?.ended
        ? ` (${record.ended.count} of ${MAX_ENDED_ADDITIONS} in a row${last ? ': no member is added again' : ''})`
        : '';
  return { why, count };
}

/**
 * Since when the member a failed upgrade names (`pod`) counts as failing on the version it was given back: from when
 * it was first seen running that version again (ROLLED_BACK_AT on its pod, as the last answer recorded it; never
 * before the failure itself, read as now when recorded ahead of now), or undefined (not yet seen so: it is the upgrade's failure, not its own). Its time on
 * the failed version counts for nothing: a member whose etcd keeps exiting on the last good version too (data
 * damaged by the crash, a disk, a node) is then treated as any other and the cluster gets back to full strength.
 */
function rollBackClock(a: Answered, pod: string): string | undefined {
  const at = a.podByName.get(pod)?.metadata.annotations?.[ROLLED_BACK_AT];
  const seen = Date.parse(at ?? '');
  if (!Number.isFinite(seen)) return undefined;
  // The failure's time bounds the clock only when not ahead of now: one recorded ahead (the hook's clock ran ahead
  // when it failed the upgrade) is read as now, and ROLLED_BACK_AT (recorded since, never ahead of now) is the later.
  const failed = Date.parse(a.rollBackSince ?? '');
  const now = a.obs.now?.getTime();
  return Number.isFinite(failed) && failed > seen && (now === undefined || failed <= now) ? a.rollBackSince : at;
}

/** Since when a started member counts as unhealthy for its replacement (the failed upgrade's member: rollBackClock). */
function unhealthyClock(a: Answered, r: MemberReport): string | undefined {
  if (!r.unhealthySince || r.name !== a.rollBack) return r.unhealthySince;
  const since = rollBackClock(a, r.name);
  if (since === undefined) return undefined;
  return Date.parse(since) > Date.parse(r.unhealthySince) ? since : r.unhealthySince;
}

/**
 * 2b. A started member that stays unhealthy (its pod exists but it never answers again: a node gone dark, data that
 * cannot be read) is replaced once it has been so for UNHEALTHY_REPLACE_SECONDS, while the others keep quorum
 * without it: removed (its claim with it, as a recorded decision), then a new member is added. The member a failed
 * upgrade names is given back the version it ran, on its data, and stays a member while it starts on it: its clock
 * counts only from when it runs that version again (rollBackClock), and its replacement takes that version.
 */
function replaceUnhealthy(a: Answered): Decision | undefined {
  const now = a.obs.now;
  const stale = now
    ? a.reports.find((r) => {
        const since = unhealthyClock(a, r);
        return since !== undefined && now.getTime() - Date.parse(since) > UNHEALTHY_REPLACE_SECONDS * 1000;
      })
    : undefined;
  if (!stale || !quorumWithoutOne(a)) return undefined;
  // A member made less than NEW_MEMBER_SECONDS ago (a replacement that started, then kept exiting) is a failed
  // addition too (additions.ts): its replacements stop after MAX_FAILED_ADDITIONS.
  const observed = a.podByName.get(stale.name);
  const failedNew = a.obs.additions !== undefined && youngPod(observed, now!);
  const record = failedNew
    ? withFailedAddition(a.obs.additions!, {
        member: stale.name,
        reason: howItFailed(observed, `unhealthy since ${stale.unhealthySince}`),
        now: rfc3339(now!),
      })
    : a.common.additionsFailed;
  const count = failedNew ? ` (failed addition ${record!.members.length} of ${MAX_FAILED_ADDITIONS})` : '';
  const then =
    failedNew && additionsStopped(record) ? `no member replaces it${count}` : `a new member will replace it${count}`;
  const how =
    stale.name === a.rollBack
      ? `was given back ${a.targetImage} after the failed upgrade and has not served on it since ${unhealthyClock(a, stale)}`
      : `has been unhealthy since ${stale.unhealthySince}`;
  return {
    ...removal(
      a,
      { id: stale.id!, pod: stale.name, why: 'unhealthy' },
      recovering(
        true,
        'ReplacingUnhealthyMember',
        `member ${stale.name} ${how} (over ${UNHEALTHY_REPLACE_SECONDS / 60} minutes): removing it, ${then}`,
      ),
    ),
    additionsFailed: record,
  };
}

/** 3. A learner that caught up is promoted to a voting member; one that has not started is waited for. */
function promoteLearner(a: Answered): Decision | undefined {
  const learner = a.members.find((m) => m.member.isLearner);
  if (!learner) return undefined;
  if (!learner.pod || !a.healthOf(learner.pod).healthy) {
    const message = `waiting for learner ${learner.pod ?? learner.member.id} to start`;
    return running(a, [scaling(true, 'WaitingForLearner', message)]);
  }
  return running(a, [scaling(true, 'PromotingLearner', `promoting ${learner.pod} to a voting member`)], {
    action: { type: 'promote', id: learner.member.id, pod: learner.pod },
  });
}

/** The next change only once every member is healthy (a Ready pod the hook cannot reach is said so, not replaced). */
function waitForHealthy(a: Answered): Decision | undefined {
  const unhealthy = a.reports.filter((r) => !r.healthy).map((r) => r.name);
  if (unhealthy.length === 0) return undefined;
  const ready = unhealthy.filter(a.readyPod);
  const message = `waiting for ${unhealthy.join(', ')} to be healthy before the next change${ready.length ? ` (${ready.join(', ')}: pod Ready, but the hook cannot reach its etcd or read its status: check network policies and TLS.static.operatorSecret; not replaced for that)` : ''}`;
  // The next change is the upgrade's (no scaling asked): the rollout is under way, and waits (a member moved, down
  // for a moment: its etcd exited once and the kubelet restarts it).
  if (a.members.length === a.spec.size && upgradeUnderWay(a))
    return running(
      a,
      [
        {
          type: 'Upgrading',
          status: true,
          reason: 'WaitingForMember',
          message: `the upgrade to ${a.targetVersion} is under way: ${message}`,
        },
      ],
      { targetVersion: a.targetVersion },
    );
  return running(a, [scaling(true, 'WaitingForHealthy', message)]);
}

/**
 * Whether the upgrade rule has a member to move or to wait for (upgrade): a member not on the target image, or one
 * moved in place that has not soaked yet.
 */
function upgradeUnderWay(a: Answered): boolean {
  if (a.holdVersion) return false;
  return a.live.some((p) => !atImage(memberImage(p), a.targetImage) || (moving(p) && !upgradeServed(p, a.obs)));
}

/**
 * 4. Size, up: add one member, as a learner where etcd supports it. Without learners (etcd < 3.4), a second voter
 * added to a one-member cluster makes a quorum of two with one member running: if the new member never starts, the
 * cluster stops, and removing it needs the quorum it lost. etcd allows this one add despite --strict-reconfig-check
 * (its recovery case); metaops does not make it. From two started members on, a voter that never starts leaves the
 * quorum whole (and is cancelled).
 */
function scaleUp(a: Answered): Decision | undefined {
  if (a.members.length >= a.spec.size) return undefined;
  // Additions failed again and again with this spec: none is made until the user acts (additions.ts).
  if (additionsStopped(a.common.additionsFailed)) {
    const message = stoppedMessage(a.common.additionsFailed, a.members.length, a.spec.size);
    return running(a, [scaling(false, 'ScaleUpFailed', message)], { converging: false });
  }
  const wait = endedWait(a);
  if (wait) return running(a, [scaling(true, 'WaitingToAdd', wait)]);
  const clusterVersion = a.obs.etcd!.clusterVersion;
  const learner = supportsLearners(clusterVersion);
  if (!learner && a.voting.length < 2) return scaleUpRefused(a, clusterVersion);
  return addition(a, learner, (pod) =>
    scaling(true, 'ScalingUp', `adding member ${pod} (${a.members.length + 1} of ${a.spec.size})`),
  );
}

/**
 * Why no member is added yet after new members' pods their nodes ended (additions.ts nextAdditionAt): the back-off,
 * and until when; else undefined.
 */
function endedWait(a: Answered): string | undefined {
  const r = a.common.additionsFailed;
  const next = nextAdditionAt(r, a.obs.now);
  if (!next || !r?.ended) return undefined;
  return `the nodes ended the pods of ${r.ended.count} new member${r.ended.count === 1 ? '' : 's'} in a row before their etcd ran (the last: ${r.reason}): the next member is added from ${next}`;
}

/**
 * One member added (`learner`: as a learner), under the next ordinal whose names no other owner holds (ordinals.ts
 * freeRun), its pod answered; `condition` says so, and which names were skipped.
 */
function addition(a: Answered, learner: boolean, condition: (pod: string) => ConditionInput): Decision {
  const run = freeRun(a.obs, a.lastMemberIndex, 1);
  const lastMemberIndex = run.first;
  const skipped = skippedText(run.skipped);
  const pod = memberName(a.c.name, lastMemberIndex);
  const peers = [...a.members.filter((m) => m.pod).map((m) => ({ pod: m.pod! })), { pod }];
  const said = condition(pod);
  return running(a, [skipped ? { ...said, message: `${said.message}; ${skipped}` } : said], {
    ...(skipped ? { skipped } : {}),
    lastMemberIndex,
    action: { type: 'add', pod, peerURL: peerURL(a.c, pod), learner },
    pods: [
      ...a.livePods,
      memberPod({
        parent: a.parent,
        spec: a.made,
        name: pod,
        initialCluster: initialCluster(a.c, peers),
        state: 'existing',
      }),
    ],
  });
}

/** A one-member cluster without learners is not grown (see scaleUp): the way there is said instead. */
function scaleUpRefused(a: Answered, clusterVersion: string | undefined): Decision {
  const versionKnown = clusterVersion !== undefined;
  const message = versionKnown
    ? `etcd ${clusterVersion} has no learners: a second member added to a one-member cluster stops it if it never starts. ` +
      'Upgrade to 3.4 or later first (one minor version at a time) and the size is then reached with learners, ' +
      `or back the cluster up and restore it (EtcdBackup, EtcdRestore): the ${a.spec.size} restored members start together`
    : 'waiting for etcd to report its cluster version before growing a one-member cluster (without learners, before 3.4, that growth is refused)';
  return running(a, [scaling(false, versionKnown ? 'ScaleUpRefused' : 'WaitingForVersion', message)], {
    converging: !versionKnown,
  });
}

/**
 * 4. Size, down: remove a member made before restart in place (restartPolicy Never), the leader last, if any: so
 * ends the move of one (moveToRestartInPlace: its replacement joined first); else the member with the highest
 * ordinal that is not the leader.
 */
function scaleDown(a: Answered): Decision | undefined {
  if (a.members.length <= a.spec.size) return undefined;
  const leaderLast = (x: Listed, y: Listed) =>
    (x.member.id === a.leaderId ? 1 : 0) - (y.member.id === a.leaderId ? 1 : 0);
  const never = a.members
    .filter((m) => m.pod && m.observed && madeNever(m.observed) && !DEAD_PHASES.has(phaseOf(m.observed)))
    .sort(leaderLast)[0];
  const victim =
    never ??
    [...a.members]
      .filter((m) => m.pod)
      .sort((x, y) => (memberIndex(a.c.name, y.pod!) ?? 0) - (memberIndex(a.c.name, x.pod!) ?? 0))
      .find((m) => m.member.id !== a.leaderId) ??
    a.members[0]!;
  const moved = never !== undefined && moveSlot(a) === 1 && a.members.length === a.spec.size + 1;
  return removal(
    a,
    { id: victim.member.id, pod: victim.pod!, why: moved ? 'restart in place' : 'scale down' },
    moved
      ? recovering(
          true,
          'MovingToRestartInPlace',
          `${victim.pod} was made with restartPolicy Never (before restart in place): the cluster has a member over its size (its replacement joined), removing it (${a.members.length - 1} of ${a.spec.size})`,
        )
      : scaling(true, 'ScalingDown', `removing member ${victim.pod} (${a.members.length - 1} of ${a.spec.size})`),
  );
}

/**
 * 5. Version: one member at a time, the leader last; the next only once the last one runs the new version and has
 * soaked (upgradeServed: served it steadily for UPGRADE_SOAK_SECONDS). The member upgraded records the version it
 * ran (UPGRADED_FROM) and since when (upgrade.ts). The rollout is under way (the upgrade-mark, the last good version,
 * kept on every member pod) until the last member moved has soaked too: a member that fails meanwhile fails it.
 */
function upgrade(a: Answered): Decision | undefined {
  const { live, targetImage, targetVersion, reports } = a;
  if (a.holdVersion) return undefined;
  const outdated = live.filter((p) => !atImage(memberImage(p), targetImage));
  const reportOf = (name: string | undefined) => reports.find((r) => r.name === name);
  const upgraded = live.filter((p) => atImage(memberImage(p), targetImage));
  // (A member moved to another repository at the same version: until its container runs the new image.)
  // (A member moved in place: until it has served steadily, upgradeServed.)
  // (A member moved to an image the spec no longer names, a spec.version changed in its soak: it has soaked nothing
  // either, and no second member leaves the last good version before it has.)
  const lagging =
    upgraded.find(
      (p) =>
        reportOf(p.metadata.name)?.version !== targetVersion ||
        !runsItsImage(p) ||
        (moving(p) && !upgradeServed(p, a.obs)),
    ) ?? outdated.find((p) => moving(p) && !upgradeServed(p, a.obs));
  // Every member on the target: done once none moved in place is still soaking.
  if (outdated.length === 0 && !upgraded.some((p) => moving(p) && !upgradeServed(p, a.obs))) return undefined;
  const next = lagging
    ? undefined
    : [...outdated].sort((x, y) => {
        const lx = reportOf(x.metadata.name)?.leader ? 1 : 0;
        const ly = reportOf(y.metadata.name)?.leader ? 1 : 0;
        return (
          lx - ly || (memberIndex(a.c.name, x.metadata.name!) ?? 0) - (memberIndex(a.c.name, y.metadata.name!) ?? 0)
        );
      })[0];
  const from = next && (reportOf(next.metadata.name)?.version ?? versionOfImage(memberImage(next)));
  const at = a.obs.now ? rfc3339(a.obs.now) : undefined;
  const message = next
    ? `upgrading ${next.metadata.name} to ${targetVersion} (${upgraded.length} of ${live.length} done)`
    : !atImage(memberImage(lagging!), targetImage)
      ? `waiting for ${lagging!.metadata.name}, moved to ${memberImage(lagging!)}, to serve it steadily for ` +
        `${a.obs.upgradeSoakSeconds ?? UPGRADE_SOAK_SECONDS} s (the soak) before another member is moved`
      : `waiting for ${lagging!.metadata.name} to run ${targetVersion}` +
        (moving(lagging!) ? ` steadily for ${a.obs.upgradeSoakSeconds ?? UPGRADE_SOAK_SECONDS} s (the soak)` : '');
  return running(
    a,
    [{ type: 'Upgrading', status: true, reason: next ? 'UpgradingMember' : 'WaitingForMember', message }],
    {
      targetVersion,
      pods: a.livePods.map((p) =>
        next && p.metadata.name === next.metadata.name
          ? withImage(next, targetImage, targetVersion, { from, fromImage: memberImage(next), at })
          : p,
      ),
    },
  );
}

/**
 * 6. Members made before restart in place (restartPolicy Never: a crash of a majority of them is for good) move to
 * it, one at a time, the leader last, only while every member is healthy. restartPolicy cannot change in place: with
 * storage the pod is made again on its claim (the same member, on its data); without, the member is replaced, never
 * the only member. From etcd 3.4 its replacement joins first: added as a learner (the cluster may hold one member
 * over its size meanwhile: moveSlot), promoted once it caught up, and only then is the member made with Never removed
 * (scaleDown), so the move never costs the fault tolerance the cluster had. Before 3.4 (no learners, and a voter
 * added first counts in the quorum before it runs) it is removed first, only while the others keep a quorum.
 */
function moveToRestartInPlace(a: Answered): Decision | undefined {
  const { live, reports, storage, voting } = a;
  const learners = supportsLearners(a.obs.etcd!.clusterVersion);
  // Before 3.4 (no learners) a member is replaced only while two voters stay: the add back is refused to a
  // one-member cluster (scaleUp).
  const replaceable = voting.length >= (learners ? 2 : 3);
  const never = neverRestarting(live, reports, storage || replaceable);
  if (!never) return undefined;
  const name = never.metadata.name!;
  const id = reports.find((r) => r.name === name)?.id;
  const message = (how: string) => `${name} was made with restartPolicy Never (before restart in place): ${how}`;
  if (!storage && learners) {
    // Its replacements failed again and again (additions.ts): none is added until the user acts; it stays as it is.
    if (additionsStopped(a.common.additionsFailed)) {
      const r = a.common.additionsFailed;
      const said = message(
        `its replacement: ${stoppedWhy(r)}: it stays as it is and no member is added. ` +
          `Fix the cause (spec.pod resources, the image, the nodes) and change the spec, or set the annotation ${RETRY_ADDITIONS} on the EtcdCluster to a new value to try again`,
      );
      return running(a, [recovering(false, 'MoveToRestartInPlaceFailed', said)], { converging: false });
    }
    const wait = endedWait(a);
    if (wait)
      return running(a, [recovering(true, 'MovingToRestartInPlace', message(`its replacement waits: ${wait}`))]);
    return addition(a, true, (pod) =>
      recovering(
        true,
        'MovingToRestartInPlace',
        message(`adding ${pod}, which restarts in place, as a learner; ${name} is removed once it joined`),
      ),
    );
  }
  return running(
    a,
    [
      recovering(
        true,
        'MovingToRestartInPlace',
        message(storage ? 'making its pod again on its volume' : 'replacing it with a member that restarts in place'),
      ),
    ],
    {
      ...(storage || !id ? {} : { action: { type: 'remove' as const, id, pod: name, why: 'restart in place' } }),
      pods: a.livePods.filter((p) => p.metadata.name !== name),
    },
  );
}

/** Whether the pod was made with restartPolicy Never (before restart in place). */
function madeNever(p: KubeObject): boolean {
  return (p['spec'] as { restartPolicy?: unknown } | undefined)?.restartPolicy === 'Never';
}

/**
 * The members the cluster may hold over its size: one while members made with restartPolicy Never are moved to
 * restart in place without storage on etcd with learners (moveToRestartInPlace adds the replacement before it
 * removes the member), else none.
 */
function moveSlot(a: Answered): number {
  return !a.storage && a.obs.etcd && supportsLearners(a.obs.etcd.clusterVersion) && a.live.some(madeNever) ? 1 : 0;
}

/** What the status says of member pods left on restartPolicy Never (they could not be moved without a loss). */
function stayNever(live: KubeObject[]): string {
  const names = live.filter(madeNever).map((p) => p.metadata.name!);
  if (names.length === 0) return '';
  return `; ${names.slice(0, 3).join(', ')}${names.length > 3 ? ', ...' : ''} made before restart in place (restartPolicy Never): moved once the cluster has storage, 3 members, or etcd 3.4+ with 2`;
}

/** The next member pod made with restartPolicy Never to move to restart in place (the leader last), if any may. */
function neverRestarting(live: KubeObject[], reports: MemberReport[], may: boolean): KubeObject | undefined {
  if (!may) return undefined;
  const leader = (p: KubeObject) => (reports.find((r) => r.name === p.metadata.name)?.leader ? 1 : 0);
  return live.filter(madeNever).sort((a, b) => leader(a) - leader(b))[0];
}

/** At rest: every member healthy, at size and at version. */
function atRest(a: Answered): Decision {
  return running(
    a,
    [
      scaling(false, 'AtSize', `${a.members.length} members`),
      { type: 'Upgrading', status: false, reason: 'AtVersion', message: `every member runs ${a.targetVersion}` },
      recovering(false, 'Healthy', `every member is healthy${stayNever(a.live)}`),
    ],
    {
      // At size, every member older than NEW_MEMBER_SECONDS: no addition fails any more, the record goes.
      // (The count of new members' pods their nodes ended goes at once: a member joined and serves.)
      additionsFailed:
        a.obs.now && a.live.some((p) => youngPod(p, a.obs.now!)) ? withoutEnded(a.common.additionsFailed) : undefined,
      converging: a.recreated.length > 0 || a.live.length !== a.obs.pods.length,
    },
  );
}
