// PodSet's own rollout: which outdated pod, if any, is replaced now. Metacontroller only creates the pods the hook
// names and deletes those it leaves out (the pods' update strategy is OnDelete); the hook decides everything else,
// from what it observes: the template hash each pod carries and whether it is Ready.
//
// Why not Metacontroller's RollingRecreate: on v4 (since its observed children are keyed `namespace/name`) its
// rolling update looks children up by bare name and never finds a namespaced one, so a rollout stops after the first
// pod, waiting forever on "missing child" (docs/metacontroller.md).
import { createHash } from 'node:crypto';
import {
  asGiven,
  type ConditionInput,
  failureWord,
  isPodReady,
  type KubeObject,
  podFailure,
  runSeconds,
  textOf,
} from '../../lib/index.js';

/** The label on every pod naming the template it was made from (a hash of its labels and pod spec). */
export const TEMPLATE_HASH_LABEL = 'metaops.dev/template-hash';
/** The containers the hook answers in each pod (sync.ts podSpec): the only ones whose restarts the rollout reads. */
export const CONTAINERS: ReadonlySet<string> = new Set(['busybox']);
/** While a rollout is not finished, the hook asks to be called again this often (pod events call it sooner). */
export const ROLLOUT_RESYNC_SECONDS = 30;

/** The template hash: 10 hex digits of the SHA-256 of the pod's labels and spec as the answer writes them. */
export function templateHash(labels: Record<string, string>, spec: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify({ labels, spec })).digest('hex').slice(0, 10);
}

/** The template of a pod made before pods carried a hash: its one container's image and command. */
export interface LegacyTemplate {
  image: string;
  command: string[];
}

/**
 * True when the pod runs the current template: it carries the current hash, or (made by a metaops from before the
 * hash) it carries none and its container runs the spec's image and command, which is all that template varied on.
 */
export function isCurrent(pod: KubeObject, hash: string, legacy: LegacyTemplate): boolean {
  // Observed data: labels may be anything (null, a string); reading a key of those gives undefined.
  const carried = (pod.metadata.labels as Record<string, unknown> | null | undefined)?.[TEMPLATE_HASH_LABEL];
  if (carried !== undefined) return carried === hash;
  const containers = (pod['spec'] as { containers?: unknown } | undefined)?.containers;
  if (!Array.isArray(containers) || containers.length !== 1) return false;
  const c = containers[0] as { image?: unknown; command?: unknown } | null | undefined;
  return (
    // Its image as given, whatever digest an admission policy pinned it to (its tag kept: lib/images.ts asGiven).
    typeof c?.image === 'string' &&
    asGiven(c.image, legacy.image) &&
    Array.isArray(c.command) &&
    c.command.length === legacy.command.length &&
    c.command.every((arg, i) => arg === legacy.command[i])
  );
}

/** One member of the PodSet (an ordinal below its size), as observed. */
export interface Member {
  name: string;
  /** absent: no pod of that name; going: being deleted, or finished (it is deleted and made again). */
  state: 'absent' | 'going' | 'live';
  /** The live pod. */
  pod?: KubeObject;
  current?: boolean;
  ready?: boolean;
  /**
   * Ready, and for less than the PodSet's minReadySeconds: the seconds left until it has been (by its Ready
   * condition's lastTransitionTime). A pod on the current template proves it only once that has passed.
   */
  settling?: number;
  /**
   * Ready, and one of its own containers (CONTAINERS) restarted after a run shorter than minReadySeconds, or of no
   * length that reads (crashedRun): on the current template it proves nothing, however long it has been Ready since
   * (the node's clock may run behind the hook's; the run's length is read on the node's clock alone), and the rollout
   * stops there. A restart after a run that lasted minReadySeconds (a `sleep 3600` that ended, an application killed
   * after a day) is no failed start: the pod is judged by its Ready condition, as one that never restarted.
   */
  restarted?: boolean;
}

export interface RolloutPlan {
  /** The member to replace now: left out of the answer, Metacontroller deletes it; made again on a later sync. */
  replace?: string;
  /** Live members on the current template. */
  updated: number;
  /** Live members on an older one. */
  outdated: number;
  /** `Updated`: whether every pod runs the current template, else how far the rollout is and what it waits for. */
  condition: ConditionInput;
  /** Waiting for a pod on the current template to have been Ready long enough: the seconds until it has. */
  recheckIn?: number;
}

/**
 * Why a pod is not Ready, in a word or two (the kubelet's reason for its first waiting container, its two words for
 * an image that cannot be pulled said as one: lib/replicas.ts failureWord), or ''.
 */
export function notReadyReason(pod: KubeObject | undefined): string {
  if (!pod) return '';
  // Its own container failing (lib/replicas.ts podFailure): a crash loop is CrashLoopBackOff between the kubelet's
  // back-offs too, so the status does not turn at each restart.
  const failing = podFailure(pod, CONTAINERS);
  if (failing && failing !== 'Failed') return `: ${failing}`;
  const status = pod['status'] as { phase?: unknown; containerStatuses?: unknown } | undefined;
  const statuses = status?.containerStatuses;
  if (Array.isArray(statuses)) {
    for (const s of statuses) {
      const waiting = (s as { state?: { waiting?: { reason?: unknown } } } | null)?.state?.waiting;
      const reason = waiting?.reason;
      if (typeof reason === 'string' && /^[A-Za-z][A-Za-z0-9]{0,63}$/.test(reason)) return `: ${failureWord(reason)}`;
    }
  }
  // Running and not Ready says nothing more than "to be Ready" does.
  const phase = status?.phase;
  return typeof phase === 'string' && phase !== 'Running' && /^[A-Za-z]{1,32}$/.test(phase) ? `: phase ${phase}` : '';
}

/** What the rollout waits for, in words: a member missing, going, or (live) on the current template and not Ready. */
function waitingFor(m: Member): string {
  if (m.state === 'absent') return `${m.name} to be created (if it stays missing, kubectl get events says why)`;
  if (m.state === 'going') return `${m.name} to be deleted and made again`;
  if (m.restarted)
    return `${m.name} (current template), which restarted after running less than minReadySeconds: delete it to try the template again, or change the template`;
  if (m.ready) return `${m.name} (current template) to stay Ready for minReadySeconds`;
  return `${m.name} (current template) to be Ready${notReadyReason(m.pod)}`;
}

/**
 * The next step of the rollout, one pod at a time:
 * - nothing is replaced while a member is missing or being deleted (a replacement in flight);
 * - an outdated pod that is not Ready goes first (replacing it costs no availability), but only while every pod on
 *   the current template is Ready, each for minReadySeconds (`settling`) and none restarted: the new template is
 *   proven on one pod before the next is replaced, and a command that crashes seconds after it starts, Ready
 *   between its restarts, proves nothing;
 * - an outdated Ready pod is replaced only when every other member is Ready;
 * - among equals, the highest ordinal first (as a StatefulSet rolls);
 * - nothing is replaced while `blocked` says why the candidate's replacement would not be made (sync.ts: it would not
 *   fit within the body limit): the running pod is kept, the rollout waits and says so.
 * `members` are in ordinal order.
 */
export function planRollout(
  members: readonly Member[],
  hash: string,
  blocked?: (candidate: Member) => string | undefined,
): RolloutPlan {
  let updated = 0;
  let outdated = 0;
  for (const m of members) {
    if (m.state !== 'live') continue;
    if (m.current) updated++;
    else outdated++;
  }
  const size = members.length;
  const progress = `${updated} of ${size} pods on template ${hash}`;
  if (outdated === 0) {
    return {
      updated,
      outdated,
      condition: {
        type: 'Updated',
        status: true,
        reason: 'UpToDate',
        message: `every pod is made from template ${hash}`,
      },
    };
  }
  const waiting = (on: Member, next: Member): RolloutPlan => ({
    updated,
    outdated,
    condition: {
      type: 'Updated',
      status: false,
      reason: 'RolloutWaiting',
      message: `${progress}; next to replace: ${next.name}; waiting for ${waitingFor(on)}`,
    },
  });
  const candidate = pickCandidate(members);
  const inFlight = members.find((m) => m.state !== 'live');
  if (inFlight) return waiting(inFlight, candidate);
  // The new template proven first: a pod on it that is not Ready holds the rollout. Past this point every member is
  // live and every current one Ready; a Ready candidate means no outdated pod is not Ready either (those are picked
  // first), so an outdated Ready pod is replaced only when every other member is Ready.
  const unproven = members.find((m) => m.current && (!m.ready || m.settling !== undefined || m.restarted));
  if (unproven) {
    const plan = waiting(unproven, candidate);
    return unproven.settling === undefined ? plan : { ...plan, recheckIn: unproven.settling };
  }
  // A pod is deleted only for a replacement that will be made: never one the next sync would leave unmade.
  const why = blocked?.(candidate);
  if (why)
    return {
      updated,
      outdated,
      condition: {
        type: 'Updated',
        status: false,
        reason: 'RolloutWaiting',
        message: `${progress}; next to replace: ${candidate.name}; not replaced: ${why}`,
      },
    };
  return {
    replace: candidate.name,
    updated,
    outdated,
    condition: {
      type: 'Updated',
      status: false,
      reason: 'RollingOut',
      message: `${progress}; replacing ${candidate.name} (outdated${candidate.ready ? '' : ', not Ready'}), one pod at a time`,
    },
  };
}

/** The outdated live member to replace next: not Ready before Ready, then the highest ordinal. */
function pickCandidate(members: readonly Member[]): Member {
  let pick: Member | undefined;
  for (const m of members) {
    if (m.state !== 'live' || m.current) continue;
    if (!pick || !m.ready || pick.ready) pick = m;
  }
  return pick!;
}

/** Reads a pod's readiness and template for the plan, and whether it has proved its template yet. */
export function liveMember(
  name: string,
  pod: KubeObject,
  hash: string,
  legacy: LegacyTemplate & { minReadySeconds: number },
  now: Date,
): Member {
  const ready = isPodReady(pod);
  const member: Member = { name, state: 'live', pod, current: isCurrent(pod, hash, legacy), ready };
  if (!ready || legacy.minReadySeconds <= 0) return member;
  if (crashedRun(pod, legacy.minReadySeconds)) member.restarted = true;
  else {
    const left = settlingFor(pod, legacy.minReadySeconds, now);
    if (left !== undefined) member.settling = left;
  }
  return member;
}

/**
 * The whole seconds a Ready pod whose containers never restarted has yet to stay Ready for `minReady` seconds, or
 * undefined once it has. Ready since its Ready condition's lastTransitionTime (the node's clock), never before the pod
 * was made (its creationTimestamp, the API server's clock: a node behind cannot make a pod proven at once); a time
 * in the future (a node ahead) says nothing and the pod's creation is taken instead. With neither time (the kubelet
 * and the API server always write them) it is taken as Ready long enough, as before minReadySeconds.
 */
function settlingFor(pod: KubeObject, minReady: number, now: Date): number | undefined {
  const conditions = (pod['status'] as { conditions?: unknown } | undefined)?.conditions;
  const ready = (Array.isArray(conditions) ? conditions : []).find(
    (c: unknown) => (c as { type?: unknown } | null)?.type === 'Ready',
  ) as { lastTransitionTime?: unknown } | undefined;
  const turned = typeof ready?.lastTransitionTime === 'string' ? Date.parse(ready.lastTransitionTime) : NaN;
  const made = Date.parse(textOf(pod.metadata.creationTimestamp));
  const since =
    Number.isNaN(turned) || turned > now.getTime() ? made : Math.max(turned, Number.isNaN(made) ? turned : made);
  if (Number.isNaN(since)) return undefined;
  const left = minReady - Math.max(0, now.getTime() - since) / 1000;
  return left > 0 ? Math.ceil(left) : undefined;
}

/**
 * Whether one of the pod's own containers (CONTAINERS; an injected sidecar's restarts are not the template's) has
 * restarted (restartCount above 0) after a run shorter than `minReady` seconds: its `lastState.terminated`, the run
 * before the current one, from `startedAt` to `finishedAt` (both the node's clock: no skew between the node and the
 * hook reads into it). A run whose length does not read counts as short: a restart proves nothing unless the run
 * before it is known to have lasted.
 */
function crashedRun(pod: KubeObject, minReady: number): boolean {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  return (
    Array.isArray(statuses) &&
    statuses.some((s: unknown) => {
      const c = s as {
        name?: unknown;
        restartCount?: unknown;
        lastState?: { terminated?: { startedAt?: unknown; finishedAt?: unknown } };
      } | null;
      if (!CONTAINERS.has(c?.name as string)) return false;
      const count = c?.restartCount;
      if (typeof count !== 'number' || count <= 0) return false;
      const ran = runSeconds(c?.lastState?.terminated);
      return ran === undefined || ran < minReady;
    })
  );
}
