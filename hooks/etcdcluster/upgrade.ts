// A failed upgrade stops (issue 30.4). The hook upgrades one member at a time by changing its pod's image in place;
// a member that then fails on the new version (its etcd keeps exiting, its image cannot be pulled, or it stays
// unhealthy past UPGRADE_MEMBER_SECONDS) marks the upgrade failed: the member gets the image of the version the
// cluster ran back, in place (the same member, on its data), no other member is upgraded, and members made
// meanwhile take that version. The record lives in status.upgradeFailed and holds as long as spec.version asks for
// the version that failed; another spec.version (the old one: a roll back; a newer one) clears it.
import { rfc3339 } from '../../lib/conditions.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { memberImage } from './members.js';
import { crashLooping, IMAGE_WAITING, podWaiting } from './pods.js';

/** How long a member upgraded to a new version may stay unhealthy before the upgrade is taken as failed. */
export const UPGRADE_MEMBER_SECONDS = 300;

export interface UpgradeFailure {
  /** The version that failed (spec.version when it did). */
  version: string;
  /** The version the cluster ran, which its members keep. */
  from: string;
  /** The member that failed on it, and how. */
  member: string;
  reason: string;
  since: string;
}

/** The failed upgrade the status records, when it is for the version the spec still asks for. */
export function recordedFailure(status: unknown, target: string): UpgradeFailure | undefined {
  const r = (status as { upgradeFailed?: Partial<UpgradeFailure> } | undefined)?.upgradeFailed;
  if (!r || r.version !== target) return undefined;
  const ok = [r.from, r.member, r.reason].every((v) => typeof v === 'string' && v);
  return ok ? (r as UpgradeFailure) : undefined;
}

/**
 * A member that failed on the target version while the cluster runs another: on the target image, and its etcd
 * exits again and again, its image cannot be pulled, or it has been unhealthy (as the status recorded) for longer
 * than UPGRADE_MEMBER_SECONDS.
 */
export function detectFailure(input: {
  pods: KubeObject[];
  targetImage: string;
  target: string;
  running: string | undefined;
  previous: unknown;
  now: Date | undefined;
}): UpgradeFailure | undefined {
  const { running, target } = input;
  if (!running || running === target) return undefined;
  const since = unhealthySince(input.previous);
  for (const pod of input.pods) {
    if (memberImage(pod) !== input.targetImage) continue;
    const name = pod.metadata.name!;
    const waiting = podWaiting(pod);
    const first = since.get(name);
    const stale =
      input.now !== undefined &&
      first !== undefined &&
      input.now.getTime() - Date.parse(first) > UPGRADE_MEMBER_SECONDS * 1000;
    const reason = crashLooping(pod)
      ? (waiting ?? 'its etcd exited')
      : waiting && IMAGE_WAITING.has(waiting)
        ? waiting
        : stale
          ? `unhealthy since ${first}`
          : undefined;
    if (reason)
      return {
        version: target,
        from: running,
        member: name,
        reason,
        since: input.now ? rfc3339(input.now) : 'unknown',
      };
  }
  return undefined;
}

function unhealthySince(previous: unknown): Map<string, string> {
  const list = (previous as { memberList?: unknown } | undefined)?.memberList;
  const out = new Map<string, string>();
  for (const m of Array.isArray(list) ? list : []) {
    const r = m as { name?: unknown; unhealthySince?: unknown } | null;
    if (typeof r?.name === 'string' && typeof r.unhealthySince === 'string') out.set(r.name, r.unhealthySince);
  }
  return out;
}

/** What Upgrading says of a failed upgrade: which member, how, what runs, how to roll back. */
export function failureMessage(f: UpgradeFailure): string {
  return (
    `member ${f.member} failed on ${f.version} (${f.reason}): the upgrade is halted and every member runs ${f.from}; ` +
    `set spec.version to ${f.from} to roll back, or to a version that works`
  );
}
