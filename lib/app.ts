// The Fastify app as a factory. It never listens: main/server.ts does, and tests use app.inject(). The server-wide
// options (TLS, logging, parsing, limits), the error and 404 handlers, health and the list of hooks are here; the
// rest are plugins: the auth guard (lib/guard.ts), the ETag answer (lib/answer.ts), instrumentation
// (lib/instrument.ts), and one encapsulated plugin of hook routes per operator (lib/hook-routes.ts), whose routes
// lib/routes.ts lists for the server and the manifests alike.
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { answerPlugin, OVERLOADED, RETRY_AFTER_SECONDS } from './answer.js';
import type { AuthConfig } from './auth.js';
import { BodyBudget, DEFAULT_BODY_BUDGET, serverBudget } from './body-budget.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_HOOK_DEADLINE_MS } from './config.js';
import { NO_EVENTS } from './events.js';
import {
  clientErrorHandler,
  guardPlugin,
  HOW_TO_AUTHENTICATE,
  notFound,
  REFUSAL_LOG,
  RefusalLog,
  refuse,
  safeUrl,
  type CallerGuard,
} from './guard.js';
import { parentKindsOf, type HookDefinition, type Services } from './hook.js';
import { hookRoutes, type ServerParts } from './hook-routes.js';
import { instrumentedServices, instrumentPlugin, refuseClient } from './instrument.js';
import {
  MAX_JSON_DEPTH,
  nestingRefused,
  parseHookBodyInPieces,
  parsedWithoutManagedFields,
  SLOW,
  valueDepthExceeds,
  withoutManagedFields,
} from './json.js';
import { Metrics } from './metrics.js';
import { routesOf, type HookRoute } from './routes.js';
import { defaultServices } from './services.js';

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
   * The bytes of hook request bodies read, parsed and answered at once (lib/body-budget.ts; default
   * DEFAULT_BODY_BUDGET): a request waits for its turn before its body is read, up to half the hook deadline, else 429.
   */
  bodyBudget?: number | BodyBudget;
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

/** One hook served, as GET /hooks lists it. */
export type ServedHook = Pick<HookRoute, 'name' | 'kind' | 'type' | 'hook' | 'method' | 'path'>;

export { DEFAULT_BODY_LIMIT, DEFAULT_HOOK_DEADLINE_MS, HOW_TO_AUTHENTICATE, OVERLOADED, REFUSAL_LOG, RefusalLog };
export { DEFAULT_BODY_BUDGET, RETRY_AFTER_SECONDS };

/** A request that has not arrived whole by then is dropped (docs/operating.md: 30 s). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often the server looks for requests past their time (Node's default, 30 s, doubled the bound). */
export const CHECK_INTERVAL_MS = 1000;
/** The oldest TLS version served. */
export const MIN_TLS_VERSION = 'TLSv1.2';

export function buildApp(options: AppOptions): FastifyInstance {
  const app = createFastify(options);
  acceptJson(app);
  const metrics = options.metrics ?? new Metrics();
  app.register(guardPlugin, { refusalLog: options.refusalLog ?? REFUSAL_LOG });
  app.register(answerPlugin);
  app.register(instrumentPlugin, { metrics });
  app.setErrorHandler((thrown: FastifyError, request, reply) => {
    const error = overflowedOnDeepRequest(thrown, request.body) ? (nestingRefused() as FastifyError) : thrown;
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
    const tooLarge = request.routeOptions.config?.tooLarge;
    if (status === 413 && typeof tooLarge === 'string')
      message = `${message} (over ${options.bodyLimit ?? DEFAULT_BODY_LIMIT} bytes): ${tooLarge}`;
    // Refusals and deadlines are logged (what was refused and why, never the headers or the body).
    return refuse(request, reply, status, message);
  });
  app.setNotFoundHandler(notFound);

  const served: ServedHook[] = options.operators.flatMap(routesOf).map(({ name, kind, type, hook, method, path }) => {
    return { name, kind, type, hook, method, path };
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => ({ status: 'ok' }));
  app.get('/hooks', async () => ({ hooks: served }));

  const parts = serverParts(options, metrics);
  for (const def of options.operators) {
    app.register(hookRoutes, {
      ...parts,
      def,
      ...(options.clients?.[def.name] ? { clients: options.clients[def.name] } : {}),
      ...(options.settings?.[def.name] ? { settings: options.settings[def.name] } : {}),
    });
  }
  return app;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a body over the limit means for the route's operator (lib/hook.ts `tooLarge`). */
    tooLarge?: string;
  }
}

/**
 * Hooks speak JSON only: anything else is 415 Unsupported Media Type rather than a confusing 400. The body is
 * parsed by lib/json.ts, not by Fastify's parser (so its proto-poisoning options do not apply): valid
 * Kubernetes data may have keys named `__proto__` or `constructor` (a Secret's data key, a label, an S3 tag);
 * JSON.parse makes them plain own properties, which is safe, and refusing them would leave such a parent
 * impossible to sync or delete. The code never copies request objects with Object.assign or by writing keys
 * into `{}` (see lib/objects.ts), which is where such keys could do harm.
 */
function acceptJson(app: FastifyInstance): void {
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    let text: string;
    try {
      // The managedFields of every object the request carries are never parsed: never read, as large as each
      // object's writer makes them (lib/json.ts). Replaced by a number and taken out after the parse when that says
      // the same (perf: docs/performance.md), else cut out of the text first.
      const parsed = parsedWithoutManagedFields(String(body));
      if (parsed !== SLOW) {
        done(null, parsed);
        return;
      }
      text = withoutManagedFields(String(body));
    } catch (err) {
      done(err instanceof Error ? err : new Error(String(err)), undefined);
      return;
    }
    // What is left is parsed a piece at a time, the event loop turning between pieces, when it is large: the
    // labels and annotations of a namespace's objects are as many keys as their writers make them (lib/json.ts).
    parseHookBodyInPieces(text).then(
      (parsed) => done(null, parsed),
      (err: unknown) => done(err instanceof Error ? err : new Error(String(err)), undefined),
    );
  });
}

/**
 * A stack overflow while answering a request nested deeper than MAX_JSON_DEPTH: the request's fault, answered as its
 * 400. Bodies are not refused for depth as they arrive (lib/json.ts parseHookBodyInPieces); the places known to walk request
 * data recursively are bounded before they do, and this holds the promise for any other: such a request is never a
 * 500. The body is walked only on this error path.
 */
function overflowedOnDeepRequest(error: unknown, body: unknown): boolean {
  return error instanceof RangeError && error.message.includes('call stack') && valueDepthExceeds(body, MAX_JSON_DEPTH);
}

/** What every operator's routes share: the callers' guard, the metrics, lib's services, the deadline. */
function serverParts(options: AppOptions, metrics: Metrics): ServerParts {
  const services = instrumentedServices(
    { ...defaultServices(), ...options.services },
    metrics,
    options.services?.events,
  );
  // An unauthenticated caller records no Events (an Event is a side effect too) and gets no Kubernetes API.
  const pureServices: Services = { ...services, kube: refuseClient, events: () => NO_EVENTS };
  const guard: CallerGuard = {
    auth: options.auth ?? {},
    mtls: Boolean(options.https?.ca),
    ...(options.clientNames && options.clientNames.length > 0 ? { clientNames: options.clientNames } : {}),
    allowUnauthenticated: options.allowUnauthenticated ?? false,
  };
  return {
    guard,
    metrics,
    services,
    pureServices,
    deadline: options.hookDeadlineMs ?? DEFAULT_HOOK_DEADLINE_MS,
    bodies: {
      budget:
        options.bodyBudget instanceof BodyBudget
          ? options.bodyBudget
          : serverBudget(options.bodyBudget ?? DEFAULT_BODY_BUDGET),
      bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    },
    // The registry's parent kinds go with it into every operator's settings (lib/hook-routes.ts).
    environment: { env: options.env ?? process.env, parentKinds: parentKindsOf(options.operators) },
  };
}

/** The Fastify instance with the server-wide options (TLS, logging, parsing, limits). */
function createFastify(options: AppOptions) {
  const logger =
    options.logger && typeof options.logger === 'object'
      ? { ...options.logger, redact: { paths: REDACT, censor: '[REDACTED]' } }
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
      void refuse(request, reply, 400, 'the request target is not a valid URL'),
    // A request that has not arrived whole by then is dropped.
    requestTimeout,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // One line per hook call is logged by the handler itself (at debug); Fastify's own pair would double it.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: {
      // Never change what Metacontroller sent: no coercion, no removal, no defaults in the envelope.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  });
}
