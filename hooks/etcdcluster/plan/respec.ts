// Members that cannot start on the spec.pod they were made from are made again once the user changes it.
// Member pods are never changed in place (sync.ts: a pod keeps what it was made with, but its image), so a memory
// limit etcd is OOMKilled under at start, an etcdEnv value etcd refuses or a busyboxImage the nodes cannot pull keeps
// the member down after the user fixed spec.pod, as the status tells. A member pod that runs no etcd because it
// cannot start (cannotStart: not Ready, its etcd or an init step waiting for what it cannot have, or in a crash loop of
// several short failed starts; a member killed once, or after serving, and one whose init step fails after its etcd
// ran in the pod (check-dns after a node reboot) are the kubelet's to restart in place)
// and that was made from another spec.pod than the spec's (POD_SPEC, the fingerprint recorded on it) is dropped, and
// the next sync makes it again with the spec of the moment:
// - with storage, on its claim, as the same member (its data stays on the claim; a member that started proves its
//   data is there first: members.ts checkData);
// - without storage, only a member that never started (etcd lists it without a name) whose etcd never ran in this
//   pod: it holds nothing. A member that started holds its data in its pod's emptyDir: it is never made again, and
//   the status says so (crash-loops.ts).
// Never a pod whose etcd runs (even not Ready yet: a WAL replayed), one that is Ready, nor one without the record
// (made before it: what it was made from is not known), nor while a restore replaces the members. A pod made again carries the spec's fingerprint: it is
// made again once per change of spec.pod, never in a loop.
import { isPodReady, type KubeObject, type ParentObject } from '../../../lib/index.js';
import type { RestoreState } from '../../etcdcommon/index.js';
import { POD_SPEC, podSpecFingerprint } from '../members.js';
import { DEAD_PHASES, IMAGE_WAITING, phaseOf } from '../pods.js';
import type { EtcdClusterSpec } from '../schema.js';

/** Why a container waits when it cannot start on what its pod gives it (the kubelet's reasons). */
export const CANNOT_START: ReadonlySet<string> = new Set([
  ...IMAGE_WAITING,
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

type Status = {
  name?: unknown;
  restartCount?: unknown;
  state?: { waiting?: { reason?: unknown } | null; running?: unknown; terminated?: unknown } | null;
  lastState?: { terminated?: unknown } | null;
} | null;

/** The statuses of a pod's containers (`containerStatuses`) or init containers, as read (bounded). */
function statusesOf(pod: KubeObject, field: 'containerStatuses' | 'initContainerStatuses'): Status[] {
  const statuses = (pod['status'] as Record<string, unknown> | undefined)?.[field];
  // Stryker disable next-line ArrayDeclaration: a string in the fallback is no container status (no name, no state)
  return Array.isArray(statuses) ? (statuses.slice(0, 16) as Status[]) : [];
}

/** Failed starts in a pod before a crash loop reads as "cannot start on its spec" (one kill is the kubelet's). */
export const FAILED_STARTS = 3;

/** The longest run of etcd that still counts as a failed start: a run longer than this served (it was killed). */
export const FAILED_START_MS = 60_000;

/** How long the container's last run lasted, by its lastState (undefined when not known). */
function lastRunMs(s: Status): number | undefined {
  const t = s?.lastState?.terminated as { startedAt?: unknown; finishedAt?: unknown } | null | undefined;
  if (typeof t?.startedAt !== 'string' || typeof t.finishedAt !== 'string') return undefined;
  const ms = Date.parse(t.finishedAt) - Date.parse(t.startedAt);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Whether a container's wait shows it cannot start on what its pod gives it: an image or config error at once; a
 * crash loop only after FAILED_STARTS failed starts in this pod, the last of them short (a member killed once, or
 * killed after serving, is restarted in place by the kubelet). An init step's crash loop counts only while
 * the pod's etcd never ran (`etcdRan`): its init steps passed on this spec once, so what fails now is its node's
 * (a DNS not back after a reboot), not its spec.
 */
function failsToStart(s: Status, etcdRan: boolean): boolean {
  const reason = s?.state?.waiting?.reason;
  if (typeof reason !== 'string' || !CANNOT_START.has(reason)) return false;
  if (reason !== 'CrashLoopBackOff') return true;
  if (etcdRan) return false;
  // Stryker disable next-line OptionalChaining: a status with a waiting reason (above) is no null
  const restarts = s?.restartCount;
  if (typeof restarts !== 'number' || restarts < FAILED_STARTS) return false;
  const ran = lastRunMs(s);
  return ran === undefined || ran < FAILED_START_MS;
}

/**
 * Whether the pod runs no etcd because it cannot start: not Ready, not finished (a finished pod is the crash rules'),
 * and its etcd container or one of its init steps demonstrably fails to start (failsToStart). A pod being created,
 * whose etcd runs, or whose etcd was killed once and is backed off by the kubelet, is not.
 */
export function cannotStart(pod: KubeObject): boolean {
  if (isPodReady(pod) || DEAD_PHASES.has(phaseOf(pod))) return false;
  const etcd = statusesOf(pod, 'containerStatuses').find((s) => s?.name === 'etcd');
  if (etcd?.state?.running) return false;
  const etcdRan = !!etcd && !etcdNeverRan(pod);
  return (
    failsToStart(etcd ?? null, false) || statusesOf(pod, 'initContainerStatuses').some((s) => failsToStart(s, etcdRan))
  );
}

/**
 * Whether the pod's etcd is in a crash loop that reads as "cannot start" (failsToStart) or may once the pod has
 * FAILED_STARTS failed starts: not Ready, not finished, its etcd waiting in CrashLoopBackOff after a short last run
 * (under FAILED_START_MS, or not known), however many starts failed so far. A loop of long runs (it served, then was
 * killed) never does.
 */
export function shortCrashLoop(pod: KubeObject): boolean {
  if (isPodReady(pod) || DEAD_PHASES.has(phaseOf(pod))) return false;
  const etcd = statusesOf(pod, 'containerStatuses').find((s) => s?.name === 'etcd');
  if (etcd?.state?.waiting?.reason !== 'CrashLoopBackOff') return false;
  const ran = lastRunMs(etcd);
  return ran === undefined || ran < FAILED_START_MS;
}

/** Whether the pod's etcd never ran: no restart, no exit, not running (unknown: it ran). */
export function etcdNeverRan(pod: KubeObject): boolean {
  const etcd = statusesOf(pod, 'containerStatuses').find((s) => s?.name === 'etcd');
  if (!etcd) return false;
  return etcd.restartCount === 0 && !etcd.state?.running && !etcd.state?.terminated && !etcd.lastState?.terminated;
}

/** Whether the pod records another spec.pod than `spec`'s (its record read by type; none: not known, no). */
export function madeFromOtherSpec(pod: KubeObject, spec: EtcdClusterSpec): boolean {
  const recorded: unknown = pod.metadata.annotations?.[POD_SPEC];
  return typeof recorded === 'string' && recorded !== podSpecFingerprint(spec);
}

/**
 * Whether a restore replaces the members (Replacing, Restoring): its pods are the restore's (restore-phases.ts), none
 * is made again here.
 */
export function restoreReplacing(parent: ParentObject): boolean {
  const phase = (parent.status as { restore?: Partial<RestoreState> } | undefined)?.restore?.phase;
  return phase === 'Replacing' || phase === 'Restoring';
}

/**
 * The names of `pods` to make again with `spec`: those that cannot start and were made from another spec.pod, of
 * which `remade` says the next sync makes them again as sound (on their claim; or a member that never started,
 * whose etcd never ran).
 */
export function remadeForSpec(
  pods: readonly KubeObject[],
  spec: EtcdClusterSpec,
  remade: (pod: KubeObject) => boolean,
): string[] {
  return pods.filter((p) => cannotStart(p) && madeFromOtherSpec(p, spec) && remade(p)).map((p) => p.metadata.name!);
}
