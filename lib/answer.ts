// How a hook's answer is given: within the route's deadline (withDeadline: 429 with Retry-After, and the call's
// signal aborted), and with its ETag (`reply.sendTagged`, decorated on every reply by answerPlugin, a plugin of
// the whole server). The call's context a route hands its definition is made here too (LazyCallContext).
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { hash } from 'node:crypto';
import type { CallContext, Services } from './hook.js';
import type { ParentObject } from './metacontroller.js';

declare module 'fastify' {
  interface FastifyReply {
    /** Sends a serialised answer with its ETag, or 304 when the caller already holds it (answerPlugin). */
    sendTagged(payload: string): FastifyReply;
  }
}

/**
 * What a hook that missed its deadline answers: 429 with Retry-After. Metacontroller v4.17 honours Retry-After only
 * on a 429 (pkg/hooks/webhook.go L218-228: a TooManyRequestError that requeues the parent after that many seconds);
 * any other status is a plain error, retried with its own back-off.
 */
export const OVERLOADED = 429;
export const RETRY_AFTER_SECONDS = 5;

/** The ETag answer, on every reply of the server (fastify-plugin: not encapsulated). */
export const answerPlugin = fp(
  (app, _options, done) => {
    app.decorateReply('sendTagged', sendTagged);
    done();
  },
  { name: 'metaops-answer' },
);

/**
 * ETag (Metacontroller's webhook `etag` option): a strong ETag from the serialised answer; 304 Not Modified
 * when the caller already holds this very answer. Hooks still run (their side effects are idempotent), but
 * an unchanged answer is neither sent nor parsed and applied again. Done in the route, on the string the
 * response schema produced, rather than in an onSend hook that every request would pass through.
 */
function sendTagged(this: FastifyReply, payload: string): FastifyReply {
  // SHA-1 is plenty to tell two answers apart (this is no signature), and cheaper than SHA-256. perf: docs/performance.md
  const etag = `"${hash('sha1', payload, 'base64url')}"`;
  this.header('etag', etag);
  const match = this.request.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((m) => m.trim() === etag)) {
    return this.code(304).send();
  }
  return this.type('application/json; charset=utf-8').send(payload);
}

/**
 * The JSON of each child of a list measured by its answer budget (lib/operator.ts withinAnswerBudget, lib/budget.ts
 * answerSizeProblem writes every child to count it), and the children it wrote, by list: the answer sent is made of
 * these texts (answerText), not written again. perf: docs/performance.md: a PodSet answer's children were written
 * twice a sync (to be counted, then by the response schema's serialiser).
 */
const written = new WeakMap<readonly unknown[], { children: readonly unknown[]; texts: readonly string[] }>();

/** `texts`: JSON.stringify of each child of `children` (`null` where it writes nothing), just written. */
export function childrenWritten(children: readonly unknown[], texts: readonly string[]): void {
  if (texts.length === children.length) written.set(children, { children: [...children], texts });
}

/**
 * A CompositeController's answer as the response schema's serialiser writes it (lib/metacontroller.ts
 * CompositeSyncResponse: status, children, resyncAfterSeconds, finalized, in that order; nothing else), its children
 * from the texts written when they were measured; undefined when they were not (or the list changed since), or the
 * answer is not plainly of that shape: the serialiser writes it.
 */
export function answerText(result: Record<string, unknown>): string | undefined {
  const { children, status, resyncAfterSeconds: resync, finalized } = result;
  if (!Array.isArray(children) || status === undefined) return undefined;
  const measured = written.get(children);
  if (!measured || measured.texts.length !== children.length) return undefined;
  for (let i = 0; i < children.length; i++) if (measured.children[i] !== children[i]) return undefined;
  const statusText = JSON.stringify(status);
  if (statusText === undefined) return undefined;
  let text = `{"status":${statusText},"children":[${measured.texts.join(',')}]`;
  if (resync !== undefined) {
    if (typeof resync !== 'number' || !Number.isFinite(resync)) return undefined;
    text += `,"resyncAfterSeconds":${JSON.stringify(resync)}`;
  }
  if (finalized !== undefined) {
    if (typeof finalized !== 'boolean') return undefined;
    text += `,"finalized":${finalized}`;
  }
  return `${text}}`;
}

/** An error that answers with its status (Fastify's error handler reads `statusCode`). */
export class StatusError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

/**
 * The hook's answer, or a 429 with Retry-After once `ms` have passed without one; then the call's signal is
 * aborted, so that the client calls still running stop rather than act after the caller has given up.
 */
export async function withDeadline<T>(answer: Promise<T>, ms: number, ctx: LazyCallContext): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new StatusError(
        `the hook did not answer within ${ms} ms; retry after ${RETRY_AFTER_SECONDS} s`,
        OVERLOADED,
      );
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

/** What a route knows of a call beside its context: the request's logger, and the object the call is about. */
export interface CallOrigin {
  /** The request's logger. */
  log: FastifyBaseLogger;
  /** The route's name (`<operator>/<hook>`). */
  name: string;
  /** The object the request is about (a customize request may have none). */
  subject: ParentObject | undefined;
}

/**
 * The context a route hands its definition (lib/hook.ts CallContext). A class rather than an object literal with a
 * getter: a literal's getter is a new closure per call, which gives every context its own hidden class; at
 * thousands of calls a second that showed as long scavenges, old-space growth and a p99 twice as high.
 */
export class LazyCallContext implements CallContext<Record<string, unknown>, Record<string, unknown>> {
  private logger: FastifyBaseLogger | undefined;
  private controller: AbortController | undefined;
  constructor(
    readonly services: Services,
    readonly clients: Record<string, unknown>,
    readonly settings: Record<string, unknown>,
    private readonly origin: CallOrigin,
  ) {}

  /** Aborted when the route's deadline passes (made when a hook first asks for it). */
  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  /** The call's turn of the body budget, when it holds one: its `wanted` signal is made when a hook asks for it. */
  turn: { wanted(): AbortSignal } | undefined;

  /** Aborted when another namespace's request has waited for the body budget this call's turn holds (CallContext). */
  get turnWanted(): AbortSignal | undefined {
    return this.turn?.wanted();
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
    const target = this.origin.subject;
    return this.origin.log.child({
      hook: this.origin.name,
      namespace: target?.metadata.namespace,
      name: target?.metadata.name,
      uid: target?.metadata.uid,
    });
  }
}
