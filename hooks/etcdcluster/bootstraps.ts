// A bootstrap that keeps failing stops (as failed additions do). The first members of a new
// cluster are started together; when one fails before the cluster formed (its etcd exits at once: an image whose etcd
// cannot start, a wrong command reached through spec.pod, members that crash before they answer), the bootstrap starts
// over under new member names (plan/silent.ts restartBootstrap). Without a bound that is pods and claims made and
// deleted for ever, and nothing says why. Each failed start is recorded; after MAX_BOOTSTRAP_STARTS no new start is
// made until the user changes the spec or asks for a retry (RETRY_BOOTSTRAP on the EtcdCluster). The last start's
// pods are kept (their logs say why; one whose cause goes away by itself forms the cluster after all) and status says
// how they failed (BootstrapFailed). The record lives in status.bootstrapFailed and on every pod of the next start
// (BOOTSTRAP_FAILED): it survives a status lost while pods exist, and is bound to the EtcdCluster's UID and to a
// fingerprint of its spec (a spec changed starts the count afresh). Once the cluster forms, no answer carries it.
// A start whose member pod the kubelet evicted for the pod's own limits (its ephemeral storage, an emptyDir's
// sizeLimit: the image's doing, pods.ts evictedForOwnLimits) is a failed start as an exit is. A start whose pod its
// node ended for the node's reasons (pressure, a drain, a shutdown, a rejection at admission: OutOfcpu) is none, but
// is bounded as additions are (additions.ts): the next start waits endedBackoff (10 s doubling to 5 minutes), and
// after MAX_ENDED_BOOTSTRAPS such starts in a row none is made (BootstrapFailed, naming the node's message).
import { type KubeObject, type ParentObject, parseJson, rfc3339, textOf } from '../../lib/index.js';
import { endedBackoff, howItFailed, madeFingerprint, MAX_ENDED_ADDITIONS } from './additions.js';
import { etcdExited, evictedForOwnLimits, sanitize } from './pods.js';
import type { EtcdClusterSpec } from './schema.js';
import { withAnnotation } from './upgrade.js';

/** Failed starts of a bootstrap after which none is made until the user acts. */
export const MAX_BOOTSTRAP_STARTS = 3;
/** The annotation on the pods of a bootstrap's start that keeps the record when the status is lost. */
export const BOOTSTRAP_FAILED = 'etcd.metaops.io/bootstrap-failed';
/** An annotation on the EtcdCluster: a new value asks for new starts with the same spec. */
export const RETRY_BOOTSTRAP = 'etcd.metaops.io/retry-bootstrap';
/** Starts in a row whose pods their nodes ended after which none is made until the user acts (as for additions). */
export const MAX_ENDED_BOOTSTRAPS = MAX_ENDED_ADDITIONS;
/** The reason Available and Scaling take once the bootstrap stopped. */
export const BOOTSTRAP_FAILED_REASON = 'BootstrapFailed';

export interface BootstrapFailed {
  /** The EtcdCluster's UID: a record of another (one deleted and recreated under the name) is not read. */
  uid: string;
  /** Fingerprint of the spec (but paused) and RETRY_BOOTSTRAP the failed starts were made from. */
  spec: string;
  /** Starts that failed with this spec (0..MAX_BOOTSTRAP_STARTS; 0 when only `ended` counts). */
  starts: number;
  /** How the last one failed (a member pod and its etcd's last exit), bounded. */
  reason: string;
  /** When the first one failed. */
  since: string;
  /** Starts in a row whose member pods their nodes ended (no failed start), and when the last was started again. */
  ended?: { count: number; at: string };
}

/**
 * The fingerprint of what a bootstrap is made from: the spec but `paused` (and the cluster domain the sync fills in
 * with the server's when the spec names none), and RETRY_BOOTSTRAP. A change of it tries again.
 */
export function bootstrapSpec(parent: ParentObject, spec: EtcdClusterSpec): string {
  const { paused: _paused, ...made } = spec;
  return madeFingerprint(parent, made, RETRY_BOOTSTRAP);
}

/** The record as read (status or a pod: input), when it is this EtcdCluster's; bounded. */
function valid(r: unknown, uid: string): BootstrapFailed | undefined {
  const x = r as Partial<Record<keyof BootstrapFailed, unknown>> | null | undefined;
  if (!x || typeof x !== 'object' || x.uid !== uid || typeof x.spec !== 'string') return undefined;
  const e = x.ended as { count?: unknown; at?: unknown } | null | undefined;
  const ended =
    e && typeof e === 'object' && Number.isSafeInteger(e.count) && (e.count as number) >= 1 && typeof e.at === 'string'
      ? { count: Math.min(e.count as number, MAX_ENDED_BOOTSTRAPS), at: sanitize(e.at, 40) }
      : undefined;
  if (!Number.isSafeInteger(x.starts) || (x.starts as number) < (ended ? 0 : 1)) return undefined;
  return {
    uid,
    spec: sanitize(x.spec, 64),
    starts: Math.min(x.starts as number, MAX_BOOTSTRAP_STARTS),
    reason: sanitize(textOf(x.reason, ''), 200),
    since: sanitize(textOf(x.since, ''), 40),
    ...(ended ? { ended } : {}),
  };
}

/** What a sync knows of a failing bootstrap: this EtcdCluster, the spec of the moment, the record found. */
export interface BootstrapMemory {
  uid: string;
  spec: string;
  /** The record with the most failed starts, from the status or (the status lost) the pods: of any spec. */
  record?: BootstrapFailed;
  /** Whether an observed pod carries a record of this EtcdCluster (it is a bootstrap's start: status lost). */
  onPods: boolean;
}

/** The record of this EtcdCluster: the status's, or the one its pods carry; the one counting more starts. */
export function bootstrapMemory(parent: ParentObject, spec: EtcdClusterSpec, pods: KubeObject[]): BootstrapMemory {
  const uid = parent.metadata.uid ?? '';
  const fingerprint = bootstrapSpec(parent, spec);
  const fromStatus = valid((parent.status as { bootstrapFailed?: unknown } | undefined)?.bootstrapFailed, uid);
  const fromPods: BootstrapFailed[] = [];
  for (const p of pods) {
    const text = p.metadata.annotations?.[BOOTSTRAP_FAILED];
    if (!text || text.length > 2048) continue;
    try {
      const r = valid(parseJson(text), uid);
      if (r) fromPods.push(r);
    } catch {
      // Not ours (edited by hand): no record.
    }
  }
  // This spec's record first, then the one counting more starts.
  const record = [fromStatus, ...fromPods]
    .filter((r): r is BootstrapFailed => r !== undefined)
    .sort((a, b) => Number(b.spec === fingerprint) - Number(a.spec === fingerprint) || b.starts - a.starts)[0];
  return { uid, spec: fingerprint, ...(record ? { record } : {}), onPods: fromPods.length > 0 };
}

/** The record that holds for the spec of the moment, if any. */
export function currentRecord(memory: BootstrapMemory | undefined): BootstrapFailed | undefined {
  return memory?.record && memory.record.spec === memory.spec ? memory.record : undefined;
}

/** Whether the record stops the bootstrap: failed starts, or starts in a row whose pods their nodes ended. */
export function bootstrapStopped(record: BootstrapFailed | undefined): boolean {
  return (
    record !== undefined &&
    (record.starts >= MAX_BOOTSTRAP_STARTS || (record.ended?.count ?? 0) >= MAX_ENDED_BOOTSTRAPS)
  );
}

/** The record with one more failed start (`reason`), at `now`. */
export function withFailedStart(memory: BootstrapMemory, reason: string, now: string): BootstrapFailed {
  const r = currentRecord(memory);
  return {
    uid: memory.uid,
    spec: memory.spec,
    starts: Math.min((r?.starts ?? 0) + 1, MAX_BOOTSTRAP_STARTS),
    reason: sanitize(reason, 200),
    since: r?.since || now,
    ...(r?.ended ? { ended: r.ended } : {}),
  };
}

/** The record with one more start whose pods their nodes ended (`reason`: the node's), started again at `now`. */
export function withEndedStart(memory: BootstrapMemory, reason: string, now: string): BootstrapFailed {
  const r = currentRecord(memory);
  return {
    uid: memory.uid,
    spec: memory.spec,
    starts: r?.starts ?? 0,
    reason: sanitize(reason, 200),
    since: r?.since || now,
    ended: { count: Math.min((r?.ended?.count ?? 0) + 1, MAX_ENDED_BOOTSTRAPS), at: now },
  };
}

/**
 * When the bootstrap may start again after starts whose pods their nodes ended (`ended.at` plus endedBackoff of the
 * count), if that is still ahead of `now`; else undefined. A time recorded ahead of now reads as now.
 */
export function nextStartAt(record: BootstrapFailed | undefined, now: Date | undefined): string | undefined {
  if (!record?.ended || !now) return undefined;
  const at = Date.parse(record.ended.at);
  if (!Number.isFinite(at)) return undefined;
  const next = Math.min(at, now.getTime()) + endedBackoff(record.ended.count) * 1000;
  return next > now.getTime() ? rfc3339(new Date(next)) : undefined;
}

/**
 * How a start failed, from its pods (input: bounded, printable): the first member whose etcd exited (by name; not one
 * its node ended: etcdExited), its last exit and its termination message (etcd's last log lines:
 * FallbackToLogsOnError); else `fallback`.
 */
export function howStartFailed(pods: KubeObject[], fallback: string): string {
  const failed = pods
    .filter((p) => etcdExited(p))
    .sort((a, b) => textOf(a.metadata.name, '').localeCompare(textOf(b.metadata.name, '')))[0];
  if (!failed) return fallback;
  const name = sanitize(textOf(failed.metadata.name, ''), 64);
  // (Evicted for its own limits: the kubelet's message, howItFailed.)
  const how = howItFailed(failed, 'failed');
  if (evictedForOwnLimits(failed)) return sanitize(`${name}: ${how}`, 200);
  const message = terminationMessage(failed);
  return sanitize(`${name}: ${how}${message ? `: ${message}` : ''}`, 200);
}

/** The etcd container's termination message (as it ended now, or last), bounded: what the pod says, untrusted. */
function terminationMessage(pod: KubeObject): string {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!Array.isArray(statuses)) return '';
  type Ended = { message?: unknown };
  const etcd = (
    statuses as Array<{ name?: unknown; state?: { terminated?: Ended }; lastState?: { terminated?: Ended } } | null>
  ).find((c) => c?.name === 'etcd');
  const ended = etcd?.state?.terminated ?? etcd?.lastState?.terminated;
  // The end of it: etcd's last lines say why it exited.
  const text = sanitize(textOf(ended?.message, ''), 4096);
  return text.length > 120 ? `...${text.slice(-117)}` : text;
}

/** What Available and Scaling say once the bootstrap stopped: how often, how the last start failed, how to retry. */
export function bootstrapStoppedMessage(r: BootstrapFailed): string {
  const why =
    r.starts >= MAX_BOOTSTRAP_STARTS
      ? `the bootstrap failed ${r.starts} times since ${r.since} (the last: ${r.reason})`
      : `the nodes ended the member pods of ${r.ended?.count ?? 0} starts of the bootstrap in a row since ${r.since} (the last: ${r.reason})`;
  return (
    `${why}; no new start is made. ` +
    `The last start's pods are kept (kubectl logs --previous). Fix the cause (spec.version, spec.repository, ` +
    `spec.pod) and change the spec, or set the annotation ${RETRY_BOOTSTRAP} on the EtcdCluster to a new value to ` +
    `try again`
  );
}

/** The decision's pods (and those kept if its action fails) with its record on them, or without one: none holds. */
export function withBootstrapOnPods<
  D extends { pods: KubeObject[]; fallbackPods: KubeObject[]; bootstrapFailed?: BootstrapFailed },
>(d: D): D {
  const value = d.bootstrapFailed ? JSON.stringify(d.bootstrapFailed) : undefined;
  const mark = (p: KubeObject) => withAnnotation(p, BOOTSTRAP_FAILED, value);
  return { ...d, pods: d.pods.map(mark), fallbackPods: d.fallbackPods.map(mark) };
}
