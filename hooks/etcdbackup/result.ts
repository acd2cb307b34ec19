// The result of a backup run, as the CLI reports it (main/cli.ts report): on stdout and in the backup container's
// termination message, where the EtcdBackup hook reads it (sync.ts podResult). The kubelet keeps only the last
// TERMINATION_MESSAGE_BYTES of that file, so the result is bounded (fitted) whatever the keys' lengths and however
// many snapshots a run pruned.
import { isRecord } from '../../lib/index.js';
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
  /**
   * The S3 endpoint the run wrote to ('' for AWS's own): the hook's, from the pod's (or the Job's) `--s3-endpoint`;
   * never read from the CLI's message.
   */
  endpoint?: string;
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
  for (const f of ['reason', 'pruneProblem', 'skipped'] as const) if (out[f] !== undefined) out[f] = clip(out[f], 300);
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

/** The reasons a lineage break gives (lineage.ts LineageBreak). */
export const BREAK_REASONS: ReadonlySet<string> = new Set([
  'RevisionWentBack',
  'EtcdClusterChanged',
  'HistoryDiffers',
  'LineageUnproven',
]);
/** The names and dates of a result: every one a string the result's budget holds (RESULT_BYTES: fitted). */
const TEXTS = ['etcdVersion', 'key', 'bucket', 'lastSuccessDate', 'clusterId', 'lineage'] as const;
/**
 * The words of a result (what failed, what pruning skipped): strings of any length, cut to RESULT_BYTES characters
 * (a CLI from before results were bounded wrote them longer; the status shortens them further).
 */
const WORDS = ['reason', 'pruneProblem', 'skipped'] as const;
/** The counts of a result: each a whole number, not negative. */
const COUNTS = ['etcdRevision', 'size', 'prunedCount'] as const;
/** The longest UID a result may name its EtcdBackup by (a Kubernetes UID is 36 characters). */
const UID_CHARS = 128;

const isText = (v: unknown): v is string => typeof v === 'string' && v.length <= RESULT_BYTES;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * A backup's result as its pod reports it (the JSON of its termination message: observed data, which a pod a tenant
 * made with the backup's labels, or a run gone odd, may fill with anything), read field by field by its type. A
 * result that names its EtcdBackup by no readable UID (not a string, or longer than any UID) is no EtcdBackup's:
 * undefined. One that is no object, or has a field of the wrong type, or a name or date longer than a result holds
 * (RESULT_BYTES), is malformed: read as a failure saying which field, nothing of it copied (a result's fields go
 * together: a key dropped from a success would leave its revision paired with the key before). Its words (reason,
 * pruneProblem, skipped, a lineage break's why) are cut to RESULT_BYTES characters. Fields no result has are not read.
 */
export function readResult(v: unknown): BackupResult | undefined {
  if (!isRecord(v)) return malformed('it is no JSON object');
  const uid = v['backupUid'];
  if (uid !== undefined && !(typeof uid === 'string' && uid.length <= UID_CHARS)) return undefined;
  const owner = uid === undefined ? {} : { backupUid: uid };
  const wrong = wrongField(v);
  if (wrong) return { ...malformed(wrong), ...owner };
  const out: BackupResult = { succeeded: v['succeeded'] as boolean, ...owner };
  for (const f of TEXTS) if (v[f] !== undefined) out[f] = v[f] as string;
  for (const f of WORDS) if (v[f] !== undefined) out[f] = (v[f] as string).slice(0, RESULT_BYTES);
  for (const f of COUNTS) if (v[f] !== undefined) out[f] = v[f] as number;
  if (v['pruned'] !== undefined) out.pruned = [...(v['pruned'] as string[])];
  if (v['alreadyTaken'] !== undefined) out.alreadyTaken = v['alreadyTaken'] as boolean;
  const b = v['lineageBreak'] as Record<string, unknown> | undefined;
  if (b !== undefined)
    out.lineageBreak = {
      reason: b['reason'] as LineageBreak['reason'],
      ...(b['why'] !== undefined ? { why: (b['why'] as string).slice(0, RESULT_BYTES) } : {}),
      key: b['key'] as string,
      revision: b['revision'] as number,
      clusterId: b['clusterId'] as string,
      date: b['date'] as string,
    };
  return out;
}

/** A result that cannot be read, as a failure that says why. */
const malformed = (why: string): BackupResult => ({
  succeeded: false,
  reason: `the backup's result is malformed: ${why}`,
});

/** The first field of a result of the wrong type (or too long), if any. */
function wrongField(v: Record<string, unknown>): string | undefined {
  if (typeof v['succeeded'] !== 'boolean') return 'succeeded is not true or false';
  for (const f of TEXTS) if (v[f] !== undefined && !isText(v[f])) return `${f} is not a string of a result's length`;
  for (const f of WORDS) if (v[f] !== undefined && typeof v[f] !== 'string') return `${f} is not a string`;
  for (const f of COUNTS) if (v[f] !== undefined && !isCount(v[f])) return `${f} is not a whole number`;
  const pruned = v['pruned'];
  if (pruned !== undefined && !(Array.isArray(pruned) && pruned.length <= RESULT_BYTES && pruned.every(isText)))
    return 'pruned is not a list of keys';
  if (v['alreadyTaken'] !== undefined && typeof v['alreadyTaken'] !== 'boolean')
    return 'alreadyTaken is not true or false';
  return v['lineageBreak'] === undefined ? undefined : wrongBreak(v['lineageBreak']);
}

/** What of a result's lineage break is of the wrong type (or too long, or a reason none known), if anything. */
function wrongBreak(b: unknown): string | undefined {
  if (!isRecord(b)) return 'lineageBreak is not an object';
  if (typeof b['reason'] !== 'string' || !BREAK_REASONS.has(b['reason'])) return 'lineageBreak.reason is none known';
  for (const f of ['key', 'clusterId', 'date'] as const)
    if (!isText(b[f])) return `lineageBreak.${f} is not a string of a result's length`;
  if (b['why'] !== undefined && typeof b['why'] !== 'string') return 'lineageBreak.why is not a string';
  if (!isCount(b['revision'])) return 'lineageBreak.revision is not a whole number';
  return undefined;
}
