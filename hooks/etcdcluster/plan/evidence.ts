// What the observed cluster proves: members lost for good, a majority lost as recorded on the pods, live member
// claims, pods that existed, a restore step that failed.
import { type KubeObject, type ParentObject, previousConditions } from '../../../lib/index.js';
import type { RestoreState } from '../../etcdcommon/index.js';
import { clusterOf, memberIndex, RESTORE_STEPS } from '../members.js';
import { dataMissing, DEAD_PHASES, phaseOf, sanitize, sanitizeAws } from '../pods.js';
import { killedRun, stepPaths, transientFailure } from '../restore.js';
import type { EtcdClusterSpec } from '../schema.js';
import type { MemberReport, Observation } from './types.js';
import { parseJson, textOf } from '../../../lib/index.js';

/**
 * The members among `names` whose data is gone for good. Without storage: the pod deleted (unobserved, or being
 * deleted) or finished (Failed, Succeeded: it never runs again, its emptyDir goes with it). With storage: the claim
 * gone or being deleted while the pod is gone too (`claimGone`); a member's data lives on its claim, and a member
 * whose claim is there is made again on it, unless that pod's data check found none of its data on the claim (an
 * empty volume: pods.ts dataMissing), which is as lost.
 */
export function lostForGood(
  names: string[],
  obs: Observation,
  storage: boolean,
  claimGone: (name: string) => boolean,
): Array<{ name: string; how: string }> {
  const byName = new Map(obs.pods.map((p) => [p.metadata.name, p]));
  if (storage) {
    return names.flatMap((name) => {
      const gone = !byName.has(name) || obs.terminating.includes(name);
      if (claimGone(name) && gone) return [{ name, how: 'pod and claim deleted' }];
      return !gone && dataMissing(byName.get(name)) ? [{ name, how: 'its claim holds none of its data' }] : [];
    });
  }
  return names.flatMap((name) => {
    const pod = byName.get(name);
    if (!pod || obs.terminating.includes(name)) return [{ name, how: 'pod deleted' }];
    const phase = phaseOf(pod);
    return DEAD_PHASES.has(phase) ? [{ name, how: `pod ${phase}` }] : [];
  });
}

/**
 * A majority lost for good, as recorded on the surviving member pods when it was seen (the lost members, and how
 * many voting members there were): the lost pods are gone from what is observed, and the status may be lost too.
 * Read only while etcd does not answer; removed once it does.
 */
export const MAJORITY_LOST = 'etcd.metaops.io/majority-lost';

export function majorityLostOnPods(
  pods: KubeObject[],
): { lost: Array<{ name: string; how: string }>; voters: number } | undefined {
  for (const p of pods) {
    const text = p.metadata.annotations?.[MAJORITY_LOST];
    if (!text || text.length > 4096) continue;
    try {
      const r = parseJson(text) as { lost?: unknown; voters?: unknown };
      const lost = Array.isArray(r.lost)
        ? r.lost.filter(
            (l): l is { name: string; how: string } =>
              typeof (l as { name?: unknown })?.name === 'string' && typeof (l as { how?: unknown })?.how === 'string',
          )
        : [];
      if (lost.length > 0 && typeof r.voters === 'number' && Number.isInteger(r.voters) && r.voters >= lost.length)
        return { lost: lost.map((l) => ({ name: sanitize(l.name, 64), how: sanitize(l.how, 64) })), voters: r.voters };
    } catch {
      // Not ours: no record.
    }
  }
  return undefined;
}

/** The reason a pod's init step gave (the CLI's JSON `reason` in its termination message: S3's words), scrubbed. */
export function initFailure(pod: KubeObject): string {
  const failed = failedInitStep(pod);
  // Stryker disable next-line StringLiteral: unreached: its one caller passes a pod failedInitStep picked
  if (!failed) return 'a restored member failed';
  const t = failed.terminated;
  // The pod's status is observed data: its reason and message are read by type (an object is no text).
  let reason = textOf(t.reason, 'Error');
  const message = textOf(t.message);
  try {
    const parsed = parseJson(message) as { reason?: unknown } | null;
    if (typeof parsed?.reason === 'string') reason = parsed.reason;
  } catch {
    if (message) reason = message;
  }
  return sanitizeAws(`${failed.name}: ${reason}`);
}

/** Whether a restore record leaves the cluster without members: failed after dropping them, or refused on none. */
export function noMembersLeft(r: RestoreState | undefined): boolean {
  return r?.phase === 'Failed' && (!r.untouched || r.noMembers === true);
}

/** The highest member ordinal the status recorded or a pod shows. */
export function lastIndexOf(parent: ParentObject, spec: EtcdClusterSpec, obs: Observation): number {
  const c = clusterOf(parent, spec);
  const seen = [...obs.pods.map((p) => p.metadata.name), ...obs.terminating].map((n) => memberIndex(c.name, n) ?? -1);
  return Math.max((parent.status as { lastMemberIndex?: number } | undefined)?.lastMemberIndex ?? -1, ...seen, -1);
}

/** The member claims observed that are not being deleted. */
export function liveMemberClaims(cluster: string, obs: Observation): string[] {
  // Stryker disable next-line ArrayDeclaration: a name that is no member's is filtered out, the same as no claim
  return (obs.claims ?? []).filter((n) => memberIndex(cluster, n) !== undefined && !obs.terminatingClaims?.includes(n));
}

export function isMemberReport(m: unknown): m is MemberReport {
  return typeof m === 'object' && m !== null && typeof (m as { name?: unknown }).name === 'string';
}

/**
 * Every pod of the last answer existed at the last sync (PodsCreated=True in status): pods missing now vanished
 * (deleted, evicted), as opposed to pods admission never let be created, which must not start anything over.
 */
export function podsWereCreated(parent: ParentObject): boolean {
  return previousConditions(parent.status).some((c) => c.type === 'PodsCreated' && c.status === 'True');
}

type Terminated = { exitCode: number; message?: string; reason?: string };
type InitStatus = {
  name?: string;
  state?: { terminated?: Terminated; running?: unknown };
  lastState?: { terminated?: Terminated };
};
const failedExit = (t: Terminated | undefined) => typeof t?.exitCode === 'number' && t.exitCode !== 0;

/**
 * The first of the pod's restore steps (the snapshot fetch and restore, found by name: RESTORE_STEPS; not the DNS
 * wait, nor an init container a mutating webhook added, whose exits say nothing of the snapshot) that exited with an
 * error, if any, and how: as it ended (restartPolicy Never), or as it last ended before the kubelet tries it again
 * (Always). A step the kubelet runs again, or that succeeded since, has not failed; nor has one that S3 failed for a
 * moment (503 SlowDown, a reset connection: restore.ts transientFailure), nor one killed under it (a container runtime
 * restart, a node's SIGTERM, an OOM kill: restore.ts killedRun), which the kubelet runs again within the restore's
 * deadline.
 */
export function failedInitStep(pod: KubeObject): { name: string; terminated: Terminated } | undefined {
  const statuses = (pod['status'] as { initContainerStatuses?: unknown } | undefined)?.initContainerStatuses;
  if (!Array.isArray(statuses)) return undefined;
  const retried = (pod['spec'] as { restartPolicy?: unknown } | undefined)?.restartPolicy !== 'Never';
  for (const s of statuses as Array<InitStatus | null>) {
    if (!s || !RESTORE_STEPS.has(textOf(s.name))) continue;
    const now = s.state?.terminated;
    if (s.state?.running || (now && !failedExit(now))) continue;
    const terminated = failedExit(now) ? now! : s.lastState?.terminated;
    const transient = () => transientFailure(textOf(terminated!.message), stepPaths(pod, textOf(s.name)));
    if (failedExit(terminated) && !(retried && (transient() || killedRun(terminated!))))
      return { name: textOf(s.name), terminated: terminated! };
  }
  return undefined;
}
