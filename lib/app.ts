// The Fastify app as a factory. It never listens: lib/server.ts does, and tests use app.inject().
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
import type { TSchema } from '@sinclair/typebox';
import { hooks as allHooks } from '../hooks/index.js';
import { authorized, type AuthConfig } from './auth.js';
import { joinedJson, jsonItemsOf } from './json.js';
import { lazyChildLoggerFactory } from './logging.js';
import { defaultDeps, type Deps } from './deps.js';
import { Metrics } from './metrics.js';
import type { HookContext, HookDefinition } from './hook.js';
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
  hooks?: HookDefinition[];
  deps?: Partial<Deps>;
  logger?: FastifyServerOptions['logger'];
  /** Largest request body accepted, in bytes. Metacontroller sends every child of a parent. */
  bodyLimit?: number;
  /** Required credentials for the hook endpoints; none: open (health, readiness and metrics always are). */
  auth?: AuthConfig;
  /** A hook that has not answered by then gets a 503, well before Metacontroller's 10 s webhook timeout. */
  hookDeadlineMs?: number;
  metrics?: Metrics;
  /** Serve TLS (and require client certificates when `ca` and `requestCert` are set). */
  https?: { cert: Buffer; key: Buffer; ca?: Buffer; requestCert?: boolean; rejectUnauthorized?: boolean };
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

export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;
export const DEFAULT_HOOK_DEADLINE_MS = 8500;

export function buildApp(options: AppOptions = {}): FastifyInstance {
  const logger =
    options.logger && typeof options.logger === 'object'
      ? { ...(options.logger as object), redact: { paths: REDACT, censor: '[REDACTED]' } }
      : (options.logger ?? false);
  const app = Fastify({
    ...(options.https ? { https: options.https } : {}),
    logger,
    // A request that has not arrived whole by then is dropped.
    requestTimeout: 30_000,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // One line per hook call is logged by the handler itself (at debug); Fastify's own pair would double it.
    logController: new LogController({ disableRequestLogging: true }),
    // The request's child logger ({reqId}) is built when the request logs, not for every request.
    childLoggerFactory: lazyChildLoggerFactory,
    ajv: {
      // Never change what Metacontroller sent: no coercion, no removal, no defaults in the envelope.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Hooks speak JSON only: anything else is 415 Unsupported Media Type rather than a confusing 400.
  app.removeContentTypeParser(['text/plain']);

  const metrics = options.metrics ?? new Metrics();
  const auth = options.auth ?? {};
  const deadline = options.hookDeadlineMs ?? DEFAULT_HOOK_DEADLINE_MS;
  const base: Deps = { ...defaultDeps(), ...options.deps };
  // Every call to a dependency is counted and timed.
  let aws: ReturnType<Deps['aws']> | undefined;
  let kube: ReturnType<Deps['kube']> | undefined;
  const deps: Deps = {
    ...base,
    aws: () => (aws ??= base.aws().then((a) => metrics.instrument(a, 'aws'))),
    kube: () => (kube ??= metrics.instrument(base.kube(), 'kube')),
    etcdClient: (tls) => metrics.instrument(base.etcdClient(tls), 'etcd'),
  };

  if (auth.bearer || auth.basic) {
    app.addHook('onRequest', (request, reply, done) => {
      if (request.method !== 'POST' || !request.url.startsWith('/hooks/') || authorized(request.headers.authorization, auth)) {
        return done();
      }
      reply.header('www-authenticate', auth.bearer ? 'Bearer realm="metaops"' : 'Basic realm="metaops"');
      reply.code(401).send({ statusCode: 401, error: 'Unauthorized', message: 'this hook needs the configured credentials' });
    });
  }

  const definitions = options.hooks ?? allHooks;
  const served: ServedHook[] = [];

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500 && status !== 503) {
      request.log.error({ err: error, url: request.url }, 'hook failed');
      // No stack traces or internals in bodies: the request id finds the log line.
      return reply.code(status).send({
        statusCode: status,
        error: 'Internal Server Error',
        message: `internal error; see the metaops log for request ${request.id}`,
      });
    }
    if (status === 503) reply.header('retry-after', '5');
    const message = error.validation ? `invalid hook request: ${error.message}` : error.message;
    return reply.code(status).send({ statusCode: status, error: httpError(status), message });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      statusCode: 404,
      error: 'Not Found',
      message: `no route ${request.method} ${request.url}; GET /hooks lists the hooks served`,
    });
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => ({ status: 'ok' }));
  app.get('/hooks', async () => ({ hooks: served }));

  for (const def of definitions) {
    const kind = def.type === 'composite' ? def.resource.kind : def.name;
    const add = (hook: HookName, body: TSchema, response: TSchema, handler: (body: never, ctx: HookContext) => unknown) => {
      const path = `/hooks/${def.name}/${hook}`;
      served.push({ name: def.name, kind, type: def.type, hook, method: 'POST', path });
      const name = `${def.name}/${hook}`;
      // Counted and timed per route (a hook of its own, not a server-wide one that would have to find out which
      // route answered): every answer, refusals and errors included.
      const onResponse = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        const code = reply.statusCode;
        const outcome = code === 304 ? 'not_modified' : code < 400 ? 'ok' : code < 500 ? 'client_error' : 'error';
        metrics.hookCall(name, outcome, reply.elapsedTime / 1000);
        done();
      };
      const answered = (request: FastifyRequest, reply: FastifyReply, ctx: CallContext, result: unknown) => {
        if ((request.log as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled?.('debug')) ctx.log.debug('hook answered');
        return sendTagged(request, reply, serialized(reply, result as Record<string, unknown>));
      };
      app.post(path, { schema: { body, response: { 200: response } }, onResponse }, (request, reply) => {
        const ctx = new CallContext(deps, request, name);
        const answer = handler(request.body as never, ctx);
        if (answer instanceof Promise) return withDeadline(answer, deadline).then((result) => answered(request, reply, ctx, result));
        // Hooks that decide without calling out answer synchronously: no promise, no deadline timer, no tick.
        // (A synchronous handler returns nothing: Fastify would send a returned value a second time.)
        answered(request, reply, ctx, answer);
        return undefined;
      });
    };
    if (def.type === 'composite') {
      add('sync', CompositeSyncRequest, CompositeSyncResponse, (b, ctx) => def.sync(b, ctx));
      if (def.finalize) add('finalize', CompositeSyncRequest, CompositeSyncResponse, (b, ctx) => def.finalize!(b, ctx));
    } else {
      add('sync', DecoratorSyncRequest, DecoratorSyncResponse, (b, ctx) => def.sync(b, ctx));
      if (def.finalize) add('finalize', DecoratorSyncRequest, DecoratorSyncResponse, (b, ctx) => def.finalize!(b, ctx));
    }
    if (def.customize) add('customize', CustomizeRequest, CustomizeResponse, (b, ctx) => def.customize!(b, ctx));
  }

  return app as unknown as FastifyInstance;
}

/**
 * What a hook call sees. A class rather than an object literal with a getter: a literal's getter is a new
 * closure per call, which gives every context its own hidden class; at thousands of calls a second that
 * showed as long scavenges, old-space growth and a p99 twice as high.
 */
class CallContext implements HookContext {
  private logger: FastifyBaseLogger | undefined;
  constructor(
    readonly deps: Deps,
    private readonly request: FastifyRequest,
    private readonly hook: string,
  ) {}

  /** The log context ({hook, namespace, name, uid}) is built only when something is logged. */
  get log(): FastifyBaseLogger {
    if (!this.logger) {
      const target = parentOf(this.request.body as Record<string, unknown>);
      this.logger = this.request.log.child({
        hook: this.hook,
        namespace: target?.metadata.namespace,
        name: target?.metadata.name,
        uid: target?.metadata.uid,
      });
    }
    return this.logger;
  }
}

const NO_CHILDREN: unknown[] = [];
const CHILDREN_SLOT = '"children":[]';

/**
 * The answer through the route's response schema (fast-json-stringify). Children whose JSON the hook wrote
 * already (lib/json.ts) are spliced in rather than serialised again: the envelope is serialised with an empty
 * list, whose slot is the last `"children":[]` in the text (status comes before it; only a number and a
 * boolean after it).
 */
function serialized(reply: FastifyReply, result: Record<string, unknown>): string {
  const children = jsonItemsOf(result['children']);
  if (children === undefined) return reply.serializeInput(result, '200') as string;
  const text = reply.serializeInput(Object.assign({}, result, { children: NO_CHILDREN }), '200') as string;
  const at = text.lastIndexOf(CHILDREN_SLOT) + CHILDREN_SLOT.length - 2;
  return joinedJson(text.slice(0, at), children, text.slice(at + 2));
}

/**
 * ETag (Metacontroller's webhook `etag` option): a strong ETag from the serialised answer; 304 Not Modified
 * when the caller already holds this very answer. Hooks still run (their side effects are idempotent), but
 * an unchanged answer is neither sent nor parsed and applied again. Done in the route, on the string the
 * response schema produced, rather than in an onSend hook that every request would pass through.
 */
function sendTagged(request: FastifyRequest, reply: FastifyReply, payload: string): FastifyReply {
  // SHA-1 is plenty to tell two answers apart (this is no signature), and cheaper than SHA-256.
  const etag = `"${hash('sha1', payload, 'base64url')}"`;
  reply.header('etag', etag);
  const match = request.headers['if-none-match'];
  if (match !== undefined && (match === etag || match.split(',').some((m) => m.trim() === etag))) {
    return reply.code(304).send();
  }
  return reply.type('application/json; charset=utf-8').send(payload);
}

/** The hook's answer, or a 503 once `ms` have passed without one. */
async function withDeadline<T>(answer: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error(`the hook did not answer within ${ms} ms`) as Error & { statusCode: number };
      err.statusCode = 503;
      reject(err);
    }, ms);
  });
  try {
    return await Promise.race([answer, overdue]);
  } finally {
    clearTimeout(timer);
  }
}

function parentOf(body: Record<string, unknown> | undefined): ParentObject | undefined {
  const target = (body?.['parent'] ?? body?.['object']) as ParentObject | undefined;
  return target && typeof target === 'object' && target.metadata ? target : undefined;
}

function httpError(status: number): string {
  switch (status) {
    case 400:
      return 'Bad Request';
    case 401:
      return 'Unauthorized';
    case 503:
      return 'Service Unavailable';
    case 404:
      return 'Not Found';
    case 405:
      return 'Method Not Allowed';
    case 413:
      return 'Payload Too Large';
    case 415:
      return 'Unsupported Media Type';
    default:
      return 'Error';
  }
}
