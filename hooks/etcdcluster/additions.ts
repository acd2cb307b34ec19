// Additions that keep failing stop (as a failed upgrade does). A member added (a scale-up, or
// the replacement of a member lost) whose etcd keeps exiting or never starts is cancelled (plan.ts, rule 2); the
// next sync would add another with the same spec, which fails the same way: a membership change every few seconds,
// for ever. Each cancelled addition that failed is recorded; after MAX_FAILED_ADDITIONS no member is added until
// the user changes what a new member is made from (the spec but its size), asks for a retry (RETRY_ADDITIONS on
// the EtcdCluster), or lowers spec.size to the members there are. The record lives in status.additionsFailed and
// on every member pod (ADDITIONS_FAILED): it survives a status lost, and is bound to the EtcdCluster's UID (one
// recreated under the same name starts afresh).
// A member whose pod its node ended before its etcd could fail (refused at admission: OutOfcpu,
// UnexpectedAdmissionError after a node restart; evicted under node pressure or by a drain; endedByNode) is no failed
// addition: the spec is not to blame, and the next is added once a back-off has passed (ENDED_BACKOFF_SECONDS, doubling to
// MAX_ENDED_BACKOFF_SECONDS, counted in the same record: `ended`); nodes that end MAX_ENDED_ADDITIONS new members'
// pods in a row stop additions as failed ones do. A member at rest at size clears the count. A pod the kubelet evicted
// for its own limits (its container over its ephemeral-storage limit, an emptyDir over its sizeLimit: pods.ts
// evictedForOwnLimits, the one reader bootstraps and upgrades use too) is the member's own failure, as an exit is: a
// failed addition.
import { createHash } from 'node:crypto';
import { type KubeObject, type ParentObject, rfc3339 } from '../../lib/index.js';
import { etcdWaiting, evictedForOwnLimits, phaseOf, sanitize } from './pods.js';
import { withAnnotation } from './upgrade.js';
import type { EtcdClusterSpec } from './schema.js';
import { parseJson } from '../../lib/index.js';

/** Failed additions after which no member is added until the user acts. */
export const MAX_FAILED_ADDITIONS = 3;
/** The annotation on every member pod that keeps the record when the status is lost. */
export const ADDITIONS_FAILED = 'etcd.metaops.io/additions-failed';
/** An annotation on the EtcdCluster: a new value asks for new attempts with the same spec. */
export const RETRY_ADDITIONS = 'etcd.metaops.io/retry-additions';

export interface AdditionsFailed {
  /** The EtcdCluster's UID: a record of another (one deleted and recreated under the name) is not read. */
  uid: string;
  /** What new members are made from when they failed (the spec but its size and paused, and RETRY_ADDITIONS). */
  spec: string;
  /** The members whose addition failed and was cancelled, oldest first (at most MAX_FAILED_ADDITIONS). */
  members: string[];
  /** How the last one failed: its etcd's last exit, or why its pod waited. */
  reason: string;
  /** When the first one failed. */
  since: string;
  /** New members in a row whose pod their node ended before their etcd ran, and when the last was cancelled. */
  ended?: { count: number; at: string };
}

/** New members in a row whose pods their nodes end after which no member is added until the user acts. */
export const MAX_ENDED_ADDITIONS = 8;
/** The wait before a member is added after the first new member whose pod its node ended; doubled for each next. */
export const ENDED_BACKOFF_SECONDS = 10;
/** The longest such wait. */
export const MAX_ENDED_BACKOFF_SECONDS = 300;

/** The wait after `count` new members in a row whose pods their nodes ended (10 s, 20 s, ... at most 5 minutes). */
export function endedBackoff(count: number): number {
  return Math.min(ENDED_BACKOFF_SECONDS * 2 ** Math.max(0, count - 1), MAX_ENDED_BACKOFF_SECONDS);
}

/** Keys sorted at every level: the same spec, whatever order its fields came in, gives the same text. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
  );
}

/**
 * The fingerprint of what members are made from (`made`: the spec less what does not make them) and of the parent's
 * retry annotation `retry`: a change of either tries again. Not the cluster domain: the sync fills it in with the
 * server's when the spec names none (identity.ts namedSpec), which is no change of the user's.
 */
export function madeFingerprint(parent: ParentObject, made: Partial<EtcdClusterSpec>, retry: string): string {
  if (made.pod) {
    const { clusterDomain: _domain, ClusterDomain: _coreos, ...pod } = made.pod as Record<string, unknown>;
    if (Object.keys(pod).length > 0) made.pod = pod as typeof made.pod;
    else delete made.pod;
  }
  const again = parent.metadata.annotations?.[retry] ?? '';
  return createHash('sha256')
    .update(JSON.stringify(sorted({ made, retry: again })))
    .digest('hex')
    .slice(0, 16);
}

/** The fingerprint of what a new member is made from: a change of it (or of RETRY_ADDITIONS) retries at once. */
export function additionSpec(parent: ParentObject, spec: EtcdClusterSpec): string {
  const { size: _size, paused: _paused, ...made } = spec;
  return madeFingerprint(parent, made, RETRY_ADDITIONS);
}

function valid(r: unknown, uid: string, spec: string): AdditionsFailed | undefined {
  const x = r as Partial<AdditionsFailed> | null | undefined;
  if (!x || x.uid !== uid || x.spec !== spec || typeof x.reason !== 'string' || typeof x.since !== 'string')
    return undefined;
  const e = x.ended as { count?: unknown; at?: unknown } | null | undefined;
  const ended =
    e && Number.isSafeInteger(e.count) && (e.count as number) > 0 && typeof e.at === 'string'
      ? { count: Math.min(e.count as number, MAX_ENDED_ADDITIONS), at: sanitize(e.at, 40) }
      : undefined;
  if (!Array.isArray(x.members) || !x.members.every((m) => typeof m === 'string')) return undefined;
  if (x.members.length === 0 && !ended) return undefined;
  return {
    uid,
    spec,
    members: x.members.slice(-MAX_FAILED_ADDITIONS).map((m) => sanitize(m, 64)),
    reason: sanitize(x.reason, 200),
    since: sanitize(x.since, 40),
    ...(ended ? { ended } : {}),
  };
}

/** What a sync knows of failed additions: this EtcdCluster, the spec of the moment, the record that holds for both. */
export interface AdditionsMemory {
  uid: string;
  spec: string;
  record?: AdditionsFailed;
}

/**
 * The record that holds for this EtcdCluster and the spec of the moment: the status's, or (the status lost) the one
 * its member pods carry; the one naming more failed members when both do.
 */
export function additionsMemory(parent: ParentObject, spec: EtcdClusterSpec, pods: KubeObject[]): AdditionsMemory {
  const uid = parent.metadata.uid ?? '';
  const fingerprint = additionSpec(parent, spec);
  const found = [
    valid((parent.status as { additionsFailed?: unknown } | undefined)?.additionsFailed, uid, fingerprint),
  ];
  for (const p of pods) {
    const text = p.metadata.annotations?.[ADDITIONS_FAILED];
    if (!text || text.length > 2048) continue;
    try {
      found.push(valid(parseJson(text), uid, fingerprint));
    } catch {
      // Not ours (edited by hand): no record.
    }
  }
  const record = found
    .filter((r): r is AdditionsFailed => r !== undefined)
    .sort((a, b) => b.members.length - a.members.length || (b.ended?.count ?? 0) - (a.ended?.count ?? 0))[0];
  return { uid, spec: fingerprint, ...(record ? { record } : {}) };
}

/** The record with one more failed addition (`member`, failed `reason`); the same member counts once. */
export function withFailedAddition(
  memory: AdditionsMemory,
  f: { member: string; reason: string; now: string },
): AdditionsFailed {
  const base = memory.record ?? { uid: memory.uid, spec: memory.spec, members: [] as string[], since: f.now };
  const members = base.members.includes(f.member) ? base.members : [...base.members, f.member];
  return { ...base, members: members.slice(-MAX_FAILED_ADDITIONS), reason: sanitize(f.reason, 200) };
}

/**
 * The record with one more new member whose pod its node ended before its etcd ran (`member`, the node's `reason`):
 * no failed addition; the next waits endedBackoff of the count.
 */
export function withEndedAddition(
  memory: AdditionsMemory,
  f: { member: string; reason: string; now: string },
): AdditionsFailed {
  const base: AdditionsFailed = memory.record ?? {
    uid: memory.uid,
    spec: memory.spec,
    members: [],
    reason: '',
    since: f.now,
  };
  const count = Math.min((base.ended?.count ?? 0) + 1, MAX_ENDED_ADDITIONS);
  return { ...base, reason: sanitize(f.reason, 200), ended: { count, at: f.now } };
}

/** The record without its count of ended pods (a member at rest at size: the nodes take pods), or none left. */
export function withoutEnded(record: AdditionsFailed | undefined): AdditionsFailed | undefined {
  if (!record?.ended) return record;
  const { ended: _ended, ...rest } = record;
  return rest.members.length > 0 ? rest : undefined;
}

/**
 * When the next member may be added after new members' pods their nodes ended (`ended.at` plus endedBackoff), if
 * that is still ahead of `now`; else undefined. A time recorded ahead of now reads as now.
 */
export function nextAdditionAt(record: AdditionsFailed | undefined, now: Date | undefined): string | undefined {
  if (!record?.ended || !now) return undefined;
  const at = Date.parse(record.ended.at);
  if (!Number.isFinite(at)) return undefined;
  const next = Math.min(at, now.getTime()) + endedBackoff(record.ended.count) * 1000;
  return next > now.getTime() ? rfc3339(new Date(next)) : undefined;
}

/**
 * A member pod made less than this long ago is a new member: replaced as unhealthy, it counts as a failed addition
 * (one that started, then kept exiting); and the record stays while one is at size.
 */
export const NEW_MEMBER_SECONDS = 3600;

/** Whether the pod was made less than NEW_MEMBER_SECONDS before `now` (by its creationTimestamp; unknown: no). */
export function youngPod(pod: KubeObject | undefined, now: Date): boolean {
  const created = Date.parse(pod?.metadata.creationTimestamp ?? '');
  return Number.isFinite(created) && now.getTime() - created < NEW_MEMBER_SECONDS * 1000;
}

/** Whether the record stops additions. */
export function additionsStopped(record: AdditionsFailed | undefined): record is AdditionsFailed {
  return (record?.members.length ?? 0) >= MAX_FAILED_ADDITIONS || (record?.ended?.count ?? 0) >= MAX_ENDED_ADDITIONS;
}

type Terminated = { exitCode?: unknown; reason?: unknown };

/**
 * How a member pod that did not start failed: evicted for its own limits (the kubelet's message), else its etcd's
 * last exit (reason, exit code), else why its etcd waits (a sidecar's wait says nothing of it), else its phase (and
 * the reason its node gave).
 */
export function howItFailed(pod: KubeObject | undefined, fallback: string): string {
  const evicted = pod ? evictedForOwnLimits(pod) : '';
  if (evicted) return `evicted for its own limits: ${evicted}`;
  const statuses = (pod?.['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  const etcd = Array.isArray(statuses)
    ? (
        statuses as Array<{
          name?: unknown;
          state?: { terminated?: Terminated };
          lastState?: { terminated?: Terminated };
        } | null>
      ).find((c) => c?.name === 'etcd')
    : undefined;
  const t = etcd?.state?.terminated ?? etcd?.lastState?.terminated;
  if (t && typeof t.exitCode === 'number') {
    const reason = typeof t.reason === 'string' && t.reason ? sanitize(t.reason, 64) : 'exited';
    return `${reason}, exit code ${t.exitCode}`;
  }
  const waiting = etcdWaiting(pod);
  if (waiting) return waiting;
  const phase = pod ? phaseOf(pod) : '';
  return phase && phase !== 'Running' ? `pod ${sanitize(phase, 32)}${nodeReason(pod)}` : fallback;
}

/** The reason a pod's node gave when it ended or refused it (Evicted, OutOfcpu, UnexpectedAdmissionError), as ` (<reason>)`. */
function nodeReason(pod: KubeObject | undefined): string {
  const why = (pod?.['status'] as { reason?: unknown } | undefined)?.reason;
  return typeof why === 'string' && why ? ` (${sanitize(why, 64)})` : '';
}

/** What Scaling says once additions stopped: which members, how the last failed, what runs, how to resume. */
export function stoppedMessage(r: AdditionsFailed, members: number, size: number): string {
  const tolerated = Math.max(0, members - (Math.floor(members / 2) + 1));
  return (
    `${stoppedWhy(r)}: ` +
    `no member is added, the cluster runs ${members} of ${size} members (${tolerated} failure${tolerated === 1 ? '' : 's'} tolerated). ` +
    `Fix the cause (spec.pod resources, the image, the nodes) and change the spec, or set the annotation ${RETRY_ADDITIONS} ` +
    `on the EtcdCluster to a new value to try again; or set spec.size to ${members}`
  );
}

/** Why additions stopped: failed additions, or new members' pods their nodes kept ending. */
export function stoppedWhy(r: AdditionsFailed): string {
  return r.members.length >= MAX_FAILED_ADDITIONS
    ? `adding a member failed ${r.members.length} times since ${r.since} (${r.members.join(', ')}; the last: ${r.reason})`
    : `the nodes ended the pods of ${r.ended?.count ?? 0} new members in a row before their etcd ran, since ${r.since} (the last: ${r.reason})`;
}

/** The decision's pods (and those kept if its action fails) with its record on them, or without one: none holds. */
export function withAdditionsOnPods<
  D extends { pods: KubeObject[]; fallbackPods: KubeObject[]; additionsFailed?: AdditionsFailed },
>(d: D): D {
  const value = d.additionsFailed ? JSON.stringify(d.additionsFailed) : undefined;
  const mark = (p: KubeObject) => withAnnotation(p, ADDITIONS_FAILED, value);
  return { ...d, pods: d.pods.map(mark), fallbackPods: d.fallbackPods.map(mark) };
}
