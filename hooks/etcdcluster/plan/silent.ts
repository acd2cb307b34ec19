// The membership rules when member pods exist but etcd gives no member list (bootstrapping, or quorum lost): no
// membership change either way. In order: start a bootstrap that cannot finish again; say a majority lost for
// good; else wait (for the first members, for the hook to reach etcd, for a quorum), restarting the members whose
// pod vanished on their volumes.
import { isPodReady, type KubeObject, rfc3339, textOf } from '../../../lib/index.js';
import type { RestoreState } from '../../etcdcommon/index.js';
import {
  BOOTSTRAP_FAILED_REASON,
  type BootstrapFailed,
  type BootstrapMemory,
  MAX_BOOTSTRAP_STARTS,
  MAX_ENDED_BOOTSTRAPS,
  bootstrapStopped,
  bootstrapStoppedMessage,
  currentRecord,
  howStartFailed,
  nextStartAt,
  withEndedStart,
  withFailedStart,
} from '../bootstraps.js';
import { memberImage, memberIndex, memberPod } from '../members.js';
import {
  crashLooping,
  dataMissing,
  DEAD_PHASES,
  endedByNode,
  etcdExited,
  etcdWaiting,
  IMAGE_WAITING,
  exitLasted,
  initStepFailing,
  phaseOf,
  recordedClock,
  sanitize,
} from '../pods.js';
import { withAnnotation } from '../upgrade.js';
import { available, majorityLostMessage, recovering, scaling } from './conditions.js';
import { crashLoopVerdict } from './crash-loops.js';
import { isMemberReport, lostForGood, MAJORITY_LOST, majorityLostOnPods, podsWereCreated } from './evidence.js';
import { initialCluster } from './member-pods.js';
import {
  CANNOT_START,
  cannotStart as podCannotStart,
  etcdNeverRan,
  madeFromOtherSpec,
  remadeForSpec,
  restoreReplacing,
} from './respec.js';
import type { Decision, MemberReport } from './types.js';
import { atImage } from './versions.js';
import { firstDecision, type View } from './view.js';

export function etcdSilent(v: View): Decision {
  return firstDecision(v, [restartBootstrap, majorityLost]) ?? waiting(v);
}

/**
 * Whether the hook's own record says it is bootstrapping, and whether a restore runs (status lost: not assumed, unless
 * the pods carry the record of this EtcdCluster's failed starts: bootstraps.ts); `stopped`: the status says the
 * bootstrap stopped (BootstrapFailed).
 */
function bootstrapState(v: View): {
  bootstrapping: boolean;
  creating: boolean;
  formed: boolean;
  restoring: boolean;
  stopped: boolean;
} {
  // (Not while a restore runs: its members carry the snapshot; a failed restore is decided in decide().)
  const restorePhase = (v.parent.status as { restore?: RestoreState } | undefined)?.restore?.phase;
  const restoringNow = restorePhase === 'Restoring';
  // A member pod is Ready only when its etcd serves (the readiness probe asks etcd), so a cluster with a Ready
  // pod has formed and may hold data, whether or not the hook can reach it (a wrong operatorSecret, a network
  // policy): from then on it is never treated as a bootstrap again.
  const formed = v.obs.pods.some(isPodReady);
  // (Nor while Replacing: pods seen then are old members kept when the EtcdRestore went before they were dropped.)
  const stopped = v.previous.phase === 'Failed' && v.previous.reason === BOOTSTRAP_FAILED_REASON;
  // (The status lost: the pods of a start that followed a failed one carry the record, bootstraps.ts.)
  const marked = v.previous.phase === undefined && v.obs.bootstrap?.onPods === true;
  const started = v.previous.phase === 'Creating' || stopped || marked;
  const bootstrapping = started && v.known.length === 0 && !restoringNow && restorePhase !== 'Replacing' && !formed;
  // Creating only while the hook's own record says it is bootstrapping (status lost: not assumed).
  const creating = bootstrapping || (v.previous.phase === 'Creating' && restoringNow && !formed);
  return { bootstrapping, creating, formed, restoring: creating && !bootstrapping, stopped };
}

/**
 * Whether a member answered at all (healthy, or with a cluster ID of its own): a bootstrap one of whose members
 * answered is no failed bootstrap; nothing is started over it.
 */
function someMemberAnswered(v: View): boolean {
  return Object.values(v.obs.health).some((h) => h?.healthy === true || typeof h?.clusterId === 'string');
}

/**
 * The conditions while the first members start: a bootstrap (an empty cluster), or a restore's members, started
 * from its snapshot, said as a restore (Restoring), never as a bootstrap.
 */
function starting(restoring: boolean, initFailing: string): Decision['conditions'] {
  // A member whose init step keeps failing (check-dns past DNSTimeoutInSecond) is named with the step and its message.
  const why = initFailing ? `; ${initFailing}` : '';
  if (restoring) {
    const message = `waiting for the restored members to answer${why}`;
    return [available(false, 'Restoring', message), recovering(true, 'Restoring', message)];
  }
  const message = `waiting for the first members to answer${why}`;
  return [
    available(false, 'Bootstrapping', message),
    // Scaling's reason for a member named by initFailingOf: its init step fails, or its etcd cannot start (literals
    // here: settle-reasons-classified reads the reasons where the condition is made).
    scaling(
      true,
      initFailing ? (cannotStart(initFailing) ? 'MemberCannotStart' : 'MemberInitFailing') : 'Bootstrapping',
      message,
    ),
  ];
}

/** Whether initFailingOf's words say the member's etcd cannot start (else its init step fails). */
function cannotStart(said: string): boolean {
  return said.includes("'s etcd cannot start: ");
}

/**
 * The first member pod (by name) whose init step keeps failing, said as `<pod>'s init step <step> (...) keeps
 * failing`; else the first whose etcd cannot be started (its image cannot be had, a Secret or ConfigMap its env
 * names is missing: etcdCannotStart), said as `<pod>'s etcd cannot start: <reason> (...)`.
 */
function initFailingOf(pods: KubeObject[]): string {
  const sorted = [...pods].sort((a, b) => textOf(a.metadata.name, '').localeCompare(textOf(b.metadata.name, '')));
  for (const p of sorted) {
    const step = initStepFailing(p);
    if (step) return `${sanitize(textOf(p.metadata.name, ''), 64)}'s init step ${step} keeps failing`;
  }
  for (const p of sorted) {
    const why = etcdCannotStart(p);
    if (why) return `${sanitize(textOf(p.metadata.name, ''), 64)}'s etcd cannot start: ${why}`;
  }
  return '';
}

/**
 * Why the pod's etcd container cannot be started, if the kubelet says so (CANNOT_START but a crash loop, which the
 * bootstrap's own rules read): the reason, and for an image the image, else the kubelet's message (a Secret not
 * found), bounded; the same failure says the same words at every sync. Else ''.
 */
function etcdCannotStart(pod: KubeObject): string {
  const waiting = etcdWaiting(pod);
  if (!waiting || waiting === 'CrashLoopBackOff' || !CANNOT_START.has(waiting)) return '';
  if (IMAGE_WAITING.has(waiting)) return `${waiting} (${sanitize(memberImage(pod) ?? '', 120)})`;
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  const etcd = (Array.isArray(statuses) ? statuses : []).find(
    (c) => (c as { name?: unknown } | null)?.name === 'etcd',
  ) as { state?: { waiting?: { message?: unknown } } } | undefined;
  const said = sanitize(textOf(etcd?.state?.waiting?.message, ''), 400).trim();
  return said ? `${waiting} (${said.length > 120 ? `${said.slice(0, 117)}...` : said})` : waiting;
}

/**
 * Since when a bootstrap member's etcd is seen exited (pods.ts exitLasted): from the first sync that saw it (status
 * memberList, exitedSince), kept while the pod is there (one that runs a while between exits keeps its first), never
 * ahead of now nor before its pod (recordedClock); undefined while none was seen.
 */
function bootstrapExitClock(v: View, pod: KubeObject): string | undefined {
  const list: unknown[] = Array.isArray(v.previous.memberList) ? v.previous.memberList : [];
  const entry = list.find((m): m is MemberReport => isMemberReport(m) && m.name === pod.metadata.name);
  const text = textOf(entry?.exitedSince, '');
  const valid = text.length <= 40 && Number.isFinite(Date.parse(text));
  const recorded = valid ? recordedClock(text, pod, v.obs.now) : undefined;
  return recorded ?? (crashLooping(pod) && v.obs.now ? rfc3339(v.obs.now) : undefined);
}

/**
 * Whether a bootstrap member's etcd failed: its pod finished by itself, or its etcd stayed exited past the grace one
 * kill gets (EXIT_GRACE_SECONDS, as for a new member: the kubelet restarts it in place within its first back-off), or
 * it exited again after the kubelet restarted it (restartCount 2 or more: no single kill, a crash loop).
 */
function bootstrapMemberFailed(v: View, pod: KubeObject): boolean {
  return (
    etcdExited(pod) &&
    (DEAD_PHASES.has(phaseOf(pod)) || etcdRestarts(pod) >= 2 || exitLasted(bootstrapExitClock(v, pod), v.obs.now))
  );
}

/** The etcd container's restartCount as the kubelet reports it (read by type; unknown: 0). */
function etcdRestarts(pod: KubeObject): number {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  const etcd = (Array.isArray(statuses) ? statuses : []).find(
    (c) => (c as { name?: unknown } | null)?.name === 'etcd',
  ) as { restartCount?: unknown } | undefined;
  return typeof etcd?.restartCount === 'number' && Number.isFinite(etcd.restartCount) ? etcd.restartCount : 0;
}

/**
 * A bootstrap that cannot finish (a member failed, or the spec changed since: a typo fixed) starts over with the
 * current spec; nothing was stored in it: the hook wrote Creating when it started these members, has seen no
 * member Ready since, none is Ready now and none answered. The claims go with the pods (explicit decision). A start
 * of the spec of the moment that failed is counted (bootstraps.ts); after MAX_BOOTSTRAP_STARTS the bootstrap stops,
 * its last pods kept, until the spec changes or a retry is asked for (RETRY_BOOTSTRAP).
 */
function restartBootstrap(v: View): Decision | undefined {
  const state = bootstrapState(v);
  if (!state.bootstrapping || someMemberAnswered(v)) return undefined;
  const memory = v.obs.bootstrap ?? { uid: v.parent.metadata.uid ?? '', spec: '', onPods: false };
  const record = currentRecord(memory);
  // Stopped with this spec: the same answer, whatever the pods do now.
  if (record && bootstrapStopped(record)) return bootstrapFailed(v, record);
  const outcome = startOutcome(v, memory, state.stopped);
  if (!outcome) return undefined;
  const { next } = outcome;
  if (next && bootstrapStopped(next)) return bootstrapFailed(v, next);
  // Ended by their nodes: started again once the back-off since the last such start has passed.
  const previous = currentRecord(memory);
  const wait = outcome.endedByNode ? nextStartAt(previous, v.obs.now) : undefined;
  if (wait && previous) return backingOff(v, previous, wait);
  const said = startedAgainText(v, outcome);
  return {
    ...v.base,
    keepClaims: [],
    pods: [],
    phase: 'Creating',
    conditions: [available(false, 'Bootstrapping', said), scaling(true, 'RestartingBootstrap', said)],
    members: [],
    converging: true,
    ...(next ? { bootstrapFailed: next } : {}),
  };
}

/**
 * What a bootstrap started again says: why (ended by a node; members that could not start on the spec.pod they were
 * made from, changed since; else a member failed or the spec changed), and the starts counted, if any.
 */
function startedAgainText(v: View, outcome: { next: BootstrapFailed | undefined; endedByNode?: true }): string {
  const { next } = outcome;
  const respec = respecced(v);
  const message = outcome.endedByNode
    ? `a member pod of the bootstrap was ended by its node (${endedHow(v.obs.pods)}), not by its etcd: starting the bootstrap again, not counted as a failed start`
    : respec.length && !next
      ? `${respec.join(', ')} could not start on the spec.pod ${respec.length > 1 ? 'they were' : 'it was'} made from: starting the bootstrap again with the spec's`
      : 'a member of the bootstrap failed or the spec changed: starting the bootstrap again';
  const counted = !next
    ? ''
    : outcome.endedByNode
      ? ` (${next.ended?.count ?? 0} of ${MAX_ENDED_TEXT} starts in a row ended by their nodes)`
      : ` (${next.starts} of ${MAX_STARTS_TEXT} starts failed; the last: ${next.reason})`;
  return `${message}${counted}`;
}

const MAX_STARTS_TEXT = String(MAX_BOOTSTRAP_STARTS);
const MAX_ENDED_TEXT = String(MAX_ENDED_BOOTSTRAPS);

/**
 * The first member pod its node ended (by name), the reason and the message its status gives (OutOfcpu: "Pod was
 * rejected: ..."; input: bounded, printable).
 */
function endedHow(pods: KubeObject[]): string {
  const pod = pods
    .filter((p) => endedByNode(p))
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))[0];
  const status = pod?.['status'] as { reason?: unknown; message?: unknown } | undefined;
  const why = textOf(status?.reason, '');
  const said = sanitize(textOf(status?.message, ''), 400).trim();
  return sanitize(`${textOf(pod?.metadata.name, '')}: ${why}${said ? `: ${said}` : ''}`, 160);
}

/**
 * A start whose member pods their nodes ended, before the back-off since the last such start passed: its pods are
 * kept as they are (their node's word stays readable) and the next start waits, said with when.
 */
function backingOff(v: View, record: BootstrapFailed, at: string): Decision {
  const message = `a member pod of the bootstrap was ended by its node (${endedHow(v.obs.pods)}), not by its etcd: starting the bootstrap again at ${at} (${record.ended?.count ?? 0} of ${MAX_ENDED_TEXT} starts in a row ended by their nodes)`;
  return {
    ...v.base,
    pods: v.kept,
    phase: 'Creating',
    conditions: [available(false, 'Bootstrapping', message), scaling(true, 'BootstrapBackingOff', message)],
    members: silentMembers(v),
    converging: true,
    bootstrapFailed: record,
  };
}

/**
 * Whether the start under way failed (a member pod vanished or its etcd exited), a member pod was ended by its node
 * (`endedByNode`: made again, not counted) or the spec changed since it was made (an image of another spec; failed
 * starts recorded for another spec: a retry asked for); undefined when none. `next`: the failed starts with this one
 * counted, when it was a start of the spec of the moment that failed (the count as it was when its node ended it).
 */
function startOutcome(
  v: View,
  memory: BootstrapMemory,
  stopped: boolean,
): { next: BootstrapFailed | undefined; endedByNode?: true } | undefined {
  const { obs } = v;
  const vanished = obs.pods.length + obs.terminating.length < v.spec.size && podsWereCreated(v.parent);
  const imageChanged = obs.pods.some((p) => !atImage(memberImage(p), v.targetImage));
  // A member pod whose etcd never ran because it cannot start (its etcd or an init step waits:
  // CreateContainerConfigError for a Secret its etcdEnv names, an image) on the spec.pod it was made from, changed
  // since (plan/respec.ts): a pod is never changed in place, so the fix reaches it only in a new start (no member
  // answered, it stored nothing). The new start's pods carry the spec's fingerprint: once per change of spec.pod.
  const podChanged = respecced(v).length > 0;
  // The spec changed since the failed starts recorded (or a retry was asked for): their count is not this spec's.
  const specChanged =
    imageChanged || podChanged || (memory.record !== undefined && currentRecord(memory) === undefined);
  // (One exit is given the kubelet's first back-off, as a new member's: bootstrapMemberFailed.) A pod the kubelet
  // evicted for its own limits (its storage: the image's doing) failed as one whose etcd exited (pods.ts etcdExited).
  const exited = obs.pods.some((p) => bootstrapMemberFailed(v, p));
  // A member pod its node ended (evicted under node pressure, a node shut down, refused at admission: endedByNode)
  // never runs again, but the spec did not fail: the start is made again, not counted as failed, but counted apart
  // (withEndedStart: a back-off, and a stop after MAX_ENDED_BOOTSTRAPS in a row).
  const ended = obs.pods.some((p) => endedByNode(p));
  const failed = vanished || imageChanged || podChanged || exited || ended;
  // (Stopped, then the spec changed: a new start at once.)
  if (!failed && !(stopped && specChanged)) return undefined;
  if (specChanged) return { next: undefined };
  const now = obs.now ? rfc3339(obs.now) : '';
  if (!vanished && !exited) return { next: withEndedStart(memory, endedHow(obs.pods), now), endedByNode: true };
  const how = howStartFailed(obs.pods, vanished ? 'a member pod was deleted' : 'a member failed');
  return { next: withFailedStart(memory, how, now) };
}

/**
 * The bootstrap's member pods (by name) that cannot start (plan/respec.ts cannotStart: their etcd or an init step waits:
 * CreateContainerConfigError for a Secret their etcdEnv names, an image) on the spec.pod they were made from, changed
 * since, and whose etcd never ran (it stored nothing; one whose etcd exits is the failed start's rules').
 */
function respecced(v: View): string[] {
  return v.obs.pods
    .filter((p) => podCannotStart(p) && etcdNeverRan(p) && madeFromOtherSpec(p, v.spec))
    .map((p) => textOf(p.metadata.name, ''))
    .sort();
}

/**
 * The bootstrap stopped (`record`: MAX_BOOTSTRAP_STARTS starts of this spec failed): no new start; the last start's
 * pods (and claims) are kept as they are, for their logs, and a start that heals by itself forms the cluster after
 * all. Said once as a Warning (BootstrapFailed); the hook stops asking to be synced.
 */
function bootstrapFailed(v: View, record: BootstrapFailed): Decision {
  const message = bootstrapStoppedMessage(record);
  return {
    ...v.base,
    pods: v.kept,
    phase: 'Failed',
    reason: BOOTSTRAP_FAILED_REASON,
    conditions: [available(false, BOOTSTRAP_FAILED_REASON, message), scaling(false, BOOTSTRAP_FAILED_REASON, message)],
    members: silentMembers(v),
    converging: false,
    bootstrapFailed: record,
  };
}

/**
 * The pods to keep while etcd is silent, the members restarted on their volumes (`missing`), and those dropped to be
 * made again with the spec of the moment (`remade`: with storage, members that cannot start on the spec.pod they were
 * made from, changed since: plan/respec.ts; not while the first members or a restore's start).
 */
function silentPods(
  v: View,
  bootstrapping: boolean,
): { pods: KubeObject[]; missing: MemberReport[]; remade: string[] } {
  const { obs, storage, known, claimsSeen } = v;
  const podNames = new Set(obs.pods.map((p) => p.metadata.name));
  // With storage, members whose pod vanished come back on their volumes (quorum may need them).
  // (Not those whose claim is gone: their data went with it.)
  const missing = storage
    ? known.filter((m) => !podNames.has(m.name) && !obs.terminating.includes(m.name) && !v.claimGone(m.name))
    : [];
  // Members known only by their claims (the hook never had their IDs: it could not reach etcd, or status was
  // lost) come back on them too, unless bootstrapping (their data directory may be empty).
  const byClaim =
    storage && !bootstrapping
      ? claimsSeen.filter((n) => !known.some((m) => m.name === n) && !podNames.has(n) && !obs.terminating.includes(n))
      : [];
  const peers = [...new Set([...known.map((m) => m.name), ...claimsSeen])].map((pod) => ({ pod }));
  const hasData = (name: string) => known.some((m) => m.name === name) || (!bootstrapping && claimsSeen.includes(name));
  const remade =
    storage && !bootstrapState(v).creating && !restoreReplacing(v.parent)
      ? remadeForSpec(obs.pods, v.made, (p) => hasData(p.metadata.name!) && !v.claimGone(p.metadata.name!))
      : [];
  const pods = [
    // (A crashed pod is dropped so that the next sync recreates it on its claim: decided on the observed pod,
    // which has a phase; `kept` holds copies without status.)
    ...v.kept.filter(
      (_, i) =>
        !(storage && DEAD_PHASES.has(phaseOf(obs.pods[i]!)) && hasData(obs.pods[i]!.metadata.name)) &&
        !remade.includes(obs.pods[i]!.metadata.name),
    ),
    ...v.restartPods(missing),
    ...byClaim.map((pod) =>
      memberPod({
        parent: v.parent,
        spec: v.made,
        name: pod,
        initialCluster: initialCluster(v.c, peers),
        state: 'existing',
        // Whether it ever started is not known (its status lost): it starts only on data of its own (checkData).
        // One that never started (etcd lists it without a name once it answers) is made again without the check.
        requireData: true,
      }),
    ),
  ];
  // Stryker disable next-line BooleanLiteral: `missing` is read only for its names
  return { pods, missing: [...missing, ...byClaim.map((name) => ({ name, healthy: false }))], remade };
}

/**
 * The members as known and observed, none with an unhealthy clock: no clock runs while etcd does not answer (as
 * while quorum is lost): after an outage a member slower to return is not replaced, nor its upgrade failed, for the
 * time the whole cluster was down.
 */
function silentMembers(v: View): MemberReport[] {
  const podNames = new Set(v.obs.pods.map((p) => p.metadata.name));
  return [
    ...v.known.filter((m) => !podNames.has(m.name)).map((m): MemberReport => ({ ...m, healthy: false })),
    ...v.obs.pods.map((p) => {
      const k = v.known.find((m) => m.name === p.metadata.name);
      // A member added as a learner before etcd listed it (no ID yet) stays said to be one.
      const added = learnerNames(v).has(p.metadata.name) ? { learner: true } : {};
      return { ...(k ?? { name: p.metadata.name, ...added }), healthy: v.healthOf(p.metadata.name).healthy };
    }),
  ]
    .map(({ unhealthySince: _clock, ...m }: MemberReport) => m)
    .sort((a, b) => (memberIndex(v.c.name, a.name) ?? 0) - (memberIndex(v.c.name, b.name) ?? 0));
}

/** The quorum of the voting members: a learner (as recorded) counts neither as a member nor as one down. */
function quorumOf(all: MemberReport[]): NonNullable<Decision['quorum']> {
  const members = all.filter((m) => m.learner !== true);
  const down = members.filter((m) => !m.healthy).map((m) => m.name);
  return {
    members: members.length,
    healthy: members.length - down.length,
    needed: Math.floor(members.length / 2) + 1,
    ok: false,
    down,
  };
}

/**
 * A majority of the voting members lost for good: without storage, members whose pods were deleted or finished
 * never return (see the member-list case); with it, those whose pod and claim went. A learner (known as one when
 * etcd last answered) votes in no quorum: it is counted neither among the lost nor among the voters. With the
 * status lost, the loss as recorded on the surviving member pods (MAJORITY_LOST) when it was seen; recorded on
 * the pods answered.
 */
function majorityLost(v: View): Decision | undefined {
  const { creating, bootstrapping } = bootstrapState(v);
  if (creating) return undefined;
  const members = silentMembers(v);
  const learners = learnerNames(v);
  const counted = lostForGood(
    v.known.filter((m) => !learners.has(m.name)).map((m) => m.name),
    v.obs,
    v.storage,
    v.claimGone,
  );
  const recorded = v.known.length === 0 ? majorityLostOnPods(v.obs.pods) : undefined;
  const lost = recorded?.lost ?? counted;
  const voting = recorded?.voters ?? members.filter((m) => !learners.has(m.name)).length;
  if (lost.length === 0 || voting - lost.length >= Math.floor(voting / 2) + 1) return undefined;
  const lostMessage = majorityLostMessage(lost, voting, v.storage);
  const record = JSON.stringify({ lost, voters: voting });
  return {
    ...v.base,
    pods: silentPods(v, bootstrapping).pods.map((p) => withAnnotation(p, MAJORITY_LOST, record)),
    phase: 'Failed',
    reason: 'MajorityLost',
    conditions: [available(false, 'MajorityLost', lostMessage), recovering(true, 'MajorityLost', lostMessage)],
    members,
    quorum: quorumOf(members),
    converging: false,
  };
}

/**
 * What a wait for a quorum says it does meanwhile: the members restarted on their volumes (`missing`), and those made
 * again with the spec of the moment (`remade`).
 */
function restartingText(missing: MemberReport[], remade: string[]): string {
  const restarting = missing.length ? `; restarting ${missing.map((m) => m.name).join(', ')} on their volumes` : '';
  if (!remade.length) return restarting;
  const many = remade.length > 1;
  return `${restarting}; ${remade.join(', ')} could not start on the spec.pod ${many ? 'they were' : 'it was'} made from: made again with the spec's on ${many ? 'their claims' : 'its claim'}`;
}

/** Waiting: for the first members to answer (bootstrapping), for the hook to reach etcd, or for a quorum. */
function waiting(v: View): Decision {
  const { bootstrapping, creating, formed, restoring } = bootstrapState(v);
  const { pods, missing, remade } = silentPods(v, bootstrapping);
  // A bootstrap's members carry the clock of their etcd's exit (bootstrapExitClock).
  const members = silentMembers(v).map((m) => {
    const pod = bootstrapping ? v.obs.pods.find((p) => p.metadata.name === m.name) : undefined;
    const since = pod ? bootstrapExitClock(v, pod) : undefined;
    return since ? { ...m, exitedSince: since } : m;
  });
  const initFailing = creating ? initFailingOf(v.obs.pods) : '';
  const quorum = quorumOf(members);
  const unreachable = !creating && formed;
  const restarting = restartingText(missing, remade);
  // The kind of failure only: the raw error alternates between syncs (status churn); it goes to the log.
  const message = unreachable
    ? `members are Ready but the hook cannot reach etcd; no membership change until it can (check TLS.static.operatorSecret and network policies)${restarting}`
    : `etcd does not answer: ${quorum.down.length} of ${members.length} members down (${quorum.down.join(', ') || 'none'}); no membership change until a quorum is back${restarting}`;
  const reason = unreachable ? 'EtcdUnreachable' : 'QuorumLost';
  // Kept away past the limit by members whose etcd keeps exiting: said as such, synced when a pod changes.
  const loops =
    creating || unreachable
      ? undefined
      : crashLoopVerdict(v.parent, v.obs.pods, voters(v, members), v.obs.now, v.storage);
  if (loops) {
    const { reason, conditions } = loops;
    return { ...v.base, pods, phase: 'Running', reason, conditions, members, quorum, converging: false };
  }
  // Members whose pod, made again on their claim, found none of their data there: not started, and said so; nothing
  // is removed before etcd answers with a quorum (plan/members.ts replaceDataLost).
  const gone = v.obs.pods.filter((p) => dataMissing(p)).map((p) => p.metadata.name);
  const goneText = `${gone.join(', ')} came back on ${gone.length === 1 ? 'a claim' : 'claims'} holding none of ${gone.length === 1 ? 'its' : 'their'} data (${dataMissing(v.obs.pods.find((p) => p.metadata.name === gone[0]))}): not started under the old member ID; replaced once a quorum holds without it (${message})`;
  return {
    ...v.base,
    pods,
    phase: creating ? 'Creating' : 'Running',
    ...(creating ? {} : { reason }),
    // (A bootstrap's start that follows failed ones carries their record: status and pods.)
    ...(bootstrapping && currentRecord(v.obs.bootstrap) ? { bootstrapFailed: currentRecord(v.obs.bootstrap) } : {}),
    conditions: creating
      ? starting(restoring, initFailing)
      : [
          available(false, reason, message),
          gone.length > 0 ? recovering(true, 'MemberDataLost', goneText) : recovering(true, reason, message),
        ],
    members,
    quorum,
    // (An init step failing: the kubelet's back-off paces it, and a pod's change syncs; no 5 s steps meanwhile.)
    converging: !initFailing,
  };
}

/** The voting members as known (learners, as etcd last listed them, left out) and observed, by pod name. */
function voters(v: View, members: MemberReport[]): string[] {
  const learners = learnerNames(v);
  return members.map((m) => m.name).filter((n) => !learners.has(n));
}

/**
 * The learners as the status last recorded them: those etcd listed as learners, and one added as a learner in the
 * last sync that reached etcd, recorded before etcd gave it an ID (plan/members.ts addition). A learner votes in no
 * quorum.
 */
function learnerNames(v: View): Set<string> {
  const list: unknown[] = Array.isArray(v.previous.memberList) ? v.previous.memberList : [];
  return new Set(list.filter((m): m is MemberReport => isMemberReport(m) && m.learner === true).map((m) => m.name));
}
