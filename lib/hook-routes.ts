// The hook routes of one operator, as an encapsulated plugin (one per definition): the routes lib/routes.ts lists,
// each typed by its request and answer schemas (lib/metacontroller.ts), its caller checked before the body is read
// (lib/guard.ts), its answer given within the deadline and with its ETag (lib/answer.ts), its calls counted
// (lib/instrument.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { answerText, LazyCallContext, OVERLOADED, RETRY_AFTER_SECONDS, StatusError, withDeadline } from './answer.js';
import { NoTurn, type BodyBudget, type Release } from './body-budget.js';
import { guardRoute, type CallerGuard } from './guard.js';
import type { CallContext, ClientEnvironment, HookDefinition, Services } from './hook.js';
import { countCalls, instrumentedClients, logAnswered, refuseClient } from './instrument.js';
import {
  CompositeSyncRequest,
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  DecoratorSyncRequest,
  DecoratorSyncResponse,
  type ParentObject,
} from './metacontroller.js';
import type { Metrics } from './metrics.js';
import { MAX_JSON_DEPTH, nestingRefused, valueDepthExceeds } from './json.js';
import { confineRelated } from './objects.js';
import { HEAD_BYTES, namespaceOfHead, subjectOfHead } from './body-head.js';
import { NAMESPACE_HEAD_BYTES } from './body-budget.js';
import { routesOf, type HookRoute } from './routes.js';

/** What every operator's routes share: the server's, given once by buildApp. */
export interface ServerParts {
  guard: CallerGuard;
  metrics: Metrics;
  /** lib's services for an authenticated caller. */
  services: Services;
  /** lib's services for a caller that is not: no Kubernetes API, no Events. */
  pureServices: Services;
  /** A hook that has not answered by then gets a 429 with Retry-After. */
  deadline: number;
  /** The request bodies in hand at once (lib/body-budget.ts), and the size a body without Content-Length counts as. */
  bodies: { budget: BodyBudget; bodyLimit: number };
  /** The environment the operators build their clients and settings from. */
  environment: ClientEnvironment;
}

export interface HookRoutesOptions extends ServerParts {
  def: HookDefinition;
  /** Replaces some of the operator's clients (tests). */
  clients?: Record<string, unknown>;
  /** Replaces some of the operator's settings (tests). */
  settings?: Record<string, unknown>;
}

/** The plugin's instance, typed by the TypeBox provider. */
type TypedApp = Parameters<FastifyPluginCallbackTypebox<HookRoutesOptions>>[0];

/** An answer schema: an object, which Fastify's serialiser takes. */
type AnswerSchema = TSchema & { static: Record<string, unknown> };

/** The context a route hands its definition: the operator's clients and settings, as built. */
type RouteContext = CallContext<Record<string, unknown>, Record<string, unknown>>;

/** How a route answers: its schemas, what its request is about, and the definition's hook. */
interface Answering<B extends TSchema, R extends AnswerSchema> {
  body: B;
  response: R;
  subject(body: Static<B>): ParentObject | undefined;
  answer(body: Static<B>, ctx: RouteContext): Static<R> | Promise<Static<R>>;
}

/**
 * A definition's routes, with its clients and settings built once: each client call counted and timed; a caller
 * that is not authenticated gets factories that fail with 401 before any call is made (the routes of hooks
 * declared `effects` refuse such callers earlier).
 */
export const hookRoutes: FastifyPluginCallbackTypebox<HookRoutesOptions> = (app, options, done) => {
  const { def } = options;
  const built: Record<string, unknown> = { ...def.clients?.(options.environment), ...options.clients };
  const clients = instrumentedClients(built, options.metrics);
  const refused = Object.fromEntries(Object.keys(built).map((key) => [key, refuseClient]));
  // Every operator's settings carry the registry's parent kinds (lib/network-policy.ts ParentKindSettings).
  const settings: Record<string, unknown> = {
    ...def.settings?.(options.environment),
    parentKinds: options.environment.parentKinds ?? [],
    ...options.settings,
  };
  const contextOf = (request: FastifyRequest, name: string, subject: ParentObject | undefined) =>
    request.authenticated
      ? new LazyCallContext(options.services, clients, settings, { log: request.log, name, subject })
      : new LazyCallContext(options.pureServices, refused, settings, { log: request.log, name, subject });
  for (const route of routesOf(def)) {
    const serve = <B extends TSchema, R extends AnswerSchema>(answering: Answering<B, R>) =>
      serveRoute(app, route, answering, { ...options, contextOf });
    if (route.hook === 'customize') serve(customizeAnswer(def));
    else if (def.type === 'composite') serve(compositeAnswer(def, route.hook));
    else serve(decoratorAnswer(def, route.hook));
  }
  done();
};

/** A CompositeController's sync or finalize: about the parent, its related objects confined to its namespace. */
function compositeAnswer(
  def: Extract<HookDefinition, { type: 'composite' }>,
  hook: 'sync' | 'finalize',
): Answering<typeof CompositeSyncRequest, typeof CompositeSyncResponse> {
  return {
    body: CompositeSyncRequest,
    response: CompositeSyncResponse,
    subject: (body) => body.parent,
    answer: (body, ctx) => {
      const confined = confineRelated(body, 'parent');
      return hook === 'sync' ? def.sync(confined, ctx) : def.finalize!(confined, ctx);
    },
  };
}

/** A DecoratorController's sync or finalize: about the object, its related objects confined to its namespace. */
function decoratorAnswer(
  def: Extract<HookDefinition, { type: 'decorator' }>,
  hook: 'sync' | 'finalize',
): Answering<typeof DecoratorSyncRequest, typeof DecoratorSyncResponse> {
  return {
    body: DecoratorSyncRequest,
    response: DecoratorSyncResponse,
    subject: (body) => body.object,
    answer: (body, ctx) => {
      const confined = confineRelated(body, 'object');
      return hook === 'sync' ? def.sync(confined, ctx) : def.finalize!(confined, ctx);
    },
  };
}

/** Customize: about the parent or the object, whichever was sent. */
function customizeAnswer(def: HookDefinition): Answering<typeof CustomizeRequest, typeof CustomizeResponse> {
  return {
    body: CustomizeRequest,
    response: CustomizeResponse,
    subject: (body) => body.parent ?? body.object,
    answer: (body, ctx) => def.customize!(body, ctx),
  };
}

/** One hook route: the caller checked before the body is read, the answer served with its ETag, the call counted. */
function serveRoute<B extends TSchema, R extends AnswerSchema>(
  app: TypedApp,
  route: HookRoute,
  answering: Answering<B, R>,
  options: HookRoutesOptions & {
    contextOf: (request: FastifyRequest, name: string, subject: ParentObject | undefined) => LazyCallContext;
  },
): void {
  const name = `${route.name}/${route.hook}`;
  const { deadline, contextOf, def } = options;
  // The body's type named (the schema checks it); the answer is sent by the handler (`sendTagged`), never returned.
  app.post<{ Body: Static<B>; Reply: undefined }>(
    route.path,
    {
      schema: { body: answering.body, response: { 200: answering.response } },
      onRequest: guardRoute(options.guard, route.effects),
      // After the caller's check, before the body is read: a turn of the server's body budget.
      preParsing: (request, reply, payload, done) => {
        // A body declared over the limit is refused (413) once this returns, unread: who it is about is told first.
        const declared = declaredLength(request);
        if (declared !== undefined && declared > options.bodies.bodyLimit) {
          // Unless the operator answers such a request from its start (answerOversized): then the answer is sent
          // here and the rest of the body is never read.
          tellOversized({ request, reply, payload }, declared, route, options).then(
            (answered) => {
              if (!answered) done(null, payload);
            },
            () => done(null, payload),
          );
          return;
        }
        takeTurn(request, reply, payload, options.bodies, deadline).then(
          () => done(null, payload),
          (err: unknown) => done(err as Error),
        );
      },
      // An error answered before the handler ran (a body cut short, unparsable or refused by its schema): nothing
      // more holds the body. After the handler ran this does nothing (its turn is already done with).
      onError: (request, _reply, _error, done) => {
        turns.get(request)?.done();
        done();
      },
      onResponse: countCalls(options.metrics, name),
      ...(def.tooLarge ? { config: { tooLarge: def.tooLarge } } : {}),
    },
    (request, reply) => {
      const body: Static<B> = request.body;
      const subject = answering.subject(body);
      const turn = turns.get(request);
      // A caller that went while its body was read and parsed (a large body is parsed a piece at a time, over many
      // turns of the event loop) reads no answer: its hook is not run (Metacontroller calls again, and hooks are
      // functions of what it sends), and the turn is given back now that the parse has ended.
      if (turn?.gone) {
        turn.done();
        request.log.debug('the caller went before its hook ran: not run');
        reply.hijack();
        return undefined;
      }
      // The object the hook is about is what hooks walk recursively (its spec parsed, fields of it cloned into
      // children): its depth is bounded here, before any hook runs; the rest of the body is read field by field.
      // perf: docs/performance.md (no scan of the whole body).
      if (valueDepthExceeds(subject, MAX_JSON_DEPTH)) throw nestingRefused();
      // A turn of the small requests' reserve stays with the request's namespace only within its share.
      if (turn && !options.bodies.budget.claim(turn.release, subject?.metadata?.namespace ?? ''))
        throw new StatusError(
          `the namespace holds its share of the server's reserve for small requests; retry after ${RETRY_AFTER_SECONDS} s`,
          OVERLOADED,
        );
      const ctx = contextOf(request, name, subject);
      // A turn of the budget (not the reserve's) may be asked to give way to another namespace (turnWanted).
      if (turn && !turn.release.reserved) ctx.turn = turn.release;
      const answered = (result: Static<R>) => {
        logAnswered(request.log, ctx);
        // Written from the children's texts measured by the answer budget when they were (lib/answer.ts answerText).
        return reply.sendTagged(answerText(result) ?? reply.getSerializationFunction('200')!(result));
      };
      const answer = answering.answer(body, ctx);
      if (answer instanceof Promise) {
        // The body is held until the hook settles, even past its deadline or a caller gone.
        turn?.done(answer);
        // The deadline counts from the request's arrival: the time it waited for its turn is spent.
        return withDeadline(answer, deadline - (turn?.waitedMs ?? 0), ctx).then((result) => {
          answered(result);
        });
      }
      // Hooks that decide without calling out answer synchronously: no promise, no deadline timer, no tick.
      // (A synchronous handler returns nothing: Fastify would send a returned value a second time.)
      turn?.done();
      answered(answer);
      return undefined;
    },
  );
}

/** A request's turn of the body budget: how long it waited, and what of the request still holds its body. */
interface Turn {
  waitedMs: number;
  release: Release;
  /** Whether the caller has gone (or its answer was sent). */
  readonly gone: boolean;
  /**
   * The request is done with its body, but for `hook` while that runs: called by its handler (with the hook's
   * promise, if it has one), or by an error answered before the handler ran. Only the first call counts.
   */
  done(hook?: Promise<unknown>): void;
}

const turns = new WeakMap<FastifyRequest, Turn>();

/** A Content-Length in plain digits, else undefined (a chunked body counts as the body limit). */
function declaredLength(request: FastifyRequest): number | undefined {
  const raw = request.headers['content-length'];
  return typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/**
 * Waits for the request's turn of the server's body budget (at most half the hook's deadline: the other half is the
 * hook's), and gives it back once the answer is sent or the caller has gone, and the request is done with its body:
 * its parse has ended (a large body is parsed a piece at a time over many turns of the event loop, lib/json.ts, and
 * goes on when its caller goes) and its hook has settled, or an error was answered before its hook ran. A hook that
 * never settles keeps the turn at most a deadline more than that. No turn in time: a 429 with Retry-After. A request
 * that finds no turn at once has the start of its body read first, for the namespace it is about (the budget's turns
 * are shared between namespaces, lib/body-budget.ts); the bytes read are given back to the stream for the parse.
 */
async function takeTurn(
  request: FastifyRequest,
  reply: { raw: NodeJS.EventEmitter },
  payload: NodeJS.ReadableStream,
  bodies: ServerParts['bodies'],
  deadline: number,
): Promise<void> {
  const declared = declaredLength(request);
  const size = Math.min(declared ?? bodies.bodyLimit, bodies.bodyLimit);
  // The caller going is told to the budget only while the request waits for its turn. perf: docs/performance.md:
  // aborted on every request's close (after its answer), the signal built a DOMException with its stack each time,
  // ~2.6 us in process and 12-18 us of a 10-pod PodSet request under load (`bench:profile`), for nobody to read.
  const gone = new AbortController();
  let waiting = true;
  reply.raw.once('close', () => {
    if (waiting) gone.abort();
  });
  const started = performance.now();
  const wait = Math.floor(deadline / 2);
  let release: Release;
  let head = 0;
  try {
    const now = bodies.budget.takeNow(size);
    if (now) release = now;
    else {
      // Only a body of a declared length is read ahead: its start is known to end (a chunked body counts as '').
      const room = declared === undefined ? 0 : Math.min(declared, NAMESPACE_HEAD_BYTES);
      if (room > 0 && bodies.budget.takeHead(room)) head = room;
      const namespace = head > 0 ? await namespaceAhead(payload, head, wait, gone.signal) : undefined;
      if (gone.signal.aborted) throw new NoTurn('the caller went away', 'gone');
      release = await bodies.budget.take(
        size,
        Math.max(0, wait - Math.floor(performance.now() - started)),
        gone.signal,
        namespace,
      );
    }
  } catch (err) {
    if (err instanceof NoTurn)
      throw new StatusError(
        `the server is answering as many request bytes as it has room for (${err.message}); retry after ${RETRY_AFTER_SECONDS} s`,
        OVERLOADED,
      );
    throw err;
  } finally {
    waiting = false;
    bodies.budget.giveHead(head);
  }
  // Given back when both have happened: the caller has gone (or its answer was sent: 'close' follows), and the
  // request is done with its body, but for its hook while that runs.
  let closed = false;
  let finished = false;
  let hook: Promise<unknown> | undefined;
  let cap: NodeJS.Timeout | undefined;
  const giveBack = () => {
    clearTimeout(cap);
    release();
  };
  const whenBoth = () => {
    if (!closed || !finished || cap) return;
    if (!hook) return giveBack();
    cap = setTimeout(giveBack, deadline);
    cap.unref();
    void hook.then(giveBack, giveBack);
  };
  const turn: Turn = {
    waitedMs: Math.floor(performance.now() - started),
    release,
    get gone() {
      return closed;
    },
    done: (pending) => {
      if (finished) return;
      finished = true;
      hook = pending;
      whenBoth();
    },
  };
  turns.set(request, turn);
  const close = () => {
    closed = true;
    whenBoth();
  };
  if (gone.signal.aborted) close();
  else reply.raw.once('close', close);
}

/**
 * The namespace a body's start names (lib/body-head.ts namespaceOfHead), read before the request's turn: at most
 * `max` bytes (and never past the body's end), in paused mode, and every byte read put back at the front of the
 * stream (`unshift`, in the same tick as the last read, so the stream has not ended meanwhile) for the parse, which
 * reads it as it came. '' when the start names none (or the wait ends first, or the stream fails: the caller gone).
 */
function namespaceAhead(
  payload: NodeJS.ReadableStream,
  max: number,
  waitMs: number,
  signal: AbortSignal,
): Promise<string> {
  const stream = payload as NodeJS.ReadableStream & {
    readableLength: number;
    readableEnded: boolean;
    destroyed: boolean;
  };
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const finish = (namespace: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.removeListener('readable', onReadable);
      stream.removeListener('error', failed);
      signal.removeEventListener('abort', failed);
      if (bytes > 0 && !stream.destroyed && !stream.readableEnded)
        stream.unshift(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes));
      resolve(namespace);
    };
    const failed = () => finish('');
    const onReadable = () => {
      while (bytes < max && stream.readableLength > 0) {
        const chunk = stream.read(Math.min(max - bytes, stream.readableLength)) as Buffer | string | null;
        if (chunk === null) break;
        const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        chunks.push(b);
        bytes += b.length;
      }
      const namespace = namespaceOfHead(Buffer.concat(chunks, bytes).toString('utf8'));
      if (namespace !== undefined) finish(namespace);
      else if (bytes >= max) finish('');
    };
    const timer = setTimeout(failed, waitMs);
    stream.on('readable', onReadable);
    stream.once('error', failed);
    signal.addEventListener('abort', failed, { once: true });
  });
}

/** Oversized bodies whose start is being read at once, at most; past it, one is refused without being read. */
export const MAX_HEADS_READ = 4;
let headsReading = 0;

/** The first `max` bytes of a body (fewer if it ends, fails or its caller goes first); the rest is left unread. */
function readHead(payload: NodeJS.ReadableStream, max: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      payload.removeListener('data', onData);
      payload.removeListener('end', finish);
      payload.removeListener('error', finish);
      payload.removeListener('close', finish);
      payload.pause();
      resolve(Buffer.concat(chunks).subarray(0, max).toString('utf8'));
    };
    const onData = (chunk: Buffer | string) => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(b);
      bytes += b.length;
      if (bytes >= max) finish();
    };
    payload.on('data', onData);
    payload.once('end', finish);
    payload.once('error', finish);
    payload.once('close', finish);
  });
}

/**
 * A request over the body limit is refused before it is read, so its hook never runs: no status is written, and
 * nothing the user sees would say why. For an authenticated caller (Metacontroller), the start of the body (at most
 * HEAD_BYTES, MAX_HEADS_READ requests at once) names the object the request is about (lib/body-head.ts). A decorator's
 * finalize that answers such a request from it (`finalizeOversized`: the pods' NetworkPolicy decorator releases a
 * policy past its bound by its deletionTimestamp, whatever pods the request carries) is answered so: true when the
 * answer was sent. Else a Warning Event `RequestTooLarge` on the object says so in `kubectl describe`, with what the
 * operator says such a request means (`tooLarge`), and the recorder logs it (one event per object and hook every ten
 * minutes, its repeats a series: lib/events.ts). Never fails: the request is refused as before whatever happens here.
 */
async function tellOversized(
  call: { request: FastifyRequest; reply: FastifyReply; payload: NodeJS.ReadableStream },
  declared: number,
  route: HookRoute,
  options: HookRoutesOptions,
): Promise<boolean> {
  const { request, payload } = call;
  if (!request.authenticated || headsReading >= MAX_HEADS_READ) return false;
  headsReading++;
  let head: string;
  try {
    head = await readHead(payload, HEAD_BYTES);
  } finally {
    headsReading--;
  }
  const subject = subjectOfHead(head);
  const limit = options.bodies.bodyLimit;
  if (!subject) {
    request.log.warn(
      { hook: `${route.name}/${route.hook}`, bytes: declared, limit },
      'a request over the body limit refused; its start names no object',
    );
    return false;
  }
  if (answerOversized(call, subject, declared, route, options)) return true;
  const why = options.def.tooLarge ? `: ${options.def.tooLarge}` : '';
  await options.services.events().record(
    subject,
    [
      {
        type: 'Warning',
        reason: 'RequestTooLarge',
        action: route.hook === 'customize' ? 'Customize' : 'Reconcile',
        subject: route.hook,
        note: `a ${route.hook} request about this ${subject.kind} was ${declared} bytes, over the ${limit} a request to the hooks may have (METAOPS_BODY_LIMIT): refused unread, so its hook does not run, no status is written and nothing it owns is made again or changed until its requests are smaller${why}`,
      },
    ],
    new Date(),
    request.log,
  );
  return false;
}

/**
 * A decorator's finalize over the body limit answered from the start of its body (`finalizeOversized`, with the
 * server's clock), as its route answers (the response schema, the ETag): true when it was; false when the operator
 * answers none, and the request is refused (413) as any other.
 */
function answerOversized(
  { request, reply }: { request: FastifyRequest; reply: FastifyReply },
  subject: ParentObject,
  declared: number,
  route: HookRoute,
  options: HookRoutesOptions,
): boolean {
  const { def } = options;
  if (route.hook !== 'finalize' || def.type !== 'decorator' || !def.finalizeOversized) return false;
  let answer: DecoratorSyncResponse | undefined;
  try {
    answer = def.finalizeOversized(subject, options.services.now());
  } catch (err) {
    request.log.warn({ err, hook: `${route.name}/${route.hook}` }, 'an oversized request not answered from its start');
    return false;
  }
  if (!answer) return false;
  request.log.info(
    {
      hook: `${route.name}/${route.hook}`,
      bytes: declared,
      limit: options.bodies.bodyLimit,
      finalized: answer.finalized,
    },
    'a request over the body limit answered from its start',
  );
  reply.sendTagged(reply.getSerializationFunction('200')!(answer));
  return true;
}
