// The check a restore makes before any member is dropped: the snapshot is fetched with the restore's
// own credentials, bucket and key, read whole and verified as etcd verifies it when it restores one (an etcd
// snapshot ends with the sha256 of what comes before: etcdutl snapshot restore refuses one whose hash does not
// match). `metaops etcd-restore-check` runs it in a pod of the EtcdCluster (hooks/etcdcluster/restore.ts), with
// the restore's S3 access; its result is the pod's termination message.
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CopyObjectCommand, GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** What the check found: whether a restore can go ahead, and if not, why (short, for the EtcdRestore's status). */
export interface SnapshotCheck {
  succeeded: boolean;
  reason?: string;
  /** Bytes of the snapshot, when it was read. */
  size?: number;
  /** The sha256 of the whole object checked (hex): every restored member's fetch must give these bytes. */
  sha256?: string;
  /** The object's version, when the bucket keeps versions: the members fetch that version. */
  versionId?: string;
  /** Whether the copy of the checked object was made at the pin path (the members fetch it there). */
  pinned?: boolean;
  /** Why it was not (the members then fetch the key and refuse other bytes). */
  pinReason?: string;
  /**
   * The failure's own name and code (S3's error code, `TimeoutError`, a network code such as `ECONNRESET`), apart
   * from the reason, which names the tenant's path: the hook judges a run that proved nothing by it (errorOf).
   */
  error?: string;
}

import { PERIODIC_SUFFIX } from './index.js';
import { type SnapshotPin, versionIdOf } from './pin.js';

export { pinPath, type SnapshotPin } from './pin.js';

/** The sha256 etcd appends to a snapshot. */
const HASH_BYTES = 32;

/** `bucket/key`, as etcd-operator wrote an S3 path. */
function split(path: string): { bucket: string; key: string } | undefined {
  const at = path.indexOf('/');
  return at > 0 && at < path.length - 1 ? { bucket: path.slice(0, at), key: path.slice(at + 1) } : undefined;
}

/** Whether the restore's credentials are there: the Secret's file, or its keys as environment. */
export function credentialsProblem(awsSecret: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (!awsSecret) return undefined;
  const file = env['AWS_SHARED_CREDENTIALS_FILE'];
  if ((file && existsSync(file)) || env['AWS_ACCESS_KEY_ID']) return undefined;
  return `the awsSecret ${awsSecret} was not found in this namespace, or it has no credentials file (key "credentials") and no AWS_ACCESS_KEY_ID`;
}

/**
 * The check of an etcd snapshot's trailer, fed its bytes as they come: the last 32 are the sha256 of all before them
 * (etcd's Snapshot RPC sends them as its last message; etcdutl snapshot restore refuses a snapshot whose hash does
 * not match). Holds at most those 32 bytes, whatever the size.
 */
export class SnapshotTrailer {
  private readonly hash = createHash('sha256');
  private tail = Buffer.alloc(0);
  size = 0;

  update(chunk: Uint8Array): void {
    this.size += chunk.length;
    const joined = Buffer.concat([this.tail, Buffer.from(chunk)]);
    const cut = Math.max(0, joined.length - HASH_BYTES);
    this.hash.update(joined.subarray(0, cut));
    this.tail = Buffer.from(joined.subarray(cut));
  }

  /** Whether the bytes fed end with the sha256 of those before (and there are bytes before it). Call once, at the end. */
  intact(): boolean {
    return this.size > HASH_BYTES && this.hash.digest().equals(this.tail);
  }
}

/** Reads a snapshot whole: its size, and whether its last 32 bytes are the sha256 of the rest. */
export async function verifyStream(
  body: AsyncIterable<Uint8Array>,
): Promise<{ size: number; intact: boolean; sha256: string }> {
  const trailer = new SnapshotTrailer();
  const whole = createHash('sha256');
  for await (const chunk of body) {
    trailer.update(chunk);
    whole.update(chunk);
  }
  return { size: trailer.size, intact: trailer.intact(), sha256: whole.digest('hex') };
}

/** An AWS SDK error as a short reason: its name and message, one line, bounded. */
/**
 * A failure's name and code (`SlowDown`, `NoSuchKey`, `Error ECONNRESET`, `TimeoutError`), at most 100 printable
 * characters, without its message: what S3 or the network said, never the path the request named.
 */
export function errorOf(err: unknown): string {
  const e = err as { name?: unknown; code?: unknown } | null | undefined;
  const parts = [e?.name, e?.code].filter((x): x is string => typeof x === 'string' && x !== '');
  return (parts.length ? [...new Set(parts)].join(' ') : 'Error').replace(/[^\x21-\x7e]+/g, ' ').slice(0, 100);
}

function reasonOf(err: unknown): string {
  const e = err as { name?: unknown; message?: unknown };
  const text = `${typeof e?.name === 'string' ? e.name : 'Error'}: ${typeof e?.message === 'string' ? e.message : String(err)}`;
  return text.replace(/\s+/g, ' ').slice(0, 300);
}

/**
 * Keeps the object checked for the restored members, who fetch it later, one by one, while the key may be written
 * again: a version is kept by the bucket; else a server-side copy beside the key (only if the key still holds the
 * bytes checked: its ETag). Undefined when pinned; 'changed' when the key was written again meanwhile; else why
 * the copy could not be made (the members then refuse any other bytes at the key: sha256).
 */
async function pin(
  s3: S3Client,
  where: { bucket: string; key: string },
  etag: string | undefined,
  to: string | undefined,
): Promise<{ pinned: boolean; reason?: string; changed?: boolean }> {
  if (!to) return { pinned: false };
  const target = split(to);
  if (!target || target.bucket !== where.bucket) return { pinned: false, reason: 'the pin path is not in its bucket' };
  try {
    await s3.send(
      new CopyObjectCommand({
        Bucket: target.bucket,
        Key: target.key,
        CopySource: `${where.bucket}/${encodeURIComponent(where.key).replace(/%2F/g, '/')}`,
        ...(etag ? { CopySourceIfMatch: etag } : {}),
        MetadataDirective: 'REPLACE',
        Metadata: { 'metaops-restore-of': `${where.bucket}/${where.key}`.slice(0, 1024) },
      }),
    );
    return { pinned: true };
  } catch (err) {
    const e = err as { name?: unknown; $metadata?: { httpStatusCode?: number } };
    if (e?.name === 'PreconditionFailed' || e?.$metadata?.httpStatusCode === 412)
      return { pinned: false, changed: true };
    return { pinned: false, reason: reasonOf(err) };
  }
}

/**
 * Whether an EtcdBackup's pruning (maxBackups) may delete this key: it has a periodic snapshot's name. (Pruning also
 * needs the lineage metadata of the EtcdBackup that wrote it; a store or proxy may drop metadata from what a GET
 * answers, so the name alone decides: never a restore on doubt.)
 */
export function prunable(key: string): boolean {
  return PERIODIC_SUFFIX.test(key);
}

/**
 * Why a check refuses a snapshot it verified but could not keep (no version, no copy) when a backup's pruning may
 * delete it: the restored members fetch the key after the live members are dropped, and a backup Job made before
 * the restore existed does not know to spare it. How to let the check keep it comes first (the reason is bounded).
 */
function unpinnedPrunable(bucket: string, pinPath: string | undefined, why: string | undefined): string {
  const copy = pinPath ? `s3:PutObject on s3://${pinPath}` : 's3:PutObject on a copy beside the key';
  return `not restored: a periodic EtcdBackup may prune this snapshot during the restore and no copy could be kept; turn on versioning for bucket ${bucket}, or allow the restore's credentials ${copy}${why ? ` (${why})` : ''}`;
}

/** A check whose key was written again between its read and its copy: nothing is pinned, nothing restored. */
function writtenAgain(path: string, size: number): SnapshotCheck {
  return {
    succeeded: false,
    size,
    reason: `s3://${path} was written again while it was checked: check it again once it holds the snapshot to restore`,
  };
}

/**
 * Whether these credentials can make the request each restored member makes for a kept version: a GetObject naming
 * its VersionId (only its first byte is asked for: the permission and the version's presence are the same). Undefined
 * when they can; else why not (bounded).
 */
async function versionUnreadable(
  s3: S3Client,
  where: { bucket: string; key: string },
  versionId: string,
): Promise<string | undefined> {
  try {
    const res = await s3.send(
      new GetObjectCommand({ Bucket: where.bucket, Key: where.key, VersionId: versionId, Range: 'bytes=0-0' }),
    );
    await discard(res.Body);
    return undefined;
  } catch (err) {
    return reasonOf(err);
  }
}

/** Lets go of a response body not needed: closed when it can be (a store that ignored the range), else drained. */
async function discard(body: unknown): Promise<void> {
  const stream = body as { destroy?: () => void } | undefined;
  if (typeof stream?.destroy === 'function') {
    stream.destroy();
    return;
  }
  if (body && typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function')
    for await (const _ of body as AsyncIterable<unknown>) void _;
}

/**
 * Why a check refuses a version it verified but that the restored members could not fetch (their GetObject by
 * VersionId failed with the restore's credentials) when no copy could be kept either: dropping the live members on
 * its word would leave every restored member failing its fetch. The permissions that let it go ahead come first.
 */
function versionUnkept(
  path: string,
  pinPath: string | undefined,
  denied: string,
  copyReason: string | undefined,
): string {
  const copy = pinPath ? `s3:PutObject on s3://${pinPath}` : 's3:PutObject on a copy beside the key';
  const why = [denied.slice(0, 120), copyReason?.slice(0, 120)].filter(Boolean).join('; ');
  return `not restored: the restored members would fetch the checked version by its VersionId, which the restore's credentials may not (s3:GetObjectVersion), and no copy could be kept; allow them s3:GetObjectVersion on s3://${path}, or ${copy} (${why})`;
}

/**
 * Whether the restored members can fetch the copy the check made, as they will: a GetObject of the pin path with
 * these credentials, read whole, giving the bytes checked (sha256). A copy the credentials may not read (s3:GetObject
 * granted on the snapshots' keys only), or one holding other bytes (a store that ignored CopySourceIfMatch while the
 * key was written again), would leave every restored member failing its fetch after the live members were dropped.
 * Undefined when it can; else why not (bounded, naming the copy and the permission).
 */
async function copyUnfetchable(s3: S3Client, pinPath: string, sha256: string): Promise<string | undefined> {
  const target = split(pinPath);
  if (!target) return `the copy's path s3://${pinPath.slice(0, 200)} is not "<bucket>/<key>"`;
  try {
    const res = await s3.send(new GetObjectCommand({ Bucket: target.bucket, Key: target.key }));
    const got = await verifyStream(res.Body as Readable);
    if (got.sha256 === sha256) return undefined;
    return `not restored: the copy kept for the restored members, s3://${pinPath.slice(0, 200)}, does not hold the snapshot checked (sha256 ${got.sha256.slice(0, 12)}..., checked ${sha256.slice(0, 12)}...): the key was written again while it was copied, or the store ignored the copy's condition (CopySourceIfMatch); check it again once it holds the snapshot to restore`;
  } catch (err) {
    return `not restored: the restored members would fetch the copy s3://${pinPath.slice(0, 200)}, which the restore's credentials may not read; allow them s3:GetObject on s3://${pinPath.slice(0, 200)} (${reasonOf(err).slice(0, 120)})`;
  }
}

export async function checkSnapshot(
  s3: S3Client,
  path: string,
  options: { awsSecret?: string | undefined; env?: NodeJS.ProcessEnv; pinPath?: string | undefined } = {},
): Promise<SnapshotCheck> {
  const where = split(path);
  if (!where) return { succeeded: false, reason: `s3.path "${path}" must be "<bucket>/<key>"` };
  const missing = credentialsProblem(options.awsSecret, options.env ?? process.env);
  if (missing) return { succeeded: false, reason: missing };
  try {
    const res = await s3.send(new GetObjectCommand({ Bucket: where.bucket, Key: where.key }));
    const { size, intact, sha256 } = await verifyStream(res.Body as Readable);
    if (size <= HASH_BYTES)
      return { succeeded: false, size, reason: `s3://${path} has ${size} bytes: it is no etcd snapshot` };
    if (!intact)
      return {
        succeeded: false,
        size,
        reason: `s3://${path} is not an intact etcd snapshot (its sha256 does not match: etcd would refuse to restore it)`,
      };
    const versionId = versionIdOf(res.VersionId);
    if (versionId) {
      // The members fetch this version by its VersionId: a request of its own (on AWS it needs s3:GetObjectVersion,
      // which s3:GetObject does not give). Proved with these credentials before passing, else the copy is the pin.
      const denied = await versionUnreadable(s3, where, versionId);
      if (!denied) return { succeeded: true, size, sha256, versionId };
      const copied = await pin(s3, where, res.ETag, options.pinPath);
      if (copied.changed) return writtenAgain(path, size);
      if (!copied.pinned)
        return { succeeded: false, size, reason: versionUnkept(path, options.pinPath, denied, copied.reason) };
      const unfetchable = await copyUnfetchable(s3, options.pinPath!, sha256);
      if (unfetchable) return { succeeded: false, size, reason: unfetchable };
      return {
        succeeded: true,
        size,
        sha256,
        pinned: true,
        pinReason: `version ${versionId.slice(0, 40)} not readable by its VersionId (s3:GetObjectVersion: ${denied.slice(0, 80)}): the members fetch the copy`,
      };
    }
    const kept = await pin(s3, where, res.ETag, options.pinPath);
    if (kept.changed) return writtenAgain(path, size);
    if (!kept.pinned && prunable(where.key))
      return { succeeded: false, size, reason: unpinnedPrunable(where.bucket, options.pinPath, kept.reason) };
    if (kept.pinned) {
      const unfetchable = await copyUnfetchable(s3, options.pinPath!, sha256);
      if (unfetchable) return { succeeded: false, size, reason: unfetchable };
    }
    return {
      succeeded: true,
      size,
      sha256,
      pinned: kept.pinned,
      ...(kept.reason ? { pinReason: kept.reason.slice(0, 200) } : {}),
    };
  } catch (err) {
    return { succeeded: false, reason: `s3://${path}: ${reasonOf(err)}`, error: errorOf(err) };
  }
}

/**
 * A restored member's fetch: the snapshot its restore checked, into `file`. With a pin, from where it stays (the
 * version, or the copy the check made) and only those bytes: any other (the key written again since the check,
 * without a version or a copy to fall back on) is refused, and the file removed, rather than start a member of one
 * cluster from another snapshot than the rest. The bytes written.
 */
export async function fetchChecked(
  s3: S3Client,
  path: string,
  file: string,
  checked: Partial<SnapshotPin> = {},
): Promise<number> {
  const from = split(checked.pinnedPath ?? path);
  if (!from) throw new Error(`s3.path "${checked.pinnedPath ?? path}" must be "<bucket>/<key>"`);
  const res = await s3.send(
    new GetObjectCommand({
      Bucket: from.bucket,
      Key: from.key,
      ...(checked.versionId && !checked.pinnedPath ? { VersionId: checked.versionId } : {}),
    }),
  );
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(
    res.Body as Readable,
    async function* (source: AsyncIterable<Uint8Array>) {
      for await (const chunk of source) {
        hash.update(chunk);
        size += chunk.length;
        yield chunk;
      }
    },
    createWriteStream(file),
  );
  const got = hash.digest('hex');
  if (checked.sha256 && got !== checked.sha256) {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: the pipeline above just wrote the file, so force changes nothing
    rmSync(file, { force: true });
    throw new SnapshotChanged(
      `s3://${checked.pinnedPath ?? path} is not the snapshot its restore checked (sha256 ${got.slice(0, 12)}..., checked ${checked.sha256.slice(0, 12)}...): the key was written again since; nothing is restored from it`,
    );
  }
  return size;
}

/** A fetch that found other bytes than the check verified. */
export class SnapshotChanged extends Error {
  override name = 'SnapshotChanged';
}

/**
 * A restored member's init steps run again whenever its pod's sandbox is recreated (a node reboot, a container
 * runtime restart): they must leave a member that already has its data alone. Before the fetch: the temporary
 * restore directory is emptied, and when the member's data is there (and the snapshot it came from is kept beside
 * it), nothing is fetched: etcdutl restores the kept snapshot into the temporary directory again, and the place step
 * then throws that away. 'fetch' when the snapshot must be fetched.
 */
export function prepareRestore(file: string, restoreDir: string, dataDir: string): 'fetch' | 'kept' {
  rmSync(restoreDir, { recursive: true, force: true });
  return existsSync(join(dataDir, 'member')) && existsSync(file) ? 'kept' : 'fetch';
}

/**
 * The last init step of a restored member: the data etcdutl restored becomes the member's, unless the member
 * already has data (the steps ran again after it started: its data is newer than the snapshot). 'placed' or 'kept'.
 * A data directory that holds anything but a member (files of another owner's volume: the hook answers a member pod
 * only on a claim observed as the cluster's own, sync.ts childrenOf; this is the last guard) is never removed: an
 * error, nothing changed. An empty one (a crash before the place step) is replaced.
 */
export function placeRestored(restoreDir: string, dataDir: string): 'placed' | 'kept' {
  if (existsSync(join(dataDir, 'member'))) {
    rmSync(restoreDir, { recursive: true, force: true });
    return 'kept';
  }
  if (!existsSync(join(restoreDir, 'member'))) throw new Error(`${restoreDir} holds no restored member`);
  if (existsSync(dataDir)) {
    const found = readdirSync(dataDir);
    if (found.length > 0)
      throw new Error(
        `${dataDir} holds no etcd member but other files (${found.slice(0, 3).join(', ')}${found.length > 3 ? ', ...' : ''}): nothing is removed; a restored member is placed only on a volume with no data`,
      );
    rmdirSync(dataDir);
  }
  renameSync(restoreDir, dataDir);
  return 'placed';
}
