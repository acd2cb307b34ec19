// The work of a backup Job and of a restore init step, run by the `metaops` CLI in this project's image:
// stream a snapshot out of etcd into S3 (multipart when large), prune old backups, fetch one back.
import { createWriteStream, readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { rfc3339 } from '../../lib/conditions.js';
import { GATEWAY_PREFIXES, type TlsFiles } from '../etcdcommon/etcd.js';

/** S3 needs parts of at least 5 MiB (but the last). */
export const PART_SIZE = 8 * 1024 * 1024;

export interface BackupResult {
  succeeded: boolean;
  reason?: string;
  etcdVersion?: string;
  etcdRevision?: number;
  key?: string;
  size?: number;
  lastSuccessDate?: string;
  pruned?: string[];
}

/** `bucket/key` as etcd-operator wrote it. */
export function splitPath(path: string): { bucket: string; key: string } {
  const at = path.indexOf('/');
  if (at <= 0 || at === path.length - 1) throw new Error(`s3.path "${path}" must be "<bucket>/<key>"`);
  return { bucket: path.slice(0, at), key: path.slice(at + 1) };
}

/** Periodic backups are <key>_v<revision>_<date>; a one-off backup is written to <key> itself. */
export function periodicKey(key: string, revision: number, date: Date): string {
  const stamp = rfc3339(date).replace(/:/g, '-');
  return `${key}_v${revision}_${stamp}`;
}

interface EtcdEndpoint {
  url: string;
  tls?: TlsFiles;
  /** The gateway prefix this endpoint serves, once found. */
  prefix?: string;
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

/** The most bytes of a JSON answer (status, errors) read; the snapshot itself is streamed, never held. */
const MAX_JSON_BYTES = 1024 * 1024;

function post(ep: EtcdEndpoint, path: string, body: unknown, timeoutMs: number): Promise<IncomingMessage> {
  const target = new URL(path, ep.url);
  const payload = JSON.stringify(body);
  const doRequest = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = doRequest(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        ...(target.protocol === 'https:' ? ep.tls : {}),
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
              notServed &&= typeof (JSON.parse(text) as { code?: unknown }).code !== 'number';
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

async function json(ep: EtcdEndpoint, path: string, timeoutMs: number): Promise<any> {
  const res = await post(ep, path, {}, timeoutMs);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of res) {
    if ((size += (c as Buffer).length) > MAX_JSON_BYTES) {
      res.destroy();
      throw new Error(`${path}: answer larger than ${MAX_JSON_BYTES} bytes`);
    }
    chunks.push(c as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString());
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
 * The snapshot as a byte stream, from the gateway's /v3/maintenance/snapshot (newline-separated JSON
 * messages, each with a base64 `blob`), without holding it in memory.
 */
export async function* snapshotStream(ep: EtcdEndpoint, timeoutMs: number): AsyncGenerator<Buffer> {
  const res = await post(ep, `${ep.prefix ?? '/v3'}/maintenance/snapshot`, {}, timeoutMs);
  let pending = '';
  for await (const chunk of res) {
    pending += (chunk as Buffer).toString('utf8');
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (line) yield decodeMessage(line);
    }
  }
  if (pending.trim()) yield decodeMessage(pending.trim());
}

function decodeMessage(line: string): Buffer {
  const msg = JSON.parse(line) as { result?: { blob?: string }; error?: { message?: string } };
  if (msg.error) throw new Error(`snapshot: ${msg.error.message ?? 'error'}`);
  return Buffer.from(msg.result?.blob ?? '', 'base64');
}

/** Uploads a stream: one PutObject when it fits in a part, else a multipart upload (aborted on failure). */
export async function upload(
  s3: S3Client,
  bucket: string,
  key: string,
  chunks: AsyncIterable<Buffer>,
): Promise<number> {
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
      uploadId = (await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }))).UploadId!;
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
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Buffer.concat(buffer, buffered) }));
      return total;
    }
    if (buffered > 0) await flush();
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
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

/** What periodicKey appends: `_v<revision>_<date>`, the date as rfc3339 with `-` for `:`, nothing else. */
const PERIODIC = /^_v\d+_\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z$/;

/**
 * Keeps the `max` newest periodic backups of a key and deletes the rest; the one just `written` is always kept
 * and counts as the newest. Newest by the date in the name, not by revision: a revision goes down after a
 * restore from an older snapshot or when the cluster is recreated, and the newest data must never be pruned.
 */
export async function prune(
  s3: S3Client,
  bucket: string,
  key: string,
  max: number,
  written?: string,
): Promise<string[]> {
  if (max <= 0) return [];
  const found: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${key}_v`, ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const o of page.Contents ?? []) if (o.Key && PERIODIC.test(o.Key.slice(key.length))) found.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const stamp = (k: string) => /^_v\d+_(.*)$/.exec(k.slice(key.length))?.[1] ?? '';
  const rev = (k: string) => Number(/^_v(\d+)_/.exec(k.slice(key.length))?.[1] ?? 0);
  const others = found
    .filter((k) => k !== written)
    .sort((a, b) => (stamp(a) < stamp(b) ? 1 : stamp(a) > stamp(b) ? -1 : rev(b) - rev(a)));
  const stale = others.slice(written ? max - 1 : max);
  for (const k of stale) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: k }));
  return stale;
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
}

/** One backup: the first endpoint that answers is snapshotted into S3. Never throws: failures are results. */
export async function runBackup(o: BackupOptions): Promise<BackupResult> {
  const now = o.now ?? (() => new Date());
  let bucket: string;
  let baseKey: string;
  try {
    ({ bucket, key: baseKey } = splitPath(o.path));
  } catch (err) {
    return { succeeded: false, reason: (err as Error).message };
  }
  const errors: string[] = [];
  for (const url of o.endpoints) {
    const ep: EtcdEndpoint = o.tls ? { url, tls: o.tls } : { url };
    try {
      const status = await gatewayJson(ep, '/maintenance/status', o.timeoutMs);
      const revision = Number(status?.header?.revision ?? 0);
      const version = String(status?.version ?? '');
      const key = o.periodic ? periodicKey(baseKey, revision, now()) : baseKey;
      let size: number;
      try {
        size = await upload(o.s3, bucket, key, snapshotStream(ep, o.timeoutMs));
      } catch (err) {
        return {
          succeeded: false,
          reason: `upload to s3://${bucket}/${key} failed: ${awsMessage(err)}`,
          etcdVersion: version,
          etcdRevision: revision,
        };
      }
      let pruned: string[] = [];
      if (o.periodic) pruned = await prune(o.s3, bucket, baseKey, o.maxBackups, key);
      return {
        succeeded: true,
        etcdVersion: version,
        etcdRevision: revision,
        key,
        size,
        lastSuccessDate: now().toISOString(),
        pruned,
      };
    } catch (err) {
      errors.push(`${url}: ${awsMessage(err)}`);
    }
  }
  return { succeeded: false, reason: `no etcd endpoint could be snapshotted: ${errors.join('; ')}` };
}

function awsMessage(err: unknown): string {
  const e = err as { name?: string; Code?: string; message?: string };
  const code = e.Code ?? e.name;
  return code && code !== 'Error' ? `${code}: ${e.message ?? ''}`.trim() : (e.message ?? String(err));
}

/**
 * The S3 region: AWS_REGION or AWS_DEFAULT_REGION, else the `region` of the profile (AWS_PROFILE, or default) in
 * the AWS config file (AWS_CONFIG_FILE: etcd-operator's secret carries one), else us-east-1.
 */
export function s3Region(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['AWS_REGION'] || env['AWS_DEFAULT_REGION'];
  if (fromEnv) return fromEnv;
  const file = env['AWS_CONFIG_FILE'];
  if (file) {
    try {
      const profile = env['AWS_PROFILE'] || 'default';
      const wanted = profile === 'default' ? ['default', 'profile default'] : [`profile ${profile}`, profile];
      let section = '';
      for (const raw of readFileSync(file, 'utf8').split(/\r?\n/)) {
        const line = raw.replace(/[#;].*$/, '').trim();
        const header = /^\[\s*(.+?)\s*\]$/.exec(line);
        if (header) section = header[1]!;
        const kv = !header && wanted.includes(section) ? /^region\s*=\s*(\S+)$/.exec(line) : null;
        if (kv) return kv[1]!;
      }
    } catch {
      // no readable config file: the default below
    }
  }
  return 'us-east-1';
}

/** The restore init step's first half: the snapshot from S3 into a local file. */
export async function fetchSnapshot(s3: S3Client, path: string, file: string): Promise<number> {
  const { bucket, key } = splitPath(path);
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const body = res.Body as Readable;
  await pipeline(body, createWriteStream(file));
  return res.ContentLength ?? 0;
}
