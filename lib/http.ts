// One small HTTP(S) call with a hard deadline from connect to last byte, for the clients that reach etcd and
// the Kubernetes API. The answer is read whole; callers decide what a status means.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { inspectedTlsConnection } from './tls-inspect.js';

export interface CallOptions {
  method: string;
  /** A header given as a list is sent once per value (Impersonate-Group). */
  headers?: Record<string, string | number | string[]>;
  body?: string;
  timeoutMs: number;
  /** TLS material, checks and limits (versions, ciphers, groups), used for https URLs only. */
  tls?: Pick<
    ConnectionOptions,
    'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'minVersion' | 'ciphers' | 'ecdhCurve' | 'session'
  >;
  /**
   * Told whether each TLS connection resumed a session, and of every session its server offers for resumption
   * (given back as `tls.session` next time: a handshake without the client's signature).
   */
  tlsSessions?: { connected(reused: boolean): void; offered(session: Buffer): void };
  /** The error a call that overran its deadline fails with. */
  timeoutError: () => Error;
  /** The largest answer read, in bytes (default MAX_READ_BYTES); a larger one fails the call. */
  maxBytes?: number;
  /**
   * A turn to take before more than `above` bytes of the answer are held (lib/kube.ts LARGE_READS): asked for when
   * the answer says it is larger (Content-Length) or when the bytes read pass `above`, the answer paused until
   * `wait` resolves; a rejection fails the call. An answer of at most `above` bytes never waits.
   */
  large?: { above: number; wait: () => Promise<void> };
  /**
   * A 2xx answer's body is not read: the call resolves with its status as soon as the headers arrive (a write whose
   * answer the caller does not use, which may be as large as the object written). Errors are read as usual.
   */
  ignoreSuccessBody?: boolean;
  /**
   * The most informational (1xx) answers read before the answer (default MAX_INFORMATIONAL); one more fails the
   * call (InvalidAnswerError). metaops never sends `Expect: 100-continue`: a server that answers 1xx is not one a
   * caller needs to wait through.
   */
  maxInformational?: number;
  /**
   * The most pieces an answer's body is read in (what Node's HTTP parser hands it: one per chunk of a socket read);
   * one more fails the call (InvalidAnswerError) as the parser hands it, not once the answer is read.
   */
  maxPieces?: number;
  /**
   * The most bytes of one socket read handed to Node's HTTP parser at once (sliceReads): a read is up to 64 KiB, and
   * the parser goes through all of it, a callback per informational answer or body chunk, before a bound that trips
   * within it can stop it; in slices, it stops at the end of the slice in which the call failed. Unsliced by default.
   */
  maxParsedBytes?: number;
  /** Abandons the call when it aborts (the hook route's deadline), with the signal's reason. */
  signal?: AbortSignal;
  /**
   * How the host name is looked up (node:net's `lookup` option): a caller that pins addresses gives its own. The
   * call then opens a connection of its own (a pooled one, made with another lookup, could reach another address).
   */
  lookup?: LookupFunction;
  /**
   * Checks the server's certificate chain (DER, leaf first) before OpenSSL verifies it: a reason refuses it
   * (lib/tls-inspect.ts; the connection is then TLS 1.2, whose Certificate message is in the clear).
   */
  inspectChain?: (certs: Buffer[]) => string | undefined;
}

/**
 * No dependency answer metaops reads is large: etcd's member list, a pod, a token review. A member or proxy that
 * answers hundreds of megabytes must not be buffered (one such member once drove the server from 72 MB to 1.8 GB).
 */
export const MAX_READ_BYTES = 4 * 1024 * 1024;

/**
 * Informational answers read before an answer at most: a server that sends them without end (102 Processing, a
 * few dozen bytes each) was once parsed ~500,000 times in one 1.5 s call, ~500 ms of the server's one thread.
 */
export const MAX_INFORMATIONAL = 8;

/** An answer that is no HTTP answer a caller reads: endless informational answers, a body in too many pieces. */
export class InvalidAnswerError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'InvalidAnswerError';
  }
}

export class AnswerTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the answer was larger than ${limit} bytes`);
    this.name = 'AnswerTooLargeError';
  }
}

export function call(url: URL, o: CallOptions): Promise<{ status: number; body: string }> {
  const https = url.protocol === 'https:';
  const headers = {
    ...(o.headers ?? {}),
    ...(o.body !== undefined ? { 'content-length': Buffer.byteLength(o.body) } : {}),
  };
  return new Promise((resolve, reject) => {
    // Settled once; a failure destroys both streams without handing them an error to emit again (a destroyed
    // response with an error and no listener would be an uncaught exception: the process would die).
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err);
      req.destroy();
    };
    const settle = (answer: { status: number; body: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const req = (https ? httpsRequest : httpRequest)(
      url,
      { method: o.method, headers, ...(https ? o.tls : {}), ...connection(url, o) },
      (res) => {
        res.on('error', fail);
        const status = res.statusCode ?? 0;
        if (o.ignoreSuccessBody && status >= 200 && status < 300) {
          settle({ status, body: '' });
          res.destroy();
          return;
        }
        readBody(res, o, { settled: () => settled, done: (body) => settle({ status, body }), fail });
      },
    );
    const timer = setTimeout(() => fail(o.timeoutError()), o.timeoutMs);
    const signal = o.signal;
    if (signal) {
      const abandon = () =>
        fail(signal.reason instanceof Error ? signal.reason : new Error('the hook call was abandoned'));
      if (signal.aborted) abandon();
      else {
        signal.addEventListener('abort', abandon, { once: true });
        req.on('close', () => signal.removeEventListener('abort', abandon));
      }
    }
    req.on('close', () => clearTimeout(timer));
    let informational = 0;
    const maxInformational = o.maxInformational ?? MAX_INFORMATIONAL;
    req.on('information', () => {
      if (++informational > maxInformational)
        fail(new InvalidAnswerError(`more than ${maxInformational} informational (1xx) answers`));
    });
    if (https && o.tlsSessions) watchTls(req, o.tlsSessions);
    if (o.maxParsedBytes !== undefined) {
      const most = o.maxParsedBytes;
      req.once('socket', (socket) => sliceReads(socket, most, () => settled));
    }
    req.on('error', fail);
    req.end(o.body);
  });
}

/**
 * Reads an answer's body, up to its limit (larger fails the call, AnswerTooLargeError); past `o.large.above` bytes,
 * or when its Content-Length says it will pass them, only once the large answer's turn is given (the answer paused
 * meanwhile: at most `above` bytes and a chunk held). `done` or `fail` is called once.
 */
function readBody(
  res: IncomingMessage,
  o: CallOptions,
  to: { settled: () => boolean; done: (body: string) => void; fail: (err: Error) => void },
): void {
  const chunks: Buffer[] = [];
  const limit = o.maxBytes ?? MAX_READ_BYTES;
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    res.destroy();
    to.fail(new AnswerTooLargeError(limit));
    return;
  }
  let size = 0;
  let pushed = 0;
  let pieces = 0;
  const maxPieces = o.maxPieces ?? Infinity;
  const finish = () => to.done(Buffer.concat(chunks).toString('utf8'));
  const large = o.large && o.large.above < limit ? o.large : undefined;
  let turn: 'none' | 'asked' | 'given' = large ? 'none' : 'given';
  let ended = false;
  const askTurn = () => {
    if (turn !== 'none') return;
    turn = 'asked';
    res.pause();
    large!.wait().then(() => {
      turn = 'given';
      if (to.settled()) return;
      if (ended) finish();
      else res.resume();
    }, to.fail);
  };
  // The bounds are held as the parser hands the answer its pieces, within its pass over a socket read: the 'data'
  // events come later (the answer starts flowing on the next tick), once the parser has gone through the whole read.
  const push = res.push;
  res.push = function (this: IncomingMessage, chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null || to.settled()) return push.call(this, chunk, encoding);
    pushed += Buffer.isBuffer(chunk) ? chunk.length : 0;
    if (++pieces > maxPieces) {
      res.destroy();
      to.fail(new InvalidAnswerError(`an answer in more than ${maxPieces} pieces`));
      return false;
    }
    if (pushed > limit) {
      res.destroy();
      to.fail(new AnswerTooLargeError(limit));
      return false;
    }
    return push.call(this, chunk, encoding);
  };
  res.on('data', (c: Buffer) => {
    if (to.settled()) return;
    size += c.length;
    chunks.push(c);
    if (large && size > large.above) askTurn();
  });
  res.on('end', () => {
    ended = true;
    if (turn !== 'asked') finish();
  });
  if (large && Number.isFinite(declared) && declared > large.above) askTurn();
}

const SLICED = Symbol('sliceReads');

/**
 * Hands the HTTP parser each of the socket's reads (its 'data' events, up to 64 KiB) in slices of at most `most`
 * bytes, one 'data' event each, and none once the call has settled or the socket is destroyed: what the parser reads
 * past a bound that ended the call (an informational answer too many, a piece too many, a byte too many) is at most
 * one slice, where it was the rest of the read (~3,600 informational answers, ~11,000 one-byte chunks). The parser
 * is a stream parser: slices parse as the whole read does.
 */
export function sliceReads(socket: Duplex, most: number, settled: () => boolean): void {
  // One wrapper a socket: a socket a keep-alive agent gives again to the next call takes that call's bound and state.
  const sliced = socket as Duplex & { [SLICED]?: { most: number; settled: () => boolean } };
  const had = sliced[SLICED];
  sliced[SLICED] = { most, settled };
  if (had) return;
  const emit = socket.emit;
  socket.emit = function (this: Duplex, event: string | symbol, ...args: unknown[]): boolean {
    const data = args[0];
    const now = sliced[SLICED]!;
    if (event !== 'data' || !Buffer.isBuffer(data) || data.length <= now.most) return emit.call(this, event, ...args);
    let handled = false;
    for (let at = 0; at < data.length && !now.settled() && !this.destroyed; at += now.most)
      handled = emit.call(this, event, data.subarray(at, at + now.most)) || handled;
    return handled;
  } as typeof socket.emit;
}

/**
 * How a call connects: a pinned lookup opens a connection of its own; an inspected chain one through
 * lib/tls-inspect.ts (its own too: a pooled connection was checked for another call).
 */
function connection(url: URL, o: CallOptions): Record<string, unknown> {
  if (url.protocol === 'https:' && o.inspectChain) {
    const check = o.inspectChain;
    const port = Number(url.port || 443);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return {
      agent: undefined,
      createConnection: () =>
        inspectedTlsConnection({ ...o.tls, host, port, ...(o.lookup ? { lookup: o.lookup } : {}) }, check),
    };
  }
  return o.lookup ? { lookup: o.lookup, agent: false } : {};
}

/** Tells `sessions` whether the connection resumed a session, and of every session its server offers. */
function watchTls(req: ReturnType<typeof httpsRequest>, sessions: NonNullable<CallOptions['tlsSessions']>): void {
  req.once('socket', (socket) => {
    const tls = socket as TLSSocket;
    tls.once('secureConnect', () => sessions.connected(tls.isSessionReused()));
    tls.on('session', (session: Buffer) => sessions.offered(session));
  });
}
