// What an observed member pod's status says: whether it finished, why its etcd waits, whether its etcd keeps exiting.
// Observed pods are input: every field may be missing or of another type.
import { type KubeObject, rfc3339, scrubAwsText, textOf } from '../../lib/index.js';
import { DATA_CHECK, DATA_MISSING_EXIT, DATA_MISSING_MARK } from './members.js';

/** Phases of a pod that will not run again (restartPolicy Never, or evicted). */
export const DEAD_PHASES = new Set(['Failed', 'Succeeded']);
/** Why a container waits when its image cannot be had. */
export const IMAGE_WAITING = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);

/** The image waits no retry clears: a name that is no image, an image the node is told never to pull. */
export const IMAGE_NEVER = new Set(['InvalidImageName', 'ErrImageNeverPull']);

/** Printable ASCII only, at most `max` characters: what a dependency said never goes into status raw. */
export function sanitize(text: string, max = 160): string {
  const clean = text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}

/**
 * What a member's or a check's CLI said (S3's error text, through the restore's or the node's credentials), as a
 * tenant may read it in a status or an Event: without the AWS account and IAM identity (lib/aws-text.ts), then
 * sanitised. Scrubbed before it is cut, so that no part of an ARN or account survives at the cut.
 */
export function sanitizeAws(text: string, max = 160): string {
  return sanitize(scrubAwsText(text), max);
}

export function phaseOf(pod: KubeObject): string {
  return (pod['status'] as { phase?: string } | undefined)?.phase ?? '';
}

/**
 * Why the pod's etcd container waits (ImagePullBackOff, CrashLoopBackOff...), if it does; read by its name only. A
 * container a mutating webhook added to the pod (Vault's agent, a mesh proxy, a log shipper), before or after etcd,
 * says nothing of the etcd version the member runs or is moved to: its wait never makes a member count as stuck on
 * its image, failing or crash-looping. Bounded (observed data).
 */
export function etcdWaiting(pod: KubeObject | undefined): string | undefined {
  const statuses = (pod?.['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!Array.isArray(statuses)) return undefined;
  const etcd = (statuses as Array<{ name?: unknown; state?: { waiting?: { reason?: unknown } } } | null>).find(
    (c) => c?.name === 'etcd',
  );
  const reason = etcd?.state?.waiting?.reason;
  return typeof reason === 'string' ? sanitize(reason, 64) : undefined;
}

/**
 * What the pod's data check (members.ts checkData, found by name among the init containers its spec has) said when it
 * last ended for want of the member's data (its exit DATA_MISSING_EXIT and its message starting DATA_MISSING_MARK),
 * while it has not passed since: the member's data is not on its claim. Anything else is no proof: a check that did
 * not run (its image cannot be pulled), ran and passed, exited otherwise (killed, a directory it cannot read), or a
 * pod without the step (made before it, or made fresh without a claim). Bounded (observed data).
 */
export function dataMissing(pod: KubeObject | undefined): string | undefined {
  const spec = pod?.['spec'] as { initContainers?: unknown } | undefined;
  const steps = Array.isArray(spec?.initContainers) ? (spec.initContainers as Array<{ name?: unknown } | null>) : [];
  if (!steps.some((c) => c?.name === DATA_CHECK)) return undefined;
  const statuses = (pod?.['status'] as { initContainerStatuses?: unknown } | undefined)?.initContainerStatuses;
  if (!Array.isArray(statuses)) return undefined;
  type Ended = { exitCode?: unknown; message?: unknown };
  const check = (
    statuses as Array<{
      name?: unknown;
      state?: { waiting?: unknown; running?: unknown; terminated?: Ended };
      lastState?: { terminated?: Ended };
    } | null>
  ).find((c) => c?.name === DATA_CHECK);
  if (!check || check.state?.running) return undefined;
  // As it ended now, or (the kubelet waits to run it again) as it last ended.
  const ended = check.state?.terminated ?? (check.state?.waiting ? check.lastState?.terminated : undefined);
  const message = sanitize(textOf(ended?.message), 200);
  if (ended?.exitCode !== DATA_MISSING_EXIT || !message.startsWith(DATA_MISSING_MARK)) return undefined;
  return message;
}

/**
 * Whether the pod shows that its etcd does not run: the pod not Running (Pending, ended, Unknown), or its etcd
 * container waiting (CrashLoopBackOff, an image, being created) or ended. A pod without a status shows nothing: false.
 */
export function etcdNotRunning(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  if (phase !== '' && phase !== 'Running') return true;
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!Array.isArray(statuses)) return false;
  const etcd = (statuses as Array<{ name?: unknown; state?: { waiting?: unknown; terminated?: unknown } } | null>).find(
    (c) => c?.name === 'etcd',
  );
  return Boolean(etcd?.state?.waiting || etcd?.state?.terminated);
}

/**
 * Whether the pod's etcd exited and has not come back: the pod finished (restartPolicy Never), or the kubelet
 * waits to restart its container after it exited by itself (CrashLoopBackOff).
 */
export function crashLooping(pod: KubeObject): boolean {
  return DEAD_PHASES.has(phaseOf(pod)) || etcdWaiting(pod) === 'CrashLoopBackOff';
}

/**
 * How long a member's etcd may stay exited (CrashLoopBackOff, by the hook's clock from the first sync that saw it
 * exit) before the member counts as failing: one kill (an OOM, a container-runtime restart) is restarted in place by
 * the kubelet within its first back-off (10 s), and no sync that sees that back-off may take it as a failure. One
 * rule for a member upgraded in place (upgrade.ts UPGRADE_FAIL_SECONDS) and for a new member (plan/members.ts
 * stuckAddition, from its status clock `exitedSince`).
 */
export const EXIT_GRACE_SECONDS = 20;

/** Whether an exit first seen at `since` has lasted EXIT_GRACE_SECONDS by `now` (either unknown: no). */
export function exitLasted(since: string | undefined, now: Date | undefined): boolean {
  const at = Date.parse(since ?? '');
  return now !== undefined && Number.isFinite(at) && now.getTime() - at >= EXIT_GRACE_SECONDS * 1000;
}

/**
 * Whether the member failed by its own doing (its version, its image, its spec may be to blame), as opposed to the pod
 * being ended by its node: its etcd exited and has not come back (crashLooping) in a pod no node ended, or the kubelet
 * evicted the pod for the pod's own limits (evictedForOwnLimits: what its image does, not what its node suffers). An
 * eviction for node pressure, a drain, a node shutdown or an admission refusal sets the pod's `status.reason`
 * (Evicted, Shutdown, NodeShutdown, Terminated, OutOf...) and is none (endedByNode); a container that exited by
 * itself leaves none. The one reader of both for every path: a bootstrap (bootstraps.ts), an addition
 * (plan/members.ts failedAddition), an upgrade (upgrade.ts).
 */
export function etcdExited(pod: KubeObject): boolean {
  return evictedForOwnLimits(pod) !== '' || (!endedWithReason(pod) && crashLooping(pod));
}

/**
 * Whether the pod was ended by its node for the node's reasons (evicted under node pressure or by a drain, shut
 * down, refused at admission), not by its etcd nor for its own limits (evictedForOwnLimits: its own failure).
 */
export function endedByNode(pod: KubeObject): boolean {
  return endedWithReason(pod) && evictedForOwnLimits(pod) === '';
}

/** Whether the pod finished with a `status.reason`: ended by the kubelet (evicted, shut down, refused), not by etcd. */
function endedWithReason(pod: KubeObject): boolean {
  const reason = (pod['status'] as { reason?: unknown } | undefined)?.reason;
  return DEAD_PHASES.has(phaseOf(pod)) && typeof reason === 'string' && reason !== '';
}

/**
 * The kubelet's eviction message when it evicted the pod for the pod's own limits, else '': a container over its
 * ephemeral-storage limit (the message names the container and its limit), the containers together over theirs, an
 * emptyDir over its sizeLimit. That is what the pod's image does, not what its node suffers (pressure, a drain, a
 * shutdown: endedByNode). Memory over a container's limit is no eviction but an OOM kill (an exit: crashLooping); the
 * kubelet's memory-pressure eviction names a container's request, not its limit, and is the node's. Read by type,
 * bounded.
 */
export function evictedForOwnLimits(pod: KubeObject): string {
  if (!endedWithReason(pod)) return '';
  const status = pod['status'] as { reason?: unknown; message?: unknown } | undefined;
  if (status?.reason !== 'Evicted') return '';
  const message = sanitize(textOf(status.message, ''), 400);
  return OWN_LIMIT_EVICTION.test(message) ? sanitize(message.trim(), 160) : '';
}

/** The kubelet's eviction messages for a pod's own limits (pkg/kubelet/eviction/helpers.go), not node pressure. */
const OWN_LIMIT_EVICTION =
  /exceeds the total limit of containers|exceeded its local ephemeral storage limit|Usage of EmptyDir volume .{0,300} exceeds the limit/;

/**
 * The init step of the pod that keeps failing, if one does: its name and its last failed exit (code and the end of
 * its termination message) while the kubelet waits to run it again (CrashLoopBackOff) or runs it again, bounded and
 * without counts or back-off times (the same failure says the same words at every sync); else ''. Read by type.
 */
export function initStepFailing(pod: KubeObject): string {
  const statuses = (pod['status'] as { initContainerStatuses?: unknown } | undefined)?.initContainerStatuses;
  if (!Array.isArray(statuses)) return '';
  for (const c of statuses.slice(0, 16) as Array<InitStatus | null>) {
    const said = c ? initStepSaid(c) : '';
    if (said) return said;
  }
  return '';
}

type Ended = { exitCode?: unknown; reason?: unknown; message?: unknown };
type InitStatus = {
  name?: unknown;
  state?: { waiting?: { reason?: unknown }; running?: unknown; terminated?: Ended };
  lastState?: { terminated?: Ended };
};

/** What one init step's status says when it keeps failing (see initStepFailing), else ''. */
function initStepSaid(c: InitStatus): string {
  const waiting = c.state?.waiting?.reason === 'CrashLoopBackOff';
  // (Waiting to run it again, or running it again: its last exit; the same words in both, no churn.)
  const again = waiting || (c.state?.running !== undefined && c.state.running !== null);
  const ended = c.state?.terminated ?? (again ? c.lastState?.terminated : undefined);
  const code = typeof ended?.exitCode === 'number' ? ended.exitCode : undefined;
  if (code === undefined || code === 0) return waiting ? `${sanitize(textOf(c.name, ''), 64)} (CrashLoopBackOff)` : '';
  const name = sanitize(textOf(c.name, ''), 64);
  return sanitize(`${name} (exit code ${code}${endOf(textOf(ended?.message, ''))})`, 200);
}

/** `: <the end of a termination message>` (its last 120 characters, printable), or '' for none. */
function endOf(message: string): string {
  const said = sanitize(message, 400).trim();
  if (!said) return '';
  return `: ${said.length > 120 ? `...${said.slice(-117)}` : said}`;
}

/**
 * A member's unhealthy clock as recorded in the status (`recorded`), never earlier than the observed pod shows
 * (podClockFloor): a status that is stale (resent by Metacontroller from before the pod was made again, or before
 * the member was Ready again) counts no time the pod was not there, or served; never later than `now` (a clock
 * recorded ahead puts nothing off). Undefined without a recorded clock.
 * The one rule for every reader of the clock: the member's own (plan/answered.ts) and the upgrade's (upgrade.ts).
 */
export function recordedClock(
  recorded: string | undefined,
  pod: KubeObject | undefined,
  now: Date | undefined,
): string | undefined {
  if (!recorded) return undefined;
  // A clock recorded ahead of now (a replica whose clock ran ahead, a status restored from later) reads as now: else
  // it would put off whatever it times until the wall clock caught up with it.
  const at = Date.parse(recorded);
  const capped = now && Number.isFinite(at) && at > now.getTime() ? rfc3339(now) : recorded;
  return laterOf(capped, podClockFloor(pod, now));
}

/**
 * The earliest an unhealthy clock of this pod can have started, by what the observed pod says: when it was made
 * (creationTimestamp), and when its Ready condition last turned False (the member served until then, and no clock
 * runs while it is Ready). A time stamped by another clock (the API server's, a kubelet's with its node's) that lies
 * ahead of `now` says nothing (that clock runs ahead of the hook's): it is not known, never read as now, which would
 * start the clock again at every sync for as long as the node's clock is ahead (the clock rule,
 * docs/etcd-failures.md). Undefined when the pod says neither.
 */
export function podClockFloor(pod: KubeObject | undefined, now: Date | undefined): string | undefined {
  if (!pod) return undefined;
  const times = [Date.parse(pod.metadata.creationTimestamp ?? '')];
  const conditions = (pod['status'] as { conditions?: unknown } | undefined)?.conditions;
  // Observed data: any element may be malformed (null, a string).
  for (const c of Array.isArray(conditions) ? conditions : []) {
    const cond = c as { type?: unknown; status?: unknown; lastTransitionTime?: unknown } | null;
    if (cond?.type === 'Ready' && cond.status !== 'True' && typeof cond.lastTransitionTime === 'string')
      times.push(Date.parse(cond.lastTransitionTime));
  }
  const known = times.filter((t) => Number.isFinite(t) && (!now || t <= now.getTime()));
  if (known.length === 0) return undefined;
  return rfc3339(new Date(Math.max(...known)));
}

/** The later of two times (RFC 3339); an unreadable one counts as absent. */
export function laterOf(a: string | undefined, b: string | undefined): string | undefined {
  const ta = Date.parse(a ?? '');
  const tb = Date.parse(b ?? '');
  if (!Number.isFinite(ta)) return Number.isFinite(tb) ? b : undefined;
  return Number.isFinite(tb) && tb > ta ? b : a;
}

/**
 * What identifies the pod's etcd container as the kubelet reports it, without any clock: its restartCount, containerID,
 * imageID and image, or '' when the pod reports no etcd container. A container started since (a restart, a new
 * image) reports another. Recorded on the pod when a clock starts (a move to a new image, a soak, an image given
 * back), so that a later sync tells a new container from the same one without comparing a time the kubelet stamped
 * with its node's clock against the hook's (the clock rule, docs/etcd-failures.md). Bounded (observed data).
 */
export function etcdContainerMark(pod: KubeObject | undefined): string {
  const statuses = (pod?.['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  const etcd = (Array.isArray(statuses) ? statuses : []).find(
    (c) => (c as { name?: unknown } | null)?.name === 'etcd',
  ) as { restartCount?: unknown; containerID?: unknown; imageID?: unknown; image?: unknown } | undefined;
  if (!etcd) return '';
  const part = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v).slice(0, 200) : '');
  return [part(etcd.restartCount), part(etcd.containerID), part(etcd.imageID), part(etcd.image)].join('|');
}
