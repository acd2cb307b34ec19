// The auth guard: who may call a hook (checkCaller, run by each hook route before its body is read), and how every
// refusal is answered and logged (refuse, within a budget of log lines: RefusalLog). A plugin of the whole server
// (fastify-plugin: not encapsulated), so that its decorations (`request.authenticated`, `app.refusals`) and the
// early 404 reach every route.
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { authorizationProblem, authorized, clientCertificateProblem, hasCredentials, type AuthConfig } from './auth.js';
import { OVERLOADED } from './answer.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller proved who it is (credentials or a client certificate): side-effecting clients are available. */
    authenticated: boolean;
  }
  interface FastifyInstance {
    /** How many refusals may still be logged now (RefusalLog). */
    refusals: RefusalLog;
  }
}

/** Refusal log lines: at most REFUSAL_LOG.perSecond a second after a burst of REFUSAL_LOG.burst. */
export const REFUSAL_LOG = { perSecond: 10, burst: 50 } as const;

/** How to configure credentials: the text of every 401 a side-effecting hook gives an unauthenticated caller. */
export const HOW_TO_AUTHENTICATE =
  'this hook acts on the cluster, etcd or AWS and serves only an authenticated caller: start metaops with ' +
  'METAOPS_AUTH_TOKEN (and give Metacontroller the same token in the webhook `authorization` field; README, ' +
  '"Security"), or, for local development only, METAOPS_ALLOW_UNAUTHENTICATED=true';

export interface CallerGuard {
  auth: AuthConfig;
  /** A client CA is configured: every hook call needs a certificate it signed. */
  mtls: boolean;
  clientNames?: string[];
  allowUnauthenticated: boolean;
}

export interface GuardOptions {
  /** Refusals logged at most this often; `clock` (milliseconds, default performance.now) measures the rate. */
  refusalLog: { perSecond: number; burst: number; clock?: () => number };
}

/**
 * The server-wide part of the guard: `request.authenticated`, the refusal log's budget (`app.refusals`, its count
 * flushed at close), and a request for no route answered before its body is read: Fastify would otherwise parse it
 * (up to the body limit) for the 404 handler, and the callers' checks belong to the hook routes. One
 * unauthenticated POST of 32 MiB of `{}` to /nope once took the server from 84 MB to 1.2 GB.
 */
export const guardPlugin = fp<GuardOptions>(
  (app, options, done) => {
    // Stryker disable next-line BooleanLiteral: every hook route's guard (checkCaller) sets it before its handler reads it
    app.decorateRequest('authenticated', false);
    // Refusals are logged one line each, up to a rate: a flood of refused requests cannot flood the log.
    const refusals = new RefusalLog(options.refusalLog, app.log, options.refusalLog.clock);
    app.decorate('refusals', refusals);
    app.addHook('onClose', (_instance, closed) => {
      refusals.flush();
      closed();
    });
    app.addHook('onRequest', (request, reply, next) => {
      if (request.routeOptions.url !== undefined) return next();
      // Its connection closed by refuse(): no request is complete when its onRequest hooks run.
      notFound(request, reply);
    });
    done();
  },
  { name: 'metaops-guard' },
);

/**
 * The onRequest hook of one hook route: the caller is checked by the route itself, on the route Fastify's router
 * chose (so no spelling of the URL reaches a hook around it), before the body is read.
 */
export function guardRoute(guard: CallerGuard, effects: boolean) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const refusal = checkCaller(guard, request, effects);
    if (!refusal) return done();
    if (refusal.challenge) reply.header('www-authenticate', refusal.challenge);
    refuse(request, reply, refusal.status, refusal.message);
  };
}

interface Refusal {
  status: 400 | 401 | 403;
  message: string;
  challenge?: string;
}

/**
 * Whether this caller may call this hook. Configured credentials are required on every hook; a configured client
 * CA requires a certificate it signed (and one of the allowed names). A caller that passed either is
 * authenticated; a side-effecting hook serves only authenticated callers unless the server was started with the
 * explicit opt-out.
 */
function checkCaller(guard: CallerGuard, request: FastifyRequest, effects: boolean): Refusal | undefined {
  const ambiguous = authorizationProblem(request.raw.rawHeaders);
  if (ambiguous) return { status: 400, message: ambiguous };
  if (guard.mtls) {
    const problem = clientCertificateProblem(request.raw.socket, guard.clientNames);
    if (problem) return { status: problem.includes('not allowed') ? 403 : 401, message: problem };
  }
  if (hasCredentials(guard.auth)) {
    if (!authorized(request.headers.authorization, guard.auth)) {
      return {
        status: 401,
        message: 'this hook needs the configured credentials',
        challenge: guard.auth.bearer ? 'Bearer realm="metaops"' : 'Basic realm="metaops"',
      };
    }
  }
  const authenticated = guard.mtls || hasCredentials(guard.auth);
  request.authenticated = authenticated || guard.allowUnauthenticated;
  if (effects && !request.authenticated) {
    return { status: 401, message: HOW_TO_AUTHENTICATE, challenge: 'Bearer realm="metaops"' };
  }
  return undefined;
}

/**
 * The budget of refusal log lines: a token bucket of `burst` lines refilled at `perSecond`. A refusal over it is
 * counted, and the count is logged in one line a second later: 110,000 refused requests once wrote 11.5 MiB of log
 * in 3 s. Errors (5xx) and missed deadlines are never held back.
 */
export class RefusalLog {
  private tokens: number;
  private last: number;
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rate: { perSecond: number; burst: number },
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.tokens = rate.burst;
    this.last = clock();
  }

  /** Whether one more refusal may be logged now; one that may not is counted, and said by flush(). */
  take(): boolean {
    const now = this.clock();
    this.tokens = Math.min(this.rate.burst, this.tokens + ((now - this.last) / 1000) * this.rate.perSecond);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.dropped += 1;
    this.timer ??= setTimeout(() => this.flush(), 1000).unref();
    return false;
  }

  /** Logs how many refusals were not logged since the last time, if any. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dropped === 0) return;
    this.log.warn(
      { notLogged: this.dropped },
      `${this.dropped} more refused requests were not logged (at most ${this.rate.perSecond} lines a second)`,
    );
    this.dropped = 0;
  }
}

/**
 * The request target without a query or user information (which a caller may fill with anything). An absolute-form
 * target loses everything up to its last `@` before a query, then the host: user information with a `/` in it
 * (`http://user:pa/ss@host/path`) is not a path.
 */
export function safeUrl(url: string): string {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/(?:[^?#]*@)?[^/?#]*/i, '').replace(/[?#].*$/s, '');
  return path.length > 200 ? `${path.slice(0, 200)}...` : path;
}

/**
 * A refusal (4xx, or a missed deadline), logged and answered in the one shape every refusal has. A request refused
 * before its body arrived (a 401 from the route's onRequest, a 404) closes its connection: the server neither reads
 * nor waits for a body it will not use.
 */
export function refuse(request: FastifyRequest, reply: FastifyReply, status: number, message: string): FastifyReply {
  logRefusal(request, status, message);
  if (!request.raw.complete) reply.header('connection', 'close');
  return reply.code(status).send({ statusCode: status, error: STATUS_CODES[status] ?? 'Error', message });
}

/** No route for this method and path: refused (before its body is read, by the server-wide onRequest hook). */
export function notFound(request: FastifyRequest, reply: FastifyReply): void {
  refuse(request, reply, 404, `no route ${request.method} ${safeUrl(request.url)}; GET /hooks lists the hooks served`);
}

/** One line per refused or timed-out hook call: who, what, why; never headers, bodies or queries. */
function logRefusal(request: FastifyRequest, status: number, message: string): void {
  const line = {
    statusCode: status,
    method: request.method,
    url: safeUrl(request.url),
    remoteAddress: request.ip,
    reason: message,
  };
  // Refusals are 4xx (errors of 500 and above are logged by the error handler); a missed deadline is a failure.
  if (status === OVERLOADED) request.log.warn(line, 'hook call failed');
  else if (!request.server.refusals.take()) return;
  else if (status === 404) request.log.info(line, 'no such route');
  else request.log.warn(line, 'hook call refused');
}

/**
 * Malformed HTTP (bad request line, header overflow, a request that did not arrive in time): the same answers as
 * Fastify's default, logged at info with the error's code only. Node attaches the raw bytes to the error
 * (`rawPacket`), and the default handler logs the whole error at trace: an Authorization header and all.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const body = JSON.stringify({ statusCode: status, error: STATUS_CODES[status], message: 'malformed HTTP request' });
  if (this.refusals.take())
    this.log.info(
      { statusCode: status, code: err.code, remoteAddress: socket.remoteAddress },
      'malformed HTTP request refused',
    );
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
