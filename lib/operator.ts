// One way to define an operator. defineComposite owns what every operator used to write itself: it parses the
// spec against its schema and answers InvalidSpec (every child kept), stamps observedGeneration, hands the hook
// what it needs in one object, renders a TemporaryError or PermanentError (lib/errors.ts) as conditions, a log
// line and a resync, and tells the conditions' failures (and the steps the hook reports) as Events.
import type { FastifyBaseLogger } from 'fastify';
import type { TSchema, Static } from '@sinclair/typebox';
import { answerBudgetProblem, type AnswerBudget } from './budget.js';
import { isHookFailure, TemporaryError, type HookFailure } from './errors.js';
import { NO_EVENTS, withEvents, type ConditionEventRules, type EventSpec } from './events.js';
import {
  conditionsFor,
  currentStatus,
  invalidSpecResponse,
  type ChildResourceRule,
  type ClientEnvironment,
  type CompositeHookDefinition,
  type HookContext,
  type ResourceDefinition,
  type Services,
} from './hook.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  ParentObject,
  Status,
} from './metacontroller.js';
import { allObserved, keepObserved } from './objects.js';
import type { SpecParser } from './spec.js';

/** What a sync hook is given. */
export interface SyncHook<Spec, C, K = unknown> {
  request: CompositeSyncRequest;
  parent: ParentObject;
  /** The parent's spec, checked against the schema, with defaults. */
  spec: Spec;
  /** The observed children, by `Kind.apiVersion`, then name. */
  observed: CompositeSyncRequest['children'];
  /** The related objects customize asked for, confined to the parent's namespace. */
  related: CompositeSyncRequest['related'];
  /** The clock, read once for this call. */
  now: Date;
  /** Aborted when the route's deadline passes. */
  signal: AbortSignal;
  log: FastifyBaseLogger;
  clients: C;
  /** The operator's settings (configuration read once from the environment). */
  settings: K;
  services: Services;
  /** Tells an Event about the parent (written only for an authenticated caller; never changes the answer). */
  event(event: EventSpec): void;
}

/** What a finalize hook is given: the spec only when it is valid (a parent is deleted whatever its spec). */
export interface FinalizeHook<Spec, C, K = unknown> extends Omit<SyncHook<Spec, C, K>, 'spec'> {
  spec: Spec | undefined;
}

type Answer = CompositeSyncResponse | Promise<CompositeSyncResponse>;

export interface CompositeOperator<S extends TSchema, C, K> {
  /** Lower-case kind: the route segment, /hooks/<name>/... */
  name: string;
  resource: ResourceDefinition;
  childResources: ChildResourceRule[];
  /** The spec's schema and its checks beyond the schema (lib/spec.ts). */
  spec: SpecParser<S>;
  /** A problem of the raw spec told before the schema's words (a field of the wrong type, said plainly). */
  specProblem?(spec: unknown): string | undefined;
  /** A problem of the parent beyond its spec (a name too long for the children it needs). */
  parentProblem?(parent: ParentObject): string | undefined;
  /**
   * A problem of a valid spec under the server's settings (a KMS key the server does not allow in the parent's
   * namespace): answered InvalidSpec, every observed child kept, before the sync acts. Finalize is not held by it.
   */
  settingsProblem?(spec: Static<S>, settings: K, parent: ParentObject): string | undefined;
  /**
   * How large the answer to a spec is (lib/budget.ts): a sync whose spec asks for more than the budget is answered
   * InvalidSpec, every observed child kept, before the hook builds anything. Every operator of main/operators.ts
   * states one (test/budget.test.ts); a definition made for a test alone may go without.
   */
  answerBudget?: AnswerBudget<Static<S>>;
  /** The answer to an invalid spec, when it keeps more than lib/hook.ts invalidSpecResponse does. */
  invalidSpec?(request: CompositeSyncRequest, message: string, now: Date): CompositeSyncResponse;
  /** The hooks act outside Metacontroller's apply: they serve only an authenticated caller (lib/app.ts). */
  effects?: boolean;
  resyncPeriodSeconds?: number;
  clients?(environment: ClientEnvironment): C;
  settings?(environment: ClientEnvironment): K;
  configProblems?(env: NodeJS.ProcessEnv): string[];
  /** Which condition reasons become Events (none: the operator records no Events). */
  events?: ConditionEventRules;
  /**
   * Events read from the answer, besides the conditions' (e.g. a backup written): called with the request before
   * the hook runs (what was observed), its result with the answer.
   */
  eventsOf?(request: CompositeSyncRequest): (response: CompositeSyncResponse) => EventSpec[];
  sync(hook: SyncHook<Static<S>, C, K>): Answer;
  finalize?(hook: FinalizeHook<Static<S>, C, K>): Answer;
  customize?(request: CustomizeRequest): CustomizeResponse;
}

/** A CompositeController's hooks from an operator's decisions (see the file header for what it adds). */
export function defineComposite<S extends TSchema, C = Record<string, never>, K = Record<string, never>>(
  op: CompositeOperator<S, C, K>,
): CompositeHookDefinition<C, K> {
  const { sync, finalize, customize } = op;
  const invalid = op.invalidSpec ?? invalidSpecResponse;
  return {
    type: 'composite',
    name: op.name,
    resource: op.resource,
    childResources: op.childResources,
    ...(op.effects !== undefined ? { effects: op.effects } : {}),
    ...(op.resyncPeriodSeconds !== undefined ? { resyncPeriodSeconds: op.resyncPeriodSeconds } : {}),
    ...(op.clients ? { clients: op.clients } : {}),
    ...(op.settings ? { settings: op.settings } : {}),
    ...(op.configProblems ? { configProblems: op.configProblems } : {}),
    ...(op.answerBudget ? { answerBudget: op.answerBudget as AnswerBudget<unknown> } : {}),
    sync: (request, ctx) =>
      call(op, request, ctx, 'sync', (parsed, now, event) =>
        parsed.ok ? sync(new HookCall(request, parsed.spec, now, ctx, event)) : invalid(request, parsed.message, now),
      ),
    ...(finalize
      ? {
          finalize: (request, ctx) =>
            call(op, request, ctx, 'finalize', (parsed, now, event) =>
              finalize(new HookCall(request, parsed.ok ? parsed.spec : undefined, now, ctx, event)),
            ),
        }
      : {}),
    ...(customize ? { customize: (request) => customize(request) } : {}),
  };
}

type Parsed<S extends TSchema> = ReturnType<SpecParser<S>['parse']>;

/**
 * The spec checked: the raw spec's problem, then the schema and its checks, then the parent's problem, then (for a
 * sync: a parent is finalized whatever its spec) the server's settings and the answer budget.
 */
function parse<S extends TSchema, C, K>(
  op: CompositeOperator<S, C, K>,
  parent: ParentObject,
  which: 'sync' | 'finalize',
  settings: K,
): Parsed<S> {
  const early = op.specProblem?.(parent.spec);
  if (early) return { ok: false, message: early };
  const parsed = op.spec.parse(parent.spec);
  if (!parsed.ok) return parsed;
  const late =
    op.parentProblem?.(parent) ??
    (which === 'sync'
      ? (op.settingsProblem?.(parsed.spec, settings, parent) ??
        (op.answerBudget && answerBudgetProblem(op.resource.kind, op.answerBudget, parsed.spec, parent)))
      : undefined);
  return late ? { ok: false, message: late } : parsed;
}

/** One hook call: the spec parsed, the hook run, its failure rendered, observedGeneration stamped, Events told. */
function call<S extends TSchema, C, K>(
  op: CompositeOperator<S, C, K>,
  request: CompositeSyncRequest,
  ctx: HookContext<C, K>,
  which: 'sync' | 'finalize',
  run: (parsed: Parsed<S>, now: Date, event: (e: EventSpec) => void) => Answer,
): Answer {
  const now = ctx.services.now();
  const parsed = parse(op, request.parent, which, ctx.settings);
  const answer = (event: (e: EventSpec) => void): Answer => {
    const stamp = (response: CompositeSyncResponse) => stamped(request.parent, response, parsed.ok);
    const failed = (err: unknown) => rendered(request, err, now, ctx.log, which);
    try {
      const result = run(parsed, now, event);
      return result instanceof Promise ? result.then(stamp, failed) : stamp(result);
    } catch (err) {
      return failed(err);
    }
  };
  // Operators that tell no Events, and calls whose Events nobody records (an unauthenticated caller's), answer
  // synchronously where the hook does (no promise, no deadline timer).
  const recorder = op.events ? ctx.services.events() : NO_EVENTS;
  if (!op.events || recorder === NO_EVENTS) return answer(ignore);
  // The call's logger is built only if an event is logged.
  const log = {
    info: (obj: Record<string, unknown>, msg: string) => ctx.log.info(obj, msg),
    warn: (obj: Record<string, unknown>, msg: string) => ctx.log.warn(obj, msg),
  };
  return withEvents({ request, recorder, now, log, rules: op.events, run: answer, extra: eventsOf(op, request, ctx) });
}

function ignore(): void {}

/**
 * The operator's reader of more Events, given the request. Events never change the answer: a reader that fails
 * on input it did not expect is logged and told nothing, and the hook answers as it would without Events.
 */
function eventsOf<S extends TSchema, C, K>(
  op: CompositeOperator<S, C, K>,
  request: CompositeSyncRequest,
  ctx: HookContext<C, K>,
): ((response: CompositeSyncResponse) => EventSpec[]) | undefined {
  try {
    return op.eventsOf?.(request);
  } catch (err) {
    ctx.log.warn({ err }, 'events: the request could not be read for Events; none are told for this call');
    return undefined;
  }
}

/**
 * What a hook is handed. A class, so that every call has the same shape, and so that the logger (a child logger
 * with the parent's names) and the signal (an AbortController) are made only when the hook reaches for them: made
 * for every call, they cost a pure hook of one child a fifth of its time (bench/ab.ts; perf: docs/performance.md).
 */
class HookCall<Spec, C, K> implements SyncHook<Spec, C, K> {
  readonly parent: ParentObject;
  readonly observed: CompositeSyncRequest['children'];
  readonly related: CompositeSyncRequest['related'];
  constructor(
    readonly request: CompositeSyncRequest,
    readonly spec: Spec,
    readonly now: Date,
    private readonly ctx: HookContext<C, K>,
    readonly event: (event: EventSpec) => void,
  ) {
    this.parent = request.parent;
    this.observed = request.children;
    this.related = request.related;
  }
  get signal(): AbortSignal {
    return this.ctx.signal;
  }
  get log(): FastifyBaseLogger {
    return this.ctx.log;
  }
  get clients(): C {
    return this.ctx.clients;
  }
  get settings(): K {
    return this.ctx.settings;
  }
  get services(): Services {
    return this.ctx.services;
  }
}

/**
 * observedGeneration: the generation whose spec the status describes, stamped on an answer built for a valid spec
 * unless the hook set it (a hook that holds its previous status keeps the previous value). An invalid spec's
 * answer keeps the status's previous value (lib/hook.ts invalidSpecResponse).
 */
function stamped(parent: ParentObject, response: CompositeSyncResponse, valid: boolean): CompositeSyncResponse {
  const status = response.status as Status | undefined;
  if (valid && status && typeof status === 'object' && status['observedGeneration'] === undefined) {
    status['observedGeneration'] = parent.metadata.generation ?? 0;
  }
  return response;
}

/**
 * A TemporaryError or PermanentError as an answer: every observed child kept as it is (nothing is deleted on a
 * failure), the status kept with the failure's conditions False, and for a temporary one a resync. Anything else
 * thrown is a bug: it stays an error (500, logged with its request id), and Metacontroller retries with back-off.
 */
function rendered(
  request: CompositeSyncRequest,
  err: unknown,
  now: Date,
  log: FastifyBaseLogger,
  which: 'sync' | 'finalize',
): CompositeSyncResponse {
  if (!isHookFailure(err)) throw err;
  const failure: HookFailure = err;
  const parent = request.parent;
  const types = failure.options.conditions ?? ['Ready'];
  log.warn(
    { reason: failure.reason, error: failure.message, temporary: failure instanceof TemporaryError },
    'hook could not finish',
  );
  const status: Status = {
    ...currentStatus(parent),
    ...failure.options.status,
    conditions: conditionsFor(
      parent,
      types.map((type) => ({ type, status: false, reason: failure.reason, message: failure.message })),
      now,
    ),
  };
  const response: CompositeSyncResponse = { status, children: allObserved(request.children).map(keepObserved) };
  // A parent whose finalize failed is not released.
  if (which === 'finalize') response.finalized = false;
  if (failure instanceof TemporaryError) response.resyncAfterSeconds = failure.retryAfterSeconds;
  return response;
}

/** What runHook may be given: a fixed clock and secrets, clients, a recorder of Events, a log. */
export interface RunOptions<C, K> {
  now?: Date;
  clients?: Partial<C>;
  settings?: Partial<K>;
  services?: Partial<Services>;
  log?: FastifyBaseLogger;
  signal?: AbortSignal;
}

/**
 * A definition's sync or finalize called directly, without HTTP (tests, tools): the same answer the route gives
 * (before serialisation), with the given clock, clients and services; Events recorded only through a given
 * `services.events`.
 */
export function runHook<C, K>(
  def: CompositeHookDefinition<C, K>,
  hook: 'sync' | 'finalize',
  request: CompositeSyncRequest,
  options: RunOptions<C, K> = {},
): Promise<CompositeSyncResponse> {
  return Promise.resolve(invoke(def, hook, request, options));
}

/** runHook for a hook that answers synchronously (one that tells no Events and calls no client). */
export function runPure<C, K>(
  def: CompositeHookDefinition<C, K>,
  hook: 'sync' | 'finalize',
  request: CompositeSyncRequest,
  options: RunOptions<C, K> = {},
): CompositeSyncResponse {
  const answer = invoke(def, hook, request, options);
  if (answer instanceof Promise) throw new Error(`${def.name} ${hook} answered asynchronously: use runHook`);
  return answer;
}

function invoke<C, K>(
  def: CompositeHookDefinition<C, K>,
  hook: 'sync' | 'finalize',
  request: CompositeSyncRequest,
  options: RunOptions<C, K>,
): Answer {
  const now = options.now ?? new Date();
  const services: Services = {
    now: () => now,
    randomSecret: () => 'secret',
    kube: () => {
      throw new Error('no Kubernetes API here: pass services.kube');
    },
    events: () => NO_EVENTS,
    ...options.services,
  };
  const ctx: HookContext<C, K> = {
    log: options.log ?? silentLog,
    services,
    clients: { ...(def.clients?.({ env: {} }) ?? {}), ...options.clients } as C,
    settings: { ...(def.settings?.({ env: {} }) ?? {}), ...options.settings } as K,
    signal: options.signal ?? new AbortController().signal,
  };
  const fn = hook === 'sync' ? def.sync : def.finalize;
  if (!fn) throw new Error(`${def.name} has no ${hook} hook`);
  return fn(request, ctx);
}

/** A logger that writes nothing. */
export const silentLog: FastifyBaseLogger = {
  level: 'silent',
  fatal: ignore,
  error: ignore,
  warn: ignore,
  info: ignore,
  debug: ignore,
  trace: ignore,
  silent: ignore,
  child: () => silentLog,
} as unknown as FastifyBaseLogger;
