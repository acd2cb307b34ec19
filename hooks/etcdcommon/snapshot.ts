// The check a restore makes before any member is dropped (issue 30.5): the snapshot is fetched with the restore's
// own credentials, bucket and key, read whole and verified as etcd verifies it when it restores one (an etcd
// snapshot ends with the sha256 of what comes before: etcdutl snapshot restore refuses one whose hash does not
// match). `metaops etcd-restore-check` runs it in a pod of the EtcdCluster (hooks/etcdcluster/restore.ts), with
// the restore's S3 access; its result is the pod's termination message.
import { createHash } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** What the check found: whether a restore can go ahead, and if not, why (short, for the EtcdRestore's status). */
export interface SnapshotCheck {
  succeeded: boolean;
  reason?: string;
  /** Bytes of the snapshot, when it was read. */
  size?: number;
}

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

/** Reads a snapshot whole: its size, and whether its last 32 bytes are the sha256 of the rest. */
export async function verifyStream(body: AsyncIterable<Uint8Array>): Promise<{ size: number; intact: boolean }> {
  const hash = createHash('sha256');
  let tail = Buffer.alloc(0);
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    const joined = Buffer.concat([tail, Buffer.from(chunk)]);
    const cut = Math.max(0, joined.length - HASH_BYTES);
    hash.update(joined.subarray(0, cut));
    tail = joined.subarray(cut);
  }
  return { size, intact: size > HASH_BYTES && hash.digest().equals(tail) };
}

/** An AWS SDK error as a short reason: its name and message, one line, bounded. */
function reasonOf(err: unknown): string {
  const e = err as { name?: unknown; message?: unknown };
  const text = `${typeof e?.name === 'string' ? e.name : 'Error'}: ${typeof e?.message === 'string' ? e.message : String(err)}`;
  return text.replace(/\s+/g, ' ').slice(0, 300);
}

export async function checkSnapshot(
  s3: S3Client,
  path: string,
  options: { awsSecret?: string | undefined; env?: NodeJS.ProcessEnv } = {},
): Promise<SnapshotCheck> {
  const where = split(path);
  if (!where) return { succeeded: false, reason: `s3.path "${path}" must be "<bucket>/<key>"` };
  const missing = credentialsProblem(options.awsSecret, options.env ?? process.env);
  if (missing) return { succeeded: false, reason: missing };
  try {
    const res = await s3.send(new GetObjectCommand({ Bucket: where.bucket, Key: where.key }));
    const { size, intact } = await verifyStream(res.Body as Readable);
    if (size <= HASH_BYTES)
      return { succeeded: false, size, reason: `s3://${path} has ${size} bytes: it is no etcd snapshot` };
    if (!intact)
      return {
        succeeded: false,
        size,
        reason: `s3://${path} is not an intact etcd snapshot (its sha256 does not match: etcd would refuse to restore it)`,
      };
    return { succeeded: true, size };
  } catch (err) {
    return { succeeded: false, reason: `s3://${path}: ${reasonOf(err)}` };
  }
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
 */
export function placeRestored(restoreDir: string, dataDir: string): 'placed' | 'kept' {
  if (existsSync(join(dataDir, 'member'))) {
    rmSync(restoreDir, { recursive: true, force: true });
    return 'kept';
  }
  if (!existsSync(join(restoreDir, 'member'))) throw new Error(`${restoreDir} holds no restored member`);
  rmSync(dataDir, { recursive: true, force: true });
  renameSync(restoreDir, dataDir);
  return 'placed';
}
