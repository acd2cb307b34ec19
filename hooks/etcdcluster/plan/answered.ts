// What the membership rules read once etcd answered with its member list (members.ts): each member with its pod,
// its report, the quorum, and the pods kept, computed once.
import { isPodReady, type KubeObject, rfc3339, textOf } from '../../../lib/index.js';
import type { EtcdMember } from '../../etcdcommon/etcd.js';
import { clientURL, memberImage, memberPod, podOfMember } from '../members.js';
import { crashLooping, dataMissing, DEAD_PHASES, phaseOf, recordedClock } from '../pods.js';
import { available, degraded, shortOfSize } from './conditions.js';
import { initialCluster } from './member-pods.js';
import { etcdNeverRan, remadeForSpec, restoreReplacing } from './respec.js';
import type { Decision, MemberReport } from './types.js';
import { compareVersions, versionOfImage } from './versions.js';
import type { View } from './view.js';
import type { ConditionInput } from '../../../lib/index.js';

/** A member etcd lists, with its pod (matched by peer URL, else by name) and that pod as observed, if it is. */
export interface Listed {
  member: EtcdMember;
  pod: string | undefined;
  observed: KubeObject | undefined;
}

export interface Answered extends View {
  /** The members etcd lists, in its order. */
  members: Listed[];
  /** Their reports, in the same order. */
  reports: MemberReport[];
  /** The voting members (learners vote in no quorum). */
  voting: Listed[];
  quorum: NonNullable<Decision['quorum']>;
  leaderId: string | undefined;
  /** What every answer of these rules carries. */
  common: Pick<
    Decision,
    | 'fallbackPods'
    | 'lastMemberIndex'
    | 'targetVersion'
    | 'keepClaims'
    | 'additionsFailed'
    | 'members'
    | 'quorum'
    | 'currentVersion'
  >;
  /** Pods of members whose pod is missing, made again (see recreatedPods). */
  recreated: KubeObject[];
  /**
   * With storage, member pods that finished: dropped, so that the next sync recreates them on their claims. And the
   * pod of a member that never started (no name in etcd: it has no data) whose data check failed (a pod made on its
   * claim while etcd was silent, its status lost): made again without the check. And member pods that cannot start
   * on the spec.pod they were made from, changed since (plan/respec.ts): made again with the spec's.
   */
  finishedWithStorage: string[];
  /** Of those, the member pods that cannot start on the spec.pod they were made from (plan/respec.ts). */
  remade: string[];
  /**
   * Members that started (etcd gave them a name) whose pod, made again on their claim, found none of their data
   * there (pods.ts dataMissing), with what the check said: never started under their old ID, replaced once a quorum
   * holds without them (members.ts replaceDataLost).
   */
  dataLost: Array<{ listed: Listed; said: string }>;
  /** Member pods that run (pods that are no member's are dropped: a removal whose pod delete failed, leftovers). */
  live: KubeObject[];
  /** The pods answered: the live ones (unstuck) and the recreated. */
  livePods: KubeObject[];
  /** Whether a pod is Ready (its readiness probe asks etcd in the pod: it serves). */
  readyPod: (pod: string) => boolean;
  /** Conditions while quorum holds: Available says how many more failures it tolerates, then `extra`. */
  runningConditions: (extra: ConditionInput[]) => ConditionInput[];
}

/**
 * Match members and pods by peer URL (a member has no name until it starts), else by the member's name: the list is
 * this cluster's (its cluster ID was checked), and a pod counts as healthy only when its own answer carries the
 * member's ID (observe.ts).
 */
export function answeredOf(v: View, etcd: { members: EtcdMember[] }): Answered {
  const members = etcd.members.map((m) => {
    const pod = podOfMember(v.c, m);
    return { member: m, pod, observed: pod ? v.podByName.get(pod) : undefined };
  });
  // Stryker disable next-line MethodExpression: the Set is asked only about pod names (strings)
  const memberPods = new Set(members.map((m) => m.pod).filter(Boolean));
  const leaderId = Object.values(v.obs.health).find((h) => h.healthy && h.leader)?.leader;
  const readyPod = (pod: string) => {
    const p = v.podByName.get(pod);
    return p !== undefined && isPodReady(p);
  };
  const recreated = recreatedPods(v, members);
  const madeAgain = new Set(recreated.map((p) => p.metadata.name!));
  const reports = members.map(({ member, pod }) =>
    memberReport(v, { member, pod }, leaderId, readyPod, Boolean(pod && madeAgain.has(pod))),
  );
  const { voting, quorum } = quorumOf(v, members);
  const versions = reports.filter((r) => r.healthy && r.version).map((r) => r.version!);
  const currentVersion = versions.sort(compareVersions)[0] ?? versionOfImage(memberImage(v.obs.pods[0]!));
  const live = v.obs.pods.filter((p) => memberPods.has(p.metadata.name) && !DEAD_PHASES.has(phaseOf(p)));
  const liveNames = new Set(live.map((p) => p.metadata.name));
  const checked = members.flatMap((m) => {
    const said = v.storage && m.observed && liveNames.has(m.pod!) ? dataMissing(m.observed) : undefined;
    return said ? [{ listed: m, said }] : [];
  });
  const dataLost = checked.filter((d) => d.listed.member.name);
  const uncheckedAgain = checked.filter((d) => !d.listed.member.name).map((d) => d.listed.pod!);
  const remade = respecced(v, members, live).filter((n) => !uncheckedAgain.includes(n));
  return {
    ...v,
    ...{ members, reports, voting, quorum, leaderId, recreated, live, readyPod },
    common: { ...v.base, members: reports, quorum, currentVersion },
    // With storage, a member pod that finished (crashed; restartPolicy Never) is dropped so that the next sync
    // recreates it on its claim, as the same member.
    finishedWithStorage: v.storage
      ? [
          ...v.obs.pods
            .filter((p) => memberPods.has(p.metadata.name) && DEAD_PHASES.has(phaseOf(p)))
            .map((p) => p.metadata.name),
          ...uncheckedAgain,
          ...remade,
        ]
      : remade,
    remade,
    dataLost,
    // (The copies of the view: a member that serves the image it was moved to has its move's records dropped.)
    livePods: [
      ...v.kept.filter(
        (p) =>
          liveNames.has(p.metadata.name!) &&
          !uncheckedAgain.includes(p.metadata.name!) &&
          !remade.includes(p.metadata.name!),
      ),
      ...recreated,
    ],
    runningConditions: (extra) => [runningAvailable(quorum, v.spec.size), ...extra],
  };
}

/**
 * The live member pods that cannot start on the spec.pod they were made from, changed since (plan/respec.ts), that
 * the next sync makes again (recreatedPods): with storage on their claim (a member whose claim is gone is lost, not
 * made again), without it only a member that never started whose etcd never ran in its pod (it holds nothing).
 */
function respecced(v: View, members: Listed[], live: KubeObject[]): string[] {
  if (restoreReplacing(v.parent)) return [];
  const byPod = new Map(members.filter((m) => m.pod).map((m) => [m.pod!, m]));
  return remadeForSpec(live, v.made, (p) => {
    const m = byPod.get(p.metadata.name!)!;
    if (v.storage) return !(m.member.name && v.claimGone(m.pod!));
    return !m.member.name && etcdNeverRan(p);
  });
}

/** The longest peer URL a member report carries (ours are a DNS name, a port and a scheme: far shorter). */
export const MAX_PEER_URL = 512;

/**
 * One member's report: every field is optional on the wire; the clocks as in memberClocks (`madeAgain`: its pod is
 * missing and made again by this answer).
 */
function memberReport(
  v: View,
  { member, pod }: Pick<Listed, 'member' | 'pod'>,
  leaderId: string | undefined,
  readyPod: (pod: string) => boolean,
  madeAgain: boolean,
): MemberReport {
  const h = pod ? v.healthOf(pod) : { healthy: false };
  const report: MemberReport = { name: pod ?? member.name, id: member.id, healthy: h.healthy };
  // What etcd answers is read by type: a peer URL that is no string, or longer than any of ours, is left out.
  const peer: unknown = member.peerURLs[0];
  if (typeof peer === 'string' && peer && peer.length <= MAX_PEER_URL) report.peerURL = peer;
  if (pod) report.clientURL = clientURL(v.c, pod);
  if (leaderId && member.id === leaderId) report.leader = true;
  if (member.isLearner) report.learner = true;
  if (h.version) report.version = h.version;
  if (h.alarm) report.alarm = h.alarm;
  const unheard = !h.healthy && !h.alarm && Boolean(pod) && !readyPod(pod!);
  return memberClocks(v, report, { member, pod }, unheard && !madeAgain);
}

/**
 * Since when a started member is unhealthy (`unheard`: not healthy, no alarm, its pod not Ready) and since when an
 * addition is pending, each kept as first seen (no churn). (No clock while its pod is Ready: its readiness probe
 * asks etcd in the pod, so it serves, and the hook's own failure to reach it or read its status is no evidence
 * against it. Never destroy on doubt.)
 *
 * The unhealthy clock belongs to the pod it was seen on. None runs while the member's pod is missing and made again
 * (with storage, on its claim): the time the lost pod was unreachable is no evidence against the pod made again,
 * whose clock starts when it is first observed. Nor does a clock recorded in the status go back before what the
 * observed pod itself says (podClockFloor): a status that is stale (resent by Metacontroller from before the pod was
 * made again, or before the member was Ready again) counts no time the pod was not there, or served.
 */
function memberClocks(
  v: View,
  report: MemberReport,
  { member, pod }: Pick<Listed, 'member' | 'pod'>,
  unheard: boolean,
): MemberReport {
  const now = v.obs.now ? rfc3339(v.obs.now) : undefined;
  if (unheard && member.name && !member.isLearner) {
    const recorded = v.known.find((k) => k.name === pod)?.unhealthySince;
    // (The floor only moves a recorded clock forward: a member first seen unhealthy now starts its clock now.)
    const since = recordedClock(recorded, v.podByName.get(pod!), v.obs.now) ?? now;
    if (since) report.unhealthySince = since;
  }
  if (!report.healthy && (member.isLearner || !member.name)) {
    const since = v.known.find((k) => k.name === report.name)?.pendingSince ?? now;
    if (since) report.pendingSince = since;
    const exited = exitClock(v, report.name, pod ? v.podByName.get(pod) : undefined, now);
    if (exited) report.exitedSince = exited;
  }
  return seenUp(
    report,
    v.known.find((k) => k.name === report.name),
    now,
  );
}

/**
 * Since when a pending addition's etcd is seen exited (pods.ts exitLasted): from the first sync that saw it, kept
 * while the addition is pending (one that runs a while between exits keeps the clock of its first), read by type,
 * never ahead of now nor before its pod (recordedClock); undefined while none was seen.
 */
function exitClock(
  v: View,
  name: string,
  observed: KubeObject | undefined,
  now: string | undefined,
): string | undefined {
  const text = textOf(v.known.find((k) => k.name === name)?.exitedSince, '');
  const valid = text.length <= 40 && Number.isFinite(Date.parse(text));
  const recorded = valid ? recordedClock(text, observed, v.obs.now) : undefined;
  return recorded ?? (observed && crashLooping(observed) ? now : undefined);
}

/**
 * When the member was last seen up while a clock of it ran: now, when this sync drops a clock the status records;
 * else as the status records it (read by type). settle.ts holds a clock that starts again soon after (a member that
 * flaps).
 */
function seenUp(report: MemberReport, known: MemberReport | undefined, now: string | undefined): MemberReport {
  const timed = (r: MemberReport | undefined) =>
    typeof r?.unhealthySince === 'string' || typeof r?.pendingSince === 'string';
  const recorded: unknown = known?.seenUpAt;
  if (now && timed(known) && !timed(report)) report.seenUpAt = now;
  else if (typeof recorded === 'string' && recorded.length <= 40) report.seenUpAt = recorded;
  return report;
}

/**
 * The quorum of the voting members. A member with an alarm (NOSPACE, CORRUPT) answers (reads, its raft) but /health
 * says false: it counts for quorum, and is reported as under the alarm (NoSpace, DataCorrupt), not as down.
 */
function quorumOf(v: View, members: Listed[]): { voting: Listed[]; quorum: NonNullable<Decision['quorum']> } {
  const alive = (pod: string | undefined) => Boolean(pod && (v.healthOf(pod).healthy || v.healthOf(pod).alarm));
  const voting = members.filter((m) => !m.member.isLearner);
  const healthy = voting.filter((m) => alive(m.pod)).length;
  const needed = Math.floor(voting.length / 2) + 1;
  const down = voting.filter((m) => !alive(m.pod)).map((m) => m.pod ?? m.member.id);
  return { voting, quorum: { members: voting.length, healthy, needed, ok: healthy >= needed, down } };
}

/**
 * Pods of members whose pod is missing: a member added whose pod create failed, and (with storage) any member whose
 * pod was lost: it comes back under the same name on its claim, as the same member. A started member whose pod and
 * claim are both gone has lost its data: it is replaced (remove + add) as without storage, never restarted empty
 * under its old identity.
 */
function recreatedPods(v: View, members: Listed[]): KubeObject[] {
  const recreated: KubeObject[] = [];
  // (A member that never started whose pod name another owner holds is not answered a pod: it cannot be created,
  // and its addition is cancelled, members.ts cancelAddition.)
  const taken = new Set((v.obs.unstartedTaken ?? []).map((t) => t.pod));
  for (const m of members) {
    if (
      (v.storage || !m.member.name) &&
      m.pod &&
      !m.observed &&
      !(!m.member.name && taken.has(m.pod)) &&
      !v.obs.terminating.includes(m.pod) &&
      !(m.member.name && v.claimGone(m.pod))
    ) {
      const peers = members.filter((x) => x.pod && (x.member.name || x === m)).map((x) => ({ pod: x.pod! }));
      recreated.push(
        memberPod({
          parent: v.parent,
          spec: v.made,
          name: m.pod,
          initialCluster: initialCluster(v.c, peers),
          state: 'existing',
          // A member that started has data: etcd starts only on it, never empty under the member's old ID.
          requireData: Boolean(m.member.name),
        }),
      );
    }
  }
  return recreated;
}

/**
 * Available while quorum holds: QuorumAvailable only when every voting member is healthy and the voters tolerate
 * as many failures as `size` members would; fewer voters than that (replacements that failed: ScaleUpFailed, a
 * member removed and not yet replaced) is Degraded, saying how many failures are left.
 */
function runningAvailable(quorum: NonNullable<Decision['quorum']>, size: number): ConditionInput {
  const short = shortOfSize(quorum, size);
  if (quorum.down.length === 0 && !short)
    return available(true, 'QuorumAvailable', `${quorum.healthy} of ${quorum.members} members healthy`);
  return available(true, 'Degraded', `${degraded(quorum)}${short}`);
}
