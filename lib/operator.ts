// One way to define an operator, one front door for both of Metacontroller's controller types. defineComposite (a
// CompositeController on a custom resource) owns what every operator used to write itself: it parses the spec
// against its schema and answers InvalidSpec (every child kept), stamps observedGeneration, hands the hook what it
// needs in one object, renders a TemporaryError or PermanentError (lib/errors.ts) as conditions, a log line and a
// resync, and tells the conditions' failures (and the steps the hook reports) as Events. defineDecorator (a
// DecoratorController on objects that exist already, such as pods) takes the same definition (OperatorBase,
// lib/hook.ts), hands its hook the same call context, and renders the same failures: every attachment kept, the
// object's labels, annotations and status left as they are, and for a temporary failure a resync.
import type { FastifyBaseLogger } from 'fastify';
import type { TSchema, Static } from '@sinclair/typebox';
import {
  answerBudgetProblem,
  answerSizeProblem,
  lastAppliedProblem,
  statusBudgetProblem,
  type AnswerBudget,
} from './budget.js';
import { childrenWritten } from './answer.js';
import { isHookFailure, RETRY_SECONDS, TemporaryError, type HookFailure } from './errors.js';
import { NO_EVENTS, withEvents, type ConditionEventRules, type EventSpec } from './events.js';
import {
  conditionsFor,
  conditionsKeepingOthers,
  currentStatus,
  invalidSpecResponse,
  type CompositeHookDefinition,
  type DecoratorHookDefinition,
  type CallContext,
  type HookDefinition,
  type OperatorBase,
  parentKindsOf,
  type Services,
} from './hook.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  DecoratorSyncRequest,
  DecoratorSyncResponse,
  HookName,
  KubeObject,
  ParentObject,
  RelatedResourceRule,
  Status,
} from './metacontroller.js';
import { allObserved, keepObserved } from './objects.js';
import { holderJudge, holderRules, holderWants, registerChildNames, type NameShape } from './holders.js';
import { guardAnswer, namedRules, type ChildName } from './ownership.js';
import { registerPodNames } from './podholders.js';
import type { SpecParser } from './spec.js';

/** What a sync hook is given: its call's context, and what the call is about. */
export interface SyncHook<Spec, C, K = unknown> extends CallContext<C, K> {
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
  /** Tells an Event about the parent (written only for an authenticated caller; never changes the answer). */
  event(event: EventSpec): void;
}

/**
 * What a finalize hook is given: the spec only when it is valid (a parent is deleted whatever its spec), and only the
 * related objects its operator's `relatedAtDeletion` names (customize asks for no others once the parent is being
 * deleted: `customizeFor`).
 */
export interface FinalizeHook<Spec, C, K = unknown> extends Omit<SyncHook<Spec, C, K>, 'spec'> {
  spec: Spec | undefined;
}

type Answer = CompositeSyncResponse | Promise<CompositeSyncResponse>;

/** What defineComposite makes from what the operator declares (its answer budget is typed by its spec). */
type Served = HookName | 'type' | 'answerBudget';

/**
 * What defineComposite takes: the definition's fields (CompositeHookDefinition, declared once in lib/hook.ts), and
 * the operator's decisions over a parsed spec.
 */
export interface CompositeOperator<S extends TSchema, C, K> extends Omit<CompositeHookDefinition<C, K>, Served> {
  /** The spec's schema and its checks beyond the schema (lib/spec.ts). */
  spec: SpecParser<S>;
  /** A problem of the raw spec told before the schema's words (a field of the wrong type, said plainly). */
  specProblem?(spec: unknown): string | undefined;
  /**
   * A problem of the parent beyond its spec: a name too long for the children it needs, a value the children cannot
   * carry given what was observed (a downgrade). Answered InvalidSpec, as a spec the schema refuses.
   */
  parentProblem?(parent: ParentObject, request: CompositeSyncRequest): string | undefined;
  /**
   * A problem of a valid spec under the server's settings (a claim's storage class given the related StorageClass):
   * answered InvalidSpec, every observed child kept, before the sync acts. Finalize is not held by it. A refusal
   * that must also undo what the setting allowed before (S3: a KMS key taken off the allowlist is withdrawn from
   * the policy) is the sync's own.
   */
  settingsProblem?(
    spec: Static<S>,
    settings: K,
    parent: ParentObject,
    request: CompositeSyncRequest,
  ): string | undefined;
  /**
   * How large the answer to a spec is (lib/budget.ts): a sync whose spec asks for more than the budget is answered
   * InvalidSpec, every observed child kept, before the hook builds anything. Every operator of main/operators.ts
   * states one (test/lib/budget.test.ts); a definition made for a test alone may go without.
   */
  answerBudget?: AnswerBudget<Static<S>>;
  /**
   * Every name the parent's children may take (each naming scheme it may use): customize asks for the objects of
   * those names whoever owns them, and a sync whose answer wants a name another owner holds is held, Ready=False
   * `<Kind>NameTaken` (lib/ownership.ts).
   */
  childNames?(parent: ParentObject): ChildName[];
  /**
   * The names the parent's answer makes now, read from its object as stored (spec and status: a parent of another
   * kind sees no children of it), pods left to podNames: a kind whose childNames list names it may take besides the
   * ones it uses (a naming kept for parents made before a suffix) says which of them it uses. A parent of another kind
   * judges a holder, or a parent made before it, by these (lib/holders.ts holderWants): never by a name the holder's
   * answer does not make, which would keep that name from every parent made after it for good. Without it,
   * childNames.
   */
  currentNames?(parent: ParentObject): ChildName[];
  /**
   * Whether the parent's name, read from its object as stored, makes no child under any naming it may use now (too
   * long, or a character its children's names cannot carry: what parentProblem refuses of the name). A name cannot
   * change, so such a parent is refused InvalidSpec for good and makes nothing: a parent of another kind does not
   * judge it as wanting any name (lib/holders.ts holderWants). A kind whose naming depends on its status (a naming
   * from before a suffix) leaves a naming its name cannot make out of currentNames and podNames instead.
   */
  nameRefused?(holder: KubeObject): boolean;
  /**
   * How the parent's children are named (lib/holders.ts NameShape): `<prefix><name><suffix>`, with an ordinal or not,
   * or a name the spec chooses; every non-pod name childNames gives has one (test/operators/name-shapes.test.ts). A
   * parent of any kind held for one of its names finds this kind's parent that holds it by name (customize), remembers
   * it (status.heldBy), and stays held while that holder exists and wants the name (lib/ownership.ts HolderWants),
   * even while the name is free for a moment.
   */
  nameShapes?: readonly NameShape[];
  /**
   * The kind's sync judges itself a recorded holder the related objects do not show (S3: by the holder's IAM user),
   * so the answer's guard judges only the holders sent. Otherwise such a holder, when customize asks for it only
   * because status.heldBy records it, keeps the name for lib/ownership.ts HOLDER_UNSEEN_SECONDS.
   */
  judgesUnseenHolders?: boolean;
  /**
   * What a parent holds of value (it served clients, a member holds data), in words, or undefined when it holds
   * nothing: a parent made after another that wants the same names yields only then (lib/ownership.ts HeldOptions).
   * Without it, a parent held for a name never releases a child.
   */
  served?(request: CompositeSyncRequest): string | undefined;
  /**
   * The children do not depend on one another (a PodSet's pods): a parent held for a name takes only that name and
   * answers every other child as its hook made it (lib/ownership.ts guardAnswer).
   */
  independentChildren?: boolean;
  /**
   * The answer to an invalid spec, when it keeps more (MySQLCluster: its other conditions) or fewer (EtcdBackup: no
   * child today's tenancy rules refuse) than lib/hook.ts invalidSpecResponse does. Given the sync's call, without a
   * spec, for the server's settings. Pure.
   */
  /**
   * What an answer of the sync that keeps the observed children adds: the NetworkPolicies of the pods it keeps
   * running, and the condition saying which is missing (lib/network-policy.ts keptWithPolicies). Every such answer
   * of the sync goes through it: a spec refused (InvalidSpec, after `invalidSpec`), an answer held for a name another
   * owner holds (guardAnswer), a TemporaryError or PermanentError thrown (`rendered`), and an answer not given
   * (`held`: ChildOutsideNamespace, AnswerTooLarge, ChildTooLarge, StatusTooLarge). Not a finalize's: nothing is made
   * while the parent is deleted. Given the server's settings. Pure.
   */
  kept?(
    request: CompositeSyncRequest,
    response: CompositeSyncResponse,
    settings: K | undefined,
    now: Date,
  ): CompositeSyncResponse;
  invalidSpec?(
    request: CompositeSyncRequest,
    message: string,
    now: Date,
    hook: RefusedHook<C, K>,
  ): CompositeSyncResponse;
  /**
   * What a sync does, before it answers InvalidSpec, with a spec refused by any check above (the raw spec's, the
   * schema's, the parent's, the settings', the answer budget's): takes back what an earlier answer granted outside
   * Kubernetes that the rules would not grant now (S3: a KMS key in the tenant's IAM policy), since no sync runs
   * while the spec is refused. Given the parent as it is (no parsed spec) and the refusal's words; it narrows, it
   * makes nothing. A TemporaryError it throws (AWS unreachable) is told in the InvalidSpec answer's message, which
   * is asked again after its retryAfterSeconds: the spec is still what the user must fix; anything else is a bug.
   * What it returns (a grant it revoked, in words) is told after the refusal in the InvalidSpec message.
   */
  refused?(hook: RefusedHook<C, K>, refusal: string): Promise<string | void> | string | void;
  /** Which condition reasons become Events (none: the operator records no Events). */
  events?: ConditionEventRules;
  /**
   * Events read from the answer, besides the conditions' (e.g. a backup written): called with the request before
   * the hook runs (what was observed), its result with the answer.
   */
  eventsOf?(request: CompositeSyncRequest): (response: CompositeSyncResponse) => EventSpec[];
  sync(hook: SyncHook<Static<S>, C, K>): Answer;
  finalize?(hook: FinalizeHook<Static<S>, C, K>): Answer;
  /**
   * The related objects the parent's hooks are sent (pure: it names them, it does not act), under the server's settings
   * (undefined for a call made without them, e.g. a test's).
   */
  customize?(request: CustomizeRequest, settings: K | undefined): CustomizeResponse;
  /**
   * The related objects its finalize reads once the parent is being deleted, instead of customize's: pods only (a
   * core kind no uninstall removes; `customizeFor` keeps no other rule), such as a Memcached's, which its Deployment
   * makes and which its finalize waits for (lib/policy-at-deletion.ts).
   */
  relatedAtDeletion?(request: CustomizeRequest, settings: K | undefined): RelatedResourceRule[];
}

/** What a composite's `refused` is given: a sync hook's call, without a parsed spec (the spec was refused). */
export type RefusedHook<C, K = unknown> = Omit<SyncHook<undefined, C, K>, 'spec'>;

/** What a DecoratorController's sync (or finalize) hook is given: its call's context, and the object. */
export interface DecorateHook<C, K = unknown> extends CallContext<C, K> {
  request: DecoratorSyncRequest;
  /** The decorated object (a pod, ...): Metacontroller's copy, as its informer has it. */
  object: ParentObject;
  /** The attachments observed, by `Kind.apiVersion`, then name. */
  attachments: DecoratorSyncRequest['attachments'];
  /** The related objects customize asked for, confined to the object's namespace. */
  related: DecoratorSyncRequest['related'];
  /** The clock, read once for this call. */
  now: Date;
}

type DecoratorAnswer = DecoratorSyncResponse | Promise<DecoratorSyncResponse>;

/** What defineDecorator takes: the definition's fields (DecoratorHookDefinition, lib/hook.ts), and its hooks. */
export interface DecoratorOperator<C, K> extends Omit<DecoratorHookDefinition<C, K>, HookName | 'type'> {
  sync(hook: DecorateHook<C, K>): DecoratorAnswer;
  finalize?(hook: DecorateHook<C, K>): DecoratorAnswer;
  /** The related objects each decorated object's hooks are sent (pure: it names them, it does not act). */
  customize?(request: CustomizeRequest): CustomizeResponse;
}

/** What both definitions copy from an operator as it is: its name and what every operator may declare. */
function baseOf<C, K>(op: OperatorBase<C, K>): OperatorBase<C, K> {
  return {
    name: op.name,
    ...(op.effects !== undefined ? { effects: op.effects } : {}),
    ...(op.resyncPeriodSeconds !== undefined ? { resyncPeriodSeconds: op.resyncPeriodSeconds } : {}),
    ...(op.hookVersion ? { hookVersion: op.hookVersion } : {}),
    ...(op.clients ? { clients: op.clients } : {}),
    ...(op.settings ? { settings: op.settings } : {}),
    ...(op.configProblems ? { configProblems: op.configProblems } : {}),
    ...(op.configWarnings ? { configWarnings: op.configWarnings } : {}),
    ...(op.manifests ? { manifests: op.manifests } : {}),
    ...(op.tooLarge ? { tooLarge: op.tooLarge } : {}),
  };
}

/** A CompositeController's hooks from an operator's decisions (see the file header for what it adds). */
export function defineComposite<S extends TSchema, C = Record<string, never>, K = Record<string, never>>(
  op: CompositeOperator<S, C, K>,
): CompositeHookDefinition<C, K> {
  const { sync, finalize } = op;
  const customize = customizeOf(op);
  // The kind's pod names, known to every parent of a kind that declares them (lib/podholders.ts).
  if (op.podNames) registerPodNames(op.resource, op.podNames);
  // The kind's child names and their shapes, known to every parent of a kind that declares them (lib/holders.ts).
  if (op.childNames)
    registerChildNames(op.resource, op.childNames, op.nameShapes ?? [], {
      podNames: op.podNames,
      currentNames: op.currentNames?.bind(op),
      nameRefused: op.nameRefused?.bind(op),
    });
  return {
    type: 'composite',
    ...baseOf(op),
    resource: op.resource,
    childResources: op.childResources,
    ...(op.podNames ? { podNames: op.podNames } : {}),
    ...(op.answerBudget ? { answerBudget: op.answerBudget as AnswerBudget<unknown> } : {}),
    sync: (request, ctx) =>
      call(op, request, ctx, 'sync', (parsed, now, event) => {
        if (!parsed.ok) {
          const { message } = parsed;
          const hook = new HookCall(request, undefined, now, ctx, event);
          const refusal = (text: string) =>
            op.invalidSpec ? op.invalidSpec(request, text, now, hook) : invalidSpecResponse(request, text, now);
          const answer = (text: string) =>
            op.kept ? op.kept(request, refusal(text), hook.settings, now) : refusal(text);
          const refused = op.refused?.(hook, message);
          // What it did, when it says (a grant revoked): told after the refusal.
          const noted = (note: string | void) => answer(note ? `${message}; ${note}` : message);
          return refused instanceof Promise
            ? refused.then(noted, (err: unknown) => refusedFailed(message, err, answer))
            : noted(refused);
        }
        const answer = sync(new HookCall(request, parsed.spec, now, ctx, event));
        if (!op.childNames) return answer;
        const judge = op.judgesUnseenHolders ? holderWants : holderJudge(now);
        const held = {
          ...(op.served ? { served: op.served.bind(op) } : {}),
          ...(op.independentChildren ? { independent: true } : {}),
        };
        // A held answer keeps the observed children: the kind adds what they need (`kept`).
        const guarded = (a: CompositeSyncResponse) => {
          const g = guardAnswer(request, a, now, judge, held);
          return g !== a && op.kept ? op.kept(request, g, ctx.settings, now) : g;
        };
        return answer instanceof Promise ? answer.then(guarded) : guarded(answer);
      }),
    ...(finalize
      ? {
          finalize: (request, ctx) =>
            call(op, request, ctx, 'finalize', (parsed, now, event) =>
              finalize(new HookCall(request, parsed.ok ? parsed.spec : undefined, now, ctx, event)),
            ),
        }
      : {}),
    ...(customize
      ? {
          customize: (request, ctx) =>
            customizeFor(
              request,
              (r) => customize(r, ctx?.settings),
              finalize !== undefined,
              op.relatedAtDeletion && ((r) => op.relatedAtDeletion!(r, ctx?.settings)),
            ),
        }
      : {}),
  };
}

/**
 * The InvalidSpec answer when the operator's `refused` failed: the refusal and the failure said, the sync asked again
 * (a TemporaryError's or PermanentError's retryAfterSeconds, else RETRY_SECONDS.failure). Anything else is a bug.
 */
function refusedFailed(
  message: string,
  err: unknown,
  invalid: (message: string) => CompositeSyncResponse,
): CompositeSyncResponse {
  if (!isHookFailure(err)) throw err;
  const retry = err instanceof TemporaryError ? err.retryAfterSeconds : RETRY_SECONDS.failure;
  return { ...invalid(`${message}; ${err.message}`), resyncAfterSeconds: retry };
}

/**
 * A parent that is being deleted and that a finalize hook releases is answered no related objects but the pods its
 * finalize reads (`atDeletion`: pods of core v1 only, which no uninstall removes). Metacontroller
 * (v1.5.20 and v4.17.2, pkg/controller/composite/controller.go syncParentObject) looks the related objects up
 * before it calls finalize, and a look-up that fails fails the whole sync: at uninstall the CRD of a related kind
 * (an EtcdCluster's EtcdRestores) can be gone before the parent is finalized, and the parent would keep its
 * finalizer, and its own CRD, for good. Finalize reads only the children. Deletion bumps the generation, which
 * keys Metacontroller's cache of customize answers, so the answer is asked again once the parent is deleted.
 */
function customizeFor(
  request: CustomizeRequest,
  customize: (request: CustomizeRequest) => CustomizeResponse,
  finalizes: boolean,
  atDeletion?: (request: CustomizeRequest) => RelatedResourceRule[],
): CustomizeResponse {
  if (finalizes && request.parent?.metadata?.deletionTimestamp) {
    const pods = (atDeletion?.(request) ?? []).filter((r) => r.apiVersion === 'v1' && r.resource === 'pods');
    return { relatedResources: pods };
  }
  return customize(request);
}

/**
 * The operator's customize: its own rules, the rules that ask for every name its children may take (childNames), so
 * that a name another owner holds is seen, and the parents of other kinds that can hold one of those names
 * (lib/holders.ts holderRules), so that a holder remembered is judged. A rule asked twice is asked once.
 */
function customizeOf<S extends TSchema, C, K>(
  op: CompositeOperator<S, C, K>,
): ((request: CustomizeRequest, settings: K | undefined) => CustomizeResponse) | undefined {
  const { customize, childNames } = op;
  if (!childNames) return customize;
  return (request, settings) => {
    const own = customize?.(request, settings).relatedResources ?? [];
    const parent = request.parent;
    if (!parent) return { relatedResources: own };
    const rules = [...own, ...namedRules(parent.metadata.namespace ?? '', childNames(parent)), ...holderRules(parent)];
    const seen = new Set<string>();
    return {
      relatedResources: rules.filter((r) => {
        const key = JSON.stringify(r);
        return seen.has(key) ? false : (seen.add(key), true);
      }),
    };
  };
}

/**
 * A DecoratorController's hooks from an operator's decisions: the hook is handed the object and the call context,
 * and a TemporaryError or PermanentError it throws becomes an answer that changes nothing (every attachment kept,
 * no label, annotation or status), with a log line and, for a temporary one, a resync.
 */
export function defineDecorator<C = Record<string, never>, K = Record<string, never>>(
  op: DecoratorOperator<C, K>,
): DecoratorHookDefinition<C, K> {
  const { sync, finalize, customize } = op;
  const decorate =
    (which: 'sync' | 'finalize', run: (hook: DecorateHook<C, K>) => DecoratorAnswer) =>
    (request: DecoratorSyncRequest, ctx: CallContext<C, K>): DecoratorAnswer => {
      const failed = (err: unknown) => renderedDecoration(request, err, ctx.log, which);
      const within = (response: DecoratorSyncResponse) => attachedWithin(request, response, ctx.log, which);
      try {
        const result = run(new DecorateCall(request, ctx.services.now(), ctx));
        return result instanceof Promise ? result.then(within, failed) : within(result);
      } catch (err) {
        return within(failed(err));
      }
    };
  return {
    type: 'decorator',
    ...baseOf(op),
    resources: op.resources.map((r) => ({ ...r })),
    attachments: op.attachments,
    ...(op.answerBudget ? { answerBudget: op.answerBudget } : {}),
    sync: decorate('sync', sync),
    ...(finalize ? { finalize: decorate('finalize', finalize) } : {}),
    ...(op.finalizeOversized ? { finalizeOversized: op.finalizeOversized } : {}),
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
  request: CompositeSyncRequest,
  which: 'sync' | 'finalize',
  settings: K,
): Parsed<S> {
  const parent = request.parent;
  const early = op.specProblem?.(parent.spec);
  if (early) return { ok: false, message: early };
  const parsed = op.spec.parse(parent.spec);
  if (!parsed.ok) return parsed;
  const late =
    op.parentProblem?.(parent, request) ??
    (which === 'sync'
      ? (op.settingsProblem?.(parsed.spec, settings, parent, request) ??
        (op.answerBudget && answerBudgetProblem(op.resource.kind, op.answerBudget, parsed.spec, parent)))
      : undefined);
  return late ? { ok: false, message: late } : parsed;
}

/** One hook call: the spec parsed, the hook run, its failure rendered, observedGeneration stamped, Events told. */
function call<S extends TSchema, C, K>(
  op: CompositeOperator<S, C, K>,
  request: CompositeSyncRequest,
  ctx: CallContext<C, K>,
  which: 'sync' | 'finalize',
  run: (parsed: Parsed<S>, now: Date, event: (e: EventSpec) => void) => Answer,
): Answer {
  const now = ctx.services.now();
  const parsed = parse(op, request, which, ctx.settings);
  // What a sync's answer that keeps the observed children adds (the kind's `kept`: its pods' NetworkPolicies).
  const kept = op.kept;
  const keep: Keep =
    which === 'sync' && kept ? (response) => kept.call(op, request, response, ctx.settings, now) : (r) => r;
  const answer = (event: (e: EventSpec) => void): Answer => {
    const stamp = (response: CompositeSyncResponse) =>
      stamped(
        request.parent,
        withinStatusBudget(
          op.resource.kind,
          request,
          withinAnswerBudget(
            op.resource.kind,
            op.answerBudget,
            request,
            withinNamespace(request, response, now, ctx, keep),
            { now, ctx, keep },
          ),
          { now, ctx, keep },
        ),
        parsed.ok,
      );
    const failed = (err: unknown) =>
      withinNamespace(request, keep(rendered(request, err, now, ctx.log, which)), now, ctx, keep);
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

/** What a sync's answer that keeps the observed children adds (CompositeOperator.kept), or nothing. */
type Keep = (response: CompositeSyncResponse) => CompositeSyncResponse;

/**
 * The operator's reader of more Events, given the request. Events never change the answer: a reader that fails
 * on input it did not expect is logged and told nothing, and the hook answers as it would without Events.
 */
function eventsOf<S extends TSchema, C, K>(
  op: CompositeOperator<S, C, K>,
  request: CompositeSyncRequest,
  ctx: CallContext<C, K>,
): ((response: CompositeSyncResponse) => EventSpec[]) | undefined {
  try {
    return op.eventsOf?.(request);
  } catch (err) {
    ctx.log.warn({ err }, 'events: the request could not be read for Events; none are told for this call');
    return undefined;
  }
}

/**
 * The part of a call's context every hook is handed, read from the call's CallContext only when the hook reaches for
 * it: the logger (a child logger with the parent's names) and the signal (an AbortController) are made then. Made
 * for every call, they cost a pure hook of one child a fifth of its time (bench/ab.ts; perf: docs/performance.md).
 */
class LazyCall<C, K> {
  constructor(private readonly ctx: CallContext<C, K>) {}
  get signal(): AbortSignal {
    return this.ctx.signal;
  }
  get turnWanted(): AbortSignal | undefined {
    return this.ctx.turnWanted;
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

/** What a hook is handed. A class, so that every call has the same shape; its context is lazy (LazyCall). */
class HookCall<Spec, C, K> extends LazyCall<C, K> implements SyncHook<Spec, C, K> {
  readonly parent: ParentObject;
  readonly observed: CompositeSyncRequest['children'];
  readonly related: CompositeSyncRequest['related'];
  constructor(
    readonly request: CompositeSyncRequest,
    readonly spec: Spec,
    readonly now: Date,
    ctx: CallContext<C, K>,
    readonly event: (event: EventSpec) => void,
  ) {
    super(ctx);
    this.parent = request.parent;
    this.observed = request.children;
    this.related = request.related;
  }
}

/** What a decorator's hook is handed: the same lazy call context as HookCall, about the decorated object. */
class DecorateCall<C, K> extends LazyCall<C, K> implements DecorateHook<C, K> {
  readonly object: ParentObject;
  readonly attachments: DecoratorSyncRequest['attachments'];
  readonly related: DecoratorSyncRequest['related'];
  constructor(
    readonly request: DecoratorSyncRequest,
    readonly now: Date,
    ctx: CallContext<C, K>,
  ) {
    super(ctx);
    this.object = request.object;
    this.attachments = request.attachments;
    this.related = request.related;
  }
}

/**
 * A decorator's TemporaryError or PermanentError as an answer that changes nothing: every observed attachment kept,
 * no label, annotation or status in it (Metacontroller leaves them as they are), a finalize not released, and for a
 * temporary failure a resync. Anything else thrown is a bug: a 500, logged with its request id.
 */
function renderedDecoration(
  request: DecoratorSyncRequest,
  err: unknown,
  log: FastifyBaseLogger,
  which: 'sync' | 'finalize',
): DecoratorSyncResponse {
  if (!isHookFailure(err)) throw err;
  const failure: HookFailure = err;
  log.warn(
    { reason: failure.reason, error: failure.message, temporary: failure instanceof TemporaryError },
    'hook could not finish',
  );
  const response: DecoratorSyncResponse = { attachments: allObserved(request.attachments).map(keepObserved) };
  if (which === 'finalize') response.finalized = false;
  if (failure instanceof TemporaryError) response.resyncAfterSeconds = failure.retryAfterSeconds;
  return response;
}

/**
 * A decorator's answer whose attachments reach past the decorated object's namespace (childrenElsewhere) is not
 * given: every observed attachment kept, no label, annotation or status, a finalize not released, a resync.
 */
function attachedWithin(
  request: DecoratorSyncRequest,
  response: DecoratorSyncResponse,
  log: FastifyBaseLogger,
  which: 'sync' | 'finalize',
): DecoratorSyncResponse {
  const elsewhere = childrenElsewhere(request.object, response.attachments);
  if (elsewhere.length === 0) return response;
  log.warn(
    { reason: 'ChildOutsideNamespace', elsewhere },
    `the answer names an attachment outside namespace ${request.object.metadata.namespace}: not given`,
  );
  const kept: DecoratorSyncResponse = {
    attachments: allObserved(request.attachments).map(keepObserved),
    resyncAfterSeconds: RETRY_SECONDS.failure,
  };
  if (which === 'finalize') kept.finalized = false;
  return kept;
}

/**
 * An answer whose status is over its budget (lib/budget.ts MAX_STATUS_BYTES) is not given: the status stored is
 * kept with Ready=False StatusTooLarge, every observed child kept, and the sync tried again later. A hook bounds
 * what it reports where it reads it; this holds when one did not.
 */
/**
 * The answer as built, measured: the budget is estimated from the spec before anything is built (budget.ts), and
 * this bounds what the observed children may add to it whatever they are. An answer whose children are over the
 * kind's budget is not sent: the status stored and every observed child are kept, a condition says why.
 */
function withinAnswerBudget(
  kind: string,
  budget: { maxBytes?: number } | undefined,
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  { now, ctx, keep }: { now: Date; ctx: Pick<CallContext<unknown, unknown>, 'log'>; keep: Keep },
): CompositeSyncResponse {
  let bytes = 0;
  let texts: readonly string[] | undefined;
  const problem = answerSizeProblem(kind, response.children, budget?.maxBytes, (b, t) => {
    bytes = b;
    texts = t;
  });
  if (problem) {
    ctx.log.warn({ reason: 'AnswerTooLarge' }, problem);
    return keep(held(request, response, now, 'AnswerTooLarge', problem));
  }
  // A child whose annotations, with Metacontroller's last-applied copy of it, the API server refuses: nothing that
  // depends on it is made, the status says which (lib/budget.ts lastAppliedProblem).
  const copy = lastAppliedProblem(response.children, bytes, texts);
  if (!copy) {
    // The children's JSON is sent as written here (lib/answer.ts answerText).
    if (texts) childrenWritten(response.children, texts);
    return response;
  }
  ctx.log.warn({ reason: 'ChildTooLarge' }, copy);
  return keep(held(request, response, now, 'ChildTooLarge', copy));
}

/** A value of an observed object as text for a message: JSON for what is not text (`String` throws on an object whose
 * own `toString` is not a function, which valid JSON can write). */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
}

/**
 * The children of an answer named in another namespace than their namespaced parent's (decorated object's), as
 * `namespace/name` (at most `limit`). Metacontroller fills only an empty namespace with the parent's (v4.17.2
 * applyNamespaceDefaults) and creates a desired child in the namespace it names, with its own rights: a child answered
 * in another namespace is an object made there, for whoever wrote what the hook answered from.
 */
export function childrenElsewhere(
  parent: { metadata?: { namespace?: unknown } } | null | undefined,
  children: readonly KubeObject[] | null | undefined,
  limit = 3,
): string[] {
  const own = parent?.metadata?.namespace;
  if (typeof own !== 'string' || own === '' || !Array.isArray(children)) return [];
  const out: string[] = [];
  for (const child of children) {
    const namespace = (child as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
    if (namespace === undefined || namespace === null || namespace === '' || namespace === own) continue;
    out.push(`${shown(child.kind)} ${shown(namespace)}/${shown(child.metadata?.name)}`);
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * The last line of defence against an answer that reaches past its parent's namespace (lib/objects.ts keepObserved
 * answers a kept child in its own, whatever its annotation says; a hook builds its children in the parent's): such
 * an answer is not given. The status stored and every observed child are kept, Ready=False ChildOutsideNamespace
 * says which, and the sync is tried again later. A cluster-scoped parent (no namespace) is not held by it.
 */
function withinNamespace(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  now: Date,
  ctx: Pick<CallContext<unknown, unknown>, 'log'>,
  keep: Keep,
): CompositeSyncResponse {
  const elsewhere = childrenElsewhere(request.parent, response.children);
  if (elsewhere.length === 0) return response;
  const problem =
    `the answer names a child outside namespace ${request.parent.metadata.namespace} (${elsewhere.join(', ')}): ` +
    'not given; every observed child is kept as it is';
  ctx.log.warn({ reason: 'ChildOutsideNamespace' }, problem);
  return keep(held(request, response, now, 'ChildOutsideNamespace', problem));
}

/**
 * The answer kept when the one built is refused: the status stored, every observed child, a condition (and, by the
 * caller, what the kind adds to such an answer: Keep).
 */
function held(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  now: Date,
  reason: string,
  message: string,
): CompositeSyncResponse {
  const parent = request.parent;
  const answer: CompositeSyncResponse = {
    status: {
      ...currentStatus(parent),
      conditions: conditionsKeepingOthers(request, [{ type: 'Ready', status: false, reason, message }], now),
    },
    children: allObserved(request.children).map(keepObserved),
    resyncAfterSeconds: RETRY_SECONDS.failure,
  };
  if (response.finalized !== undefined) answer.finalized = false;
  return answer;
}

function withinStatusBudget(
  kind: string,
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  // The call's context, not its logger: the logger (a child with the call's fields) is made only if a line is logged.
  // perf: docs/performance.md (made on every call it was ~10% of a 10-pod PodSet sync's CPU).
  { now, ctx, keep }: { now: Date; ctx: Pick<CallContext<unknown, unknown>, 'log'>; keep: Keep },
): CompositeSyncResponse {
  const problem = statusBudgetProblem(kind, response.status);
  if (!problem) return response;
  ctx.log.warn({ reason: 'StatusTooLarge' }, problem);
  return keep(held(request, response, now, 'StatusTooLarge', problem));
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
  const children = failure.options.children ?? allObserved(request.children).map(keepObserved);
  const response: CompositeSyncResponse = { status, children };
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
  /** The call's turn of the body budget asked to give way (lib/hook.ts CallContext.turnWanted). */
  turnWanted?: AbortSignal;
}

type RequestOf<D> = D extends DecoratorHookDefinition ? DecoratorSyncRequest : CompositeSyncRequest;
type ResponseOf<D> = D extends DecoratorHookDefinition ? DecoratorSyncResponse : CompositeSyncResponse;
type ClientsOf<D> = D extends HookDefinition<infer C, any> ? C : never;
type SettingsOf<D> = D extends HookDefinition<any, infer K> ? K : never;

/**
 * A definition's sync or finalize called directly, without HTTP (tests, tools): the same answer the route gives
 * (before serialisation), with the given clock, clients and services; Events recorded only through a given
 * `services.events`. A composite's hook takes a composite request, a decorator's a decorator request.
 */
export function runHook<D extends HookDefinition>(
  def: D,
  hook: 'sync' | 'finalize',
  request: RequestOf<D>,
  options: RunOptions<ClientsOf<D>, SettingsOf<D>> = {},
): Promise<ResponseOf<D>> {
  return Promise.resolve(invoke(def, hook, request, options) as ResponseOf<D> | Promise<ResponseOf<D>>);
}

/** runHook for a hook that answers synchronously (one that tells no Events and calls no client). */
export function runPure<D extends HookDefinition>(
  def: D,
  hook: 'sync' | 'finalize',
  request: RequestOf<D>,
  options: RunOptions<ClientsOf<D>, SettingsOf<D>> = {},
): ResponseOf<D> {
  const answer = invoke(def, hook, request, options);
  if (answer instanceof Promise) throw new Error(`${def.name} ${hook} answered asynchronously: use runHook`);
  return answer as ResponseOf<D>;
}

function invoke<C, K>(
  def: HookDefinition<C, K>,
  hook: 'sync' | 'finalize',
  request: CompositeSyncRequest | DecoratorSyncRequest,
  options: RunOptions<C, K>,
): unknown {
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
  const ctx: CallContext<C, K> = {
    log: options.log ?? silentLog,
    services,
    clients: { ...(def.clients?.({ env: {} }) ?? {}), ...options.clients } as C,
    // Without a registry, the definition run is the only parent kind served (a test names others in its settings).
    settings: {
      ...(def.settings?.({ env: {} }) ?? {}),
      parentKinds: parentKindsOf([def]),
      ...options.settings,
    } as K,
    signal: options.signal ?? new AbortController().signal,
    ...(options.turnWanted ? { turnWanted: options.turnWanted } : {}),
  };
  const fn = (hook === 'sync' ? def.sync : def.finalize) as
    ((request: unknown, ctx: CallContext<C, K>) => unknown) | undefined;
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
};
