// The Available / Progressing / Ready conditions of a replicated workload, from observed counts.
import { type Condition, previousConditions, rfc3339, type ConditionInput } from './conditions.js';
import { conditionsFor } from './hook.js';
import type { EventSpec } from './events.js';
import type { KubeObject, ObjectMap, ParentObject, Status } from './metacontroller.js';
import { isPodReady, isTerminal, isTerminating, LAST_APPLIED, observedUnordered, statusNumber } from './objects.js';
import { parseJson } from './parse-json.js';

export interface ReplicaCounts {
  /** The size the spec asks for. */
  desired: number;
  /** Members that exist (not being deleted). */
  current: number;
  /** Members that are Ready. */
  ready: number;
  /** Members already at the desired template, when the workload reports it. */
  updated?: number;
  /** False until the workload object itself has been observed. */
  exists: boolean;
}

export function replicaConditions(c: ReplicaCounts): ConditionInput[] {
  const summary = `${c.ready}/${c.desired} ready`;
  const available = c.exists && c.ready >= c.desired;
  let progressing: ConditionInput;
  if (!c.exists) {
    progressing = {
      type: 'Progressing',
      status: true,
      reason: 'Creating',
      message: 'waiting for the children to be created',
    };
  } else if (c.current < c.desired) {
    progressing = {
      type: 'Progressing',
      status: true,
      reason: 'ScalingUp',
      message: `${c.current} of ${c.desired} members exist`,
    };
  } else if (c.current > c.desired) {
    progressing = {
      type: 'Progressing',
      status: true,
      reason: 'ScalingDown',
      message: `${c.current} members exist, ${c.desired} wanted`,
    };
  } else if (c.updated !== undefined && c.updated < c.desired) {
    progressing = {
      type: 'Progressing',
      status: true,
      reason: 'Updating',
      message: `${c.updated} of ${c.desired} members updated`,
    };
  } else if (c.ready < c.desired) {
    progressing = { type: 'Progressing', status: true, reason: 'WaitingForReady', message: summary };
  } else {
    progressing = {
      type: 'Progressing',
      status: false,
      reason: 'Complete',
      message: `all ${c.desired} members are up to date and ready`,
    };
  }
  return [
    {
      type: 'Ready',
      status: available,
      reason: available ? 'Available' : 'NotAvailable',
      message: summary,
    },
    {
      type: 'Available',
      status: available,
      reason: available ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
      message: summary,
    },
    progressing,
  ];
}

/**
 * How long members may stay missing with no progress before the status says that creating them is failing (as a
 * Deployment's progressDeadlineSeconds).
 */
export const PROGRESS_DEADLINE_SECONDS = 600;

/**
 * Whether these counts show progress over those the previous answer wrote in the status (as a Deployment's
 * controller estimates it): more members exist (one was created), more are Ready, or more are on the current
 * template (`updatedReplicas`, where the status records it). Counts the status does not hold (lost, malformed) show
 * none.
 */
function progressed(parent: ParentObject, c: ReplicaCounts): boolean {
  const before = parent.status as { replicas?: unknown; readyReplicas?: unknown; updatedReplicas?: unknown } | null;
  const rose = (was: unknown, now: number | undefined) => typeof was === 'number' && now !== undefined && now > was;
  return (
    rose(before?.replicas, c.current) ||
    rose(before?.readyReplicas, c.ready) ||
    rose(before?.updatedReplicas, c.updated)
  );
}

/**
 * Whether members start missing in this sync: fewer exist than wanted now where the previous answer's status counted
 * every member it wanted (`replicas` against the wanted count of its `ready`, `<ready>/<desired>`), or more are wanted
 * than it wanted (a scale-up). The deadline counts from here (as a Deployment's clock restarts on a scale): a member
 * lost, or a scale-up, after a long wait for a member to be Ready is not past it in this sync. A status that does not
 * say (lost, malformed) says no.
 */
function startedMissing(parent: ParentObject, c: ReplicaCounts): boolean {
  if (c.current >= c.desired) return false;
  const before = parent.status as { replicas?: unknown; ready?: unknown } | null;
  const m = typeof before?.ready === 'string' ? /^\d{1,9}\/(\d{1,9})$/.exec(before.ready) : null;
  if (!m || typeof before?.replicas !== 'number') return false;
  const wanted = Number(m[1]);
  return c.desired > wanted || before.replicas >= wanted;
}

/** A time of a condition as a number (ms), or NaN when it is not an RFC 3339 string. */
function timeOf(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : NaN;
}

/**
 * When the members last made progress, by the Progressing=True condition of the previous answer: its lastUpdateTime
 * (moved at each progress), never before its lastTransitionTime (when it turned True); NaN when it says neither.
 */
function lastProgress(before: Condition): number {
  const turned = timeOf(before.lastTransitionTime);
  const updated = timeOf(before.lastUpdateTime);
  if (Number.isNaN(updated)) return turned;
  return Number.isNaN(turned) ? updated : Math.max(turned, updated);
}

/**
 * Whether a Progressing reason is one the deadline judges: members missing (being created, scaled up) or made and not
 * yet Ready (WaitingForReady), as a Deployment's progress counts its new pods becoming available. Not a rollout
 * (Updating: it proves each member before the next) nor a rest (Complete).
 */
function missing(reason: unknown): boolean {
  return membersMissing(reason) || reason === 'WaitingForReady';
}

/** Whether a Progressing reason says members are missing (being created, scaled up). */
function membersMissing(reason: unknown): boolean {
  return reason === 'Creating' || reason === 'ScalingUp';
}

/**
 * Whether members start missing in this Progressing=True answer where the previous one said they all existed
 * (another reason: WaitingForReady, Updating...): the deadline counts from here (progressStamp), and this sync is
 * never past it (stalled).
 */
function turnedMissing(before: Condition | undefined, reason: unknown): boolean {
  return before?.status === 'True' && membersMissing(reason) && !membersMissing(before.reason);
}

/** Pods named in a ProgressDeadlineExceeded message, at most. */
const GOING_LISTED = 3;

/**
 * Progressing=False / ProgressDeadlineExceeded when members have been missing (Creating, ScalingUp) or not Ready
 * (WaitingForReady) and no progress was made (progressed: none created, none turned Ready, none updated) for longer
 * than the deadline (`why.seconds`, PROGRESS_DEADLINE_SECONDS unless the spec says: PodSet's
 * spec.progressDeadlineSeconds): children that Metacontroller cannot create (refused by Pod Security admission or a
 * quota, too large for etcd) and pods that never start (an image that cannot be pulled, a container that crashes) are
 * otherwise invisible in the parent's Progressing condition. The deadline counts from the last progress or from when
 * members started missing or not Ready, whichever is later (lastProgress: the Progressing condition's
 * lastUpdateTime, which the status carries from sync to sync and progressStamp moves when the reason turns to one the
 * deadline judges from another, as a Deployment's clock restarts on a scale or a new ReplicaSet), so a long rollout
 * that replaces a member every few minutes never reaches it: the sync that first sees members missing is never past
 * it. `going`: members whose pod is being deleted (made again only once gone): named, with the way out of a pod stuck
 * Terminating on a lost node, rather than blaming their creation. `held`: the names another owner holds, left out of
 * the counts (heldDeadline) and named. Once exceeded it stays so, until progress is made again.
 */
function stalled(
  parent: ParentObject,
  progressing: ConditionInput,
  c: ReplicaCounts,
  now: Date,
  why: Why,
): ConditionInput | undefined {
  if (progressing.status !== true || !missing(progressing.reason)) return undefined;
  if (progressed(parent, c) || startedMissing(parent, c)) return undefined;
  const before = previousConditions(parent.status).find((p) => p.type === 'Progressing');
  const seconds = why.seconds ?? PROGRESS_DEADLINE_SECONDS;
  const counted =
    c.current >= c.desired && c.current > 0
      ? `${c.ready} of ${c.desired} members are Ready`
      : `${c.current} of ${c.desired} members exist`;
  const held = why.held ? ` (${why.held})` : '';
  const exceeded: ConditionInput = {
    type: 'Progressing',
    status: false,
    reason: 'ProgressDeadlineExceeded',
    message: `${counted}${held} after more than ${seconds} s without progress: ${stallCause(c, why)}`,
  };
  if (turnedMissing(before, progressing.reason)) return undefined;
  if (before?.status === 'False' && before.reason === 'ProgressDeadlineExceeded') return exceeded;
  if (before?.status !== 'True' || !missing(before.reason)) return undefined;
  const since = lastProgress(before);
  return Number.isFinite(since) && now.getTime() - since > seconds * 1000 ? exceeded : undefined;
}

/**
 * A rollout that completed stays complete while the spec does not change (as a Deployment's: its controller never
 * times out a Deployment whose Progressing says its new ReplicaSet is available): members that all exist and one of
 * which is not Ready since (a container that crashes, a node that stops reporting it Ready) are no rollout, and no
 * progress deadline is judged for them; Available, Ready and Degraded say it. Progressing=False Complete with the count
 * Ready now, where the previous answer said Complete at this generation (its Progressing condition's
 * observedGeneration) and the counts say WaitingForReady, else undefined. A change of the spec (the generation moves:
 * a scale, a new template) starts a rollout, judged by the deadline again; members missing (being deleted, made again,
 * their creation refused: nothing else says it) are judged as before (ScalingUp).
 */
function atRest(parent: ParentObject, progressing: ConditionInput, c: ReplicaCounts): ConditionInput | undefined {
  if (progressing.status !== true || progressing.reason !== 'WaitingForReady') return undefined;
  const before = previousConditions(parent.status).find((p) => p.type === 'Progressing');
  if (before?.status !== 'False' || before.reason !== 'Complete') return undefined;
  const generation = parent.metadata.generation;
  if (typeof generation !== 'number' || before.observedGeneration !== generation) return undefined;
  return {
    type: 'Progressing',
    status: false,
    reason: 'Complete',
    message: `generation ${generation} rolled out (all ${c.desired} members were up to date and ready); ${c.ready}/${c.desired} ready now: a member not Ready since is no rollout (Available and Degraded say why), and no progress deadline applies until the spec changes or a member is missing`,
  };
}

/** What stalled names and how long it waits. */
interface Why {
  going: readonly string[];
  waiting?: MembersWaiting | undefined;
  /** The deadline in seconds (PROGRESS_DEADLINE_SECONDS when undefined). */
  seconds?: number | undefined;
  /** The hold, in words, when names another owner holds are left out of the counts (heldDeadline). */
  held?: string | undefined;
  /**
   * The workload makes one member at a time (a StatefulSet's OrderedReady): the next only once the one before is Ready
   * and none is being deleted, so a member missing behind one not Ready or being deleted was never asked for.
   */
  ordered?: boolean | undefined;
}

/**
 * A member the workload waits for before it makes the others (a StatefulSet's OrderedReady: the next member only once
 * this one is Ready), or one not Ready beside missing ones: named past the progress deadline (stalled) with its state.
 */
export interface MembersWaiting {
  /** The member(s) not Ready and their state, in words (bounded by the caller). */
  text: string;
  /** The workload makes no other member until they are Ready (OrderedReady): no creation was refused. */
  ordered: boolean;
}

/**
 * Why members stay missing or not Ready: the pods being deleted (`going`, named, bounded); the members not Ready
 * (`waiting`: alone when the workload makes members one at a time); refused creations only for members missing
 * beyond those being deleted, and never where the workload makes one member at a time (`ordered`, or `waiting`'s)
 * behind a member not Ready or being deleted: it did not ask for them; members made and not Ready without a `waiting`
 * text: kubectl describe pod.
 */
function stallCause(c: ReplicaCounts, why: Why): string {
  const { going, waiting } = why;
  const creating =
    "creating the others fails (Pod Security admission, a quota, an object too large); kubectl get events and Metacontroller's log say why";
  const parts: string[] = [];
  if (going.length > 0) {
    const names = [...going].sort();
    const listed = names.slice(0, GOING_LISTED).join(', ');
    const more = names.length > GOING_LISTED ? ` and ${names.length - GOING_LISTED} more` : '';
    const one = names.length === 1;
    parts.push(
      `pod${one ? '' : 's'} ${listed}${more} ${one ? 'is' : 'are'} being deleted and made again only once gone: a pod stuck Terminating on a lost node goes only with kubectl delete pod --force, once the node is confirmed gone (kubectl get nodes)`,
    );
  }
  const others = c.desired - c.current - going.length > 0;
  const ordered = waiting?.ordered === true || why.ordered === true;
  if (others && ordered && waiting)
    parts.push(`the workload makes the next member only once the one before is Ready: ${waiting.text}`);
  else if (others && ordered && going.length > 0)
    parts.push('the workload makes the next member only once the one being deleted is gone and made again Ready');
  else {
    if (waiting) parts.push(waiting.text);
    if (others) parts.push(creating);
  }
  if (parts.length === 0)
    parts.push("members are made and not Ready: kubectl describe pod and their containers' logs say why");
  return parts.join('; ');
}

/**
 * The lastUpdateTime of a Progressing=True condition (as a Deployment's): now when it just turned True, the members
 * progressed (progressed) or members started missing (its reason turned Creating/ScalingUp from another: the deadline
 * counts from then), else the previous answer's last progress as it wrote it (lastProgress; its
 * lastTransitionTime where it wrote none that reads), so that a status at rest stays as it is.
 */
function progressStamp(parent: ParentObject, c: ReplicaCounts, condition: Condition, now: Date): string {
  const before = previousConditions(parent.status).find((p) => p.type === 'Progressing');
  if (
    before?.status !== 'True' ||
    progressed(parent, c) ||
    startedMissing(parent, c) ||
    turnedMissing(before, condition.reason) ||
    (missing(condition.reason) && !missing(before.reason))
  )
    return rfc3339(now);
  if (typeof before.lastUpdateTime === 'string' && lastProgress(before) === timeOf(before.lastUpdateTime))
    return before.lastUpdateTime;
  return condition.lastTransitionTime;
}

/**
 * Whether the previous answer already asked for a workload that was not seen: its Progressing condition says it was
 * being created (`Creating`, or `ProgressDeadlineExceeded` once that took too long). A workload still missing then
 * was refused (a quota, an admission webhook): its creation is told once, not at every sync (`Created` Events).
 */
export function creationAsked(parent: ParentObject): boolean {
  const before = previousConditions(parent.status).find((p) => p.type === 'Progressing');
  return (
    (before?.status === 'True' && before.reason === 'Creating') ||
    (before?.status === 'False' && before.reason === 'ProgressDeadlineExceeded')
  );
}

/** The counts a Deployment or StatefulSet reports in its status (all 0 until it exists). */
export function workloadCounts(workload: KubeObject | undefined, desired: number): ReplicaCounts {
  return {
    desired,
    current: statusNumber(workload, 'replicas'),
    ready: statusNumber(workload, 'readyReplicas'),
    updated: statusNumber(workload, 'updatedReplicas'),
    exists: workload !== undefined,
  };
}

/** The names of the live pods among the related objects Metacontroller sent. */
export function relatedPodNames(related: ObjectMap | null | undefined): string[] {
  return livePodNames(observedUnordered(related, 'Pod', 'v1'));
}

/** The names of the live pods among these, sorted. */
export function livePodNames(pods: KubeObject[]): string[] {
  // Sorting the names (the default string order) rather than the objects keeps thousands of pods cheap (perf: docs/performance.md).
  // A pod that ended (Failed: evicted, stopped by a node shutdown; Succeeded) serves nothing, whatever the API server
  // keeps of it: its controller has replaced it.
  return pods
    .filter((p) => !isTerminating(p) && !isTerminal(p))
    .map((p) => p.metadata.name!)
    .sort();
}

/** What memberStatus judged a status's Progressing condition on, by status object (heldDeadline reads it again). */
interface Judged {
  counts: ReplicaCounts;
  /** The Progressing input before the deadline (replicaConditions', or the hook's own). */
  progressing: ConditionInput;
  why: Why;
  /** The workload whose spec this answer changes (memberStatus's `withheld`): a held answer does not give it. */
  withheld?: string | undefined;
}
const judgedOn = new WeakMap<object, Judged>();

/**
 * The Progressing condition of these inputs: past the deadline (stalled) or as given, with its lastUpdateTime when
 * True (progressStamp).
 */
function progressingOf(parent: ParentObject, judged: Judged, now: Date): Condition {
  const stall = stalled(parent, judged.progressing, judged.counts, now, judged.why);
  const [condition] = conditionsFor(parent, [stall ?? judged.progressing], now);
  if (condition!.status === 'True') condition!.lastUpdateTime = progressStamp(parent, judged.counts, condition!, now);
  return condition!;
}

/**
 * The status of a replicated parent: member names, counts, `ready` as kubectl shows it, the generation it
 * describes and the replica conditions; `ready` and `progressing` replace those conditions when something else
 * decides them.
 */
export function memberStatus(
  parent: ParentObject,
  counts: ReplicaCounts,
  nodes: string[],
  now: Date,
  options: {
    extra?: ConditionInput[];
    ready?: ConditionInput;
    progressing?: ConditionInput;
    selector?: string;
    /** Members whose pod is being deleted (Terminating): named past the progress deadline (stalled). */
    going?: readonly string[];
    /** A member not Ready that the workload waits for (stallCause): named past the progress deadline. */
    waiting?: MembersWaiting;
    /** The progress deadline in seconds (PROGRESS_DEADLINE_SECONDS when not given). */
    deadlineSeconds?: number;
    /**
     * The workload makes one member at a time (a StatefulSet's OrderedReady): a member missing behind one being
     * deleted was never asked for (stallCause).
     */
    ordered?: boolean;
    /**
     * The workload, in words (`Deployment <name>`), whose spec this answer changes (workloadWithheld): an answer held
     * for a name another owner holds keeps it as observed, so its Progressing says the hold, never the change nor a
     * rest (heldDeadline, lib/ownership.ts heldForTakenNames).
     */
    withheld?: string;
  } = {},
): Status {
  const inputs = replicaConditions(counts);
  if (options.ready) inputs[0] = options.ready;
  if (options.progressing) inputs[2] = options.progressing;
  // A rollout that completed at this generation stays complete while members only stop being Ready (atRest).
  inputs[2] = atRest(parent, inputs[2]!, counts) ?? inputs[2]!;
  const why: Why = {
    going: options.going ?? [],
    waiting: options.waiting,
    seconds: options.deadlineSeconds,
    ordered: options.ordered,
  };
  const stall = stalled(parent, inputs[2], counts, now, why);
  const judged: Judged = { counts, progressing: inputs[2], why, withheld: options.withheld };
  if (stall) {
    inputs[2] = stall;
    if (!options.ready) inputs[0] = { type: 'Ready', status: false, reason: stall.reason, message: stall.message };
  }
  const conditions = conditionsFor(parent, [...inputs, ...(options.extra ?? [])], now);
  const progressing = conditions.find((c) => c.type === 'Progressing');
  if (progressing?.status === 'True') progressing.lastUpdateTime = progressStamp(parent, counts, progressing, now);
  const status: Status = {
    nodes,
    replicas: counts.current,
    readyReplicas: counts.ready,
    ready: `${counts.ready}/${counts.desired}`,
    observedGeneration: parent.metadata.generation ?? 0,
    conditions,
  };
  if (options.selector !== undefined) status['selector'] = options.selector;
  judgedOn.set(status, judged);
  return status;
}

/**
 * The workload (in words) whose spec the answer that built `status` (memberStatus) changes, or undefined: held, the
 * answer keeps it as observed and never gives it that spec (lib/ownership.ts heldForTakenNames says the hold).
 */
export function withheldIn(status: object): string | undefined {
  return judgedOn.get(status)?.withheld;
}

/** A held parent's workload kept as observed with a spec it was never given (withheldIn), in words. */
export function withheldText(workload: string): string {
  return `${workload} is kept as observed: the spec changed since it was given, and it gets the change only once the name is free`;
}

/**
 * The Progressing condition of a parent held for names another owner holds (lib/ownership.ts heldForTakenNames),
 * judged on what it can make, or undefined when memberStatus did not build `status` (the caller then says the hold)
 * or the parent makes no member while held. The members under held names (`heldMembers`: another owner's pods) are
 * left out of the count it is judged on, and named (`hold`); where the held answer keeps the observed children
 * rather than the hook's (`independent` false: its workload as observed, which makes what it made), only the members
 * that exist are judged (their readiness), never members its kept workload may not ask for, and a spec change the
 * answer would give the workload (withheldIn) is said as kept back, never as given. A parent whose members it can
 * make all exist and are Ready gets undefined (the hold is all there is to say).
 */
export function heldDeadline(
  parent: ParentObject,
  status: object,
  held: { heldMembers: number; independent: boolean; hold: string },
  now: Date,
): Condition | undefined {
  const judged = judgedOn.get(status);
  if (!judged?.counts.exists) return undefined;
  const c = judged.counts;
  const desired = held.independent ? Math.max(0, c.desired - held.heldMembers) : Math.min(c.desired, c.current);
  const counts: ReplicaCounts = { ...c, desired };
  if (desired === 0 || (c.current >= desired && c.ready >= desired)) return undefined;
  const base = replicaConditions(counts)[2]!;
  const withheld = held.independent ? undefined : judged.withheld;
  // The hook's own Progressing (a rollout, a limit) stays as it said, the hold named; else the counts' without the
  // held members. A change the kept workload is never given is no rollout: the counts', the spec kept back named.
  const progressing: ConditionInput =
    missing(judged.progressing.reason) || withheld
      ? { ...base, message: `${base.message} (${held.hold}${withheld ? `; ${withheldText(withheld)}` : ''})` }
      : judged.progressing;
  return progressingOf(parent, { counts, progressing, why: { ...judged.why, held: held.hold } }, now);
}

/** Longest message copied from a workload's condition into the parent's status. */
const FAILURE_MESSAGE_MAX = 300;

/**
 * The Ready condition for a workload whose pods cannot be created: a Deployment reports the API server's refusal
 * (Pod Security admission, a quota) in its ReplicaFailure condition. The message is the workload's own (stable
 * while the failure lasts), capped; undefined when nothing is refused.
 */
export function workloadFailure(workload: KubeObject | undefined): ConditionInput | undefined {
  const conditions = (workload?.['status'] as { conditions?: unknown } | undefined)?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  const failure = conditions.find(
    (c): c is { reason?: unknown; message?: unknown } =>
      typeof c === 'object' &&
      c !== null &&
      (c as { type?: unknown }).type === 'ReplicaFailure' &&
      (c as { status?: unknown }).status === 'True',
  );
  if (!failure) return undefined;
  const reason =
    typeof failure.reason === 'string' && /^[A-Za-z][A-Za-z0-9]{0,63}$/.test(failure.reason)
      ? failure.reason
      : 'FailedCreate';
  const detail = typeof failure.message === 'string' ? failure.message : 'the API server refused to create them';
  const message = `pods cannot be created: ${detail}`;
  return {
    type: 'Ready',
    status: false,
    reason,
    message: message.length > FAILURE_MESSAGE_MAX ? `${message.slice(0, FAILURE_MESSAGE_MAX - 3)}...` : message,
  };
}

/** JSON with every object's keys sorted: Metacontroller stores what it applied with Go's (sorted) key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Whether the spec Metacontroller last applied to a workload (its last-applied annotation; its replicas where it
 * records none) differs from the one `desired` gives it.
 */
function specChanged(workload: KubeObject, desired: KubeObject): boolean {
  const applied = workload.metadata.annotations?.[LAST_APPLIED];
  let appliedSpec: unknown;
  if (typeof applied === 'string') {
    try {
      appliedSpec = (parseJson(applied) as { spec?: unknown }).spec;
    } catch {
      appliedSpec = undefined;
    }
  }
  if (appliedSpec === undefined) appliedSpec = { replicas: (workload['spec'] as { replicas?: unknown })?.replicas };
  const wanted =
    typeof applied === 'string' ? desired['spec'] : { replicas: (desired['spec'] as { replicas?: unknown })?.replicas };
  return canonical(appliedSpec) !== canonical(wanted);
}

/**
 * Why a workload (Deployment, StatefulSet) is not yet running the spec this answer gives it, or undefined: the
 * spec Metacontroller last applied (its last-applied annotation) differs from the answer's, which Metacontroller
 * applies after this sync; or the workload's controller has not observed its latest generation. A status built
 * from the workload's counts describes an older spec until then: it must not say the change is complete.
 */
export function workloadPending(workload: KubeObject | undefined, desired: KubeObject): string | undefined {
  if (!workload) return undefined;
  const kind = `${desired.kind} ${desired.metadata.name}`;
  if (specChanged(workload, desired)) return `${kind} is given the new spec`;
  const generation = workload.metadata.generation;
  const seen = (workload['status'] as { observedGeneration?: unknown } | undefined)?.observedGeneration;
  if (typeof generation === 'number' && (typeof seen !== 'number' || seen < generation))
    return `${kind} has not observed generation ${generation} yet`;
  return undefined;
}

/**
 * The observed workload, in words (`Deployment <name>`), when this answer changes its spec (the spec Metacontroller
 * last applied differs from `desired`'s), else undefined: memberStatus's `withheld`, which an answer held for a name
 * another owner holds never gives it (it keeps the workload as observed).
 */
export function workloadWithheld(workload: KubeObject | undefined, desired: KubeObject): string | undefined {
  return workload && specChanged(workload, desired) ? `${desired.kind} ${desired.metadata.name}` : undefined;
}

/** Container waiting reasons that mean a pod is failing rather than starting. */
const FAILING = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

/**
 * The kubelet's two words for one image that cannot be pulled: `ErrImagePull` while it pulls, `ImagePullBackOff`
 * while it waits for the next attempt. Said as one (ImagePullBackOff), so that a status naming it is not written
 * anew at every pull attempt.
 */
export function failureWord(reason: string): string {
  return reason === 'ErrImagePull' ? 'ImagePullBackOff' : reason;
}

/**
 * How long a container must have run before a restart is no crash loop: the kubelet forgets a container's back-off
 * once it has run this long (10 minutes).
 */
export const CRASH_LOOP_RESET_SECONDS = 600;

/** The seconds a container's run lasted, from its `startedAt` to its `finishedAt` (RFC 3339), or undefined. */
export function runSeconds(run: { startedAt?: unknown; finishedAt?: unknown } | undefined): number | undefined {
  if (typeof run?.startedAt !== 'string' || typeof run.finishedAt !== 'string') return undefined;
  const from = Date.parse(run.startedAt);
  const to = Date.parse(run.finishedAt);
  return Number.isNaN(from) || Number.isNaN(to) ? undefined : (to - from) / 1000;
}

interface ContainerStatus {
  name?: unknown;
  ready?: unknown;
  restartCount?: unknown;
  state?: {
    waiting?: { reason?: unknown };
    running?: unknown;
    terminated?: { startedAt?: unknown; finishedAt?: unknown };
  };
  lastState?: { terminated?: { startedAt?: unknown; finishedAt?: unknown } };
}

/**
 * Whether a container is in a crash loop between two back-offs: it has restarted, is not Ready, and runs again (or
 * has just ended again) after a run shorter than CRASH_LOOP_RESET_SECONDS, or of no length that reads. The kubelet
 * says `CrashLoopBackOff` only while it waits; between its waits the container is `running` (not Ready) or
 * `terminated` (an init container that ended is not read so: it has done its step), and is failing all the same. A container that restarts after a long run (a `sleep 3600` that ended,
 * a cache killed after a day) is no crash loop.
 */
function crashLooping(c: ContainerStatus, init: boolean): boolean {
  if (typeof c.restartCount !== 'number' || c.restartCount <= 0 || c.ready === true) return false;
  // An init container that ended has done its step (or failed it: then the kubelet waits, CrashLoopBackOff).
  const ended = init ? undefined : c.state?.terminated;
  const run = ended ?? (c.state?.running !== undefined ? c.lastState?.terminated : undefined);
  if (ended === undefined && c.state?.running === undefined) return false;
  const ran = runSeconds(run);
  return ran === undefined || ran < CRASH_LOOP_RESET_SECONDS;
}

/**
 * Why a pod is failing (a container's waiting reason, said as failureWord says it; `CrashLoopBackOff` too between
 * the back-offs of a crash loop, crashLooping; or the pod's phase Failed), or undefined. `own`: the names of the
 * containers (and init containers) the parent answered in its pods; only those are read. A container another writer
 * added (an injected sidecar: Istio's istio-proxy, Vault's agent) waiting for its image neither makes the workload
 * failing nor hides its own container's failure (lib/replicas.ts podsFailing). Without `own`, every container counts.
 */
export function podFailure(pod: KubeObject, own?: ReadonlySet<string>): string | undefined {
  const status = pod['status'] as
    { phase?: unknown; containerStatuses?: unknown; initContainerStatuses?: unknown } | undefined;
  if (status?.phase === 'Failed') return 'Failed';
  for (const [list, init] of [
    [status?.initContainerStatuses, true],
    [status?.containerStatuses, false],
  ] as const) {
    if (!Array.isArray(list)) continue;
    for (const c of list) {
      const container = c as ContainerStatus | null;
      if (!container || typeof container !== 'object') continue;
      if (own && !own.has(container.name as string)) continue;
      const reason = container.state?.waiting?.reason;
      if (FAILING.has(reason as string)) return failureWord(reason as string);
      if (crashLooping(container, init)) return 'CrashLoopBackOff';
    }
  }
  return undefined;
}

/** Pods not Ready named past the progress deadline, at most. */
const NOT_READY_LISTED = 3;

/**
 * The live pods that are not Ready, for the progress deadline (stalled names them): each with its own container's
 * waiting reason (ErrImagePull, CrashLoopBackOff: podFailure, reading the containers in `own`), else "not Ready"; at
 * most NOT_READY_LISTED named, "and N more". Nothing when every pod is Ready.
 */
export function podsNotReady(pods: readonly KubeObject[], own: ReadonlySet<string>): { waiting?: MembersWaiting } {
  const named: string[] = [];
  for (const p of pods) if (!isPodReady(p)) named.push(`${p.metadata.name!} (${podFailure(p, own) ?? 'not Ready'})`);
  if (named.length === 0) return {};
  named.sort();
  const more = named.length > NOT_READY_LISTED ? ` and ${named.length - NOT_READY_LISTED} more` : '';
  const one = named.length === 1;
  return {
    waiting: {
      text: `pod${one ? '' : 's'} ${named.slice(0, NOT_READY_LISTED).join(', ')}${more} ${one ? 'is' : 'are'} not Ready`,
      ordered: false,
    },
  };
}

/** Pods named in the Degraded message, at most. */
const LISTED_PODS = 3;

/**
 * Degraded=True / PodsFailing (the Operator SDK sample's condition) when some of these pods fail: a container that
 * crashes or whose image cannot be pulled, a pod Failed. The message names the first pods (by name) and their
 * reasons, never the kubelet's changing words; undefined when none fails. `own`: the containers read (podFailure).
 */
export function podsFailing(pods: readonly KubeObject[], own?: ReadonlySet<string>): ConditionInput | undefined {
  const failing: string[] = [];
  for (const p of pods) {
    const why = podFailure(p, own);
    if (why) failing.push(`${p.metadata.name}: ${why}`);
  }
  if (failing.length === 0) return undefined;
  failing.sort();
  const more = failing.length > LISTED_PODS ? ` and ${failing.length - LISTED_PODS} more` : '';
  return {
    type: 'Degraded',
    status: true,
    reason: 'PodsFailing',
    message: `${failing.length} pod${failing.length > 1 ? 's' : ''} failing: ${failing.slice(0, LISTED_PODS).join(', ')}${more}`,
  };
}

/**
 * Degraded as the pods say it: their failures (podsFailing), or False AsExpected when no `member` (a pod, a member)
 * fails, reading the containers named in `own` only (podFailure). The one place the at-rest Degraded condition is built.
 */
export function podsDegraded(
  pods: readonly KubeObject[],
  own: ReadonlySet<string>,
  member: 'pod' | 'member' = 'pod',
): ConditionInput {
  return podsFailing(pods, own) ?? notDegraded(member);
}

/** Degraded=False AsExpected: no `member` (a pod, a member) is failing. */
export function notDegraded(member: 'pod' | 'member' = 'pod'): ConditionInput {
  return { type: 'Degraded', status: false, reason: 'AsExpected', message: `no ${member} is failing` };
}

/**
 * The Warning Event of a Degraded condition that became True (or changed reason) in this answer. A reason Ready
 * takes too (a refused pod) is told once, as Ready's (lib/events.ts); the same status fed back says nothing.
 */
export function degradedEvent(parent: ParentObject, status: unknown): EventSpec | undefined {
  const now = previousConditions(status).find((c) => c.type === 'Degraded');
  if (now?.status !== 'True') return undefined;
  if (previousConditions(status).find((c) => c.type === 'Ready')?.reason === now.reason) return undefined;
  const was = previousConditions(parent.status).find((c) => c.type === 'Degraded');
  if (was?.status === 'True' && was.reason === now.reason) return undefined;
  return {
    type: 'Warning',
    reason: String(now.reason),
    action: 'Reconcile',
    note: `Degraded: ${String(now.message)}`,
    subject: 'Degraded',
  };
}
