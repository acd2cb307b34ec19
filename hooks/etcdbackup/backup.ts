// The work of a backup Job and of a restore init step, run by the `metaops` CLI in this project's image:
// stream a snapshot out of etcd into S3 (multipart when large), prune old backups, fetch one back.
import { createHash } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { GATEWAY_PREFIXES, type TlsFiles } from '../etcdcommon/etcd.js';
import { SnapshotTrailer } from '../etcdcommon/snapshot.js';
import {
  compareHistory,
  dateOfStamp,
  decideLineage,
  encodeWitnesses,
  floorOf,
  type FoundKey,
  judgeWitnesses,
  MAX_WITNESSES,
  parseWitnesses,
  type WitnessKey,
  lineageOf,
  mayContinue,
  META,
  revisionOf,
  newestFirst,
  periodicSnapshot,
  previousOf,
  sameLineage,
  stampOf,
  toPrune,
  type HistoryCheck,
  type KvHash,
  type Lineage,
  type LineageBreak,
  type Snapshot,
} from './lineage.js';
import { parseJson } from '../../lib/index.js';
import { fitted, type BackupResult } from './result.js';

/** S3 needs parts of at least 5 MiB (but the last). */
export const PART_SIZE = 8 * 1024 * 1024;

export type { BackupResult } from './result.js';

/** `bucket/key` as etcd-operator wrote it. */
export function splitPath(path: string): { bucket: string; key: string } {
  const at = path.indexOf('/');
  if (at <= 0 || at === path.length - 1) throw new Error(`s3.path "${path}" must be "<bucket>/<key>"`);
  return { bucket: path.slice(0, at), key: path.slice(at + 1) };
}

/**
 * Periodic backups are <key>_v<revision>_<date> (coreos's shape), or <key>_v<revision>_<date>-<owner> when another
 * EtcdBackup of the path wrote that key first (ownerSuffix); a one-off backup is written to <key> itself.
 */
export function periodicKey(key: string, revision: number, date: Date, owner = ''): string {
  return `${key}_v${revision}_${stampOf(date)}${owner ? `-${owner}` : ''}`;
}

/**
 * What an EtcdBackup's UID adds to a periodic key another EtcdBackup took first: the UID in the characters the
 * periodic pattern accepts (a Kubernetes UID is lowercase hex and `-`, kept whole), at most 63; '' when none remain.
 */
export function ownerSuffix(uid: string): string {
  return uid
    .toLowerCase()
    .replace(/[^0-9a-z-]/g, '')
    .replace(/^-+/, '')
    .slice(0, 63);
}

interface EtcdEndpoint {
  url: string;
  tls?: TlsFiles;
  /** The gateway prefix this endpoint serves, once found. */
  prefix?: string;
  /**
   * The cluster ID (hex) its answers must carry: a snapshot message with another is refused (snapshotStream). Its
   * calls share one connection (`agent`), so that behind a Service the snapshot comes from the member whose status
   * was checked.
   */
  clusterId?: string;
  agent?: HttpAgent | HttpsAgent;
}

// The gateway prefixes (/v3, /v3beta, /v3alpha) are the cluster hook's list: one list for both probes.

/** An answer other than 200: its status, and whether it is a plain-text 404 (a path etcd does not serve). */
class HttpStatusError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly notServed: boolean,
  ) {
    super(message);
  }
}

/**
 * The check of an etcd server's certificate against the host dialled: its own name, or, for a fully qualified
 * in-cluster name (`<service>.<namespace>.svc.<cluster domain>`, how the hook names a cluster's client Service), the
 * same name up to `.svc`, which is what etcd-operator's guide puts into certificates. Both name the same Service of
 * the same namespace, and the certificate is still one the cluster's CA signed (the chain is verified first).
 */
export function inClusterIdentity(host: string, cert: PeerCertificate): Error | undefined {
  const own = checkServerIdentity(host, cert);
  const at = host.toLowerCase().lastIndexOf('.svc.');
  if (!own || at < 0) return own;
  return checkServerIdentity(host.slice(0, at + '.svc'.length), cert) ? own : undefined;
}

/** The most bytes of a JSON answer (status, errors) read; the snapshot itself is streamed, never held. */
const MAX_JSON_BYTES = 1024 * 1024;

/**
 * The URL of a gateway call under an endpoint: the endpoint's own path kept as a prefix (an endpoint a cluster admin
 * allows as `https://gateway/tenant-a` is dialled at `https://gateway/tenant-a/v3/...`, never at the gateway's root,
 * which the allowlist did not allow). `new URL(path, base)` would drop it: `path` starts with a slash.
 */
export function underEndpoint(endpoint: string, path: string): URL {
  const target = new URL(endpoint);
  target.pathname = `${target.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  return target;
}

function post(ep: EtcdEndpoint, path: string, body: unknown, timeoutMs: number): Promise<IncomingMessage> {
  const target = underEndpoint(ep.url, path);
  const payload = JSON.stringify(body);
  const doRequest = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = doRequest(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        ...(ep.agent ? { agent: ep.agent } : {}),
        ...(target.protocol === 'https:' ? { ...ep.tls, checkServerIdentity: inClusterIdentity } : {}),
      },
      (res) => {
        if ((res.statusCode ?? 0) !== 200) {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if ((size += c.length) <= 4096) chunks.push(c);
          });
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let notServed = res.statusCode === 404;
            try {
              notServed &&= typeof (parseJson(text) as { code?: unknown }).code !== 'number';
            } catch {
              // plain text: not etcd's own error
            }
            reject(
              new HttpStatusError(
                `${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`,
                res.statusCode ?? 0,
                notServed,
              ),
            );
          });
          return;
        }
        resolve(res);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${path}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

async function json(ep: EtcdEndpoint, path: string, timeoutMs: number, body: unknown = {}): Promise<any> {
  const res = await post(ep, path, body, timeoutMs);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of res) {
    if ((size += (c as Buffer).length) > MAX_JSON_BYTES) {
      res.destroy();
      throw new Error(`${path}: answer larger than ${MAX_JSON_BYTES} bytes`);
    }
    chunks.push(c as Buffer);
  }
  return parseJson(Buffer.concat(chunks).toString());
}

/**
 * A call under the gateway prefix this endpoint serves (/v3 on 3.4+, /v3beta on 3.3, /v3alpha before): found on
 * the first call by trying each in turn (a path etcd does not serve is a plain-text 404), then kept.
 */
async function gatewayJson(ep: EtcdEndpoint, path: string, timeoutMs: number): Promise<any> {
  for (const prefix of ep.prefix ? [ep.prefix] : GATEWAY_PREFIXES) {
    try {
      const body = await json(ep, prefix + path, timeoutMs);
      ep.prefix = prefix;
      return body;
    } catch (err) {
      if (!(err instanceof HttpStatusError && err.notServed)) throw err;
    }
  }
  throw new Error(`${ep.url} serves no v3 gateway (${GATEWAY_PREFIXES.join(', ')})`);
}

/**
 * etcd's HashKV at `revision` (3.3+): the hash of its key-value history up to that revision, and the compact revision
 * it counts from; or why there is none (compacted past it, not served before 3.3, no answer). Under the prefix the
 * status call found.
 */
async function hashKv(ep: EtcdEndpoint, revision: number, timeoutMs: number): Promise<KvHash | string> {
  try {
    const body = await json(ep, `${ep.prefix ?? '/v3'}/maintenance/hashkv`, timeoutMs, { revision: String(revision) });
    const hash = body?.hash;
    const compact = body?.compact_revision;
    if (
      (typeof hash !== 'number' && typeof hash !== 'string') ||
      (compact !== undefined && typeof compact !== 'string')
    )
      return 'etcd gave no HashKV';
    // etcd leaves compact_revision out while it is 0 (JSON of a proto default); hash likewise.
    return { hash: String(hash), compact: compact ?? '0' };
  } catch (err) {
    return `etcd gave no HashKV at revision ${revision} (${(err as Error).message.replace(/\s+/g, ' ').trim().slice(0, 160)})`;
  }
}

/**
 * The alarms etcd holds (its Maintenance Alarm GET, under the prefix the status call found): their kinds, each once,
 * in the order listed; or why they could not be read.
 */
async function alarmsOf(ep: EtcdEndpoint, timeoutMs: number): Promise<string[] | { why: string }> {
  try {
    const body = await json(ep, `${ep.prefix ?? '/v3'}/maintenance/alarm`, timeoutMs, { action: 'GET' });
    const listed: unknown[] = Array.isArray(body?.alarms) ? body.alarms.slice(0, 64) : [];
    const kinds = listed
      .map((a) => (a as { alarm?: unknown } | null)?.alarm)
      .filter((k): k is string => typeof k === 'string' && /^[A-Z]{1,16}$/.test(k) && k !== 'NONE');
    return [...new Set(kinds)];
  } catch (err) {
    return { why: (err as Error).message.replace(/\s+/g, ' ').trim().slice(0, 160) };
  }
}

/**
 * Why a periodic run prunes nothing because of etcd's alarms, or undefined when it may prune: never destroy on doubt.
 * Under an alarm other than NOSPACE (CORRUPT: etcd's corruption check found a member whose data disagrees, and the
 * snapshot may be of that member's data) a snapshot replaces none taken before; so too when the alarms could not be
 * read. NOSPACE (a backend at its quota) says nothing against the data: pruning goes on under it.
 */
export function alarmsStopPruning(alarms: string[] | { why: string }): string | undefined {
  if (!Array.isArray(alarms)) return `etcd's alarms could not be read (${alarms.why}): nothing pruned`;
  const doubt = alarms.filter((a) => a !== 'NOSPACE');
  if (doubt.length === 0) return undefined;
  return `etcd holds the ${doubt.join(', ')} alarm${doubt.length > 1 ? 's' : ''}${doubt.includes('CORRUPT') ? " (its corruption check found a member whose data disagrees: this snapshot may be of that member's data)" : ''}: nothing pruned, every earlier snapshot kept`;
}

/**
 * etcd's alarms at a periodic run, read before its snapshot and again once it streamed whole (before any prune):
 * whether they stop pruning (why, in `problems`), and the metadata that records them on the snapshot (`META.alarms`,
 * when etcd holds any). etcd's corruption check runs on its own clock, and a snapshot of a large backend streams for
 * minutes: a CORRUPT alarm raised meanwhile stops pruning as one raised before. The second read is made before the
 * upload completes, so a snapshot written in one part (up to PART_SIZE) records what either read found; one written
 * in parts was given its metadata as its upload began (the first read's), and the run's result says the later alarm.
 */
class AlarmReads {
  readonly meta: Record<string, string> = {};
  private before: string[] | { why: string } = [];
  private after: string[] | { why: string } | undefined;
  constructor(
    private readonly t: Target,
    private readonly timeoutMs: number,
  ) {}

  /** The read before the snapshot. */
  async first(): Promise<void> {
    this.before = await alarmsOf(this.t.ep, this.timeoutMs);
    this.record(this.before);
  }

  /** The read once the snapshot streamed whole, recorded in `metadata` (the object the upload is given). */
  async again(metadata: Record<string, string>): Promise<void> {
    this.after = await alarmsOf(this.t.ep, this.timeoutMs);
    this.record(this.after);
    Object.assign(metadata, this.meta);
  }

  /** Whether the alarms either read found stop pruning: why is said in `problems`, once (by the first that found it). */
  stop(problems: string[]): boolean {
    const before = alarmsStopPruning(this.before);
    if (before) problems.push(before);
    // (A snapshot written was streamed whole, so read again: `after` is unset only on a path that prunes nothing.)
    // Stryker disable next-line StringLiteral: unreachable once written; said as doubt all the same
    const after = before ? undefined : alarmsStopPruning(this.after ?? { why: 'not read again' });
    if (after) problems.push(`once the snapshot streamed, ${after}`);
    return Boolean(before ?? after);
  }

  private record(alarms: string[] | { why: string }): void {
    if (!Array.isArray(alarms) || alarms.length === 0) return;
    const known = this.meta[META.alarms]?.split(',') ?? [];
    this.meta[META.alarms] = [...new Set([...known, ...alarms])].join(',');
  }
}

/** The chunks of `stream`, then `after` awaited once they are all read (before the upload that reads them completes). */
async function* thenAfter(stream: AsyncIterable<Buffer>, after?: () => Promise<void>): AsyncGenerator<Buffer> {
  yield* stream;
  await after?.();
}

/** The first 12 hex of a sha256 (of a key's name or value, as etcd gives them: base64). */
function digest12(base64: unknown): string {
  return createHash('sha256')
    .update(Buffer.from(typeof base64 === 'string' ? base64 : '', 'base64'))
    .digest('hex')
    .slice(0, 12);
}

/** The whole key space, as the gateway takes a range: from "\0" to "\0" (every key). */
const ALL_KEYS = { key: 'AA==', range_end: 'AA==' };

interface GatewayKv {
  key?: unknown;
  value?: unknown;
  create_revision?: unknown;
  mod_revision?: unknown;
  version?: unknown;
}

/** The keys of a range answer (keys only: no value read). */
async function rangeKeys(ep: EtcdEndpoint, body: Record<string, unknown>, timeoutMs: number): Promise<GatewayKv[]> {
  const answer = await json(ep, `${ep.prefix ?? '/v3'}/kv/range`, timeoutMs, { ...body, keys_only: true });
  return Array.isArray(answer?.kvs) ? (answer.kvs as GatewayKv[]) : [];
}

/** The digest of one key's value at `revision` (0: now), or undefined when it has none there. */
async function valueDigest(ep: EtcdEndpoint, key: unknown, revision: number, timeoutMs: number) {
  const answer = await json(ep, `${ep.prefix ?? '/v3'}/kv/range`, timeoutMs, {
    key,
    ...(revision ? { revision: String(revision) } : {}),
  });
  const kv = (Array.isArray(answer?.kvs) ? answer.kvs[0] : undefined) as GatewayKv | undefined;
  return kv ? digest12(kv.value) : undefined;
}

function witnessOf(kv: GatewayKv, value: string): WitnessKey {
  return {
    create: Number(kv.create_revision ?? 0),
    mod: Number(kv.mod_revision ?? 0),
    version: Number(kv.version ?? 0),
    key: digest12(kv.key),
    value,
  };
}

/**
 * The keys recorded with a snapshot at `revision` for the next backup to prove the same history by, after any
 * compaction (lineage.ts, WitnessKey): the oldest-created live keys (they outlive most writes) and the newest
 * modified (another history cannot have them at those revisions), MAX_WITNESSES in all. Or why there are none.
 */
async function witnessesAt(ep: EtcdEndpoint, revision: number, timeoutMs: number): Promise<Witnesses | string> {
  try {
    const half = MAX_WITNESSES / 2;
    const at = { ...ALL_KEYS, revision: String(revision), limit: String(half) };
    const oldest = await rangeKeys(ep, { ...at, sort_order: 'ASCEND', sort_target: 'CREATE' }, timeoutMs);
    const newest = await rangeKeys(ep, { ...at, sort_order: 'DESCEND', sort_target: 'MOD' }, timeoutMs);
    const out: WitnessKey[] = [];
    for (const kv of [...oldest, ...newest]) {
      if (out.some((w) => w.key === digest12(kv.key) && w.create === Number(kv.create_revision))) continue;
      const value = await valueDigest(ep, kv.key, revision, timeoutMs).catch(() => undefined);
      if (value) out.push(witnessOf(kv, value));
    }
    // Every key modified above the newest ones' lowest modification is among them (fewer than asked: every key).
    const lowest = Math.min(...newest.map((kv) => Number(kv.mod_revision ?? 0)));
    const above = newest.length < half ? 0 : lowest;
    const recordedAll = newest.every((kv) =>
      out.some((w) => w.key === digest12(kv.key) && w.create === Number(kv.create_revision)),
    );
    if (out.length === 0) return 'etcd holds no key to prove this snapshot by';
    return { keys: out, ...(recordedAll && Number.isFinite(above) ? { above } : {}) };
  } catch (err) {
    return `etcd gave no keys at revision ${revision} (${(err as Error).message.replace(/\s+/g, ' ').trim().slice(0, 160)})`;
  }
}

/** The keys recorded with a snapshot, and the revision above which every key it held is among them. */
interface Witnesses {
  keys: WitnessKey[];
  above?: number;
}

/** The live keys last modified in (above, revision] (keys only), or why they could not be read. */
async function keysModifiedIn(
  ep: EtcdEndpoint,
  above: number,
  revision: number,
  timeoutMs: number,
): Promise<FoundKey[] | string> {
  try {
    const kvs = await rangeKeys(
      ep,
      {
        ...ALL_KEYS,
        min_mod_revision: String(above + 1),
        max_mod_revision: String(revision),
        limit: String(MAX_WITNESSES + 1),
      },
      timeoutMs,
    );
    return kvs.map((kv) => witnessOf(kv, ''));
  } catch (err) {
    return `etcd gave no keys modified up to revision ${revision} (${(err as Error).message.replace(/\s+/g, ' ').trim().slice(0, 160)})`;
  }
}

/**
 * The live keys created at each recorded key's creation revision (keys only; the value read only where the key is
 * unchanged since), or why they could not be read.
 */
async function keysNow(
  ep: EtcdEndpoint,
  recorded: WitnessKey[],
  timeoutMs: number,
): Promise<Array<FoundKey[] | string>> {
  const out: Array<FoundKey[] | string> = [];
  for (const w of recorded) {
    try {
      const created = String(w.create);
      const kvs = await rangeKeys(
        ep,
        { ...ALL_KEYS, min_create_revision: created, max_create_revision: created, limit: '64' },
        timeoutMs,
      );
      const found: FoundKey[] = [];
      for (const kv of kvs) {
        const k = witnessOf(kv, '');
        if (k.key !== w.key) continue;
        if (k.mod === w.mod) k.value = (await valueDigest(ep, kv.key, 0, timeoutMs)) ?? '';
        found.push(k);
      }
      out.push(found);
    } catch (err) {
      out.push(
        `etcd gave no keys created at revision ${w.create} (${(err as Error).message.replace(/\s+/g, ' ').trim().slice(0, 160)})`,
      );
    }
  }
  return out;
}

/** The longest message of a snapshot stream read (etcd's carry 32 KiB of snapshot each, 44 KiB in base64). */
const MAX_SNAPSHOT_LINE = 8 * 1024 * 1024;

/** What went wrong on etcd's side of a snapshot (not S3's): an error message, a stream cut short, another cluster. */
export class SnapshotStreamError extends Error {}

/**
 * The snapshot as a byte stream, from the gateway's /v3/maintenance/snapshot (newline-separated JSON
 * messages, each with a base64 `blob`), without holding it in memory. etcd ends a whole snapshot with the sha256 of
 * the bytes before it (its Snapshot RPC's last message; etcdutl snapshot restore, and the restore check,
 * hooks/etcdcommon/snapshot.ts, refuse a snapshot without it): when the stream ends, that trailer is checked, and a
 * stream that ended without it (cut short by a proxy or a member that closed the response as if complete) throws
 * after its last bytes, before the upload that reads it completes: nothing is written, nothing pruned over it.
 */
export async function* snapshotStream(ep: EtcdEndpoint, timeoutMs: number): AsyncGenerator<Buffer> {
  const trailer = new SnapshotTrailer();
  const res = await post(ep, `${ep.prefix ?? '/v3'}/maintenance/snapshot`, {}, timeoutMs);
  let pending = '';
  try {
    for await (const chunk of res) {
      pending += (chunk as Buffer).toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (line) yield checked(decodeMessage(line, ep.clusterId), trailer);
      }
      if (pending.length > MAX_SNAPSHOT_LINE)
        throw new SnapshotStreamError(
          `snapshot: etcd's answer holds a message longer than ${MAX_SNAPSHOT_LINE} characters (etcd sends 32 KiB at a time): it is not written`,
        );
    }
    if (pending.trim()) yield checked(decodeMessage(pending.trim(), ep.clusterId), trailer);
  } catch (err) {
    if (err instanceof SnapshotStreamError) throw err;
    // The connection failed mid-stream (reset, closed, timed out), or etcd's answer was not its messages.
    throw new SnapshotStreamError(
      `snapshot: the stream from etcd broke after ${trailer.size} bytes (${(err as Error).message}): it is not written`,
    );
  }
  if (!trailer.intact())
    throw new SnapshotStreamError(
      `snapshot: the stream from etcd ended after ${trailer.size} bytes without the sha256 etcd ends a whole snapshot with (cut short): it is not written`,
    );
}

function checked(bytes: Buffer, trailer: SnapshotTrailer): Buffer {
  trailer.update(bytes);
  return bytes;
}

function decodeMessage(line: string, clusterId: string | undefined): Buffer {
  const msg = parseJson(line) as {
    result?: { blob?: string; header?: { cluster_id?: unknown } };
    error?: { message?: string };
  };
  if (msg.error) throw new SnapshotStreamError(`snapshot: ${msg.error.message ?? 'error'}`);
  // A message that names its cluster names the one expected: else the snapshot is of another, and is not written.
  const header = msg.result?.header;
  if (clusterId && header?.cluster_id !== undefined && clusterIdOf({ header }) !== clusterId)
    throw new SnapshotStreamError(
      `snapshot: answered by etcd cluster ${clusterIdOf({ header })}, not ${clusterId}: another cluster's snapshot is not written`,
    );
  return Buffer.from(msg.result?.blob ?? '', 'base64');
}

/**
 * Uploads a stream with its metadata: one PutObject when it fits in a part, else a multipart upload (aborted on
 * failure). `onlyIfAbsent`: the write is conditional (`If-None-Match: *` on the PutObject, or on the
 * CompleteMultipartUpload): S3 answers 412 PreconditionFailed, and writes nothing, when the key exists by then, so of
 * two writers of one key the first wins and the second learns it (precondition()).
 */
export async function upload(
  s3: S3Client,
  bucket: string,
  key: string,
  chunks: AsyncIterable<Buffer>,
  { metadata = {}, onlyIfAbsent = false }: { metadata?: Record<string, string>; onlyIfAbsent?: boolean } = {},
): Promise<number> {
  const condition = onlyIfAbsent ? { IfNoneMatch: '*' } : {};
  let buffer: Buffer[] = [];
  let buffered = 0;
  let total = 0;
  let uploadId: string | undefined;
  const parts: Array<{ ETag: string; PartNumber: number }> = [];
  const flush = async () => {
    const body = Buffer.concat(buffer, buffered);
    buffer = [];
    buffered = 0;
    if (!uploadId) {
      uploadId = (await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, Metadata: metadata })))
        .UploadId!;
    }
    const partNumber = parts.length + 1;
    const res = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: body }),
    );
    parts.push({ ETag: res.ETag!, PartNumber: partNumber });
  };
  try {
    for await (const chunk of chunks) {
      buffer.push(chunk);
      buffered += chunk.length;
      total += chunk.length;
      if (buffered >= PART_SIZE) await flush();
    }
    if (!uploadId) {
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: Buffer.concat(buffer, buffered),
          Metadata: metadata,
          ...condition,
        }),
      );
      return total;
    }
    if (buffered > 0) await flush();
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
        ...condition,
      }),
    );
    return total;
  } catch (err) {
    if (uploadId)
      await s3
        .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
        .catch(() => undefined);
    throw err;
  }
}

/** The most keys listed under a path, and the most snapshots whose metadata one run reads. */
export const MAX_LISTED = 10_000;
export const MAX_EXAMINED = 500;
/** Metadata reads at once. */
const HEAD_CONCURRENCY = 8;

/** Who takes the backup: the EtcdBackup's UID (its lineage, tenancy.ts and lineage.ts) and `<namespace>/<name>`. */
export interface BackupIdentity {
  uid: string;
  name: string;
}

function httpStatus(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function notFound(err: unknown): boolean {
  const name = (err as { name?: string }).name;
  return name === 'NotFound' || name === 'NoSuchKey' || httpStatus(err) === 404;
}

/**
 * Whether a conditional write lost to another writer of the key: 412 PreconditionFailed (the key exists), or 409
 * ConditionalRequestConflict (S3: another conditional write of the key was in flight).
 */
export function precondition(err: unknown): boolean {
  const name = (err as { name?: string }).name;
  const status = httpStatus(err);
  return name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || status === 412 || status === 409;
}

/** An object's metadata; undefined when there is no such object. Other failures throw. */
async function head(s3: S3Client, bucket: string, key: string): Promise<Record<string, string> | undefined> {
  try {
    const res = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return res.Metadata ?? {};
  } catch (err) {
    if (notFound(err)) return undefined;
    throw err;
  }
}

/**
 * Why a listing ends cut short after this page, if it does. Truncated unless S3 says plainly it is not: a page that
 * says more follow and gives no token to ask for them has not given the whole path, and a listing taken as whole
 * would prune from a part of it. A page that gives no key, or the token it was asked with, would be asked again for
 * ever (and the backup lists before it writes): the listing ends there.
 */
function cutShort(
  where: string,
  o: { page: { IsTruncated?: boolean; Contents?: unknown[] }; asked?: string; token?: string; listed: number },
): string | undefined {
  if (o.page.IsTruncated && !o.token)
    return `S3 said the listing of ${where} goes on but gave no continuation token to read the rest`;
  if (!o.token) return undefined;
  if (o.token === o.asked || (o.page.Contents ?? []).length === 0)
    return `S3 answered a page of the listing of ${where} that does not move it on (${o.token === o.asked ? 'the same continuation token again' : 'no key, yet more to follow'})`;
  return o.listed >= MAX_LISTED ? `more than ${MAX_LISTED} objects under ${where}` : undefined;
}

/**
 * The periodic snapshots of a path, newest first; `truncated` (with why, in `why`) when the listing is not known to
 * be the whole path: more than MAX_LISTED keys, or a page that said more follow (IsTruncated) without a
 * NextContinuationToken to ask for them (an S3-compatible store or proxy that gives only NextMarker, or nothing), or
 * one that does not move the listing on (cutShort).
 */
export async function listSnapshots(
  s3: S3Client,
  bucket: string,
  base: string,
): Promise<{ snapshots: Snapshot[]; truncated: boolean; why?: string }> {
  // By key: a listing that names one key twice (overlapping pages of an S3-compatible store, a continuation that
  // repeats the last key of a page) still lists one snapshot, which must not count twice against maxBackups.
  const snapshots = new Map<string, Snapshot>();
  let listed = 0;
  let token: string | undefined;
  let why: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${base}_v`, ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const o of page.Contents ?? []) {
      listed++;
      const s = o.Key ? periodicSnapshot(base, o.Key) : undefined;
      if (s && !snapshots.has(s.key)) snapshots.set(s.key, s);
    }
    const asked = token;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
    why = cutShort(`s3://${bucket}/${base}_v`, { page, asked, token, listed });
  } while (token && !why);
  return {
    snapshots: [...snapshots.values()].sort(newestFirst),
    truncated: why !== undefined,
    ...(why ? { why } : {}),
  };
}

/**
 * Reads the metadata of these snapshots (a few at a time); one that cannot be read gets `null`: no one's (and is
 * marked `unreadable` unless it was only gone since it was listed).
 */
async function examine(s3: S3Client, bucket: string, snapshots: Snapshot[]): Promise<void> {
  for (let i = 0; i < snapshots.length; i += HEAD_CONCURRENCY) {
    await Promise.all(
      snapshots.slice(i, i + HEAD_CONCURRENCY).map(async (s) => {
        try {
          s.meta = (await head(s3, bucket, s.key)) ?? null;
        } catch {
          s.meta = null;
          s.unreadable = true;
        }
      }),
    );
  }
}

/**
 * Why the lineage of the snapshot just written cannot be read back from S3 (the store dropped its metadata, or the
 * read failed); undefined when it reads back as written.
 */
async function lineageNotKept(
  s3: S3Client,
  bucket: string,
  key: string,
  lineage: Lineage,
): Promise<string | undefined> {
  let meta: Record<string, string> | undefined;
  try {
    meta = await head(s3, bucket, key);
  } catch (err) {
    return `the snapshot just written could not be read back to check its lineage (${awsMessage(err)})`;
  }
  if (sameLineage(lineageOf(meta), lineage)) return undefined;
  return `S3 gave the snapshot just written back without the lineage metadata it was written with (x-amz-meta-${META.uid}, -${META.cluster}, -${META.since}): this store does not keep object metadata, so no snapshot can be proven this EtcdBackup's`;
}

/**
 * The snapshot this EtcdBackup wrote last (lineage.ts previousOf), for a run whose clock stamps `now`: read newest
 * first by stamp in batches within the budget, until one of its own not stamped ahead of `now` is found (those ahead
 * are read on the way: one of them may be the lineage's highest revision). Undefined when none is among the first
 * MAX_EXAMINED.
 */
async function previousOwn(
  s3: S3Client,
  bucket: string,
  snapshots: Snapshot[],
  o: { uid: string; now: string },
): Promise<{ previous: Snapshot | undefined; examined: number }> {
  let examined = 0;
  while (examined < Math.min(snapshots.length, MAX_EXAMINED)) {
    const batch = snapshots.slice(examined, Math.min(examined + HEAD_CONCURRENCY, MAX_EXAMINED));
    await examine(s3, bucket, batch);
    examined += batch.length;
    if (batch.some((s) => s.meta?.[META.uid] === o.uid && s.stamp <= o.now)) break;
  }
  return { previous: previousOf(snapshots.slice(0, examined), o.uid, o.now), examined };
}

/**
 * Prunes the lineage a snapshot was just written to: reads the metadata of the snapshots stamped from the lineage's
 * floor on (the earliest stamp its snapshots carry, lineage.ts floorOf: older ones cannot be of it), within the
 * budget, and deletes those of the lineage beyond the `max` highest revisions. A snapshot of the lineage at a higher
 * revision than the one just written (`revision`) says the revision went back: nothing is pruned (`wentBack`).
 * Returns the keys deleted; throws what S3 said if a call failed (the keys deleted until then in `deleted`).
 */
async function pruneLineage(
  s3: S3Client,
  bucket: string,
  snapshots: Snapshot[],
  o: { lineage: Lineage; floor: string; revision: number; max: number; written: string; deleted: string[] },
): Promise<{ failed: number; wentBack?: Snapshot }> {
  const { lineage, max, written, deleted } = o;
  const from = o.floor < lineage.since ? o.floor : lineage.since;
  const window = snapshots.filter((s) => s.stamp >= from && s.key !== written).slice(0, MAX_EXAMINED);
  await examine(
    s3,
    bucket,
    window.filter((s) => s.meta === undefined),
  );
  const wentBack = window.find((s) => sameLineage(lineageOf(s.meta), lineage) && s.revision > o.revision);
  if (wentBack) return { failed: window.filter((s) => s.unreadable).length, wentBack };
  for (const key of toPrune(window, lineage, max, written)) {
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    deleted.push(key);
  }
  // (Those whose read failed, here or in previousOwn: kept, whatever lineage they are of.)
  return { failed: window.filter((s) => s.unreadable).length };
}

export interface BackupOptions {
  endpoints: string[];
  path: string;
  periodic: boolean;
  maxBackups: number;
  timeoutMs: number;
  s3: S3Client;
  tls?: TlsFiles;
  now?: () => Date;
  /** The EtcdBackup taking it; without one (a Job of an older hook) nothing is pruned and no one-off is checked. */
  backup?: BackupIdentity;
  /**
   * Keys of snapshots never pruned (the hook names those an unfinished EtcdRestore of the namespace restores), or
   * 'all' when there were more than it names: then nothing is pruned.
   */
  spare?: readonly string[] | 'all';
  /**
   * A periodic backup whose interval no cron schedule keeps (longer than a day: its CronJob fires hourly): the run
   * takes a snapshot only when no snapshot of this EtcdBackup under the path is younger than this (tooSoon).
   */
  minIntervalSeconds?: number;
  /**
   * The etcd cluster ID (hex) an endpoint must answer with, by endpoint: the one its EtcdCluster records. An endpoint
   * that answers with another, or with none, is not snapshotted (a Service that selects another cluster's pods, a
   * name that resolves elsewhere). An endpoint not named here (one a cluster admin allows) is not checked.
   */
  clusterIds?: Record<string, string>;
}

/**
 * etcd's cluster ID (a uint64 the gateway gives as a decimal string) in hex, as etcdctl prints it; `unknown` when
 * the answer has none (the lineage then rests on the EtcdBackup and the revision alone).
 */
export function clusterIdOf(status: any): string {
  const raw = status?.header?.cluster_id;
  try {
    const id = BigInt(String(raw));
    return id > 0n ? id.toString(16) : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Whether a periodic run must take no snapshot because this EtcdBackup took one less than `minIntervalSeconds` ago:
 * a result saying so (skipped), or a failure when that cannot be told; undefined when a snapshot may be taken. S3 is
 * the record, not the hook's status (lost with it, or with a hook restarted): the snapshots under the path whose
 * names date them inside the interval are read (their metadata names their EtcdBackup), newest first. One whose
 * metadata cannot be read could be this EtcdBackup's, and a listing cut short could hide one: no snapshot then.
 * A name dated after `now` (stamped by a node whose clock ran ahead) is not inside the interval: the clock rule.
 */
async function tooSoon(o: BackupOptions, bucket: string, base: string, now: Date): Promise<BackupResult | undefined> {
  const interval = o.minIntervalSeconds ?? 0;
  if (!o.periodic || !o.backup || interval <= 0) return undefined;
  const since = now.getTime() - interval * 1000;
  const cannot = (why: string): BackupResult => ({
    succeeded: false,
    reason: `no snapshot taken: whether this EtcdBackup took one in the last ${interval}s (its interval) cannot be told: ${why}`,
  });
  let listed: { snapshots: Snapshot[]; truncated: boolean };
  try {
    listed = await listSnapshots(o.s3, bucket, base);
  } catch (err) {
    return cannot(`the snapshots under s3://${bucket}/${base} could not be listed (${awsMessage(err)})`);
  }
  if (listed.truncated) return cannot(`more than ${MAX_LISTED} objects under s3://${bucket}/${base}_v`);
  // A stamp ahead of this run's clock was written by a node whose clock ran ahead: evidence of nothing (it would
  // hold every run off until real time passed it), so not read as recent.
  const recent = listed.snapshots.filter((s) => {
    const at = Date.parse(dateOfStamp(s.stamp));
    return at > since && at <= now.getTime();
  });
  if (recent.length > MAX_EXAMINED) return cannot(`more than ${MAX_EXAMINED} snapshots in that time`);
  for (let i = 0; i < recent.length; i += HEAD_CONCURRENCY) {
    const batch = recent.slice(i, i + HEAD_CONCURRENCY);
    await examine(o.s3, bucket, batch);
    const own = batch.find((s) => s.meta?.[META.uid] === o.backup!.uid);
    if (own) {
      const taken = Date.parse(dateOfStamp(own.stamp));
      return {
        succeeded: true,
        skipped: `the newest snapshot of this EtcdBackup, s3://${bucket}/${own.key}, is younger than its interval (${interval}s): the next is due from ${new Date(taken + interval * 1000).toISOString()}`,
      };
    }
    const unreadable = batch.find((s) => s.unreadable);
    if (unreadable) return cannot(`the metadata of s3://${bucket}/${unreadable.key} could not be read`);
  }
  return undefined;
}

/**
 * One backup: the first endpoint that answers is snapshotted into S3. Never throws: failures are results. The result
 * fits a termination message (fitted), where the EtcdBackup hook reads it.
 */
export async function runBackup(o: BackupOptions): Promise<BackupResult> {
  return fitted(await backupRun(o));
}

async function backupRun(o: BackupOptions): Promise<BackupResult> {
  let bucket: string;
  let baseKey: string;
  try {
    ({ bucket, key: baseKey } = splitPath(o.path));
  } catch (err) {
    return { succeeded: false, reason: (err as Error).message };
  }
  const early = await tooSoon(o, bucket, baseKey, (o.now ?? (() => new Date()))());
  if (early) return early;
  const errors: string[] = [];
  for (const url of o.endpoints) {
    const expected = o.clusterIds?.[url];
    const ep: EtcdEndpoint = {
      url,
      ...(o.tls ? { tls: o.tls } : {}),
      ...(expected ? { clusterId: expected.toLowerCase() } : {}),
      agent: url.startsWith('https:')
        ? new HttpsAgent({ keepAlive: true, maxSockets: 1 })
        : new HttpAgent({ keepAlive: true, maxSockets: 1 }),
    };
    try {
      const result = await backupFrom(o, ep, bucket, baseKey, errors);
      if (result) return result;
    } finally {
      ep.agent?.destroy();
    }
  }
  return { succeeded: false, reason: `no etcd endpoint could be snapshotted: ${errors.join('; ')}` };
}

/**
 * The backup from one endpoint: undefined (and why, in `errors`) when it does not answer, or answers as another etcd
 * cluster than the one expected (ep.clusterId); else the backup's result.
 */
async function backupFrom(
  o: BackupOptions,
  ep: EtcdEndpoint,
  bucket: string,
  baseKey: string,
  errors: string[],
): Promise<BackupResult | undefined> {
  const url = ep.url;
  {
    let status: any;
    try {
      status = await gatewayJson(ep, '/maintenance/status', o.timeoutMs);
    } catch (err) {
      errors.push(`${url}: ${awsMessage(err)}`);
      return undefined;
    }
    if (ep.clusterId && clusterIdOf(status) !== ep.clusterId) {
      errors.push(
        `${url} answered as etcd cluster ${clusterIdOf(status)}, not ${ep.clusterId} (the cluster ID its EtcdCluster records in status.clusterID): not snapshotted`,
      );
      return undefined;
    }
    // This endpoint answered: the backup is taken from it, and whatever happens next is its result (no other
    // endpoint is tried: a second snapshot would be written, or pruned over).
    const at = {
      bucket,
      baseKey,
      ep,
      cluster: {
        revision: Number(status?.header?.revision ?? 0),
        version: String(status?.version ?? ''),
        clusterId: clusterIdOf(status),
      },
    };
    return o.periodic ? periodicBackup(o, at) : oneOffBackup(o, at);
  }
}

interface Target {
  bucket: string;
  baseKey: string;
  ep: EtcdEndpoint;
  cluster: { revision: number; version: string; clusterId: string };
}

function metadataOf(
  o: BackupOptions,
  t: Target,
  lineage: { since: string; floor?: string },
  taken: Date,
  mark: Mark = {},
): Record<string, string> {
  return {
    ...(o.backup ? { [META.uid]: o.backup.uid, [META.backup]: o.backup.name } : {}),
    [META.cluster]: t.cluster.clusterId,
    [META.revision]: String(t.cluster.revision),
    [META.version]: t.cluster.version,
    [META.since]: lineage.since,
    // (Recorded only below the start: absent, it is the start.)
    ...(lineage.floor && lineage.floor < lineage.since ? { [META.floor]: lineage.floor } : {}),
    [META.taken]: taken.toISOString(),
    ...(mark.hash ? { [META.hash]: mark.hash.hash, [META.compact]: mark.hash.compact } : {}),
    ...(mark.keys ? { [META.witness]: encodeWitnesses(mark.keys.keys) } : {}),
    ...(mark.keys?.above !== undefined ? { [META.window]: String(mark.keys.above) } : {}),
  };
}

/**
 * Streams the snapshot to `key`, only if no object is there (a backup never overwrites a snapshot, even one written
 * by another backup between its check and its write); a failed result, 'taken' when another writer's object got
 * there first, or the size written.
 */
async function write(
  o: BackupOptions,
  t: Target,
  key: string,
  metadata: Record<string, string>,
  streamed?: () => Promise<void>,
): Promise<BackupResult | number | 'taken'> {
  try {
    const chunks = thenAfter(snapshotStream(t.ep, o.timeoutMs), streamed);
    return await upload(o.s3, t.bucket, key, chunks, { metadata, onlyIfAbsent: true });
  } catch (err) {
    if (precondition(err)) return 'taken';
    return {
      succeeded: false,
      reason:
        err instanceof SnapshotStreamError
          ? `no snapshot written to s3://${t.bucket}/${key}: ${err.message}`
          : `upload to s3://${t.bucket}/${key} failed: ${awsMessage(err)}`,
      etcdVersion: t.cluster.version,
      etcdRevision: t.cluster.revision,
    };
  }
}

/**
 * A one-off backup writes the path's key once: an object already there is never overwritten. One this
 * EtcdBackup wrote is its result (the Job ran again: its record was lost); another's, or one it cannot read, is a
 * failure that says whose it is.
 */
async function oneOffBackup(o: BackupOptions, t: Target): Promise<BackupResult> {
  const now = (o.now ?? (() => new Date()))();
  const key = t.baseKey;
  let existing: Record<string, string> | undefined;
  try {
    existing = o.backup ? await head(o.s3, t.bucket, key) : undefined;
  } catch (err) {
    // Write-only credentials (PutObject, no GetObject): a 403 on HEAD says nothing of the key. The write below is
    // conditional (If-None-Match: *), which alone keeps an object already there from being overwritten.
    if (httpStatus(err) !== 403)
      return {
        succeeded: false,
        reason: `s3://${t.bucket}/${key} could not be checked before writing (a one-off backup never overwrites a snapshot): ${awsMessage(err)}`,
      };
    existing = undefined;
  }
  if (existing) return existingOneOff(o, t, key, existing);
  const size = await write(o, t, key, metadataOf(o, t, { since: stampOf(now) }, now));
  if (size === 'taken') {
    // Another backup wrote the key between the check and this write (two at once on one path): its object stays,
    // and it is said whose it is (or, ours after all: a run of this EtcdBackup raced itself).
    let winner: Record<string, string> | undefined;
    try {
      winner = await head(o.s3, t.bucket, key);
    } catch {
      winner = undefined;
    }
    return existingOneOff(o, t, key, winner ?? {});
  }
  if (typeof size !== 'number') return size;
  return written(t, key, size, now);
}

/** A snapshot of the cluster `t` names, written at `key` (`size` bytes) at `now`: the backup succeeded. */
function written(t: Target, key: string, size: number, now: Date): BackupResult {
  return {
    succeeded: true,
    etcdVersion: t.cluster.version,
    etcdRevision: t.cluster.revision,
    clusterId: t.cluster.clusterId,
    bucket: t.bucket,
    key,
    size,
    lastSuccessDate: now.toISOString(),
  };
}

/** Whether a cluster ID (hex) is one etcd gave (not `unknown`). */
const knownId = (id: string) => /^[0-9a-f]{1,16}$/.test(id);

/**
 * A one-off backup's key holds an object: this EtcdBackup's own of this etcd cluster is its result (taken already);
 * its own of another cluster (both IDs known), or another's, is a failure that says whose it is.
 */
function existingOneOff(o: BackupOptions, t: Target, key: string, existing: Record<string, string>): BackupResult {
  const held = existing[META.cluster];
  if (o.backup && existing[META.uid] === o.backup.uid && held && knownId(held) && knownId(t.cluster.clusterId))
    if (held !== t.cluster.clusterId)
      // Its own snapshot, but of another etcd cluster (clusterName edited, or the cluster recreated under its name):
      // no snapshot of this one, and none is written over it.
      return {
        succeeded: false,
        reason: `s3://${t.bucket}/${key} holds this EtcdBackup's snapshot of etcd cluster ${held}, not of ${t.cluster.clusterId} (the cluster it names now): a one-off backup never overwrites one (name another s3.path, or delete that object)`,
      };
  if (o.backup && existing[META.uid] === o.backup.uid) {
    const revision = Number(existing[META.revision]);
    return {
      succeeded: true,
      alreadyTaken: true,
      bucket: t.bucket,
      key,
      ...(existing[META.version] ? { etcdVersion: existing[META.version] } : {}),
      ...(Number.isFinite(revision) ? { etcdRevision: revision } : {}),
      ...(existing[META.cluster] ? { clusterId: existing[META.cluster] } : {}),
      lastSuccessDate: existing[META.taken] ?? '',
    };
  }
  const whose = existing[META.backup] ? `EtcdBackup ${existing[META.backup]}` : 'someone else';
  return {
    succeeded: false,
    reason: `s3://${t.bucket}/${key} already holds a snapshot, written by ${whose}: a one-off backup never overwrites one (name another s3.path, or delete that object)`,
  };
}

/**
 * What etcd proves of the history up to the previous snapshot of this EtcdBackup, when its lineage may go on (the
 * same cluster, a revision not gone down): the revision alone proves nothing (a cluster rebuilt with its identity
 * grows past it again), so etcd's HashKV at that revision is compared with the one the snapshot recorded.
 */
async function provenHistory(
  uid: string,
  t: Target,
  previous: Snapshot | undefined,
  timeoutMs: number,
): Promise<HistoryCheck | undefined> {
  if (!previous || !mayContinue(previous, uid, t.cluster.clusterId, t.cluster.revision)) return undefined;
  const byHash = compareHistory(previous.meta, await hashKv(t.ep, revisionOf(previous), timeoutMs));
  // The hash proves or refutes only while etcd holds the history it counted (no compaction since); past that, the
  // keys recorded with the snapshot before are what a compaction keeps.
  const recorded = parseWitnesses(previous.meta?.[META.witness]);
  if (byHash.state !== 'unproven' || recorded.length === 0) return byHash;
  const revision = revisionOf(previous);
  const above = Number(previous.meta?.[META.window] ?? NaN);
  const window =
    Number.isSafeInteger(above) && above >= 0 && above < revision
      ? { above, found: await keysModifiedIn(t.ep, above, revision, timeoutMs) }
      : undefined;
  const byKeys = judgeWitnesses(recorded, await keysNow(t.ep, recorded, timeoutMs), revision, window);
  return byKeys.state === 'unproven' ? { state: 'unproven', why: `${byHash.why}; ${byKeys.why}` } : byKeys;
}

/**
 * What the next backup asks etcd to prove: the HashKV at this snapshot's revision, and the keys etcd holds at it
 * (witnessesAt: what a compaction keeps); without either, that is said.
 */
async function markOf(t: Target, timeoutMs: number, problems: string[]): Promise<Mark> {
  const hash = await hashKv(t.ep, t.cluster.revision, timeoutMs);
  const keys = await witnessesAt(t.ep, t.cluster.revision, timeoutMs);
  if (typeof hash === 'string' && typeof keys === 'string')
    problems.push(`${hash}; ${keys}: the next backup cannot prove it continues this lineage, and prunes none of it`);
  return {
    ...(typeof hash !== 'string' ? { hash } : {}),
    ...(typeof keys !== 'string' ? { keys } : {}),
  };
}

/** What a snapshot records for the next backup to prove the same history by. */
interface Mark {
  hash?: KvHash;
  keys?: Witnesses;
}

/** The lineage a new snapshot joins (or begins, and why), and the earliest stamp its snapshots carry. */
interface Decided {
  lineage: Lineage;
  break?: LineageBreak;
  floor: string;
}

/**
 * The lineage of a snapshot this EtcdBackup (`uid`) takes at `stamp`, decided from its previous snapshot among those
 * listed (previousOwn) and what etcd proves of it; what stops pruning goes to `problems`.
 */
async function lineageAt(
  o: BackupOptions,
  t: Target,
  run: { uid: string; stamp: string },
  snapshots: Snapshot[],
  problems: string[],
): Promise<Decided> {
  const { previous, examined } = await previousOwn(o.s3, t.bucket, snapshots, { uid: run.uid, now: run.stamp });
  if (!previous && examined >= MAX_EXAMINED)
    problems.push(
      `no snapshot of this EtcdBackup among the newest ${MAX_EXAMINED}: a new lineage begins, nothing pruned`,
    );
  const history = await provenHistory(run.uid, t, previous, o.timeoutMs);
  const decided = decideLineage(previous, run.uid, t.cluster.clusterId, t.cluster.revision, run.stamp, history);
  return { ...decided, floor: floorOf(decided.lineage, run.stamp, previous) };
}

/**
 * A periodic backup: `<key>_v<revision>_<date>`, in the lineage of this EtcdBackup's previous snapshot when the same
 * cluster's revision did not go down (lineage.ts), then that lineage pruned to `maxBackups`. A listing or metadata
 * read that fails costs the pruning, never the snapshot, and never deletes on a guess.
 */
async function periodicBackup(o: BackupOptions, t: Target): Promise<BackupResult> {
  const now = (o.now ?? (() => new Date()))();
  const stamp = stampOf(now);
  let key = periodicKey(t.baseKey, t.cluster.revision, now);
  const problems: string[] = [];
  let found: { snapshots: Snapshot[]; decided?: Decided } | undefined;
  try {
    const listed = await listSnapshots(o.s3, t.bucket, t.baseKey);
    const free = await freeKey(o, t, key, listed.snapshots);
    if (!free) return alreadyThere(t, key);
    key = free;
    found = { snapshots: listed.snapshots };
    if (listed.truncated) problems.push(`${listed.why ?? 'the listing is incomplete'}: nothing pruned`);
    else if (o.backup) found.decided = await lineageAt(o, t, { uid: o.backup.uid, stamp }, listed.snapshots, problems);
  } catch (err) {
    problems.push(
      `the snapshots under s3://${t.bucket}/${t.baseKey} could not be listed, nothing pruned: ${awsMessage(err)}`,
    );
  }
  const decided = found?.decided;
  // Without a lineage decided (the listing failed, or no EtcdBackup named), the snapshot begins one of its own.
  const since = decided?.lineage.since ?? stamp;
  const floor = decided?.floor ?? stamp;
  if (!o.backup) problems.push('this Job does not name its EtcdBackup (made by an older hook): nothing pruned');
  // etcd's alarms, read before the snapshot and again once it streamed: one of a cluster etcd calls corrupt prunes
  // nothing (alarmsStopPruning, AlarmReads).
  const alarms = new AlarmReads(t, o.timeoutMs);
  await alarms.first();
  const mark = await markOf(t, o.timeoutMs, problems);
  const metadata = { ...metadataOf(o, t, { since, floor }, now, mark), ...alarms.meta };
  const out = await writeOwn(o, t, key, metadata, () => alarms.again(metadata));
  if ('succeeded' in out) return out;
  const size = out.size;
  key = out.key;
  const stop = alarms.stop(problems);
  const pruned =
    o.maxBackups > 0 && decided && !stop
      ? await prune(o, t, { key, snapshots: found!.snapshots, ...decided }, problems)
      : [];
  return {
    ...written(t, key, size, now),
    lineage: since,
    ...(decided?.break ? { lineageBreak: decided.break } : {}),
    pruned,
    ...(problems.length ? { pruneProblem: problems.join('; ').slice(0, 600) } : {}),
  };
}

/**
 * Writes a periodic snapshot at `key`; when another backup of the path wrote it meanwhile (in the same second at the
 * same revision) that one stays, and this EtcdBackup writes under its own key (once: its own key taken too is a
 * failure, never an overwrite).
 */
async function writeOwn(
  o: BackupOptions,
  t: Target,
  key: string,
  metadata: Record<string, string>,
  streamed: () => Promise<void>,
): Promise<BackupResult | { key: string; size: number }> {
  const size = await write(o, t, key, metadata, streamed);
  if (typeof size === 'number') return { key, size };
  if (size !== 'taken') return size;
  const own = await ownKeyFor(o, t, key);
  if (!own) return alreadyThere(t, key);
  const again = await write(o, t, own, metadata, streamed);
  if (again === 'taken') return alreadyThere(t, own);
  return typeof again === 'number' ? { key: own, size: again } : again;
}

/** The key to write, given the snapshots listed: `key`, else this EtcdBackup's own (ownKeyFor), else none. */
async function freeKey(o: BackupOptions, t: Target, key: string, listed: Snapshot[]): Promise<string | undefined> {
  if (!listed.some((s) => s.key === key)) return key;
  const own = await ownKeyFor(o, t, key);
  return own && !listed.some((s) => s.key === own) ? own : undefined;
}

function alreadyThere(t: Target, key: string): BackupResult {
  return { succeeded: false, reason: `s3://${t.bucket}/${key} already exists: a backup never overwrites a snapshot` };
}

/**
 * The key this EtcdBackup writes when `key` (coreos's shape) is already there: its own (`key-<owner>`), unless the
 * object there is this EtcdBackup's (its Job ran again within the second: no second copy) or no EtcdBackup is named.
 * An object whose writer cannot be read (no GetObject, no metadata) counts as another's: the own key is written with
 * the same condition (If-None-Match), so nothing is ever overwritten either way.
 */
async function ownKeyFor(o: BackupOptions, t: Target, key: string): Promise<string | undefined> {
  const owner = o.backup ? ownerSuffix(o.backup.uid) : '';
  if (!o.backup || !owner || key.endsWith(`-${owner}`)) return undefined;
  let meta: Record<string, string> | undefined;
  try {
    meta = await head(o.s3, t.bucket, key);
  } catch {
    meta = undefined;
  }
  if (meta && meta[META.uid] === o.backup.uid) return undefined;
  return `${key}-${owner}`;
}

/**
 * Prunes the lineage of the snapshot just written (`key`) to maxBackups; what went wrong goes to `problems`. Pruning
 * rests on the lineage each snapshot records in its metadata: the one just written is read back first. A store that
 * keeps no user metadata (some S3-compatible gateways drop x-amz-meta-*), or credentials that cannot read it, would
 * otherwise keep every snapshot without a word while maxBackups says otherwise.
 */
async function prune(
  o: BackupOptions,
  t: Target,
  w: { key: string; snapshots: Snapshot[]; lineage: Lineage; floor: string },
  problems: string[],
): Promise<string[]> {
  const pruned: string[] = [];
  if (o.spare === 'all') {
    problems.push(
      `nothing pruned: more unfinished EtcdRestores name snapshots under this path than the backup is told of`,
    );
    return pruned;
  }
  const unreadable = await lineageNotKept(o.s3, t.bucket, w.key, w.lineage);
  if (unreadable) {
    problems.push(`nothing pruned, maxBackups ${o.maxBackups} does not hold: ${unreadable}`);
    return pruned;
  }
  try {
    // A snapshot an unfinished restore is about to fetch is never pruned (nor counted against maxBackups).
    const spare = new Set(o.spare ?? []);
    const { failed, wentBack } = await pruneLineage(
      o.s3,
      t.bucket,
      w.snapshots.filter((s) => !spare.has(s.key)),
      {
        lineage: w.lineage,
        floor: w.floor,
        revision: t.cluster.revision,
        max: o.maxBackups,
        written: w.key,
        deleted: pruned,
      },
    );
    if (wentBack)
      problems.push(
        `nothing pruned: s3://${t.bucket}/${wentBack.key} of this lineage is at revision ${wentBack.revision}, above the ${t.cluster.revision} just written (the revision went back)`,
      );
    if (failed > 0)
      problems.push(`the metadata of ${failed} snapshot(s) could not be read: they are kept, whatever their lineage`);
  } catch (err) {
    problems.push(`pruning stopped after ${pruned.length} deletion(s): ${awsMessage(err)}`);
  }
  return pruned;
}

/** What S3 said: its error code and message; an answer without a body (to a HEAD) by its HTTP status. */
function awsMessage(err: unknown): string {
  const e = err as { name?: string; Code?: string; message?: string };
  const code = e.Code ?? e.name;
  const status = httpStatus(err);
  if ((code === 'Unknown' || code === 'UnknownError') && status)
    return `HTTP ${status}${status === 403 ? ' (Forbidden: the credentials may not read this object)' : ''}`;
  return code && code !== 'Error' ? `${code}: ${e.message ?? ''}`.trim() : (e.message ?? String(err));
}

/**
 * The keys of one profile of an AWS ini file (`credentials` or `config`): `[name]`, or `[profile name]` in a config
 * file. Only plain `key = value` lines are read; nothing in the file is run or followed.
 */
export function iniProfile(text: string, profile = 'default'): Record<string, string> {
  const wanted = [profile, `profile ${profile}`];
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  let section: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    // A comment: a line that begins with # or ;, or the rest of a line after whitespace and one of them.
    const line = raw.replace(/(^|\s)[#;].*$/, '').trim();
    const header = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (header) section = header[1];
    const kv = !header && wanted.includes(section ?? '') ? /^([A-Za-z0-9_]+)\s*=\s*(\S+)$/.exec(line) : null;
    if (kv && !(kv[1]!.toLowerCase() in out)) out[kv[1]!.toLowerCase()] = kv[2]!;
  }
  return out;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The S3 region: AWS_REGION or AWS_DEFAULT_REGION, else the `region` of the profile (AWS_PROFILE, or default) in
 * the AWS config file (`configFile`, else AWS_CONFIG_FILE: etcd-operator's secret carries one), else us-east-1.
 */
export function s3Region(env: NodeJS.ProcessEnv = process.env, configFile = env['AWS_CONFIG_FILE']): string {
  const fromEnv = env['AWS_REGION'] || env['AWS_DEFAULT_REGION'];
  if (fromEnv) return fromEnv;
  const region = configFile ? iniProfile(readText(configFile), env['AWS_PROFILE'] || 'default')['region'] : undefined;
  return region || 'us-east-1';
}

export interface StaticCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * The credentials of an `awsSecret`: its AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY keys (given to the
 * container one by one), else the `[default]` profile's keys of its `credentials` file (mounted at `dir`), read
 * here as plain values. Undefined when it holds neither: the caller then fails rather than fall back to the pod's
 * ambient credentials.
 */
export function secretCredentials(env: NodeJS.ProcessEnv, dir: string): StaticCredentials | undefined {
  const id = env['AWS_ACCESS_KEY_ID'];
  const secret = env['AWS_SECRET_ACCESS_KEY'];
  if (id && secret)
    return {
      accessKeyId: id,
      secretAccessKey: secret,
      ...(env['AWS_SESSION_TOKEN'] ? { sessionToken: env['AWS_SESSION_TOKEN'] } : {}),
    };
  const p = iniProfile(readText(join(dir, 'credentials')));
  const fileId = p['aws_access_key_id'];
  const fileSecret = p['aws_secret_access_key'];
  if (!fileId || !fileSecret) return undefined;
  return {
    accessKeyId: fileId,
    secretAccessKey: fileSecret,
    ...(p['aws_session_token'] ? { sessionToken: p['aws_session_token'] } : {}),
  };
}

/** The restore init step's first half: the snapshot from S3 into a local file. */
export async function fetchSnapshot(s3: S3Client, path: string, file: string): Promise<number> {
  const { bucket, key } = splitPath(path);
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const body = res.Body as Readable;
  await pipeline(body, createWriteStream(file));
  return res.ContentLength ?? 0;
}
