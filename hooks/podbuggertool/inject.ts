// The injector: a DecoratorController hook on pods, one pod per request. Its customize hook asks Metacontroller for
// the PodBuggerTools of the pod's namespace as related objects, so a request carries one pod and the tools beside
// it, however many pods a tool selects. Its sync hook adds the container of each tool that selects the pod and that
// it lacks. Metacontroller cannot write the pods/ephemeralcontainers subresource, so the hook PATCHes it through the
// Kubernetes API; a failure is recorded on the pod (an annotation in the answer, which Metacontroller writes) for the
// tool's status to count, and told as an Event on the tool.
//
// A pod no tool selects costs one hook call and no API call: the answer comes from the request alone, and is the
// same at every call (nothing is written). Before a PATCH the hook reads the pod and the tool again from the API
// server, decides again on what they say there, checks that the tool's author may do it (author.ts), and sends the
// PATCH with the pod's uid and resourceVersion as preconditions.
import { createHash } from 'node:crypto';
import {
  byCodeUnits,
  type ClientEnvironment,
  type CustomizeRequest,
  type CustomizeResponse,
  type DecorateHook,
  type DecoratorSyncResponse,
  DEFAULT_BODY_LIMIT,
  errorReason,
  EVENT_BUCKET_SECONDS,
  eventBudgetFor,
  isTerminating,
  type KubeApi,
  type KubeEvent,
  type KubeObject,
  MAX_BODY_LIMIT,
  MAX_OBJECT_READ_BYTES,
  type ObjectMap,
  observed,
  type ParentObject,
} from '../../lib/index.js';
import { actingAuthor, AUTHOR_CACHE_MS, AuthorCheck, authorCacheFor, OutOfTime, PER_POD } from './author.js';
import {
  CONFLICT,
  containerName,
  ephemeralContainer,
  FAILURES_ANNOTATION,
  failureDelaySeconds,
  failuresText,
  matches,
  MAX_RECORDED_TOOLS,
  MAX_RETRY_SECONDS,
  FAILURE_REASON,
  OUT_OF_TIME,
  OVERFLOW_ATTEMPT,
  OVERFLOW_KEY,
  parser,
  podState,
  policyFromEnv,
  recordedAttempts,
  refusal,
  retryWaitSeconds,
  attemptKey,
  type Failure,
  type DebugPolicy,
  wantsContainer,
} from './match.js';
import { resource, type PodBuggerToolSpec } from './schema.js';
import { SharedMemory } from './memory.js';
import { countKeyFrom, recordKeyFrom, recordMac } from './seal.js';

export const TOOL_API = `${resource.group}/${resource.version}`;

/** The settings of both hooks: the debug policy (METAOPS_DEBUG_*) and the work budget. */
export interface ToolSettings {
  policy: DebugPolicy;
  /** How long after the call began a new API call may still start. */
  workBudgetMs: number;
  /** The key that seals a count's continue token in the tool's status (seal.ts); the process's own when absent. */
  countKey?: Buffer;
  /**
   * The hook server's largest request body (METAOPS_BODY_LIMIT; DEFAULT_BODY_LIMIT when absent): a pod whose
   * injector request would pass it is never sent to the injector (counted skipped, TooLargeToSend).
   */
  bodyLimit?: number;
  /** The key that authenticates the injector's failure records (seal.ts recordKeyFrom); the process's own when absent. */
  recordKey?: Buffer;
}

/** The clients of both hooks: the author check, made over the call's Kubernetes API, remembering across calls. */
export interface ToolClients {
  authors: (kube: KubeApi) => AuthorCheck;
}

/**
 * No API call starts later than this after the call began; what is not reached is left to the next sync. With the
 * kube client's 3 s per call and events waited for at most EVENTS_WAIT_MS, a call ends by about 3.5 + 3 + 1 = 7.5 s,
 * inside the route's 8.5 s deadline, however slow the API server is (test/lib/deadlines.test.ts).
 */
export const WORK_BUDGET_MS = 3500;
const EVENTS_WAIT_MS = 1000;
/** A PATCH refused because the pod changed since it was read: read it again soon (not a failure). */
const CONFLICT_RETRY_SECONDS = 1;
/**
 * Conflicts in a row on one pod retried CONFLICT_RETRY_SECONDS later and recorded nowhere (a pod's status changes as
 * its containers start). Past them, a pod that changes between every read and its PATCH (a controller annotating it
 * in a loop) is a failure, CONFLICT: recorded on the pod, backed off from a second to an hour, told on the tool.
 */
export const CONFLICTS_UNRECORDED = 3;
/** A conflict longer than this after the last one of its pod starts a new run. */
const CONFLICT_RUN_MS = 60_000;
/**
 * A pod refused because its tool's author was refused on the namespace, while the tool's own status says it acts (a
 * RoleBinding deleted and made again, an authorizer's no of a moment): asked about again after this, then after twice
 * as long each time it is refused again, up to MAX_RETRY_SECONDS. Nothing is written: the pod is called about again
 * (resyncAfterSeconds), so that a grant is seen though the tool's status never changed. Once the tool's status says
 * refused, the injector answers from the request alone, and the status's change calls about every pod when it acts
 * again.
 */
export const RECHECK_FIRST_SECONDS = AUTHOR_CACHE_MS / 1000;
const MAX_RUNS = 1024;

/**
 * Runs of one outcome in a row, by pod and attempt (conflicts; refusals of the author): one memory per hook server
 * (per Kubernetes client), bounded, each namespace's share kept (SharedMemory: keys are [namespace, pod, attempt]),
 * so one namespace's pods never push out another's runs. Lost on a restart, or not shared with another replica: a
 * run then counts from one again (CONFLICTS_UNRECORDED more retries a second apart; a re-check RECHECK_FIRST_SECONDS
 * later).
 */
export class RunMemory {
  readonly runs = new SharedMemory<{ count: number; at: number }>(MAX_RUNS);
  /** `windowMs`: an outcome longer than this after the last one of its key starts a new run. */
  constructor(readonly windowMs: number) {}

  /** How many times in a row `key` has had the outcome, this one included. */
  add(key: string, now: number): number {
    const run = this.runs.get(key);
    const count = run && now - run.at >= 0 && now - run.at < this.windowMs ? run.count + 1 : 1;
    this.runs.set(key, { count, at: now });
    return count;
  }

  forget(key: string): void {
    this.runs.delete(key);
  }
}

const runMemories = new WeakMap<object, { conflicts: RunMemory; refusals: RunMemory }>();

/** The runs' memories of a server: one per Kubernetes client. */
export function runsFor(kube: object): { conflicts: RunMemory; refusals: RunMemory } {
  let memory = runMemories.get(kube);
  if (!memory)
    runMemories.set(
      kube,
      (memory = {
        conflicts: new RunMemory(CONFLICT_RUN_MS),
        refusals: new RunMemory(2 * MAX_RETRY_SECONDS * 1000),
      }),
    );
  return memory;
}

export function toolSettings({ env }: ClientEnvironment): ToolSettings {
  return {
    policy: policyFromEnv(env),
    workBudgetMs: WORK_BUDGET_MS,
    countKey: countKeyFrom(env),
    bodyLimit: bodyLimitFrom(env),
    recordKey: recordKeyFrom(env),
  };
}

/** METAOPS_BODY_LIMIT as the server takes it (lib/config.ts checks it at start), else DEFAULT_BODY_LIMIT. */
function bodyLimitFrom(env: NodeJS.ProcessEnv): number {
  const text = env['METAOPS_BODY_LIMIT']?.trim() ?? '';
  const value = /^[0-9]{1,9}$/.test(text) ? Number(text) : NaN;
  return value >= 1024 && value <= MAX_BODY_LIMIT ? value : DEFAULT_BODY_LIMIT;
}

/**
 * The author check's client: one memory of the API server's answers per server, the same for the injector and the
 * tool's status (both are built from the server's one environment), so a refusal either heard holds for both.
 */
export function toolClients(environment: ClientEnvironment): ToolClients {
  const cache = authorCacheFor(environment.env);
  return { authors: (kube) => new AuthorCheck(kube, cache) };
}

/**
 * The injector's customize: the PodBuggerTools of the pod's own namespace. The rule names no namespace: for a
 * namespaced object and a v1 hook, Metacontroller lists the related objects of the object's namespace (v4.17
 * pkg/controller/common/customize/manager.go GetRelatedObjects, selectByLabels; v1.5.20 the same) and wakes a pod
 * only for a change of a tool of its namespace (v4.17 matchesRelatedRule). A rule that named the pod's namespace
 * would say the same, but v1.5.20 caches customize answers by object name alone, so that a pod of another namespace
 * with the same name would be handed this namespace's rule, and refused. The answer is the same for every pod.
 */
export function customizeInjector(_request: CustomizeRequest): CustomizeResponse {
  return { relatedResources: [{ apiVersion: TOOL_API, resource: resource.plural }] };
}

/** A tool of the request: its name, uid and valid spec. */
export interface Tool {
  name: string;
  uid: string | undefined;
  spec: PodBuggerToolSpec;
}

/**
 * The tools of the request that may act on pods of `namespace`: in it, not being deleted, with a valid spec, and not
 * refused as the request shows them (refusedNow: by their own status, or an author who cannot be impersonated while
 * the server acts as the author; such a tool costs no API call; when it changes, Metacontroller calls about the pod
 * again).
 */
function toolsOf(related: ObjectMap | null | undefined, namespace: string, policy: DebugPolicy): Tool[] {
  const out: Tool[] = [];
  for (const tool of observed(related, resource.kind, TOOL_API)) {
    if (isTerminating(tool) || (tool.metadata.namespace ?? 'default') !== namespace || refusedNow(policy, tool))
      continue;
    const parsed = parser.parse(tool['spec']);
    if (parsed.ok) out.push({ name: tool.metadata.name, uid: tool.metadata.uid, spec: parsed.spec });
  }
  return out;
}

/**
 * The tools that want this pod now: they select it, the server's policy allows them in its namespace (its
 * exclusions are the caller's), and the pod lacks their container and can take it (pending, or failed before).
 * Tools that failed before come last.
 */
export function wantedBy(pod: KubeObject, tools: Tool[], policy: DebugPolicy): Tool[] {
  const namespace = pod.metadata.namespace ?? 'default';
  const rank = (t: Tool) => (podState(pod, t.name, t.spec).state === 'failed' ? 1 : 0);
  return tools
    .filter((t) => matches(t.spec, pod) && !refusal(t.spec, namespace, policy))
    .filter((t) => wantsContainer(pod, t.name, t.spec))
    .sort((a, b) => rank(a) - rank(b) || byCodeUnits(a.name, b.name));
}

/** The pod as the API server has it (undefined: not there), or the error its read ended in. */
type PodRead = { pod: KubeObject | undefined } | { error: unknown };

interface Work {
  /** The failures to record on the pod, by container (and the overflow's, OVERFLOW_KEY). */
  record: Map<string, Failure>;
  resyncAfterSeconds?: number;
  /**
   * Nothing done and nothing recorded for the tool, which does not act on this pod now (refused as the API server has
   * it, or no longer wanting the pod): the call goes on to the next tool due.
   */
  passed?: true;
}

/** The tools a record holds an entry of (the overflow's is none). */
function recordedTools(record: ReadonlyMap<string, Failure>): number {
  return record.size - (record.has(OVERFLOW_KEY) ? 1 : 0);
}

/**
 * Adds, once, the container of each tool of the pod's namespace that selects it and that it lacks (one per call;
 * the next at the next call, a second later), and records on the pod which could not be added and why.
 */
export async function injectPod(hook: DecorateHook<ToolClients, ToolSettings>): Promise<DecoratorSyncResponse> {
  const pod = hook.object;
  const namespace = pod.metadata.namespace ?? 'default';
  // A pod being deleted, or of a namespace the server never touches, is left as it is: nothing added or written.
  if (isTerminating(pod) || hook.settings.policy.excludedNamespaces.includes(namespace)) return { attachments: [] };
  const wanted = wantedBy(pod, toolsOf(hook.related, namespace, hook.settings.policy), hook.settings.policy);
  // The record keeps the failures of the tools that still want the pod: one that succeeded, was deleted or no
  // longer selects it has none. The overflow's entry is kept while it applies (below).
  // The attempt each tool makes now: a record's entry of another attempt (another spec, tool or pod) is none.
  const attempts = new Map(wanted.map((t) => [containerName(t.name), attemptKey(t.name, t.uid, t.spec, pod)]));
  attempts.set(OVERFLOW_KEY, OVERFLOW_ATTEMPT);
  // Only entries this injector wrote count (their MAC holds): one written by hand delays nothing. The record this
  // injector answered last, when Metacontroller could not write it, holds instead (UnwrittenRecords).
  const record =
    unwrittenFor(hook.services.kube()).take(pod, attempts) ?? writtenRecord(pod, attempts, hook.settings.recordKey);
  const overflow = record.get(OVERFLOW_KEY);
  // A tool whose last attempts on this pod failed waits its turn (retries back off, from 30 s to an hour): no API
  // call before then. A tool without an entry while the record is full waits the overflow's turn.
  const nowSeconds = Math.floor(hook.now.getTime() / 1000);
  const full = recordedTools(record) >= MAX_RECORDED_TOOLS;
  const waitOf = (t: Tool): number => {
    const own = record.get(containerName(t.name));
    if (own) return retryWaitSeconds(own, attemptKey(t.name, t.uid, t.spec, pod), nowSeconds);
    return full ? retryWaitSeconds(overflow, OVERFLOW_ATTEMPT, nowSeconds) : 0;
  };
  const waits = wanted.map(waitOf);
  const due = wanted.filter((_, i) => waits[i] === 0);
  // While the record is full, the tools without an entry take turns (the overflow's attempts say whose), so that
  // one failing for good does not keep the others from ever being tried.
  const unrecorded = due.filter((t) => !record.has(containerName(t.name)));
  const next = full && overflow && unrecorded.length > 0 ? unrecorded[overflow.attempts % unrecorded.length]! : due[0];
  const work = await injectFirst(hook, pod, next ? [next, ...due.filter((t) => t !== next)] : [], record);
  // A tool that waits is called about again when its retry is due: asked at every call, so that a Metacontroller
  // restarted meanwhile (its queue of resyncs lost) still comes back then.
  const waiting = waits.filter((w) => w > 0);
  if (waiting.length > 0) work.resyncAfterSeconds = Math.min(work.resyncAfterSeconds ?? Infinity, ...waiting);
  // The overflow's entry holds only while the record is full and some tool wanting the pod has no entry.
  const stillFull = recordedTools(work.record) >= MAX_RECORDED_TOOLS;
  if (!stillFull || wanted.every((t) => work.record.has(containerName(t.name)))) work.record.delete(OVERFLOW_KEY);
  const response = answer(pod, work, hook.settings.recordKey);
  unwrittenFor(hook.services.kube()).keep(pod, work.record, response);
  return response;
}

/**
 * The failures recorded on the pod that this injector wrote, of the attempts the tools wanting it make now (and the
 * overflow's), each with its attempt's key: an entry whose MAC (seal.ts recordMac) does not hold for that attempt
 * (written by hand, copied from another pod, of an earlier spec or tool, of an earlier version) is none. A reason
 * alone, without the retry's state, delays nothing whoever wrote it, and is kept as it is.
 */
function writtenRecord(
  pod: KubeObject,
  attempts: ReadonlyMap<string, string>,
  secret: Buffer | undefined,
): Map<string, Failure> {
  const out = new Map<string, Failure>();
  for (const [container, f] of recordedAttempts(pod)) {
    const attempt = attempts.get(container);
    if (attempt === undefined) continue;
    // A reason alone (an earlier version's record) delays nothing: kept as such (retried at once).
    if (f.at === undefined) out.set(container, { reason: f.reason, attempts: 1 });
    else if (f.key === recordMac(secret, attempt, f)) out.set(container, { ...f, key: attempt });
  }
  return out;
}

/**
 * The pods whose unwritten record the hook server remembers at least: 10,000, every one of them with one failing tool
 * (the pods of a namespace of the size the product is made for, each failing alike), however long their names; pods
 * with more failing tools weigh more (MAX_UNWRITTEN_BYTES). The least recently answered is forgotten first, of the
 * namespace that holds the most.
 */
export const MAX_UNWRITTEN_RECORDS = 10_000;

/**
 * What an entry of the unwritten records is counted as weighing, in bytes of the hook server's heap: the entry (its
 * place in the memory's maps, its object, its key's and its text's headers) and each character of its key and text
 * (a byte each: they are all ASCII). Measured on Node 26 (bench/unwritten-records.ts; docs/podbuggertool.md,
 * Failures), and counted above what was measured.
 */
export const UNWRITTEN_ENTRY_BYTES = 192;
/** The longest namespace name (a DNS label): an entry's key holds it, and is counted as holding that many. */
const NAMESPACE_CHARS = 63;
/** The longest failure an entry's text holds: `;`, a digest (22), `,`, a reason (64), `,`, a count (6), `,`, a time (12). */
const FAILURE_CHARS = 1 + 22 + 1 + 64 + 1 + 6 + 1 + 12;

/**
 * The bytes the unwritten records may weigh over the whole server: MAX_UNWRITTEN_RECORDS entries of one failure each,
 * every part at its longest.
 */
export const MAX_UNWRITTEN_BYTES =
  MAX_UNWRITTEN_RECORDS * (UNWRITTEN_ENTRY_BYTES + NAMESPACE_CHARS + 1 + 22 + 22 + FAILURE_CHARS);

/** A failure as the memory keeps it: a digest of its container and attempt, its reason, count and time. */
type KeptFailure = [digest: string, reason: string, attempts: number, at: number | undefined];

/** A string of its own (not a slice or a concatenation of others, which keep those alive): a byte a character. */
function flat(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}

/**
 * One pod's unwritten record as one string: the digest of its annotation as it was (`-`: none), then `;` and each
 * failure (`<digest of container and attempt>,<reason>,<count>,<time>`). Digests are base64, reasons letters and
 * digits (FAILURE_REASON), counts and times digits: no `;` nor `,` in any of them.
 */
class Unwritten {
  readonly text: string;
  constructor(seen: string | null, record: KeptFailure[]) {
    this.text = flat([seen ?? '-', ...record.map((f) => `${f[0]},${f[1]},${f[2]},${f[3] ?? ''}`)].join(';'));
  }

  /** The digest of the annotation as it was (null: none). */
  get seen(): string | null {
    const end = this.text.indexOf(';');
    const seen = end < 0 ? this.text : this.text.slice(0, end);
    return seen === '-' ? null : seen;
  }

  get record(): KeptFailure[] {
    return this.text
      .split(';')
      .slice(1)
      .map((part) => {
        const [digest, reason, attempts, at] = part.split(',') as [string, string, string, string];
        return [digest, reason, Number(attempts), at === '' ? undefined : Number(at)];
      });
  }
}

/** A short digest of a text (22 characters of SHA-256's base64, 132 bits): what the memory keeps instead of it. */
function shortDigest(text: string): string {
  return createHash('sha256').update(text).digest('base64').slice(0, 22);
}

/**
 * The record the injector last answered for each pod, while Metacontroller has not written it: the backoff's second
 * memory. The pod's annotation is the first, written by Metacontroller's Update of the pod; when that Update is
 * refused (the pod's annotations at the API server's 256 KiB, an admission policy refusing updates of pods, a
 * conflict Metacontroller drops), the pod still shows the annotation as it was before the answer, and this record
 * holds instead: a failing PATCH backs off all the same. It applies only while the annotation is exactly as it was
 * when the answer was given: a record written, edited or removed by hand (`kubectl annotate pod <pod>
 * debug.metaops.dev/failures-`) is the pod's truth again. One memory per hook server (per Kubernetes client), bounded
 * in bytes (MAX_UNWRITTEN_BYTES: at least MAX_UNWRITTEN_RECORDS pods) and shared fairly between namespaces (memory.ts:
 * past the bound, the oldest of the namespace that holds the most is forgotten); each entry compact (digests of the
 * pod, of the annotation and of each attempt, a count and a time); lost on a restart, and not shared with another
 * replica: there the retries start again from 30 s.
 */
export class UnwrittenRecords {
  /** By pod (its namespace, a space, a digest of its name and UID), each namespace's share kept. */
  readonly pods = new SharedMemory<Unwritten>(
    MAX_UNWRITTEN_BYTES,
    (key) => key.slice(0, key.indexOf(' ')),
    (entry) => UNWRITTEN_ENTRY_BYTES + NAMESPACE_CHARS + 1 + 22 + entry.text.length,
  );

  private static keyOf(pod: KubeObject): string {
    const namespace = pod.metadata.namespace ?? 'default';
    return flat(`${namespace} ${shortDigest(JSON.stringify([pod.metadata.name ?? '', pod.metadata.uid ?? '']))}`);
  }

  private static attemptOf(container: string, attempt: string): string {
    return shortDigest(JSON.stringify([container, attempt]));
  }

  /**
   * The record answered last for the pod, when it was not written (the pod's annotation is as it was before that
   * answer), kept to the attempts the tools wanting it make now; undefined otherwise (the pod's record holds).
   */
  take(pod: KubeObject, attempts: ReadonlyMap<string, string>): Map<string, Failure> | undefined {
    const entry = this.pods.get(UnwrittenRecords.keyOf(pod));
    if (!entry || entry.seen !== seenOf(annotationOf(pod))) return undefined;
    const kept = new Map(entry.record.map((f) => [f[0], f]));
    const out = new Map<string, Failure>();
    for (const [container, attempt] of attempts) {
      const f = kept.get(UnwrittenRecords.attemptOf(container, attempt));
      if (f)
        out.set(container, { reason: f[1], attempts: f[2], ...(f[3] !== undefined ? { at: f[3] } : {}), key: attempt });
    }
    return out;
  }

  /** Remembers the record of an answer that asks for it to be written; forgets the pod's when none is asked. */
  keep(pod: KubeObject, record: Map<string, Failure>, response: DecoratorSyncResponse): void {
    const key = UnwrittenRecords.keyOf(pod);
    this.pods.delete(key);
    if (!response.annotations || record.size === 0) return;
    // Only the entries of an attempt count when taken back (a reason alone, without its attempt, delays nothing).
    const kept: KeptFailure[] = [...record]
      .filter(([, f]) => f.key !== undefined)
      .map(([container, f]) => [UnwrittenRecords.attemptOf(container, f.key!), f.reason, f.attempts, f.at]);
    if (kept.length === 0) return;
    this.pods.set(key, new Unwritten(seenOf(annotationOf(pod)), kept));
  }
}

/** A digest of an annotation's text (null: none): what the memory keeps of it, whatever its size. */
function seenOf(text: string | null): string | null {
  return text === null ? null : shortDigest(text);
}

/** The pod's failures annotation as it is (null: none). */
function annotationOf(pod: KubeObject): string | null {
  const annotations = pod.metadata.annotations;
  const text = annotations && Object.hasOwn(annotations, FAILURES_ANNOTATION) ? annotations[FAILURES_ANNOTATION] : null;
  return typeof text === 'string' ? text : null;
}

const unwrittenMemories = new WeakMap<object, UnwrittenRecords>();

/** The unwritten records' memory of a server: one per Kubernetes client. */
export function unwrittenFor(kube: object): UnwrittenRecords {
  let memory = unwrittenMemories.get(kube);
  if (!memory) unwrittenMemories.set(kube, (memory = new UnwrittenRecords()));
  return memory;
}

/**
 * One container added (or failed) per call: the first of `order` that acts on the pod. A tool that turns out not to
 * act on it now (refused as the API server has it: a request older than its status) is passed over for the next one,
 * within the call's one budget, so that it never keeps the others out. Tools not reached: called about again a
 * second later.
 */
async function injectFirst(
  hook: DecorateHook<ToolClients, ToolSettings>,
  pod: ParentObject,
  order: Tool[],
  record: Map<string, Failure>,
): Promise<Work> {
  const began = performance.now();
  const over = () => hook.signal.aborted || performance.now() - began > hook.settings.workBudgetMs;
  let work: Work = { record };
  let waitPassed = Infinity;
  let tried = 0;
  for (const tool of order) {
    if (tried > 0 && over()) break;
    tried++;
    work = await inject(hook, pod, tool, record, over);
    if (!work.passed) break;
    waitPassed = Math.min(waitPassed, work.resyncAfterSeconds ?? Infinity);
  }
  delete work.passed;
  const wait = Math.min(work.resyncAfterSeconds ?? Infinity, waitPassed, order.length > tried ? 1 : Infinity);
  if (wait !== Infinity) work.resyncAfterSeconds = wait;
  return work;
}

/**
 * The answer: the failures annotation only when it changes (Metacontroller writes nothing otherwise), each entry
 * carrying its MAC (seal.ts recordMac) where the record keeps the attempt's key.
 */
function answer(pod: KubeObject, work: Work, secret: Buffer | undefined): DecoratorSyncResponse {
  const response: DecoratorSyncResponse = { attachments: [] };
  const annotations = pod.metadata.annotations;
  const current =
    annotations && Object.hasOwn(annotations, FAILURES_ANNOTATION) ? annotations[FAILURES_ANNOTATION] : null;
  const sealed = new Map(
    [...work.record].map(([c, f]) => [c, f.key === undefined ? f : { ...f, key: recordMac(secret, f.key, f) }]),
  );
  const text = failuresText(sealed);
  if (text !== current) response.annotations = { [FAILURES_ANNOTATION]: text };
  if (work.resyncAfterSeconds !== undefined) response.resyncAfterSeconds = work.resyncAfterSeconds;
  return response;
}

/** An event name for one occurrence: the tool's name where it is valid, and a hash of what happened. */
export function eventName(tool: string, occurrence: string): string {
  const hash = createHash('sha256').update(occurrence).digest('hex').slice(0, 16);
  const prefix = tool
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 200)
    .replace(/^-+|-+$/g, '');
  return prefix ? `${prefix}.${hash}` : hash;
}

/**
 * One tool's container for one pod. The request says the pod might need it; it is not trusted for what is done:
 * the pod and the tool are read again, the decision is made again on what they say (the tool the same one, not
 * being deleted, valid, allowed by the policy, selecting the pod; the pod in the namespace, not being deleted,
 * lacking the container and able to take it), the tool's author is checked, and the PATCH carries the pod's uid and
 * resourceVersion.
 */
async function inject(
  hook: DecorateHook<ToolClients, ToolSettings>,
  requested: ParentObject,
  tool: Tool,
  record: Map<string, Failure>,
  over: () => boolean,
): Promise<Work> {
  return new Attempt(hook, requested, tool, record, over).make();
}

/**
 * One attempt of inject: one pass of read, decide, check and act, each step stopping at the budget, and the
 * failure Events it tells. Its state is the attempt's: the pod and the tool as the request names them and as the
 * API server has them, the record's entry of the tool, and the run of its outcomes.
 */
class Attempt {
  private readonly base: KubeApi;
  /** Every call made with the call's signal: one in flight when the route's deadline passes is abandoned. */
  private readonly kube: KubeApi;
  private readonly namespace: string;
  private readonly podName: string;
  private readonly container: string;
  private readonly recorded: Failure | undefined;
  private readonly key: string;
  private readonly conflicts: RunMemory;
  private readonly refusals: RunMemory;
  private readonly run: string;
  private toolUid: string | undefined;
  private podUid: string | undefined;
  /** The tool as the API server has it (read before the PATCH): whether its author may be told pod names. */
  private real: KubeObject | undefined;
  /** The reasons of the failures to tell as Events on the tool. */
  private readonly failures: string[] = [];

  constructor(
    private readonly hook: DecorateHook<ToolClients, ToolSettings>,
    requested: ParentObject,
    private readonly tool: Tool,
    private readonly record: Map<string, Failure>,
    private readonly over: () => boolean,
  ) {
    this.base = hook.services.kube();
    this.kube = this.base.withSignal?.(hook.signal) ?? this.base;
    this.namespace = requested.metadata.namespace ?? 'default';
    this.podName = requested.metadata.name;
    this.container = containerName(tool.name);
    this.recorded = record.get(this.container);
    this.key = attemptKey(tool.name, tool.uid, tool.spec, requested);
    ({ conflicts: this.conflicts, refusals: this.refusals } = runsFor(this.base));
    this.run = JSON.stringify([this.namespace, this.podName, this.key]);
    this.toolUid = tool.uid;
    this.podUid = requested.metadata.uid;
  }

  /** The attempt, and the Events of its failures. */
  async make(): Promise<Work> {
    const work = await this.act();
    if (this.failures.length > 0) await this.tellFailures();
    return work;
  }

  private async act(): Promise<Work> {
    if (this.over()) return this.outOfTime();
    let read: PodRead;
    try {
      read = await this.read();
    } catch (err) {
      return this.fail(err);
    }
    const policy = this.hook.settings.policy;
    // The tool first, as the API server has it: one that does not act here (gone, another of that name, refused by
    // the policy) passes over the pod, whatever became of it. A refusal the tool's own sync recorded for this very
    // spec holds here too, whatever this server remembers or the order in which the two controllers run: no pod gets
    // the container until that sync finds it allowed. Acting as the author (METAOPS_DEBUG_ACT_AS_AUTHOR=true), one
    // who cannot be impersonated exactly gets nothing (the tool's status says why): never the server's own PATCH.
    if (!toolDecidedAgain(this.namespace, this.real, this.tool, policy) || refusedNow(policy, this.real!))
      return this.passed();
    // A pod the hook server could not read (a namespace not opted in answers 403) is that pod's failure only for a
    // tool its author may run: the author is asked first, and a tool its author could not run records nothing on the
    // pod and tells no Event (checkAuthor), in a namespace its author may only write tools in too.
    if ('error' in read) {
      if (policy.authorCheck !== 'off') {
        const refused = await this.checkAuthor();
        if (refused) return refused;
      }
      return this.fail(read.error);
    }
    const pod = read.pod;
    const spec = decidedAgain(this.namespace, pod, this.real, this.tool, policy);
    if (!spec) return this.passed();
    if (policy.authorCheck !== 'off') {
      const refused = await this.checkAuthor();
      if (refused) return refused;
    }
    // As the author (METAOPS_DEBUG_ACT_AS_AUTHOR=true): the API server's RBAC and admission answer for them. An author
    // who cannot be impersonated exactly gets nothing (the tool's status says why), never the server's own PATCH.
    if (this.over()) return this.outOfTime();
    try {
      await this.patch(spec, pod!);
    } catch (err) {
      return this.fail(err);
    }
    return this.added();
  }

  /**
   * The pod and the tool as the API server has them now, side by side: the pod, or why it could not be read (the
   * tool is kept as `real`). A tool that could not be read is thrown: nothing is known without it.
   */
  private async read(): Promise<PodRead> {
    const [pod, real] = await Promise.allSettled([
      // A pod may be larger than MAX_READ_BYTES as JSON (Metacontroller sent it): read up to the largest one.
      this.kube.get('v1', 'pods', this.namespace, this.podName, { maxBytes: MAX_OBJECT_READ_BYTES }),
      this.kube.get(TOOL_API, resource.plural, this.namespace, this.tool.name),
    ]);
    if (real.status === 'rejected') throw real.reason;
    this.real = real.value;
    this.toolUid = real.value?.metadata.uid && !this.tool.uid ? real.value.metadata.uid : this.toolUid;
    if (pod.status === 'rejected') return { error: pod.reason };
    this.podUid = pod.value?.metadata.uid ?? this.podUid;
    return { pod: pod.value };
  }

  /** The author check: the attempt's answer when the author is refused, undefined when allowed. */
  private async checkAuthor(): Promise<Work | undefined> {
    const real = this.real!;
    try {
      // Asked about this very pod: an authorizer may refuse the author one pod and allow the others.
      // A tool whose status found its author allowed on some pods by name only: this pod's answer alone decides.
      const verdict = await this.hook.clients
        .authors(this.kube)
        .verify(real, this.over, this.podName, readyReason(real) === PER_POD);
      // Refused on this pod alone: this pod's failure, recorded, counted and retried as any other.
      if (!verdict.allowed && verdict.onPod) return this.fail(new NotAllowedOnPod(verdict.message));
      // A tool its author could not run acts on no pod: its own status says why; nothing is recorded here. Asked
      // about again later (RECHECK_FIRST_SECONDS, backing off): while the status says the tool acts, nothing else
      // would call about this pod again, and the refusal may have been of a moment.
      if (!verdict.allowed) {
        const times = this.refusals.add(this.run, this.hook.now.getTime());
        return { ...this.passed(), resyncAfterSeconds: recheckSeconds(times) };
      }
      return undefined;
    } catch (err) {
      return err instanceof OutOfTime ? this.outOfTime() : this.fail(err);
    }
  }

  /** The PATCH, with the pod's uid and resourceVersion as preconditions. */
  private async patch(spec: PodBuggerToolSpec, pod: KubeObject): Promise<void> {
    await writerFor(this.hook.settings.policy, this.kube, this.real!).addEphemeralContainers(
      this.namespace,
      this.podName,
      [ephemeralContainer(this.tool.name, spec, pod)],
      {
        ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}),
        ...(pod.metadata.resourceVersion ? { resourceVersion: pod.metadata.resourceVersion } : {}),
      },
    );
  }

  private done(): Work {
    this.record.delete(this.container);
    return { record: this.record };
  }

  /** Not acting on this pod now: nothing added, nothing recorded; the call goes on to the next tool due. */
  private passed(): Work {
    return { ...this.done(), passed: true };
  }

  /** Added: a tool without an entry that got its container shows the others without one need not wait either. */
  private added(): Work {
    this.conflicts.forget(this.run);
    this.refusals.forget(this.run);
    if (!this.record.has(this.container)) this.record.delete(OVERFLOW_KEY);
    return this.done();
  }

  /** Read again soon, recorded nowhere. */
  private later(): Work {
    return { record: this.record, resyncAfterSeconds: CONFLICT_RETRY_SECONDS };
  }

  /**
   * The budget spent before the PATCH could be sent: recorded as OutOfTime, retried from a second, backing off. Past
   * the route's deadline the caller was answered already (429): this answer is not read; left for the next call.
   */
  private outOfTime(): Work {
    return this.hook.signal.aborted ? this.later() : this.fail(new OutOfTime());
  }

  private fail(err: unknown): Work {
    const reason = failureReason(err);
    // A conflict: the first few in a row are retried a second later, unrecorded; past them (or once recorded) the
    // pod's failure, backed off (CONFLICTS_UNRECORDED).
    if (reason === CONFLICT) {
      const recordedRun = this.recorded?.reason === CONFLICT && this.recorded.key === this.key;
      if (!recordedRun && this.conflicts.add(this.run, this.hook.now.getTime()) <= CONFLICTS_UNRECORDED) {
        return this.later();
      }
    }
    this.conflicts.forget(this.run);
    const failure = this.recordFailure(reason);
    this.warn(reason, err);
    // An event when the failure is new (not at every retry of the same one), on the tool (failureEvents). Not when
    // the API server cannot be reached, or is too slow: the event could not be written either, or would add to its
    // load, and the hook has a deadline (the pod's record says why).
    if (this.recorded?.reason !== reason && reason !== 'Unreachable' && reason !== OUT_OF_TIME) {
      this.failures.push(reason);
    }
    return { record: this.record, resyncAfterSeconds: failureDelaySeconds(failure) };
  }

  /** The failure, recorded on the pod: as the tool's entry, or the overflow's while the record is full. */
  private recordFailure(reason: string): Failure {
    const at = Math.floor(this.hook.now.getTime() / 1000);
    const recorded = this.recorded;
    if (recorded || recordedTools(this.record) < MAX_RECORDED_TOOLS) {
      // The same attempt failing again waits twice as long as before (up to an hour); another attempt starts afresh.
      const attempts = recorded?.key === this.key && recorded.reason === reason ? recorded.attempts + 1 : 1;
      const failure = { reason, attempts, at, key: this.key };
      this.record.set(this.container, failure);
      return failure;
    }
    // The record is full: this tool's failure is the overflow's, whose backoff every tool without an entry waits.
    const overflow = this.record.get(OVERFLOW_KEY);
    const failure = { reason, attempts: (overflow?.attempts ?? 0) + 1, at, key: OVERFLOW_ATTEMPT };
    this.record.set(OVERFLOW_KEY, failure);
    return failure;
  }

  private warn(reason: string, err: unknown): void {
    const { namespace, podName, container } = this;
    const note =
      reason === OUT_OF_TIME
        ? `could not add ${container} to pod ${namespace}/${podName}: the API server did not answer its calls within ${this.hook.settings.workBudgetMs} ms`
        : `could not add ${container} to pod ${namespace}/${podName}: ${reason}`;
    this.hook.log.warn(
      {
        podbuggertool: `${namespace}/${this.tool.name}`,
        pod: `${namespace}/${podName}`,
        reason,
        err: err instanceof Error ? err.message : String(err),
      },
      `PodBuggerTool ${namespace}/${this.tool.name}: ${note}`,
    );
  }

  /** The failure Events on the tool. */
  private async tellFailures(): Promise<void> {
    const { hook, namespace, container, podName, podUid } = this;
    // Pods are named only to an author who may list them, as the tool's status names them (sync.ts authorView).
    const named = await mayName(hook, this.kube, this.real, this.over);
    const about = { namespace, tool: this.tool.name, toolUid: this.toolUid, container };
    const events = this.failures.map((reason) =>
      failureEvent(hook, { ...about, reason }, named ? { podName, podUid } : {}),
    );
    await tell(this.kube, events, hook);
  }
}

/**
 * A failed injection's reason, as the pod's record carries it: only a reason the record reads back (FAILURE_REASON),
 * so that the retry backs off and the failure is counted; anything else (none is written today) is InvalidAnswer.
 */
function failureReason(err: unknown): string {
  const said =
    err instanceof OutOfTime ? OUT_OF_TIME : err instanceof NotAllowedOnPod ? 'AuthorNotAllowed' : errorReason(err);
  return FAILURE_REASON.test(said) ? said : 'InvalidAnswer';
}

/**
 * True when the tool, as the API server has it, is refused: by its own status (statusRefusal), or, the PATCH to be
 * sent as its author, because its author cannot be impersonated exactly.
 */
function refusedNow(policy: DebugPolicy, tool: KubeObject): boolean {
  return statusRefusal(tool) !== undefined || (policy.actAsAuthor && 'problem' in actingAuthor(tool));
}

/**
 * The client the PATCH is sent with: the hook server's own, or (METAOPS_DEBUG_ACT_AS_AUTHOR=true) one impersonating
 * the tool's author. An author who cannot be impersonated, or a client that cannot impersonate, is an error: never
 * the server's own PATCH instead.
 */
function writerFor(policy: DebugPolicy, kube: KubeApi, tool: KubeObject): KubeApi {
  if (!policy.actAsAuthor) return kube;
  const acting = actingAuthor(tool);
  if ('problem' in acting) throw new Error(acting.problem);
  if (!kube.impersonating) throw new Error('this Kubernetes client cannot impersonate the author');
  return kube.impersonating(acting.author);
}

/** When a pod refused `times` in a row for its tool's author is asked about again: 10 s, doubling to an hour. */
export function recheckSeconds(times: number): number {
  return Math.min(RECHECK_FIRST_SECONDS * 2 ** Math.min(Math.max(times, 1) - 1, 20), MAX_RETRY_SECONDS);
}

/** The author's refusal on one pod (an authorizer that decides per pod): that pod's failure. */
class NotAllowedOnPod extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotAllowedOnPod';
  }
}

/**
 * Whether the Events of this call may name the pod: with the author check off (every status names its pods), or
 * when the tool's author may list pods in its namespace (asked as the status asks, and remembered with it). Anything
 * that keeps the question from being answered (out of time, an error, a tool not read) names none.
 */
async function mayName(
  hook: DecorateHook<ToolClients, ToolSettings>,
  kube: KubeApi,
  real: KubeObject | undefined,
  over: () => boolean,
): Promise<boolean> {
  if (hook.settings.policy.authorCheck === 'off') return true;
  if (!real) return false;
  try {
    return await hook.clients.authors(kube).mayList(real, over);
  } catch {
    return false;
  }
}

/**
 * The Event about a tool failing, for one reason, on its pods: one per tool, reason and ten minutes
 * (EVENT_BUCKET_SECONDS), whatever the number of pods (a namespace the hook server may not patch in fails on every
 * pod): its name has no pod in it, and a repeat is the same Event, counted as a series (tell). It names the first pod
 * of the ten minutes as a sample, and only to an author who may list pods; the status counts them all.
 */
export function failureEvent(
  hook: { now: Date },
  about: { namespace: string; tool: string; toolUid: string | undefined; container: string; reason: string },
  sample: { podName?: string; podUid?: string | undefined },
): KubeEvent {
  const { namespace, tool, toolUid, container, reason } = about;
  const bucket = Math.floor(hook.now.getTime() / (EVENT_BUCKET_SECONDS * 1000));
  const which = sample.podName
    ? `pod ${namespace}/${sample.podName} (the first of these ten minutes)`
    : `a pod of namespace ${namespace} (its author may not list pods there: none is named)`;
  return {
    namespace,
    name: eventName(tool, JSON.stringify([namespace, tool, toolUid ?? '', reason, bucket])),
    eventTime: hook.now,
    type: 'Warning',
    reason: 'InjectionFailed',
    action: 'AddEphemeralContainer',
    note: `could not add ${container} to ${which}: ${reason}; one Event per reason every ${EVENT_BUCKET_SECONDS / 60} minutes, counted as a series: the tool's status counts the pods (failed, failures)`,
    regarding: {
      apiVersion: TOOL_API,
      kind: resource.kind,
      namespace,
      name: tool,
      ...(toolUid ? { uid: toolUid } : {}),
    },
    ...(sample.podName
      ? {
          related: {
            apiVersion: 'v1',
            kind: 'Pod',
            namespace,
            name: sample.podName,
            ...(sample.podUid ? { uid: sample.podUid } : {}),
          },
        }
      : {}),
  };
}

/**
 * The tool's spec, when the decision made on the request holds on the pod and the tool as the API server has them:
 * the pod there, in the namespace, not being deleted; the tool the same one (not another of that name, which the
 * next call is about), not being deleted, valid, allowed by the policy, selecting the pod; the pod lacking its
 * container and able to take it (never added twice: by us, by hand, or a request that lagged).
 */
export function decidedAgain(
  namespace: string,
  pod: KubeObject | undefined,
  real: KubeObject | undefined,
  tool: Tool,
  policy: DebugPolicy,
): PodBuggerToolSpec | undefined {
  const spec = toolDecidedAgain(namespace, real, tool, policy);
  if (!spec || !pod || isTerminating(pod) || (pod.metadata.namespace ?? namespace) !== namespace) return undefined;
  if (!matches(spec, pod)) return undefined;
  return wantsContainer(pod, tool.name, spec) ? spec : undefined;
}

/**
 * The tool's spec, when the part of decidedAgain that is the tool's holds on the tool as the API server has it: in
 * the namespace, the same one, not being deleted, valid, allowed by the policy. Whatever the pod is.
 */
function toolDecidedAgain(
  namespace: string,
  real: KubeObject | undefined,
  tool: Tool,
  policy: DebugPolicy,
): PodBuggerToolSpec | undefined {
  if (!real || isTerminating(real) || (real.metadata.namespace ?? namespace) !== namespace) return undefined;
  if (tool.uid && real.metadata.uid && real.metadata.uid !== tool.uid) return undefined;
  const parsed = parser.parse(real['spec']);
  return parsed.ok && !refusal(parsed.spec, namespace, policy) ? parsed.spec : undefined;
}

/** The refusals of a tool's status (sync.ts): its author's, or the server's policy's. */
export const REFUSALS: ReadonlySet<string> = new Set([
  'AuthorUnverified',
  'AuthorNotAllowed',
  'ImageNotAllowed',
  'ProfileNotAllowed',
  'NamespaceExcluded',
]);

/**
 * The reason the tool's status gives for refusing it, when that status is of the tool's current generation (the
 * author stamp changes only with the spec, and so with the generation): the injector does not act on such a tool,
 * even when its own check would allow it (an answer remembered from before a revocation, a replica of the server
 * with an older policy). The status only adds refusals: a status without one leaves the decision to the checks.
 */
export function statusRefusal(tool: KubeObject): string | undefined {
  const status = tool['status'] as { observedGeneration?: unknown; conditions?: unknown } | undefined;
  if (!status || status.observedGeneration !== (tool.metadata.generation ?? 0)) return undefined;
  if (!Array.isArray(status.conditions)) return undefined;
  const ready = (status.conditions as Array<{ type?: unknown; status?: unknown; reason?: unknown } | null>).find(
    (c) => c?.type === 'Ready',
  );
  return ready?.status === 'False' && typeof ready.reason === 'string' && REFUSALS.has(ready.reason)
    ? ready.reason
    : undefined;
}

/** The reason of the tool's Ready condition, when its status is of the tool's current generation. */
export function readyReason(tool: KubeObject): string | undefined {
  const status = tool['status'] as { observedGeneration?: unknown; conditions?: unknown } | undefined;
  if (!status || status.observedGeneration !== (tool.metadata.generation ?? 0)) return undefined;
  if (!Array.isArray(status.conditions)) return undefined;
  const ready = (status.conditions as Array<{ type?: unknown; reason?: unknown } | null>).find(
    (c) => c?.type === 'Ready',
  );
  return typeof ready?.reason === 'string' ? ready.reason : undefined;
}

/** A series' count is written at most this often for one Event (the count in between is kept here). */
const SERIES_PATCH_MS = 10_000;
const MAX_SERIES = 1024;

/**
 * The failure Events this server wrote, by name: a repeat becomes a count of the Event's series, written at most
 * every SERIES_PATCH_MS. One memory per Kubernetes client (per server), bounded; after a restart, or on another
 * replica, the API server's 409 says the Event exists, and the series goes on from there.
 */
export class EventSeriesMemory {
  /** By namespace and Event name, each namespace's share kept (memory.ts). */
  readonly names = new SharedMemory<{ count: number; patchedAt: number; pending: boolean }>(MAX_SERIES);

  /** undefined: not written here; 'due': count it now; 'quiet': counted, written later. */
  repeat(namespace: string, name: string, now: number): 'due' | 'quiet' | undefined {
    const entry = this.names.get(JSON.stringify([namespace, name]));
    if (!entry) return undefined;
    entry.count += 1;
    if (now - entry.patchedAt >= 0 && now - entry.patchedAt < SERIES_PATCH_MS) {
      entry.pending = true;
      return 'quiet';
    }
    return 'due';
  }

  created(namespace: string, name: string): void {
    this.names.set(JSON.stringify([namespace, name]), { count: 1, patchedAt: -Infinity, pending: false });
  }

  /** The count to write now (an Event that existed before this server knew it counts from 2). */
  counted(namespace: string, name: string, now: number): number {
    const key = JSON.stringify([namespace, name]);
    const entry = this.names.get(key) ?? { count: 2, patchedAt: now, pending: false };
    entry.count = Math.max(entry.count, 2);
    entry.patchedAt = now;
    entry.pending = false;
    this.names.set(key, entry);
    return entry.count;
  }
}

const seriesMemories = new WeakMap<object, EventSeriesMemory>();

/** The failure Events' memory of a server: one per Kubernetes client. */
export function eventSeriesFor(kube: object): EventSeriesMemory {
  let memory = seriesMemories.get(kube);
  if (!memory) seriesMemories.set(kube, (memory = new EventSeriesMemory()));
  return memory;
}

/** Events are waited for at most EVENTS_WAIT_MS (they go on in the background): never past the deadline. */
async function tell(kube: KubeApi, events: KubeEvent[], hook: DecorateHook<ToolClients, ToolSettings>): Promise<void> {
  if (events.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, EVENTS_WAIT_MS)));
  const seen = eventSeriesFor(hook.services.kube());
  // Within the namespace's share of the server's Event writes, as every other Event (lib/events.ts).
  const budget = eventBudgetFor(hook.services.kube());
  const written = Promise.all(
    events.map(async (event) => {
      const tool = `${event.namespace}/${event.regarding.name}`;
      // A repeat this server wrote already is no new Event: its series is counted, at most every SERIES_PATCH_MS.
      const repeat = seen.repeat(event.namespace, event.name, hook.now.getTime());
      if (repeat === 'quiet') return;
      // Past the share, dropped: a new Event is tried again at the next failure, a repeat stays counted.
      const refusal = budget.take(event.namespace, performance.now());
      if (refusal) {
        hook.log.warn(
          { podbuggertool: tool, reason: event.reason },
          `PodBuggerTool ${tool}: the event ${event.reason} was dropped: ${refusal}`,
        );
        return;
      }
      try {
        if (repeat === undefined && (await kube.createEvent?.(event)) !== 'exists')
          return seen.created(event.namespace, event.name);
        const count = seen.counted(event.namespace, event.name, hook.now.getTime());
        await kube.patchEventSeries?.(event.namespace, event.name, { count, lastObservedTime: event.eventTime });
      } catch (err) {
        hook.log.warn(
          { podbuggertool: tool, reason: errorReason(err), err: err instanceof Error ? err.message : String(err) },
          `PodBuggerTool ${tool}: could not record the event ${event.reason}: ${errorReason(err)}`,
        );
      } finally {
        budget.release(event.namespace);
      }
    }),
  );
  await Promise.race([written, waited]);
  clearTimeout(timer);
}
