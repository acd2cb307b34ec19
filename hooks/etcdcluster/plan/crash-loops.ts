// A quorum kept away by members whose etcd keeps exiting, for longer than a member may stay unhealthy
// (UNHEALTHY_REPLACE_SECONDS). Members restart in place (restartPolicy Always), so a member whose etcd cannot start
// again (data it cannot read, a full volume, a flag its version refuses) is never Failed: it is CrashLoopBackOff for
// ever. Past the limit that is no temporary outage: it is said as such, naming the members, how they exit and the
// way out, and the hook stops asking to be synced every few seconds (a pod that starts is a change Metacontroller
// syncs on). Nothing is deleted: the pods keep their data, and start again by themselves once the cause is fixed;
// with storage, a cause in spec.pod fixed there reaches them (plan/respec.ts), without it never (said so).
import { type ConditionInput, type KubeObject, type ParentObject, previousConditions } from '../../../lib/index.js';
import { howItFailed } from '../additions.js';
import { POD_SPEC } from '../members.js';
import { etcdWaiting, sanitize } from '../pods.js';
import { available, recovering } from './conditions.js';
import { UNHEALTHY_REPLACE_SECONDS } from './types.js';

/** The reason Available and Recovering take for it. */
export const MAJORITY_CRASH_LOOPING = 'MajorityCrashLooping';

/** What replaces a QuorumLost answer when the crash loops keep the quorum away past the limit. */
export interface CrashLoopVerdict {
  reason: string;
  conditions: ConditionInput[];
  /** The voting members whose etcd keeps exiting (pod names), and since when quorum is lost (status). */
  looping: string[];
  since: string;
}

/**
 * The verdict when the voting members `voters` (pod names) whose etcd keeps exiting (CrashLoopBackOff) are too many
 * for a quorum, and Available has said so (QuorumLost) for over UNHEALTHY_REPLACE_SECONDS (its lastTransitionTime:
 * the clock lives in status; lost with it, it starts again); undefined otherwise.
 */
export function crashLoopVerdict(
  parent: ParentObject,
  pods: readonly KubeObject[],
  voters: readonly string[],
  now: Date | undefined,
  storage: boolean,
): CrashLoopVerdict | undefined {
  const byName = new Map(pods.map((p) => [p.metadata.name!, p]));
  const looping = voters.filter((n) => byName.has(n) && etcdWaiting(byName.get(n)!) === 'CrashLoopBackOff');
  const needed = Math.floor(voters.length / 2) + 1;
  if (looping.length === 0 || voters.length - looping.length >= needed) return undefined;
  const since = quorumLostSince(parent);
  if (!now || !since || now.getTime() - Date.parse(since) <= UNHEALTHY_REPLACE_SECONDS * 1000) return undefined;
  const how = looping.map((n) => `${n} (${exits(byName.get(n)!)})`).join(', ');
  const unrecorded = storage
    ? looping.filter((n) => typeof byName.get(n)!.metadata.annotations?.[POD_SPEC] !== 'string')
    : [];
  const message =
    `${how} keep exiting: ${looping.length} of ${voters.length} members cannot start, so quorum cannot come back, ` +
    `lost since ${since} (over ${UNHEALTHY_REPLACE_SECONDS / 60} minutes). ${wayOut(storage)}${byHand(unrecorded)}`;
  return {
    reason: MAJORITY_CRASH_LOOPING,
    conditions: [available(false, MAJORITY_CRASH_LOOPING, message), recovering(false, MAJORITY_CRASH_LOOPING, message)],
    looping,
    since,
  };
}

/**
 * The way out, as it is (plan/respec.ts): with storage, a cause in spec.pod fixed there reaches the members (each
 * pod that cannot start is made again on its claim with the fixed spec); without storage their data is only in
 * their pods (emptyDir): they are never made again, and a fix of spec.pod never reaches them.
 */
function wayOut(storage: boolean): string {
  const logs = 'read their logs (kubectl logs --previous)';
  if (storage)
    return (
      `Nothing is deleted (their data stays on their claims): ${logs}; a cause in spec.pod (spec.pod resources, ` +
      `etcdEnv, busyboxImage): fix it there and each member pod that cannot start is made again on its claim with ` +
      `the fixed spec, its data kept; a cause outside it (the volume, the image, the node): fix it and they start ` +
      `again by themselves; or restore from a backup (EtcdRestore)`
    );
  return (
    `Nothing is deleted: without storage their data is only in their pods (emptyDir), so they are never made again ` +
    `and a change of spec.pod (spec.pod resources, etcdEnv, busyboxImage) never reaches them; ${logs}; a cause ` +
    `outside their pods (the node, the image): fix it and they start again by themselves; else restore from a ` +
    `backup (EtcdRestore)`
  );
}

/**
 * With storage, what reaches the looping member pods made before they recorded the spec.pod they were made from
 * (POD_SPEC: an earlier metaops): plan/respec.ts never makes them again (what they were made from is not known: their
 * own fields are not the spec's even when made from it, the API server and admission fill some in), so a fix of
 * spec.pod reaches them only by hand: their pod deleted, made again on its claim with the spec's, its data kept.
 */
function byHand(unrecorded: string[]): string {
  if (unrecorded.length === 0) return '';
  const many = unrecorded.length > 1;
  return (
    `; ${unrecorded.join(', ')} ${many ? 'were' : 'was'} made before metaops recorded the spec.pod a member pod is ` +
    `made from (${POD_SPEC}): a fix of spec.pod does not reach ${many ? 'them' : 'it'}; once it is fixed, delete ` +
    `${many ? 'their pods' : 'its pod'} (kubectl delete pod; the claim stays) and each is made again on its claim ` +
    `with the spec's, its data kept`
  );
}

/** Since when Available has said the quorum is lost (or this verdict), as status recorded it. */
function quorumLostSince(parent: ParentObject): string | undefined {
  const a = previousConditions(parent.status).find((c) => c.type === 'Available');
  if (a?.status !== 'False' || (a.reason !== 'QuorumLost' && a.reason !== MAJORITY_CRASH_LOOPING)) return undefined;
  return Number.isFinite(Date.parse(a.lastTransitionTime ?? '')) ? sanitize(a.lastTransitionTime, 40) : undefined;
}

/** How a crash-looping member exits: CrashLoopBackOff, its restarts, its etcd's last exit. */
function exits(pod: KubeObject): string {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  const etcd = Array.isArray(statuses)
    ? (statuses as Array<{ name?: unknown; restartCount?: unknown } | null>).find((c) => c?.name === 'etcd')
    : undefined;
  const restarts = typeof etcd?.restartCount === 'number' ? `, ${etcd.restartCount} restarts` : '';
  const last = howItFailed(pod, '');
  return `CrashLoopBackOff${restarts}${last && last !== 'CrashLoopBackOff' ? `, last exit: ${last}` : ''}`;
}
