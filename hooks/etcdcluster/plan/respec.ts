// Members that cannot start on the spec.pod they were made from are made again once the user changes it (issue 30).
// Member pods are never changed in place (sync.ts: a pod keeps what it was made with, but its image), so a memory
// limit etcd is OOMKilled under at start, an etcdEnv value etcd refuses or a busyboxImage the nodes cannot pull keeps
// the member down after the user fixed spec.pod, as the status tells. A member pod that runs no etcd because it
// cannot start (cannotStart: not Ready, its etcd or an init step waiting in a crash loop or for what it cannot have)
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

/** Whether a container waits for a reason of CANNOT_START. */
function waitsCannotStart(s: Status): boolean {
  const reason = s?.state?.waiting?.reason;
  return typeof reason === 'string' && CANNOT_START.has(reason);
}

/**
 * Whether the pod runs no etcd because it cannot start: not Ready, not finished (a finished pod is the crash rules'),
 * and its etcd container or one of its init steps waits for a reason of CANNOT_START. A pod being created, or whose
 * etcd runs, is not.
 */
export function cannotStart(pod: KubeObject): boolean {
  if (isPodReady(pod) || DEAD_PHASES.has(phaseOf(pod))) return false;
  const etcd = statusesOf(pod, 'containerStatuses').find((s) => s?.name === 'etcd');
  if (etcd?.state?.running) return false;
  return waitsCannotStart(etcd ?? null) || statusesOf(pod, 'initContainerStatuses').some(waitsCannotStart);
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
