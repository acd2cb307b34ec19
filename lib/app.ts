// The Fastify app as a factory. It never listens: main/server.ts does, and tests use app.inject().
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { hash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { TSchema } from '@sinclair/typebox';
import { authorizationProblem, authorized, clientCertificateProblem, hasCredentials, type AuthConfig } from './auth.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_HOOK_DEADLINE_MS } from './config.js';
import { parseJsonBody } from './json.js';
import { KubeEventRecorder, NO_EVENTS, type EventRecorder } from './events.js';
import { defaultServices } from './services.js';
import { Metrics } from './metrics.js';
import { confineRelated } from './objects.js';
import type { HookContext, HookDefinition, Services } from './hook.js';
import {
  CompositeSyncRequest,
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  DecoratorSyncRequest,
  DecoratorSyncResponse,
  type HookName,
  type ParentObject,
} from './metacontroller.js';

export interface AppOptions {
  /** The operators served (the composition root's list, main/operators.ts, or a test's own). */
  operators: HookDefinition[];
  /** Replaces some of lib's services (a fixed clock, fixed secrets, a Kubernetes API stand-in). */
  services?: Partial<Services>;
  /** Replaces some of an operator's clients, by operator name: `{ etcdcluster: { etcd: () => fake } }`. */
  clients?: Record<string, Record<string, unknown>>;
  /** Replaces some of an operator's settings, by operator name: `{ etcdcluster: { image: 'x' } }`. */
  settings?: Record<string, Record<string, unknown>>;
  /** The environment operators build their clients from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  logger?: FastifyServerOptions['logger'];
  /** Largest request body accepted, in bytes. Metacontroller sends every child of a parent. */
  bodyLimit?: number;
  /**
   * Credentials every hook call must carry (health, readiness and metrics stay open). With none configured (and
   * no client CA), pure hooks answer anyone and side-effecting hooks answer 401, unless `allowUnauthenticated`.
   */
  auth?: AuthConfig;
  /** Side-effecting hooks serve callers without credentials: for development only; the server logs a warning. */
  allowUnauthenticated?: boolean;
  /** With a client CA (`https.ca`): only certificates whose CN or DNS SAN is one of these may call a hook. */
  clientNames?: string[];
  /** A hook that has not answered by then gets a 429 with Retry-After, well before Metacontroller's 10 s webhook timeout. */
  hookDeadlineMs?: number;
  /**
   * A request that has not arrived whole by then (its headers by a third of it) is dropped: default
   * REQUEST_TIMEOUT_MS. Checked every CHECK_INTERVAL_MS at most, so that the bound holds within a second.
   */
  requestTimeoutMs?: number;
  /**
   * Refusals logged at most this often (lines per second, and a burst); the rest are counted in one line. `clock`
   * (milliseconds, default performance.now) is what the rate is measured by.
   */
  refusalLog?: { perSecond: number; burst: number; clock?: () => number };
  metrics?: Metrics;
  /**
   * Serve TLS. With `ca`, every hook call must present a client certificate signed by it (checked per hook route,
   * so that the kubelet's probes, which have none, still reach /healthz and /readyz).
   */
  https?: { cert: Buffer; key: Buffer; ca?: Buffer };
}

/** Fields that never reach the log: credentials in headers, Secret data, AWS keys. */
export const REDACT = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  '*.AWS_SECRET_ACCESS_KEY',
  '*.secretAccessKey',
  '*.SecretAccessKey',
  '*.password',
  'data',
  '*.data',
  'err.config',
];

export interface ServedHook {
  name: string;
  kind: string;
  type: HookDefinition['type'];
  hook: HookName;
  method: 'POST';
  path: string;
}

export { DEFAULT_BODY_LIMIT, DEFAULT_HOOK_DEADLINE_MS };

/** A request that has not arrived whole by then is dropped (docs/operating.md: 30 s). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often the server looks for requests past their time (Node's default, 30 s, doubled the bound). */
export const CHECK_INTERVAL_MS = 1000;
/** The oldest TLS version served. */
export const MIN_TLS_VERSION = 'TLSv1.2';
/** Refusal log lines: at most REFUSAL_LOG.perSecond a second after a burst of REFUSAL_LOG.burst. */
export const REFUSAL_LOG = { perSecond: 10, burst: 50 } as const;

export function buildApp(options: AppOptions): FastifyInstance {
  const app = createFastify(options);
  // Hooks speak JSON only: anything else is 415 Unsupported Media Type rather than a confusing 400. The body is
  // parsed by lib/json.ts, not by Fastify's parser (so its proto-poisoning options do not apply): valid
  // Kubernetes data may have keys named `__proto__` or `constructor` (a Secret's data key, a label, an S3 tag);
  // JSON.parse makes them plain own properties, which is safe, and refusing them would leave such a parent
  // impossible to sync or delete. The code never copies request objects with Object.assign or by writing keys
  // into `{}` (see lib/objects.ts), which is where such keys could do harm.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  const metrics = options.metrics ?? new Metrics();
  const auth = options.auth ?? {};
  const deadline = options.hookDeadlineMs ?? DEFAULT_HOOK_DEADLINE_MS;
  const services = instrumentedServices(
    { ...defaultServices(), ...options.services },
    metrics,
    options.services?.events,
  );
  // An unauthenticated caller records no Events (an Event is a side effect too) and gets no Kubernetes API.
  const pureServices: Services = { ...services, kube: refuseClient, events: () => NO_EVENTS };

  const guard: CallerGuard = {
    auth,
    mtls: Boolean(options.https?.ca),
    ...(options.clientNames && options.clientNames.length > 0 ? { clientNames: options.clientNames } : {}),
    allowUnauthenticated: options.allowUnauthenticated ?? false,
  };
  const served: ServedHook[] = [];

  app.decorateRequest('authenticated', false);
  // Refusals are logged one line each, up to a rate: a flood of refused requests cannot flood the log.
  const refusals = new RefusalLog(options.refusalLog ?? REFUSAL_LOG, app.log, options.refusalLog?.clock);
  app.decorate('refusals', refusals);
  app.addHook('onClose', (_instance, done) => {
    refusals.flush();
    done();
  });

  // A request for no route is answered before its body is read: Fastify would otherwise parse it (up to the body
  // limit) for the 404 handler, and the callers' checks belong to the hook routes. One unauthenticated POST of
  // 32 MiB of `{}` to /nope once took the server from 84 MB to 1.2 GB.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.url !== undefined) return done();
    reply.header('connection', 'close');
    notFound(request, reply);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error, url: safeUrl(request.url) }, 'hook failed');
      // No stack traces or internals in bodies: the request id finds the log line.
      return reply.code(status).send({
        statusCode: status,
        error: STATUS_CODES[status] ?? 'Internal Server Error',
        message: `internal error; see the metaops log for request ${request.id}`,
      });
    }
    if (status === OVERLOADED) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    let message = error.validation ? `invalid hook request: ${error.message}` : error.message;
    // A body over the limit on a route whose operator says what that means (lib/hook.ts `tooLarge`): said with it.
    const tooLarge = (request.routeOptions.config as { tooLarge?: unknown } | undefined)?.tooLarge;
    if (status === 413 && typeof tooLarge === 'string')
      message = `${message} (over ${options.bodyLimit ?? DEFAULT_BODY_LIMIT} bytes): ${tooLarge}`;
    // Refusals and deadlines are logged (what was refused and why, never the headers or the body).
    return refuse(request, reply, status, message);
  });

  app.setNotFoundHandler(notFound);

  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => ({ status: 'ok' }));
  app.get('/hooks', async () => ({ hooks: served }));

  const routes: RouteContext = { guard, metrics, services, pureServices, deadline, served, options };
  for (const def of options.operators) serveOperator(app, def, routes);

  return app as unknown as FastifyInstance;
}

/** The Fastify instance with the server-wide options (TLS, logging, parsing, limits). */
function createFastify(options: AppOptions) {
  const logger =
    options.logger && typeof options.logger === 'object'
      ? { ...(options.logger as object), redact: { paths: REDACT, censor: '[REDACTED]' } }
      : (options.logger ?? false);
  const https = options.https;
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // Node looks for requests past their time only every `connectionsCheckingInterval` (30 s by default) and gives
  // headers 60 s of their own: a partial request was held 60-90 s. The headers get a third of the request's time.
  const timeouts = {
    requestTimeout,
    headersTimeout: Math.ceil(requestTimeout / 3),
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
  };
  return Fastify({
    // A client CA asks for certificates without dropping connections that have none: the hook routes refuse
    // those (checkCaller), the probes answer them. TLS 1.2 at least, whatever Node's defaults were set to.
    ...(https
      ? {
          https: {
            ...https,
            ...(https.ca ? { requestCert: true, rejectUnauthorized: false } : {}),
            minVersion: MIN_TLS_VERSION,
            ...timeouts,
          },
        }
      : { http: timeouts }),
    logger,
    // Malformed HTTP: answered and logged without the raw bytes (Fastify's default logs them, headers and
    // credentials included, at trace).
    clientErrorHandler,
    // A target the router cannot decode (`/hooks/%zz/sync`): refused in the same shape as every other refusal. Not
    // with the router's message, which quotes the whole target (query, user information and host included).
    frameworkErrors: (_error, request, reply) =>
      void refuse(request, reply as FastifyReply, 400, 'the request target is not a valid URL'),
    // A request that has not arrived whole by then is dropped.
    requestTimeout,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // One line per hook call is logged by the handler itself (at debug); Fastify's own pair would double it.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: {
      // Never change what Metacontroller sent: no coercion, no removal, no defaults in the envelope.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
}

type App = ReturnType<typeof createFastify>;

/** What every operator's routes share. */
interface RouteContext {
  guard: CallerGuard;
  metrics: Metrics;
  services: Services;
  pureServices: Services;
  deadline: number;
  served: ServedHook[];
  options: AppOptions;
}

/**
 * What a request is about: a CompositeController's `parent`, a DecoratorController's `object` (only the member its
 * schema checks: the envelope is open, so it may carry the other of any shape), or either for customize.
 */
type Subject = 'parent' | 'object' | 'either';

/** One route of a definition: its hook, request and answer schemas, what it is about, and how the definition answers it. */
interface HookRoute {
  hook: HookName;
  body: TSchema;
  response: TSchema;
  subject: Subject;
  handler: (body: never, ctx: HookContext<any, any>) => unknown;
  effects: boolean;
}

/** The routes a definition has: sync, and finalize and customize when it defines them. */
function routesOf(def: HookDefinition): HookRoute[] {
  const effects = def.effects === true;
  const [subject, body, response] =
    def.type === 'composite'
      ? (['parent', CompositeSyncRequest, CompositeSyncResponse] as const)
      : (['object', DecoratorSyncRequest, DecoratorSyncResponse] as const);
  // Every sync and finalize sees only the related objects of its subject's namespace (confineRelated).
  const syncRoute = (hook: 'sync' | 'finalize', answer: (b: never, ctx: HookContext<any, any>) => unknown) => ({
    hook,
    body,
    response,
    subject,
    handler: (b: never, ctx: HookContext<any, any>) => answer(confineRelated(b, subject) as never, ctx),
    effects,
  });
  const routes: HookRoute[] = [syncRoute('sync', (b, ctx) => def.sync(b, ctx))];
  if (def.finalize) routes.push(syncRoute('finalize', (b, ctx) => def.finalize!(b, ctx)));
  // Customize answers only name related objects: pure, whatever the definition does in sync.
  if (def.customize)
    routes.push({
      hook: 'customize',
      body: CustomizeRequest,
      response: CustomizeResponse,
      subject: 'either',
      handler: (b, ctx) => def.customize!(b, ctx),
      effects: false,
    });
  return routes;
}

/**
 * A definition's routes, with its clients and settings built once: each client call counted and timed; a caller
 * that is not authenticated gets factories that fail with 401 before any call is made (the routes of hooks
 * declared `effects` refuse such callers earlier).
 */
function serveOperator(app: App, def: HookDefinition, routes: RouteContext): void {
  const env = { env: routes.options.env ?? process.env };
  const built = {
    ...(def.clients?.(env) as Record<string, unknown> | undefined),
    ...routes.options.clients?.[def.name],
  };
  const clients = instrumentedClients(built, routes.metrics);
  const refused = Object.fromEntries(Object.keys(built).map((key) => [key, refuseClient]));
  const settings = {
    ...(def.settings?.(env) as Record<string, unknown> | undefined),
    ...routes.options.settings?.[def.name],
  };
  const kind = def.type === 'composite' ? def.resource.kind : def.name;
  for (const route of routesOf(def)) {
    const path = `/hooks/${def.name}/${route.hook}`;
    routes.served.push({ name: def.name, kind, type: def.type, hook: route.hook, method: 'POST', path });
    const name = `${def.name}/${route.hook}`;
    const about = { name, subject: route.subject };
    const contextOf = (request: FastifyRequest) =>
      request.authenticated
        ? new CallContext(routes.services, clients, settings, request, about)
        : new CallContext(routes.pureServices, refused, settings, request, about);
    addRoute(app, path, route, { ...routes, name, contextOf, ...(def.tooLarge ? { tooLarge: def.tooLarge } : {}) });
  }
}

/** One hook route: the caller checked before the body is read, the answer served with its ETag, the call counted. */
function addRoute(
  app: App,
  path: string,
  route: HookRoute,
  routes: RouteContext & { name: string; contextOf: (request: FastifyRequest) => CallContext; tooLarge?: string },
): void {
  const { metrics, guard, deadline, name, contextOf } = routes;
  // Counted and timed per route (a hook of its own, not a server-wide one that would have to find out which
  // route answered): every answer, refusals and errors included.
  const onResponse = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const code = reply.statusCode;
    const outcome =
      code === 304
        ? 'not_modified'
        : code === OVERLOADED
          ? 'deadline'
          : code < 400
            ? 'ok'
            : code < 500
              ? 'client_error'
              : 'error';
    metrics.hookCall(name, outcome, reply.elapsedTime / 1000);
    done();
  };
  const answered = (request: FastifyRequest, reply: FastifyReply, ctx: CallContext, result: unknown) => {
    if ((request.log as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled?.('debug'))
      ctx.log.debug('hook answered');
    return sendTagged(request, reply, reply.serializeInput(result as Record<string, unknown>, '200') as string);
  };
  // The caller is checked by the route itself, on the route Fastify's router chose (so no spelling of the
  // URL reaches a hook around it), before the body is read.
  const onRequest = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const refusal = checkCaller(guard, request, route.effects);
    if (!refusal) return done();
    if (refusal.challenge) reply.header('www-authenticate', refusal.challenge);
    refuse(request, reply, refusal.status, refusal.message);
  };
  app.post(
    path,
    {
      schema: { body: route.body, response: { 200: route.response } },
      onRequest,
      onResponse,
      ...(routes.tooLarge ? { config: { tooLarge: routes.tooLarge } } : {}),
    },
    (request, reply) => {
      const ctx = contextOf(request);
      const answer = route.handler(request.body as never, ctx);
      if (answer instanceof Promise)
        return withDeadline(answer, deadline, ctx).then((result) => answered(request, reply, ctx, result));
      // Hooks that decide without calling out answer synchronously: no promise, no deadline timer, no tick.
      // (A synchronous handler returns nothing: Fastify would send a returned value a second time.)
      answered(request, reply, ctx, answer);
      return undefined;
    },
  );
}

/**
 * What a hook call sees. A class rather than an object literal with a getter: a literal's getter is a new
 * closure per call, which gives every context its own hidden class; at thousands of calls a second that
 * showed as long scavenges, old-space growth and a p99 twice as high.
 */
class CallContext implements HookContext<Record<string, unknown>, Record<string, unknown>> {
  private logger: FastifyBaseLogger | undefined;
  private controller: AbortController | undefined;
  constructor(
    readonly services: Services,
    readonly clients: Record<string, unknown>,
    readonly settings: Record<string, unknown>,
    private readonly request: FastifyRequest,
    /** The route's name (`<operator>/<hook>`), and what its request is about. */
    private readonly route: { name: string; subject: Subject },
  ) {}

  /** Aborted when the route's deadline passes (made when a hook first asks for it). */
  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  /**
   * The deadline passed: every client call made with the signal stops. A hook that asks for the signal only
   * later (after an await) gets it already aborted: the controller is made here if it was not yet.
   */
  abort(reason: Error): void {
    (this.controller ??= new AbortController()).abort(reason);
  }

  /** The log context ({hook, namespace, name, uid}) is built only when something is logged. */
  get log(): FastifyBaseLogger {
    return (this.logger ??= this.childLogger());
  }

  private childLogger(): FastifyBaseLogger {
    const target = subjectOf(this.request.body as Record<string, unknown>, this.route.subject);
    return this.request.log.child({
      hook: this.route.name,
      namespace: target?.metadata.namespace,
      name: target?.metadata.name,
      uid: target?.metadata.uid,
    });
  }
}

/**
 * ETag (Metacontroller's webhook `etag` option): a strong ETag from the serialised answer; 304 Not Modified
 * when the caller already holds this very answer. Hooks still run (their side effects are idempotent), but
 * an unchanged answer is neither sent nor parsed and applied again. Done in the route, on the string the
 * response schema produced, rather than in an onSend hook that every request would pass through.
 */
function sendTagged(request: FastifyRequest, reply: FastifyReply, payload: string): FastifyReply {
  // SHA-1 is plenty to tell two answers apart (this is no signature), and cheaper than SHA-256. perf: docs/performance.md
  const etag = `"${hash('sha1', payload, 'base64url')}"`;
  reply.header('etag', etag);
  const match = request.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((m) => m.trim() === etag)) {
    return reply.code(304).send();
  }
  return reply.type('application/json; charset=utf-8').send(payload);
}

/**
 * What a hook that missed its deadline answers: 429 with Retry-After. Metacontroller v4.17 honours Retry-After only
 * on a 429 (pkg/hooks/webhook.go L218-228: a TooManyRequestError that requeues the parent after that many seconds);
 * any other status is a plain error, retried with its own back-off.
 */
export const OVERLOADED = 429;
export const RETRY_AFTER_SECONDS = 5;

/**
 * The hook's answer, or a 429 with Retry-After once `ms` have passed without one; then the call's signal is
 * aborted, so that the client calls still running stop rather than act after the caller has given up.
 */
async function withDeadline<T>(answer: Promise<T>, ms: number, ctx: CallContext): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error(
        `the hook did not answer within ${ms} ms; retry after ${RETRY_AFTER_SECONDS} s`,
      ) as Error & { statusCode: number };
      err.statusCode = OVERLOADED;
      ctx.abort(err);
      reject(err);
    }, ms);
  });
  try {
    return await Promise.race([answer, overdue]);
  } finally {
    clearTimeout(timer);
  }
}

/** The object a validated hook request is about (a customize request may have neither). */
function subjectOf(body: Record<string, unknown>, subject: Subject): ParentObject | undefined {
  return (subject === 'either' ? (body['parent'] ?? body['object']) : body[subject]) as ParentObject | undefined;
}

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

interface CallerGuard {
  auth: AuthConfig;
  /** A client CA is configured: every hook call needs a certificate it signed. */
  mtls: boolean;
  clientNames?: string[];
  allowUnauthenticated: boolean;
}

interface Refusal {
  status: 400 | 401 | 403;
  message: string;
  challenge?: string;
}

/** How to configure credentials: the text of every 401 a side-effecting hook gives an unauthenticated caller. */
export const HOW_TO_AUTHENTICATE =
  'this hook acts on the cluster, etcd or AWS and serves only an authenticated caller: start metaops with ' +
  'METAOPS_AUTH_TOKEN (and give Metacontroller the same token in the webhook `authorization` field; README, ' +
  '"Security"), or, for local development only, METAOPS_ALLOW_UNAUTHENTICATED=true';

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

/** lib's services with the Kubernetes API's calls counted and timed; Events go through it unless a recorder was given. */
function instrumentedServices(base: Services, metrics: Metrics, events: Services['events'] | undefined): Services {
  let kube: ReturnType<Services['kube']> | undefined;
  let recorder: EventRecorder | undefined;
  const services: Services = {
    ...base,
    kube: () => (kube ??= metrics.instrument(base.kube(), 'kube')),
    events: () => (recorder ??= events ? events() : new KubeEventRecorder(() => services.kube())),
  };
  return services;
}

/**
 * An operator's client factories, each client they make counted and timed under the factory's name (`etcd`,
 * `aws`); a factory that answers a promise (a lazily loaded SDK) is instrumented when it resolves. Values that
 * are not factories (settings) pass as they are.
 */
function instrumentedClients(built: Record<string, unknown>, metrics: Metrics): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, factory] of Object.entries(built)) {
    if (typeof factory !== 'function') {
      out[key] = factory;
      continue;
    }
    const view = (client: unknown) => (client && typeof client === 'object' ? metrics.instrument(client, key) : client);
    out[key] = (...args: unknown[]) => {
      const client = (factory as (...a: unknown[]) => unknown)(...args);
      return client instanceof Promise ? client.then(view) : view(client);
    };
  }
  return out;
}

/** The client factories an unauthenticated call gets: each refuses, before any connection is made. */
function refuseClient(): never {
  const err = new Error(HOW_TO_AUTHENTICATE) as Error & { statusCode: number };
  err.statusCode = 401;
  throw err;
}

/**
 * The request target without a query or user information (which a caller may fill with anything). An absolute-form
 * target loses everything up to its last `@` before a query, then the host: user information with a `/` in it
 * (`http://user:pa/ss@host/path`) is not a path.
 */
function safeUrl(url: string): string {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/(?:[^?#]*@)?[^/?#]*/i, '').replace(/[?#].*$/s, '');
  return path.length > 200 ? `${path.slice(0, 200)}...` : path;
}

/**
 * A refusal (4xx, or a missed deadline), logged and answered in the one shape every refusal has. A request refused
 * before its body arrived (a 401 from the route's onRequest, a 404) closes its connection: the server neither reads
 * nor waits for a body it will not use.
 */
function refuse(request: FastifyRequest, reply: FastifyReply, status: number, message: string): FastifyReply {
  logRefusal(request, status, message);
  if (!request.raw.complete) reply.header('connection', 'close');
  return reply.code(status).send({ statusCode: status, error: STATUS_CODES[status] ?? 'Error', message });
}

/** No route for this method and path: refused (before its body is read, by the server-wide onRequest hook). */
function notFound(request: FastifyRequest, reply: FastifyReply): void {
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
function clientErrorHandler(
  this: FastifyInstance,
  err: NodeJS.ErrnoException,
  socket: import('node:net').Socket,
): void {
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
