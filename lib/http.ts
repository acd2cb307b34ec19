// One small HTTP(S) call with a hard deadline from connect to last byte, for the clients that reach etcd and
// the Kubernetes API. The answer is read whole; callers decide what a status means.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface CallOptions {
  method: string;
  headers?: Record<string, string | number>;
  body?: string;
  timeoutMs: number;
  /** TLS material and checks, used for https URLs only. */
  tls?: { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer; rejectUnauthorized?: boolean };
  /** The error a call that overran its deadline fails with. */
  timeoutError: () => Error;
  /** The largest answer read, in bytes (default MAX_ANSWER_BYTES); a larger one fails the call. */
  maxBytes?: number;
}

/**
 * No dependency answer metaops reads is large: etcd's member list, a pod, a token review. A member or proxy that
 * answers hundreds of megabytes must not be buffered (one such member once drove the server from 72 MB to 1.8 GB).
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export class AnswerTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the answer was larger than ${limit} bytes`);
    this.name = 'AnswerTooLargeError';
  }
}

export function call(url: URL, o: CallOptions): Promise<{ status: number; body: string }> {
  const https = url.protocol === 'https:';
  const headers = { ...(o.headers ?? {}), ...(o.body !== undefined ? { 'content-length': Buffer.byteLength(o.body) } : {}) };
  return new Promise((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(url, { method: o.method, headers, ...(https ? o.tls : {}) }, (res) => {
      const chunks: Buffer[] = [];
      const limit = o.maxBytes ?? MAX_ANSWER_BYTES;
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > limit) {
        req.destroy(new AnswerTooLargeError(limit));
        return;
      }
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > limit) {
          chunks.length = 0;
          req.destroy(new AnswerTooLargeError(limit));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(o.timeoutError()), o.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end(o.body);
  });
}
