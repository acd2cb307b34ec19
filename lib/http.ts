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
  /** The most bytes of answer read; a longer answer fails the call (a dependency cannot exhaust memory). */
  maxBytes?: number;
}

export function call(url: URL, o: CallOptions): Promise<{ status: number; body: string }> {
  const https = url.protocol === 'https:';
  const headers = { ...(o.headers ?? {}), ...(o.body !== undefined ? { 'content-length': Buffer.byteLength(o.body) } : {}) };
  return new Promise((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(url, { method: o.method, headers, ...(https ? o.tls : {}) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (o.maxBytes !== undefined && size > o.maxBytes) {
          req.destroy(new Error(`answer larger than ${o.maxBytes} bytes`));
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
