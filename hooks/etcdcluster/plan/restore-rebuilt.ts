// The running restore found again from the restored members themselves when the cluster's status no longer records
// it (a status lost or written over while a restore is past its point of no return): every member pod was started
// for one EtcdRestore (RESTORED_BY) from its snapshot (its fetch step), none serves yet, and that EtcdRestore has not
// finished (sync.ts, restoreOfPods). Its record is Restoring again, so a newer EtcdRestore waits for it
// (plan/restore-queue.ts) instead of being checked and dropping the cluster's only data.
import { isPodReady, rfc3339 } from '../../../lib/index.js';
import { pastNoReturn, type RestoreState } from '../../etcdcommon/index.js';
import { RESTORED_BY } from '../members.js';
import { liveMemberClaims } from './evidence.js';
import { restoredFrom } from './restore-check.js';
import type { Observation } from './types.js';

/** The record of the restore the observed members are the running result of, when the status lost it; else none. */
export function rebuiltRestore(
  before: RestoreState | undefined,
  obs: Observation,
  cluster: string,
  claimsKnown: boolean,
): RestoreState | undefined {
  const own = obs.recordedRestore;
  if (!own || before?.uid === own.uid || pastNoReturn(before)) return undefined;
  if (own.membersDropped) return droppedFor(own, obs, cluster, claimsKnown);
  if (obs.pods.length === 0 || obs.etcd !== undefined || obs.pods.some(isPodReady)) return undefined;
  const ours = (p: (typeof obs.pods)[number]) =>
    p.metadata.annotations?.[RESTORED_BY] === own.uid && restoredFrom(p) === own.source.s3.path;
  if (!obs.pods.every(ours)) return undefined;
  const since = startedSince(obs);
  return {
    uid: own.uid,
    name: own.name,
    phase: 'Restoring',
    s3: own.source.s3,
    // The pin its EtcdRestore kept (status.checked): the record carries it on to every restored member's fetch.
    ...(own.source.snapshot ? { snapshot: own.source.snapshot } : {}),
    ...(own.created ? { created: own.created } : {}),
    ...(since ? { since } : {}),
  };
}

/**
 * The restore whose EtcdRestore says the old members were dropped for it (own.membersDropped), while nothing of a
 * member is left (no pod, none going, no live member claim, claims known): Replacing again, so that its restored
 * members start from its snapshot and a newer EtcdRestore waits. With anything of a member left, nothing is
 * rebuilt from that word alone (it would drop what is left).
 */
function droppedFor(
  own: NonNullable<Observation['recordedRestore']>,
  obs: Observation,
  cluster: string,
  claimsKnown: boolean,
): RestoreState | undefined {
  if (obs.pods.length > 0 || obs.terminating.length > 0 || !claimsKnown) return undefined;
  if (liveMemberClaims(cluster, obs).length > 0) return undefined;
  return {
    uid: own.uid,
    name: own.name,
    phase: 'Replacing',
    s3: own.source.s3,
    // The pin its EtcdRestore kept (status.checked): the record carries it on to every restored member's fetch.
    ...(own.source.snapshot ? { snapshot: own.source.snapshot } : {}),
    ...(own.created ? { created: own.created } : {}),
    ...(obs.now ? { since: rfc3339(obs.now) } : {}),
  };
}

/** When the restored members were made (the earliest pod's creationTimestamp), never later than now. */
function startedSince(obs: Observation): string | undefined {
  const made = obs.pods.map((p) => Date.parse(p.metadata.creationTimestamp ?? '')).filter(Number.isFinite);
  const now = obs.now?.getTime();
  const at = made.length > 0 ? Math.min(...made) : now;
  if (at === undefined) return undefined;
  return rfc3339(new Date(now !== undefined ? Math.min(at, now) : at));
}
