// The result of a backup run, as the CLI reports it (main/cli.ts report): on stdout and in the backup container's
// termination message, where the EtcdBackup hook reads it (sync.ts podResult). The kubelet keeps only the last
// TERMINATION_MESSAGE_BYTES of that file, so the result is bounded (fitted) whatever the keys' lengths and however
// many snapshots a run pruned.
import type { LineageBreak } from './lineage.js';

/** What a backup run reports (runBackup): the CLI writes it on stdout and as the container's termination message. */
export interface BackupResult {
  succeeded: boolean;
  reason?: string;
  etcdVersion?: string;
  etcdRevision?: number;
  key?: string;
  /** The bucket of `key` (status.key alone does not say where the snapshot is). */
  bucket?: string;
  size?: number;
  lastSuccessDate?: string;
  /**
   * Keys of the snapshots the run pruned: the first of them, as many as fit PRUNED_LISTED_BYTES (fitted); all of them
   * are counted in `prunedCount`.
   */
  pruned?: string[];
  /** How many snapshots the run pruned (`pruned` lists the first of them). */
  prunedCount?: number;
  /** The etcd cluster ID (hex) the snapshot is of. */
  clusterId?: string;
  /** A periodic snapshot's lineage: when it began (lineage.ts). */
  lineage?: string;
  /** This snapshot began a new lineage although the EtcdBackup had one: why, and its last snapshot (kept). */
  lineageBreak?: LineageBreak;
  /** The snapshot was written, but pruning was skipped or stopped: why. */
  pruneProblem?: string;
  /** A one-off backup found its own snapshot already there (its Job ran again): nothing written. */
  alreadyTaken?: boolean;
  /** The UID of the EtcdBackup that ran it (the CLI adds it): the hook takes no other's result for its own. */
  backupUid?: string;
  /**
   * A periodic run that took no snapshot, because the newest of this EtcdBackup is younger than its interval
   * (`minIntervalSeconds`): which one, and when the next is due. Nothing was written or pruned.
   */
  skipped?: string;
}

/**
 * What the kubelet keeps of a container's termination message: its file's last 4096 bytes (kubelet
 * getTerminationMessage: tail.ReadAtMost(path, MaxContainerTerminationMessageLength = 4096)). More is cut from the
 * front, and a JSON result cut so is no JSON.
 */
export const TERMINATION_MESSAGE_BYTES = 4096;

/**
 * The most a backup's result takes as JSON (UTF-8 bytes): well under what the kubelet keeps, room left for the
 * `backupUid` the CLI adds (main/cli.ts report).
 */
export const RESULT_BYTES = 3072;

/** The most the keys listed in a result's `pruned` take (as JSON): the rest are only counted (`prunedCount`). */
export const PRUNED_LISTED_BYTES = 1024;

/** UTF-8 bytes of `x` as JSON. */
const jsonBytes = (x: unknown) => Buffer.byteLength(JSON.stringify(x));

/** `s` cut to at most `n` characters (an ellipsis saying so). */
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, Math.max(0, n - 1))}…` : s);

/**
 * The result bounded to RESULT_BYTES as JSON, whatever the keys' lengths or how many were pruned: `pruned` lists the
 * first keys that fit PRUNED_LISTED_BYTES and `prunedCount` counts them all; then, if still too long (keys near the
 * S3 limit), the texts (reason, pruneProblem, skipped, the lineage break's why) are shortened and the keys listed
 * dropped; past what the schema lets through, the longest remaining text is halved until it fits (never the
 * snapshot's own key: a result whose key does not fit says so, as a failure).
 */
export function fitted(r: BackupResult, budget = RESULT_BYTES): BackupResult {
  const out: BackupResult = r.pruned ? { ...r, ...listedPruned(r) } : { ...r };
  if (jsonBytes(out) <= budget) return out;
  for (const f of ['reason', 'pruneProblem', 'skipped'] as const) if (out[f] !== undefined) out[f] = clip(out[f]!, 300);
  if (out.lineageBreak?.why !== undefined)
    out.lineageBreak = { ...out.lineageBreak, why: clip(out.lineageBreak.why, 120) };
  if (jsonBytes(out) > budget && out.pruned) out.pruned = [];
  for (let i = 0; i < 64 && jsonBytes(out) > budget; i++) {
    const longest = texts(out).sort((x, y) => y.value.length - x.value.length)[0];
    if (!longest || longest.value.length <= 8) break;
    longest.set(clip(longest.value, Math.floor(longest.value.length / 2)));
  }
  if (jsonBytes(out) <= budget) return out;
  return { succeeded: false, reason: `the result does not fit a termination message: ${clip(r.key ?? '', 300)}` };
}

/** `pruned` cut to its first keys that fit PRUNED_LISTED_BYTES, and how many were pruned in all. */
function listedPruned(r: BackupResult): Pick<BackupResult, 'pruned' | 'prunedCount'> {
  const listed: string[] = [];
  let bytes = 2;
  for (const k of r.pruned ?? []) {
    bytes += jsonBytes(k) + 1;
    if (bytes > PRUNED_LISTED_BYTES) break;
    listed.push(k);
  }
  return { pruned: listed, prunedCount: Math.max(r.prunedCount ?? 0, r.pruned?.length ?? 0) };
}

/** The texts of a result that may be shortened (not its key or bucket), each with how to set it. */
function texts(out: BackupResult): Array<{ value: string; set: (v: string) => void }> {
  const list: Array<{ value: string; set: (v: string) => void }> = [];
  const top = ['reason', 'pruneProblem', 'skipped', 'lineage', 'clusterId', 'etcdVersion', 'lastSuccessDate'] as const;
  for (const f of top) {
    const value = out[f];
    if (value !== undefined) list.push({ value, set: (v) => (out[f] = v) });
  }
  for (const f of ['key', 'why', 'clusterId', 'date'] as const) {
    const value = out.lineageBreak?.[f];
    if (value !== undefined) list.push({ value, set: (v) => (out.lineageBreak = { ...out.lineageBreak!, [f]: v }) });
  }
  return list;
}
