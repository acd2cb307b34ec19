// Kubernetes Events for what the hooks could not do and for the transitions they make (events.k8s.io/v1,
// reportingController `metaops`, on the resource concerned, so that `kubectl describe` shows them).
//
// The hooks stay functions of what Metacontroller sends: what an answer is worth an event is computed from the
// request and the answer (a condition that takes a failure reason it did not have; a step the hook took in this
// very call), and recording it is a side effect behind the KubeApi interface that never changes the answer and
// never fails the hook. A call that is not authenticated records nothing (lib/app.ts gives it NO_EVENTS).
//
// Aggregation: an event's name is a hash of the resource's UID, the reason, what it is about (a condition type, a
// member) and a ten-minute bucket of time. The first occurrence in a bucket creates the event; a repeat in the
// same bucket (a failure that comes back, a status Metacontroller could not write so that the transition is
// seen again) is refused with 409 by the API server, and becomes a PATCH of the event's `series` (count and
// lastObservedTime), as client-go's events library does. At most one event per resource, reason and subject
// every ten minutes, however often it recurs.
import { createHash } from 'node:crypto';
import { errorReason, type KubeApi, type KubeEvent, type ObjectReference } from './kube.js';
import type { CompositeSyncRequest, CompositeSyncResponse, ParentObject } from './metacontroller.js';
import { previousConditions } from './conditions.js';
import { heldRecordsIn, heldRecordsOf } from './held-records.js';
import { fairTake } from './shares.js';

/** What a hook has to say, before it is addressed to a resource and named. */
export interface EventSpec {
  type: 'Normal' | 'Warning';
  /** The same reason as the condition it accompanies (or the transition's own, CamelCase). */
  reason: string;
  /** What the hook was doing (events.k8s.io/v1 `action`), CamelCase. */
  action: string;
  note: string;
  /** What makes two occurrences of the reason distinct (a condition type, a member, a key); part of the name. */
  subject?: string;
  related?: ObjectReference;
}

/** The time bucket of an event's name: a repeat within it is one event with a series. */
export const EVENT_BUCKET_SECONDS = 600;
/** How long a hook waits for its events before it answers (the writes go on; their outcome is only logged). */
export const EVENT_WAIT_MS = 1000;
/** Events being written at once; more are dropped (and logged) rather than queued behind a slow API server. */
export const MAX_EVENTS_IN_FLIGHT = 64;
/**
 * Each namespace's share: events of one namespace being written at once, and written in a burst and then per
 * second. One tenant's objects (a thousand failing parents, a hanging write) cannot use up what the others' get.
 */
export const NAMESPACE_EVENTS = { inFlight: 8, burst: 30, perSecond: 1 } as const;
/** Namespaces whose budget is remembered (the least recently seen is forgotten first, and starts afresh). */
const MAX_NAMESPACES = 4096;
/** Occurrence counts remembered for series (the most recent names). */
const MAX_COUNTS = 1024;

export interface EventLog {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface EventRecorder {
  /** Records `events` about `parent`; resolves when they are written or given up, never rejects. */
  record(parent: ParentObject, events: EventSpec[], now: Date, log?: EventLog): Promise<void>;
}

/** What an unauthenticated call gets: nothing is recorded. */
export const NO_EVENTS: EventRecorder = { record: async () => undefined };

/**
 * The recorder of a hook call's dependencies; none (a hook definition called directly with partial dependencies,
 * as some tests and tools do) records nothing.
 */
export function recorderOf(deps: { events?: () => EventRecorder }): EventRecorder {
  return typeof deps.events === 'function' ? deps.events() : NO_EVENTS;
}

/** The resource an event is about, as an ObjectReference. */
export function referenceOf(parent: ParentObject): ObjectReference {
  const ref: ObjectReference = {
    apiVersion: String(parent['apiVersion'] ?? ''),
    kind: String(parent['kind'] ?? ''),
    namespace: parent.metadata.namespace ?? 'default',
    name: parent.metadata.name,
  };
  if (parent.metadata.uid) ref.uid = parent.metadata.uid;
  return ref;
}

/** The event's name: the resource's name where it is valid, and a hash of the occurrence and its time bucket. */
export function eventName(parent: ParentObject, spec: EventSpec, now: Date): string {
  const bucket = Math.floor(now.getTime() / (EVENT_BUCKET_SECONDS * 1000));
  const who = parent.metadata.uid ?? `${parent.metadata.namespace ?? ''}/${parent.metadata.name}`;
  const hash = createHash('sha256')
    .update(JSON.stringify([who, spec.reason, spec.subject ?? '', bucket]))
    .digest('hex')
    .slice(0, 16);
  const prefix = parent.metadata.name
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .slice(0, 200)
    .replace(/^[-.]+|[-.]+$/g, '');
  return prefix ? `${prefix}.${hash}` : hash;
}

/** The events.k8s.io/v1 event for a spec about a parent. */
export function eventFor(parent: ParentObject, spec: EventSpec, now: Date): KubeEvent {
  const regarding = referenceOf(parent);
  const event: KubeEvent = {
    namespace: regarding.namespace,
    name: eventName(parent, spec, now),
    eventTime: now,
    type: spec.type,
    reason: spec.reason.slice(0, 128),
    action: spec.action.slice(0, 128),
    note: spec.note,
    regarding,
  };
  if (spec.related) event.related = spec.related;
  return event;
}

/**
 * The server's budget of Event writes: at most MAX_EVENTS_IN_FLIGHT under way, and each namespace's share
 * (NAMESPACE_EVENTS), within which it takes no more of the server's writes than it leaves free (lib/shares.ts
 * fairTake): eight namespaces whose writes hang cannot take all 64 (they take 60; another finds 2, a next 1). One per Kubernetes client (eventBudgetFor), so that every writer of Events through it (the
 * recorder, and the PodBuggerTool injector's failure Events) draws on the same share of each namespace.
 */
export class EventBudget {
  private inFlight = 0;
  /** Per namespace: events being written, and the tokens of its rate (refilled at NAMESPACE_EVENTS.perSecond). */
  readonly namespaces = new Map<string, { inFlight: number; tokens: number; at: number }>();

  /**
   * Takes one write's place (give it back with `release`), or says why the namespace (or the server) may not write
   * one more Event now. `now` is a monotonic clock in ms.
   */
  take(namespace: string, now: number): string | undefined {
    if (this.inFlight >= MAX_EVENTS_IN_FLIGHT) return `${MAX_EVENTS_IN_FLIGHT} events are being written already`;
    let share = this.namespaces.get(namespace);
    if (share) this.namespaces.delete(namespace);
    share ??= { inFlight: 0, tokens: NAMESPACE_EVENTS.burst, at: now };
    this.namespaces.set(namespace, share);
    if (this.namespaces.size > MAX_NAMESPACES) {
      const [oldest, old] = this.namespaces.entries().next().value!;
      // One with writes under way stays: forgetting it would let it past its share.
      if (old.inFlight === 0) this.namespaces.delete(oldest);
    }
    share.tokens = Math.min(
      NAMESPACE_EVENTS.burst,
      share.tokens + (Math.max(0, now - share.at) / 1000) * NAMESPACE_EVENTS.perSecond,
    );
    share.at = now;
    if (share.inFlight >= NAMESPACE_EVENTS.inFlight)
      return `${NAMESPACE_EVENTS.inFlight} events of namespace ${namespace} are being written already`;
    // Never more than it leaves free of the server's writes, so that namespaces whose writes hang cannot take them all.
    if (fairTake(1, share.inFlight, this.inFlight, MAX_EVENTS_IN_FLIGHT, NAMESPACE_EVENTS.inFlight) < 1)
      return `${share.inFlight} events of namespace ${namespace} are being written already, and ${MAX_EVENTS_IN_FLIGHT - this.inFlight} of the server's ${MAX_EVENTS_IN_FLIGHT} are left: a namespace holds at most as many as it leaves free`;
    if (share.tokens < 1)
      return `namespace ${namespace} wrote its ${NAMESPACE_EVENTS.burst} events, and gets ${NAMESPACE_EVENTS.perSecond} a second`;
    share.tokens -= 1;
    share.inFlight += 1;
    this.inFlight += 1;
    return undefined;
  }

  /** Gives back a place `take` gave. */
  release(namespace: string): void {
    this.inFlight -= 1;
    const share = this.namespaces.get(namespace);
    if (share) share.inFlight -= 1;
  }
}

const budgets = new WeakMap<object, EventBudget>();

/** The Event budget of a server: one per Kubernetes client (the server's one, or a test's). */
export function eventBudgetFor(kube: object): EventBudget {
  let budget = budgets.get(kube);
  if (!budget) budgets.set(kube, (budget = new EventBudget()));
  return budget;
}

/**
 * Records events through the Kubernetes API (created, or a series when the name exists), and logs each one; within
 * the server's budget of that client (eventBudgetFor).
 */
export class KubeEventRecorder implements EventRecorder {
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly kube: () => KubeApi,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  async record(parent: ParentObject, events: EventSpec[], now: Date, log?: EventLog): Promise<void> {
    if (events.length === 0) return;
    const ref = referenceOf(parent);
    const what = `${ref.kind} ${ref.namespace}/${ref.name}`;
    const writes = events.map((spec) => {
      // The log line that names the resource, whether or not the event can be written.
      const line = { resource: `${ref.namespace}/${ref.name}`, kind: ref.kind, reason: spec.reason, type: spec.type };
      if (spec.type === 'Warning') log?.warn(line, `${what}: ${spec.reason}: ${spec.note}`);
      else log?.info(line, `${what}: ${spec.reason}: ${spec.note}`);
      return this.write(eventFor(parent, spec, now), what, log);
    });
    await boundedWait(Promise.all(writes), EVENT_WAIT_MS);
  }

  private async write(event: KubeEvent, what: string, log?: EventLog): Promise<void> {
    const failed = (err: unknown) =>
      log?.warn(
        { reason: event.reason, error: errorReason(err), err: err instanceof Error ? err.message : String(err) },
        `${what}: could not record the event ${event.reason}: ${errorReason(err)}`,
      );
    let kube: KubeApi;
    try {
      kube = this.kube();
    } catch (err) {
      failed(err);
      return;
    }
    const budget = eventBudgetFor(kube);
    const refusal = budget.take(event.namespace, this.clock());
    if (refusal) {
      log?.warn({ reason: event.reason }, `${what}: the event ${event.reason} was dropped: ${refusal}`);
      return;
    }
    try {
      if (!kube.createEvent) return;
      const outcome = await kube.createEvent(event);
      if (outcome !== 'exists' || !kube.patchEventSeries) return;
      // A repeat of an occurrence already recorded in this bucket: one event, counted.
      const count = (this.counts.get(event.name) ?? 1) + 1;
      this.counts.delete(event.name);
      this.counts.set(event.name, count);
      if (this.counts.size > MAX_COUNTS) this.counts.delete(this.counts.keys().next().value!);
      await kube.patchEventSeries(event.namespace, event.name, { count, lastObservedTime: event.eventTime });
    } catch (err) {
      failed(err);
    } finally {
      budget.release(event.namespace);
    }
  }
}

/** Waits for `work` at most `ms`; never rejects (the work itself catches its errors). */
async function boundedWait(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([
      work.then(
        () => undefined,
        () => undefined,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Which condition reasons a kind reports as events. */
export interface ConditionEventRules {
  /** The events' action (what the hook was doing), e.g. Reconcile. */
  action: string;
  /** A condition that takes one of these reasons (with status False, or Unknown) is a Warning. */
  warnings: ReadonlySet<string>;
  /** A condition that takes one of these reasons is a Normal event (a transition worth telling). */
  normals?: ReadonlySet<string>;
  /**
   * Condition types whose True is the failure (ClaimsHeld: claims held back): one of these that takes a reason of
   * `warnings` with status True is a Warning too (a scale-up waiting on a StorageClass, Ready unchanged).
   */
  trueIsFailure?: ReadonlySet<string>;
}

/**
 * The reasons the framework itself holds an answer for, whatever the kind (lib/operator.ts: children over the kind's
 * budget, a child the API server would refuse for its annotations, a child outside a namespaced parent's namespace, a
 * status over its bound): each is a Warning for every kind that tells Events, so `kubectl describe` says why nothing
 * is made, without each operator naming them.
 */
export const FRAMEWORK_WARNINGS: ReadonlySet<string> = new Set([
  'AnswerTooLarge',
  'ChildTooLarge',
  'ChildOutsideNamespace',
  'StatusTooLarge',
]);

/**
 * The events a new status says: each condition whose reason (or status) differs from the one in the parent's
 * current status, when that reason is one the rules name (or one of FRAMEWORK_WARNINGS). The same status fed back
 * says nothing.
 */
export function conditionEvents(parent: ParentObject, status: unknown, rules: ConditionEventRules): EventSpec[] {
  const before = previousConditions(parent.status);
  const out: EventSpec[] = [];
  for (const c of previousConditions(status)) {
    const prev = before.find((p) => p.type === c.type);
    if (prev && prev.reason === c.reason && prev.status === c.status) continue;
    const reason = typeof c.reason === 'string' ? c.reason : '';
    const failing = c.status !== 'True' || rules.trueIsFailure?.has(String(c.type)) === true;
    const warning = (rules.warnings.has(reason) || FRAMEWORK_WARNINGS.has(reason)) && failing;
    if (!warning && !rules.normals?.has(reason)) continue;
    // Two conditions that take the same reason at once (Ready and Synced) are one occurrence.
    if (out.some((e) => e.reason === reason)) continue;
    out.push({
      type: warning ? 'Warning' : 'Normal',
      reason,
      action: rules.action,
      note: `${c.type}: ${String(c.message ?? '')}`,
      subject: c.type,
    });
  }
  return out;
}

/**
 * The events of a parent that yields names to, or waits for names from, a parent made in the same moment
 * (lib/ownership.ts heldForTakenNames): Warning `NamesYielded` when the answer's status.heldBy starts to say it
 * yields to a parent (HeldRecord.yieldsTo) that the parent's current status does not name (it releases children:
 * Metacontroller deletes them), and Warning `<Kind>NameReleasing` when Ready takes that reason (it waits for the
 * other parent to release them). Each names the other parent; the same status fed back says nothing.
 */
export function yieldEvents(parent: ParentObject, status: unknown, action: string): EventSpec[] {
  const out: EventSpec[] = [];
  const what = String(parent['kind'] ?? 'parent');
  const before = new Set(heldRecordsOf(parent).flatMap((r) => (r.yieldsTo ? [r.yieldsTo.uid] : [])));
  const records = heldRecordsIn(status);
  const told = new Set<string>();
  for (const r of records) {
    const to = r.yieldsTo;
    if (!to || before.has(to.uid) || told.has(to.uid)) continue;
    told.add(to.uid);
    const names = records
      .filter((x) => x.yieldsTo?.uid === to.uid)
      .map((x) => `${x.child.kind} ${x.child.name}`)
      .sort();
    out.push({
      type: 'Warning',
      reason: 'NamesYielded',
      action,
      note:
        `this ${what} yields to ${to.kind} ${to.name} (uid ${to.uid}), made before it, which wants names it holds ` +
        `(${names.join(', ')}): it never served, so it releases the children that ${to.kind} wants ` +
        `(Metacontroller deletes them) and stays held while the names are wanted there; to run both, rename this ${what}`,
      subject: to.uid,
      related: {
        apiVersion: to.apiVersion,
        kind: to.kind,
        name: to.name,
        namespace: parent.metadata.namespace ?? 'default',
        uid: to.uid,
      },
    });
  }
  const ready = (s: unknown) => previousConditions(s).find((c) => c.type === 'Ready');
  const was = ready(parent.status);
  const is = ready(status);
  const reason = typeof is?.reason === 'string' ? is.reason : '';
  if (is && reason.endsWith('NameReleasing') && (was?.reason !== reason || was?.status !== is.status))
    out.push({ type: 'Warning', reason, action, note: `Ready: ${String(is.message ?? '')}`, subject: 'Ready' });
  return out;
}

/** What withEvents is given. */
export interface EventfulCall {
  request: CompositeSyncRequest;
  recorder: EventRecorder;
  now: Date;
  log: EventLog | undefined;
  rules: ConditionEventRules;
  /** The hook, told where to report the steps it takes. */
  run: (note: (event: EventSpec) => void) => CompositeSyncResponse | Promise<CompositeSyncResponse>;
  /** More events read from the answer. */
  extra?: ((response: CompositeSyncResponse) => EventSpec[]) | undefined;
}

/**
 * Runs a composite hook and records the events of its answer: the steps it reports through `note` while it runs,
 * and the conditions it changed. The answer is the hook's, whatever happens to the events.
 */
export async function withEvents({
  request,
  recorder,
  now,
  log,
  rules,
  run,
  extra,
}: EventfulCall): Promise<CompositeSyncResponse> {
  const steps: EventSpec[] = [];
  const response = await run((event) => steps.push(event));
  let events: EventSpec[];
  try {
    events = [...steps, ...(extra?.(response) ?? []), ...conditionEvents(request.parent, response.status, rules)];
    // A parent made together with another that wants its names: what it yields, or waits for (once per change).
    for (const e of yieldEvents(request.parent, response.status, rules.action))
      if (!events.some((x) => x.reason === e.reason && x.subject === e.subject)) events.push(e);
  } catch (err) {
    log?.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'the events of this answer could not be worked out',
    );
    return response;
  }
  try {
    await recorder.record(request.parent, events, now, log);
  } catch {
    // A recorder never rejects; a broken one must not change the answer either.
  }
  return response;
}
