// The tool's own hook: a CompositeController on PodBuggerTools, without children or related objects, that reports
// on each tool. The injection is the injector's (inject.ts, a DecoratorController on pods); this hook counts.
//
// It counts from the API server, not from Metacontroller's request: it lists the pods the tool selects, a page at a
// time (PAGE_SIZE), and reads on each pod where it stands (match.ts podState: its container, its phase, its
// containers, the failure the injector recorded on it, the kubelet's refusal). No request or answer grows with the
// pods: the request is the tool alone. The counts are as fresh as the last count: every REFRESH_SECONDS while pods
// are pending or failing, at every resync (60 s) otherwise; `countedAt` says when they last changed. A count that
// does not finish within COUNT_BUDGET_MS keeps the last complete counts and says so (CountIncomplete), and carries
// where it stopped in status.countProgress: the next sync resumes from there. Once the status holds a complete count
// of the spec, a new count cut short keeps that status as it is and is remembered by the hook server (CountMemory),
// not written: at rest a count of any size writes nothing.
//
// At rest the counts do not change, and neither does the status: nothing is written, so nothing wakes the pods of
// the namespace (every change of a tool makes Metacontroller sync every pod whose related objects it is).
import {
  byCodeUnits,
  type CompositeSyncResponse,
  type ConditionInput,
  conditionsFor,
  DEFAULT_BODY_LIMIT,
  currentStatus,
  goJsonBytes,
  errorReason,
  type KubeApi,
  KubeError,
  type KubeObject,
  type ListOptions,
  MAX_OBJECT_READ_BYTES,
  type ParentObject,
  previousConditions,
  RETRY_SECONDS,
  rfc3339,
  type Status,
  type SyncHook,
  TemporaryError,
} from '../../lib/index.js';
import { actingAuthor, OutOfTime, PER_POD, type AuthorVerdict } from './author.js';
import {
  containerName,
  countedPod,
  ephemeralImages,
  FIRST_RETRY_SECONDS,
  MAX_RETRY_SECONDS,
  podState,
  refusal,
  selectorOf,
  selectorText,
  STOPPED,
  type PodState,
  type SkipReason,
} from './match.js';
import { probeMemoryFor, probePods } from './probe.js';
import {
  MAX_KUBELET_MESSAGE,
  MAX_LISTED_PODS,
  type PodBuggerToolSpec,
  resource,
  SKIP_REASONS,
  TOOLS_PER_REQUEST,
} from './schema.js';
import { readyReason, statusRefusal, TOOL_API, type ToolClients, type ToolSettings } from './inject.js';
import { openToken, sealToken } from './seal.js';
import { SharedMemory } from './memory.js';

/** How often the counts are taken again while pods are pending or failing (and the least time between two). */
export const REFRESH_SECONDS = 10;
/** The most pods read in one page of the count. */
export const PAGE_SIZE = 250;
/** No call (the author's check, a page of the count) starts later than this after the sync began. */
export const COUNT_BUDGET_MS = 4000;
/** Pods listed by name in `failures` and in `skips` (all are counted). */
export const MAX_LISTED = MAX_LISTED_PODS;

interface PodReason {
  pod: string;
  reason: string;
  /** The kubelet's words, for a container it cannot create (ContainerNotCreated), bounded (MAX_KUBELET_MESSAGE). */
  message?: string;
}

/** The counts of one complete pass over the pods the tool selects. */
export interface Counts {
  matched: number;
  injected: number;
  outdated: number;
  pending: number;
  skipped: number;
  failed: number;
  /** Of the failed, those whose container is on the pod and does not run (STOPPED: never retried), all of them. */
  notRunning: number;
  failures: PodReason[];
  skips: PodReason[];
  /** The skipped pods by reason, all of them (`skips` names the first MAX_LISTED): what Ready says is of these. */
  skippedBy: Partial<Record<SkipReason, number>>;
}

const COUNT_FIELDS = ['matched', 'injected', 'outdated', 'pending', 'skipped', 'failed'] as const;

function emptyCounts(): Counts {
  return {
    matched: 0,
    injected: 0,
    outdated: 0,
    pending: 0,
    skipped: 0,
    failed: 0,
    notRunning: 0,
    failures: [],
    skips: [],
    skippedBy: {},
  };
}

/** A copy of the counts that adding to them (tally) leaves as it is. */
function copied(counts: Counts): Counts {
  return { ...counts, failures: [...counts.failures], skips: [...counts.skips], skippedBy: { ...counts.skippedBy } };
}

/** Adds one pod's state to the counts. */
export function tally(counts: Counts, pod: string, state: PodState): void {
  counts.matched += 1;
  counts[state.state] += 1;
  if (state.state === 'failed') {
    counts.failures.push({
      pod,
      reason: state.reason,
      ...(state.message !== undefined ? { message: state.message } : {}),
    });
    if (STOPPED.has(state.reason)) counts.notRunning += 1;
  }
  if (state.state === 'skipped') {
    counts.skips.push({ pod, reason: state.reason });
    counts.skippedBy[state.reason] = (counts.skippedBy[state.reason] ?? 0) + 1;
  }
}

/** The skipped pods by reason, in SKIP_REASONS order (the same counts are always the same text); none of 0. */
function ordered(skippedBy: Partial<Record<SkipReason, number>>): Partial<Record<SkipReason, number>> {
  return Object.fromEntries(SKIP_REASONS.filter((r) => (skippedBy[r] ?? 0) > 0).map((r) => [r, skippedBy[r]]));
}

/**
 * The failures with the kubelet's words on the first that has them only: what the Ready condition says, and one
 * message a list whatever the pods (the status rides in every injector request of the namespace: TOOLS_PER_REQUEST).
 */
function oneMessage(failures: PodReason[]): PodReason[] {
  const first = failures.findIndex((f) => f.message !== undefined);
  return failures.map((f, i) => (i === first || f.message === undefined ? f : { pod: f.pod, reason: f.reason }));
}

/** The counts as they go into the status: the lists sorted by pod name and cut to MAX_LISTED. */
function finished(counts: Counts): Counts {
  const byPod = (a: PodReason, b: PodReason) => byCodeUnits(a.pod, b.pod);
  return {
    ...counts,
    failures: oneMessage(counts.failures.sort(byPod).slice(0, MAX_LISTED)),
    skips: counts.skips.sort(byPod).slice(0, MAX_LISTED),
    skippedBy: ordered(counts.skippedBy),
  };
}

/**
 * The counts with no pod named: each entry of `failures` and `skips` keeps its reason, and its pod is ''. What the
 * status says to an author who may debug the namespace but not list its pods (NAMES_RIGHT).
 */
export function anonymous<T extends Counts>(counts: T): T {
  // The kubelet's words too: they may name what only a reader of the pod sees.
  const hide = (list: PodReason[]) => list.map((e) => ({ pod: '', reason: e.reason }));
  return { ...counts, failures: hide(counts.failures), skips: hide(counts.skips) };
}

/** Skipped pods counted by reason from a list of them. */
function byReason(skips: PodReason[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { reason } of skips) out[reason] = (out[reason] ?? 0) + 1;
  return out;
}

/** The counts of the previous status, when it has them all (a status of an older version, or none, has not). */
function previousCounts(status: Status): Counts | undefined {
  const out = emptyCounts();
  for (const field of COUNT_FIELDS) {
    const value = status[field];
    if (typeof value !== 'number') return undefined;
    out[field] = value;
  }
  const list = (value: unknown): PodReason[] | undefined =>
    Array.isArray(value) &&
    value.every(
      (x: unknown) => typeof (x as PodReason)?.pod === 'string' && typeof (x as PodReason)?.reason === 'string',
    )
      ? // A status of an earlier version listed up to 100: cut to what the CRD holds now (MAX_LISTED).
        oneMessage(
          (value as PodReason[]).slice(0, MAX_LISTED).map((x) => ({
            pod: x.pod,
            reason: x.reason,
            ...(typeof x.message === 'string' ? { message: x.message.slice(0, MAX_KUBELET_MESSAGE) } : {}),
          })),
        )
      : undefined;
  const failures = list(status['failures']);
  const skips = list(status['skips']);
  if (!failures || !skips) return undefined;
  // Of the failed, those not running. A status of an earlier version has no such count: its list's, when it lists
  // every failed pod; otherwise it has no counts (counted again).
  const notRunning =
    status['notRunning'] ??
    (failures.length === out.failed ? failures.filter((f) => STOPPED.has(f.reason)).length : undefined);
  if (typeof notRunning !== 'number' || !Number.isSafeInteger(notRunning) || notRunning < 0) return undefined;
  if (notRunning > out.failed) return undefined;
  out.notRunning = notRunning;
  // The skips by reason, which add up to `skipped`. A status of an earlier version has none: they are its list's
  // when it lists every skipped pod; otherwise it has no counts (counted again).
  const by = status['skippedBy'] ?? (skips.length === out.skipped ? byReason(skips) : undefined);
  if (!by || typeof by !== 'object' || Array.isArray(by)) return undefined;
  const entries = Object.entries(by as Record<string, unknown>);
  const known = (r: string): r is SkipReason => (SKIP_REASONS as readonly string[]).includes(r);
  if (!entries.every(([r, n]) => known(r) && Number.isSafeInteger(n) && (n as number) > 0)) return undefined;
  if (entries.reduce((sum, [, n]) => sum + (n as number), 0) !== out.skipped) return undefined;
  return { ...out, failures, skips, skippedBy: ordered(Object.fromEntries(entries)) };
}

/** A count cut short: where the next sync resumes it (status.countProgress). */
export interface CountProgress extends Counts {
  generation: number;
  continue: string;
  read: number;
}

type CountResult = { complete: true; counts: Counts } | { complete: false; read: number; progress?: CountProgress };

/**
 * The count in progress the previous status carries for this generation, when it is whole and its token, sealed for
 * this tool (seal.ts), opens: an API server's token written there in the clear (by an earlier version), or sealed
 * with another key, is none, and the count starts again from the first page.
 */
function previousProgress(status: Status, tool: ParentObject, key: Buffer | undefined): CountProgress | undefined {
  const generation = tool.metadata.generation ?? 0;
  const p = status['countProgress'] as Record<string, unknown> | undefined;
  if (!p || typeof p !== 'object' || p['generation'] !== generation) return undefined;
  if (typeof p['continue'] !== 'string' || typeof p['read'] !== 'number') return undefined;
  const token = openToken(key, tool, p['continue']);
  const counts = previousCounts(p as Status);
  return counts && token ? { ...counts, generation, continue: token, read: p['read'] } : undefined;
}

/** A count's progress as the status carries it: its token sealed (none when too long to seal). */
function sealedProgress(progress: CountProgress, tool: ParentObject, key: Buffer | undefined): Status | undefined {
  const sealed = sealToken(key, tool, progress.continue);
  return sealed ? { ...progress, continue: sealed } : undefined;
}

/** How long a count at rest cut short is remembered: the API server's compaction (its continue token's life). */
export const COUNT_MEMORY_MS = 5 * 60_000;
/**
 * How long counts at rest may go without completing before the status says they are stale (CountStale): twice the
 * life of a continue token, so a pass that takes longer than the API server keeps its list (410, and it starts
 * again) is seen as one that will not end, not as one still under way.
 */
export const COUNT_STALE_MS = 2 * COUNT_MEMORY_MS;
export { MAX_REMEMBERED, SharedMemory } from './memory.js';

/**
 * The counts at rest cut short, remembered between syncs by the hook server rather than written in the status. A
 * count of a tool whose status already holds a complete count of its spec is a check that nothing changed: written
 * in the status, its progress would change the status twice a minute at rest (and every write of a tool wakes every
 * pod of its namespace). Remembered here, the status stays as it is until a count completes with other counts. One
 * memory per hook server (per Kubernetes client), shared fairly between namespaces (SharedMemory); lost on a
 * restart, when the count starts again from the first page.
 */
export class CountMemory {
  readonly counts = new SharedMemory<{ progress: CountProgress; at: number }>();
  /** Since when (the hook's clock, ms) the counts at rest of a tool have not completed: none while they do. */
  readonly incomplete = new SharedMemory<number>();
  constructor(readonly clock: () => number = Date.now) {}

  /** Since when the counts of `key` have not completed (`now` when this is the first count cut short). */
  incompleteSince(key: string, now: number): number {
    const since = this.incomplete.get(key);
    if (since !== undefined && since <= now) return since;
    this.incomplete.set(key, now);
    return now;
  }

  take(key: string): CountProgress | undefined {
    const entry = this.counts.get(key);
    if (!entry) return undefined;
    const age = this.clock() - entry.at;
    if (age >= 0 && age < COUNT_MEMORY_MS) return entry.progress;
    this.counts.delete(key);
    return undefined;
  }

  keep(key: string, progress: CountProgress): void {
    this.counts.set(key, { progress, at: this.clock() });
  }

  forget(key: string): void {
    this.counts.delete(key);
    this.incomplete.delete(key);
  }
}

const memories = new WeakMap<object, CountMemory>();

/** The count memory of a hook server: one per Kubernetes client (the server's one, or a test's). */
export function countMemoryFor(kube: object): CountMemory {
  let memory = memories.get(kube);
  if (!memory) memories.set(kube, (memory = new CountMemory()));
  return memory;
}

/**
 * The pages of pods one namespace's counts may ask for, over all its tools: a burst, then so many a second (the hook's
 * clock). A page past it is not asked for: the count is cut short as by its time budget, and goes on from there at a
 * later sync. One namespace's many tools then list at most 1,000 pods a second at rest (4 pages of PAGE_SIZE),
 * whatever their number, and never use up another namespace's.
 */
export const COUNT_PAGES = { burst: 40, perSecond: 4 } as const;
/** Namespaces whose page budget is remembered (the least recently seen forgotten first, and starting afresh). */
const MAX_PAGE_BUDGETS = 4096;

/** Each namespace's budget of count pages (COUNT_PAGES): one per hook server (per Kubernetes client). */
export class CountPages {
  private readonly namespaces = new Map<string, { tokens: number; at: number }>();

  /**
   * Takes one page of `namespace`'s budget at `now` (ms), or false when it has none left beyond `reserve` (pages kept
   * for the counts of tools without a complete count).
   */
  take(namespace: string, now: number, reserve = 0): boolean {
    let share = this.namespaces.get(namespace);
    if (share) this.namespaces.delete(namespace);
    share ??= { tokens: COUNT_PAGES.burst, at: now };
    this.namespaces.set(namespace, share);
    if (this.namespaces.size > MAX_PAGE_BUDGETS) this.namespaces.delete(this.namespaces.keys().next().value!);
    // Calls may arrive out of the clock's order: the budget is refilled for the time it had not seen yet.
    share.tokens = Math.min(
      COUNT_PAGES.burst,
      share.tokens + (Math.max(0, now - share.at) / 1000) * COUNT_PAGES.perSecond,
    );
    share.at = Math.max(share.at, now);
    if (share.tokens < 1 + reserve) return false;
    share.tokens -= 1;
    return true;
  }
}

const pageBudgets = new WeakMap<object, CountPages>();
const probeBudgets = new WeakMap<object, CountPages>();

/** The count page budget of a hook server: one per Kubernetes client (the server's one, or a test's). */
export function countPagesFor(kube: object): CountPages {
  let budget = pageBudgets.get(kube);
  if (!budget) pageBudgets.set(kube, (budget = new CountPages()));
  return budget;
}

/**
 * The budget of the passes by pod name (probe.ts) of a hook server: each namespace's own share, as large as its
 * counts' (COUNT_PAGES) and apart from it, so that a tenant's refused tools never hold back the counts of its tools
 * that act. Each step of a pass (one page of pods and up to MAX_PROBED_PODS reviews, or the found pod read and
 * asked about again) takes one of it, whatever the number of tools.
 */
export function probePagesFor(kube: object): CountPages {
  let budget = probeBudgets.get(kube);
  if (!budget) probeBudgets.set(kube, (budget = new CountPages()));
  return budget;
}

/** True for the API server's answer to a continue token it no longer serves (410 Expired). */
function expired(err: unknown): boolean {
  return err instanceof KubeError && (err.status === 410 || err.reason === 'Expired');
}

/**
 * The bytes of an object in a request Metacontroller sends: as Go's encoding/json writes it (lib/go-json.ts: `<`, `>`,
 * `&`, U+2028 and U+2029 in six bytes each), managedFields and all (Metacontroller v4 sends what its informers hold,
 * whole; the hook server cuts them out only after the body limit took them, lib/app.ts acceptJson). What the body
 * limit counts.
 */
export function sentBytes(object: KubeObject): number {
  return goJsonBytes(object);
}

/**
 * What the injector's request holds besides the pod and the tools, as the DecoratorController's shipped manifest stands
 * on the API server (manifests/controllers/metaops-podbuggertool-injector.yaml): Metacontroller sends the whole
 * DecoratorController as its informer holds it in `controller`, metadata and all. Measured on a real API server
 * (test/real/podbuggertool-injector-controller-within-request-allowance-real.test.ts), as Metacontroller writes it:
 * 2.2 KB installed by Helm, 3.2 KB applied with `kubectl apply` (its last-applied-configuration annotation,
 * managedFields), 3.3 KB created then applied, 3.6 KB applied server-side over that with a label and an annotation
 * added by hand. The allowance is more than twice the largest: an administrator who adds kilobytes of their own to
 * it adds them to every injector request, and the status's measure falls short by as much beyond it.
 */
export const CONTROLLER_ALLOWANCE = 8 * 1024;

/**
 * The key of the related tools in the injector's request: Metacontroller's GroupVersionKind as text, `Kind.group/version`
 * (v4.17.2 and v1.5.20 pkg/controller/common RelativeObjectMap).
 */
const RELATED_KEY = `${resource.kind}.${TOOL_API}`;

/**
 * The bytes of the injector's request besides the pod and each tool with its key: Metacontroller v4.17.2 and v1.5.20
 * send `{"controller":<DecoratorController>,"object":<pod>,"attachments":{},"related":{"<RELATED_KEY>":{<tools>}},
 * "finalizing":false}` (pkg/controller/decorator DecoratorHookRequest / SyncHookRequest), the controller counted as its
 * allowance (CONTROLLER_ALLOWANCE). The skeleton is measured with `{}` for the controller and the pod (four bytes more
 * than it holds, as many as `null` for `attachments` would take).
 */
export const REQUEST_ENVELOPE_BYTES =
  goJsonBytes({ controller: {}, object: {}, attachments: {}, related: { [RELATED_KEY]: {} }, finalizing: false }) +
  CONTROLLER_ALLOWANCE;

/**
 * The bytes a tool takes in the injector's request: the tool (sentBytes) and its key in the related map, its name
 * (a pod's related objects of its own namespace are keyed by name alone: relativeName), a colon and a comma.
 */
export function relatedBytes(tool: KubeObject): number {
  return sentBytes(tool) + goJsonBytes(tool.metadata.name ?? '') + 2;
}

/**
 * True when where the pod stands waits on an injector request: pending, or failed and to be retried (the injector's
 * failure recorded on it, the container not on it: wantsContainer). A container on the pod that does not run is
 * never retried, and waits on nothing.
 */
function awaitsRequest(state: PodState, pod: KubeObject, tool: string): boolean {
  return state.state === 'pending' || (state.state === 'failed' && !ephemeralImages(pod).has(containerName(tool)));
}

/**
 * A pod waiting on an injector request (awaitsRequest: pending, or failed and to be retried) whose request would pass
 * the hook server's body limit (`room`: the limit less the request's envelope, REQUEST_ENVELOPE_BYTES, and the tools
 * sent with it): Metacontroller's request for it is refused (413), so the injector never acts on it, nor retries it;
 * counted skipped, TooLargeToSend (ToolsTooLargeToSend when the tools alone leave no room), not pending for ever nor
 * said to be retried. Only such pods are measured (at rest there are none).
 */
function sendable(state: PodState, pod: KubeObject, room: number): PodState {
  if (room <= 0) return { state: 'skipped', reason: 'ToolsTooLargeToSend' };
  return sentBytes(pod) <= room ? state : { state: 'skipped', reason: 'TooLargeToSend' };
}

/**
 * The bytes every PodBuggerTool of the namespace takes in the injector's request (relatedBytes: each tool and its key):
 * what Metacontroller sends with each of its pods besides the pod (the injector's customize asks for them all, and v4
 * sends related objects whole, status included). Read a page at a time, each page one of the count's (`over`), and
 * only until they pass `limit`. Undefined when not known (the count's time or its share of pages spent: `over`); a
 * list the API server refuses is that temporary error (the count is not taken without them).
 */
export async function toolsSentBytes(
  kube: KubeApi,
  namespace: string,
  limit: number,
  over: () => boolean,
): Promise<number | undefined> {
  let total = 0;
  let next: string | undefined;
  let size: number = TOOLS_PER_REQUEST;
  for (;;) {
    if (over()) return undefined;
    try {
      const page = await kube.list!(TOOL_API, resource.plural, namespace, pageOptions('', size, next));
      for (const tool of page.items) total += relatedBytes(tool);
      next = page.continue;
      if (!next || total > limit) return total;
    } catch (err) {
      if ((err as Error | undefined)?.name !== 'AnswerTooLargeError')
        throw new TemporaryError(
          errorReason(err),
          `could not list the PodBuggerTools of namespace ${namespace} (what each injector request carries, measured against the body limit): ${errorReason(err)}`,
          { retryAfterSeconds: RETRY_SECONDS.failure },
        );
      // One tool alone larger than any answer read (lib/kube.ts MAX_OBJECT_READ_BYTES): the tools are at least that.
      if (size === 1) return total + MAX_OBJECT_READ_BYTES > limit ? total + MAX_OBJECT_READ_BYTES : undefined;
      size = Math.max(1, Math.floor(size / 2));
    }
  }
}

/** A page's options: a one-item page read up to the largest object the API server can answer. */
function pageOptions(labelSelector: string, limit: number, next: string | undefined): ListOptions {
  return {
    ...(labelSelector ? { labelSelector } : {}),
    limit,
    ...(next ? { continue: next } : {}),
    // One pod alone may be larger than MAX_READ_BYTES as JSON (a value of `<` is six bytes there): a one-item page
    // is read up to the largest object the API server can answer, in one of the process's turns (lib/kube.ts).
    ...(limit === 1 ? { maxBytes: MAX_OBJECT_READ_BYTES } : {}),
  };
}

/**
 * The one pod of a page too large to read whole (larger as JSON than any answer read): named from its metadata alone
 * (a PartialObjectMetadataList of the same page), counted as skipped, TooLargeToRead (no hook can read it, nor can
 * Metacontroller send it), and passed: the page's continue token, and how many were read.
 */
async function tooLarge(
  kube: KubeApi,
  tool: ParentObject,
  spec: PodBuggerToolSpec,
  counts: Counts,
  options: ListOptions,
): Promise<{ next: string | undefined; read: number }> {
  const namespace = tool.metadata.namespace ?? 'default';
  const page = await kube.list!('v1', 'pods', namespace, { ...options, metadataOnly: true });
  for (const pod of page.items)
    if (countedPod(spec, namespace, pod))
      tally(counts, pod.metadata.name!, { state: 'skipped', reason: 'TooLargeToRead' });
  return { next: page.continue, read: page.items.length };
}

/**
 * The bytes an injector request has for a pod of the tool's namespace: the body limit, less the request's envelope
 * and the tools of the namespace sent with it, read when first asked (once a pod waits on a request: none at rest).
 * Undefined while not known: the count's time or the namespace's share of pages ran out while the tools were listed.
 */
function requestRoom(
  kube: KubeApi,
  tool: ParentObject,
  bodyLimit: number,
  over: () => boolean,
): () => Promise<number | undefined> {
  let room: number | undefined;
  return async () => {
    if (room !== undefined) return room;
    const tools = await toolsSentBytes(kube, tool.metadata.namespace ?? 'default', bodyLimit, over);
    if (tools === undefined) return undefined;
    return (room = bodyLimit - REQUEST_ENVELOPE_BYTES - Math.max(relatedBytes(tool), tools));
  };
}

/**
 * Reads the pods the tool selects, a page at a time, and counts where each stands. A page too large to read (pods
 * with large annotations) is asked for again at half the size. No page is asked for after the budget: a count cut
 * short returns where it stands (the next page's token and the counts so far) for the next sync to resume from
 * (`resume`), so that a count of any size completes within a bounded number of syncs. A token the API server has
 * expired (410) starts the count again from the first page.
 */
export async function countPods(
  kube: KubeApi,
  tool: ParentObject,
  spec: PodBuggerToolSpec,
  over: () => boolean,
  {
    resume,
    bodyLimit = DEFAULT_BODY_LIMIT,
  }: { resume?: CountProgress | undefined; bodyLimit?: number | undefined } = {},
): Promise<CountResult> {
  const namespace = tool.metadata.namespace ?? 'default';
  const name = tool.metadata.name;
  const roomFor = requestRoom(kube, tool, bodyLimit, over);
  const generation = tool.metadata.generation ?? 0;
  const restart = () => ({ counts: emptyCounts(), next: undefined as string | undefined, read: 0 });
  let { counts, next, read } = resume
    ? {
        counts: {
          ...emptyCounts(),
          ...Object.fromEntries(COUNT_FIELDS.map((f) => [f, resume[f]])),
          notRunning: resume.notRunning,
          failures: [...resume.failures],
          skips: [...resume.skips],
          skippedBy: { ...resume.skippedBy },
        } as Counts,
        next: resume.continue as string | undefined,
        read: resume.read,
      }
    : restart();
  const labelSelector = selectorText(selectorOf(spec));
  /** The count cut short where it stands: the next page's token and the counts before it, to resume from. */
  const cutShort = (at: { counts: Counts; next: string | undefined; read: number }): CountResult => ({
    complete: false,
    read: at.read,
    ...(at.next ? { progress: { ...finished(at.counts), generation, continue: at.next, read: at.read } } : {}),
  });
  let limit = PAGE_SIZE;
  for (;;) {
    if (over()) return cutShort({ counts, next, read });
    // Where the page starts: a page whose pods cannot all be placed (the size of the namespace's tools not known) is
    // not counted in part, and the count resumes from here.
    const page = { counts: copied(counts), next, read };
    let items: KubeObject[] = [];
    try {
      const answer = await kube.list!('v1', 'pods', namespace, pageOptions(labelSelector, limit, next));
      items = answer.items;
      next = answer.continue;
      // Past the large pod, the pages grow again (one large pod does not make the rest of the count one per page).
      limit = Math.min(PAGE_SIZE, limit * 2);
    } catch (err) {
      const large = (err as Error | undefined)?.name === 'AnswerTooLargeError';
      if (large && limit > 1) {
        limit = Math.max(1, Math.floor(limit / 2));
        continue;
      }
      if (next && expired(err)) {
        ({ counts, next, read } = restart());
        continue;
      }
      if (!large) throw err;
      // One pod alone is larger than any answer read (lib/kube.ts MAX_OBJECT_READ_BYTES): passed (tooLarge).
      const passed = await tooLarge(kube, tool, spec, counts, pageOptions(labelSelector, 1, next));
      next = passed.next;
      read += passed.read;
    }
    read += items.length;
    for (const pod of items) {
      // The server's selection is checked again: only the tool's own selector, read here, decides.
      if (!countedPod(spec, namespace, pod)) continue;
      let state = podState(pod, name, spec);
      if (awaitsRequest(state, pod, name)) {
        // An unknown size never counts as fitting: the count stops before this page (at rest the status is kept).
        const room = await roomFor();
        if (room === undefined) return cutShort(page);
        state = sendable(state, pod, room);
      }
      tally(counts, pod.metadata.name!, state);
    }
    // The lists are kept sorted and cut as they grow: the same as sorting and cutting them at the end.
    counts = finished(counts);
    if (!next) return { complete: true, counts };
  }
}

/**
 * The previous status, held: the counts were taken less than REFRESH_SECONDS ago for this very spec (this sync is
 * the echo of writing them). Counting again now would only write again, and wake every pod of the namespace.
 * The held answer is built as a count's answer is, from the previous counts: at rest (nothing pending, failing or
 * cut short) it is that answer byte for byte, so Metacontroller's webhook ETag sees an unchanged answer whether the
 * counts were held or taken; while not done it asks to be called again when the REFRESH_SECONDS are up. A previous
 * Ready the counts do not explain (a refusal, a cut-short count) is not held: the sync looks again.
 */
function held(tool: ParentObject, before: Status, now: Date): CompositeSyncResponse | undefined {
  const at = typeof before['countedAt'] === 'string' ? Date.parse(before['countedAt']) : NaN;
  const age = (now.getTime() - at) / 1000;
  if (!(age >= 0 && age < REFRESH_SECONDS)) return undefined;
  if (before['observedGeneration'] !== (tool.metadata.generation ?? 0)) return undefined;
  const counts = previousCounts(before);
  if (!counts) return undefined;
  const ready = readiness(tool.metadata.name, counts, undefined);
  const shown = previousConditions(before).find((c) => c.type === 'Ready');
  if (
    !shown ||
    shown.status !== (ready.status ? 'True' : 'False') ||
    shown.reason !== ready.reason ||
    shown.message !== ready.message
  )
    return undefined;
  const response = answer(tool, now, { counts, countedAt: before['countedAt'] as string, ready });
  if (response.resyncAfterSeconds !== undefined)
    response.resyncAfterSeconds = Math.max(1, Math.ceil(REFRESH_SECONDS - age));
  return response;
}

/** A count's answer: the counts, when they last changed, Ready; called again soon while not done. */
function answer(
  tool: ParentObject,
  now: Date,
  o: { counts: Counts; countedAt: string; ready: ConditionInput; complete?: boolean },
): CompositeSyncResponse {
  const { counts, countedAt, ready } = o;
  const response: CompositeSyncResponse = {
    status: {
      ...counts,
      containerName: containerName(tool.metadata.name),
      countedAt,
      conditions: conditionsFor(tool, [ready], now),
    },
    children: [],
  };
  // Not done: counted again soon (failures are retried by the injector every RETRY_SECONDS.failure).
  if (o.complete === false || counts.pending > 0) response.resyncAfterSeconds = REFRESH_SECONDS;
  // Failures the injector retries; not those of containers on their pods that stopped (never retried): the resync.
  else if (counts.failed > 0 && !allStopped(counts)) response.resyncAfterSeconds = RETRY_SECONDS.failure;
  return response;
}

/** True when every failure is of a container on its pod that does not run (the kubelet's; none is retried). */
function allStopped(counts: Counts): boolean {
  return counts.notRunning === counts.failed;
}

/** The reasons of the skipped pods (all of them, not only those listed), for Ready's message: `MirrorPod, PodCompleted`. */
function skipReasons(counts: Counts): string {
  return Object.keys(counts.skippedBy).sort(byCodeUnits).join(', ');
}

/** The tool's Ready condition, from the first thing that keeps it from being done. */
function readiness(name: string, counts: Counts, incomplete: number | undefined): ConditionInput {
  const not = (reason: string, message: string): ConditionInput => ({ type: 'Ready', status: false, reason, message });
  if (incomplete !== undefined)
    return not(
      'CountIncomplete',
      `${incomplete} pods read so far, not all of them (each sync reads for ${COUNT_BUDGET_MS / 1000} s, and the next resumes where it stopped): the counts are those of the last complete count; counted on in ${REFRESH_SECONDS}s`,
    );
  // `total` pods (all that were counted, for `reason`), named from the list (the first MAX_LISTED by name).
  const list = (entries: PodReason[], total: number, reason?: string) => {
    const shown = entries.filter((e) => !reason || e.reason === reason);
    const pods = `${total} pod${total === 1 ? '' : 's'}`;
    // Pods the author may not list are not named (anonymous): how many, and why.
    if (entries.some((e) => e.pod === '')) {
      const why = reason ? '' : ` (${[...new Set(shown.map((e) => e.reason))].join(', ')})`;
      return `${pods}${why}`;
    }
    // Counted, but none among the pods the status lists (others come first by name).
    if (shown.length === 0) return `${pods} (beyond the first ${MAX_LISTED} the status lists by name)`;
    const named = shown
      .slice(0, 5)
      .map((f) => (reason ? f.pod : `${f.pod} (${f.reason})`))
      .join(', ');
    return total > Math.min(shown.length, 5) ? `${named} and more` : named;
  };
  const skippedFor = (reason: SkipReason) => counts.skippedBy[reason] ?? 0;
  const skipsFor = (reason: SkipReason) => list(counts.skips, skippedFor(reason), reason);
  const carried = `${counts.injected} of ${counts.matched} matching pods carry ${containerName(name)}`;
  // The kubelet's words on the first pod listed that it cannot create the container in (ContainerNotCreated).
  const words = counts.failures.find((f) => f.message !== undefined);
  const said = words ? `; the kubelet on ${words.pod}: ${words.message}` : '';
  const why = `(ImagePullFailed: the kubelet cannot pull spec.image; ContainerExited: it ran and exited; ContainerNotCreated: the kubelet cannot create or start it, as spec.image and spec.command make it${said}; RunsAsRoot: the kubelet refused to run it as root, set spec.runAsUser)`;
  // Every failure is the kubelet's (the container is on the pod, and does not run): said as such, not as a PATCH.
  if (counts.failed > 0 && allStopped(counts))
    return not(
      'ContainerNotRunning',
      `${containerName(name)} was added to ${counts.failed} of ${counts.matched} matching pods and does not run there: ${list(counts.failures, counts.failed)} ${why}. An ephemeral container is neither restarted nor replaced: fix the spec, and delete those pods to have the new one`,
    );
  // Some failures may be the kubelet's: those pods carry the container, and are not retried (said so).
  const carrying =
    counts.notRunning > 0
      ? `; those with ImagePullFailed, ContainerExited or RunsAsRoot carry it (and those with ContainerNotCreated) and it does not run there ${why}: not retried (fix the spec, and delete those pods)`
      : '';
  if (counts.failed > 0)
    return not(
      'InjectionFailed',
      `${containerName(name)} could not be added to ${counts.failed} of ${counts.matched} matching pods${carrying ? ', or does not run there' : ''}: ${list(counts.failures, counts.failed)}; retried from ${FIRST_RETRY_SECONDS}s, backing off to ${MAX_RETRY_SECONDS / 3600}h${carrying}`,
    );
  if (skippedFor('RunsAsRoot') > 0)
    return not(
      'RunsAsRoot',
      `the restricted profile (or the pod's securityContext.runAsNonRoot) runs the container as a non-root user, and none is set for ${skipsFor('RunsAsRoot')}: the image's own user (root for busybox) would be refused by the kubelet; set spec.runAsUser`,
    );
  if (skippedFor('TargetContainerMissing') > 0)
    return not(
      'TargetContainerMissing',
      `spec.targetContainerName is not a container of ${skipsFor('TargetContainerMissing')}: those pods are skipped`,
    );
  if (skippedFor('ContainerNameTaken') > 0)
    return not(
      'ContainerNameTaken',
      `a container named ${containerName(name)} is already in ${skipsFor('ContainerNameTaken')}: those pods are skipped (rename the tool, or the container)`,
    );
  if (skippedFor('ToolsTooLargeToSend') > 0)
    return not(
      'ToolsTooLargeToSend',
      `the PodBuggerTools of this namespace are together larger than the hook server's largest request (METAOPS_BODY_LIMIT), and Metacontroller sends every one of them with each pod of the namespace: it can send no pod to the injector (413), so ${containerName(name)} cannot be added to ${skipsFor('ToolsTooLargeToSend')}; those pods are skipped until tools of the namespace are removed or shortened`,
    );
  if (skippedFor('TooLargeToSend') > 0)
    return not(
      'TooLargeToSend',
      `${skipsFor('TooLargeToSend')} ${skippedFor('TooLargeToSend') === 1 ? 'is' : 'are'} larger, with the PodBuggerTools of the namespace (Metacontroller sends every one with each pod), than the hook server's largest request (METAOPS_BODY_LIMIT): Metacontroller cannot send ${skippedFor('TooLargeToSend') === 1 ? 'it' : 'them'} to the injector, so ${containerName(name)} cannot be added there; those pods are skipped`,
    );
  if (skippedFor('TooLargeToRead') > 0)
    return not(
      'TooLargeToRead',
      `${skipsFor('TooLargeToRead')} ${skippedFor('TooLargeToRead') === 1 ? 'is' : 'are'} larger than the API server's answers the hooks read (about 9 MiB as JSON): ${containerName(name)} cannot be added there (Metacontroller cannot send such a pod either); those pods are skipped`,
    );
  if (counts.pending > 0) return not('Injecting', `${carried}; ${counts.pending} pending`);
  const skipped = counts.skipped > 0 ? `; ${counts.skipped} skipped (${skipReasons(counts)})` : '';
  // Pods that carry the container of an earlier spec do not carry the one this spec adds: not done until they go.
  if (counts.outdated > 0)
    return not(
      'Outdated',
      `${carried}; ${counts.outdated} carry it as an earlier spec made it (another image, command, args, env, security profile or target container): ephemeral containers cannot be changed; delete those pods to have the current one${skipped}`,
    );
  return { type: 'Ready', status: true, reason: 'Injected', message: `${carried}${skipped}` };
}

/**
 * A refused tool's answer: why, and nothing about pods. The status is counted with the hook server's own rights (it
 * lists pods), and a refused tool acts for no one who may be told about them: its author may not debug the namespace
 * (AuthorNotAllowed), is not known (AuthorUnverified), or the server's policy refuses it before the author is asked
 * (ImageNotAllowed, ProfileNotAllowed, NamespaceExcluded). A count or a pod name here would be pods/list by proxy for
 * whoever may write PodBuggerTools: no pod is read, named or counted. The answer is the same at every sync (waiting
 * for the resync: nothing changes for it until its spec, its author's rights or the server's policy do).
 */
function refusedAnswer(
  tool: ParentObject,
  now: Date,
  refused: { reason: string; message: string },
): CompositeSyncResponse {
  const ready: ConditionInput = {
    type: 'Ready',
    status: false,
    reason: refused.reason,
    message: `${refused.message}${refusalTail(tool)}`,
  };
  return {
    status: { containerName: containerName(tool.metadata.name), conditions: conditionsFor(tool, [ready], now) },
    children: [],
  };
}

/** What a refusal's message says after why: the containers added before, and that no pod is counted or named. */
function refusalTail(tool: ParentObject): string {
  return `. Any ${containerName(tool.metadata.name)} added before stays (an ephemeral container cannot be removed; delete those pods to be rid of it); while the tool is refused its status counts and names no pod`;
}

/**
 * The author's view as the tool's status says it for this very generation, when the API server could not answer in
 * time (OutOfTime): a refusal stays that refusal (its reason and message as written, nothing counted or named), and
 * AuthorAllowedOnSomePods stays (the injector still asks about each pod by name). Anything else: undefined.
 */
function viewAsBefore(
  tool: ParentObject,
): { refused: Exclude<AuthorVerdict, { allowed: true }>; named: false } | { perPod: true; named: false } | undefined {
  if (readyReason(tool) === PER_POD) return { perPod: true, named: false };
  const reason = statusRefusal(tool);
  if (reason !== 'AuthorNotAllowed' && reason !== 'AuthorUnverified') return undefined;
  const shown = previousConditions(currentStatus(tool)).find((c) => c.type === 'Ready')?.message ?? '';
  const tail = refusalTail(tool);
  const message = shown.endsWith(tail) ? shown.slice(0, -tail.length) : `its author was refused before (${reason})`;
  return { refused: { allowed: false, reason, message }, named: false };
}

/** The author's view when the sync ran out of time after hearing `heard` (or nothing): a refusal stays one. */
function viewOutOfTime(
  tool: ParentObject,
  heard: AuthorVerdict | undefined,
): { refused?: Exclude<AuthorVerdict, { allowed: true }>; perPod?: true; named: false } {
  if (heard?.allowed) return { named: false };
  const before = viewAsBefore(tool);
  if (!heard) return before ?? { named: false };
  return before && 'perPod' in before ? before : { refused: heard, named: false };
}

/**
 * Whether the tool's author may do what it does (author.ts), as the tool's status tells it, and whether the status
 * may name the pods (the author may list them too; NAMES_RIGHT). With the check off, every tool acts with the hook
 * server's rights, and is told them all. `soon`: a pass over the pods by name is under way, and the next sync is
 * asked for in REFRESH_SECONDS.
 */
async function authorView(
  hook: SyncHook<PodBuggerToolSpec, ToolClients, ToolSettings>,
  kube: KubeApi,
  base: KubeApi,
  over: () => boolean,
): Promise<{ refused?: Exclude<AuthorVerdict, { allowed: true }>; perPod?: true; named: boolean; soon?: true }> {
  // Acting as the author: one who cannot be impersonated exactly is refused, as the injector refuses them, whatever
  // their rights (on the namespace, or on some pods by name) and with the check off too: the tool adds nothing, so
  // no review is asked and no pod is read for it.
  const acting = hook.settings.policy.actAsAuthor ? actingAuthor(hook.parent) : undefined;
  if (acting && 'problem' in acting)
    return { refused: { allowed: false, reason: 'AuthorUnverified', message: acting.problem }, named: false };
  if (hook.settings.policy.authorCheck === 'off') return { named: true };
  const check = hook.clients.authors(kube);
  // The review's answer, once heard: a refusal heard stays one when what follows it cannot be asked in time.
  let heard: AuthorVerdict | undefined;
  try {
    const verdict = await check.verify(hook.parent, over);
    heard = verdict;
    // Refused on the namespace as a whole: perhaps allowed on some of its pods by name (RBAC's resourceNames, the
    // right of `kubectl debug web-1` alone), which a review naming no pod does not see. The pods the tool selects are
    // asked about by name, MAX_PROBED_PODS a sync, in passes over them all (probe.ts): allowed on one, the tool acts
    // pod by pod (the injector asks about each). Only for an author who may list those pods: reading them is
    // nothing they could not do themselves (a refused author who may not list them gets no pod read for them).
    if (!verdict.allowed && verdict.reason === 'AuthorNotAllowed' && !verdict.onPod) {
      if (!(await check.mayList(hook.parent, over))) return { refused: verdict, named: false };
      const namespace = hook.parent.metadata.namespace ?? 'default';
      const probe = await probePods({
        kube,
        check,
        tool: hook.parent,
        spec: hook.spec,
        over,
        memory: probeMemoryFor(base),
        share: () => probePagesFor(base).take(namespace, hook.now.getTime()),
      });
      if (probe.found) return { perPod: true, named: false };
      const soon = probe.first ? ({ soon: true } as const) : {};
      // Every pod asked about, none allowed: refused. Not known yet (the pass goes on, or could not be asked now):
      // the tool stays as its status says, AuthorAllowedOnSomePods for this very spec (the injector still asks about
      // each pod by name before it adds anything) or refused (nothing is added on doubt), so that the status is
      // not rewritten at each step of a pass.
      if (!probe.none && readyReason(hook.parent) === PER_POD) return { perPod: true, named: false, ...soon };
      return { refused: verdict, named: false, ...soon };
    }
    if (!verdict.allowed) return { refused: verdict, named: false };
    return { named: await check.mayList(hook.parent, over) };
  } catch (err) {
    // Out of time: on doubt nothing changes for a refused tool. A refusal heard in this sync (whether its author may
    // list the pods, to look for the pods allowed by name, not asked in time), or, unheard, the one the status holds
    // for this generation (or AuthorAllowedOnSomePods), stays as it is: never turned into a count. Otherwise the
    // count that follows is cut short too, and says so (naming no pod it was not told it may).
    if (err instanceof OutOfTime) return viewOutOfTime(hook.parent, heard);
    throw new TemporaryError(
      errorReason(err),
      `could not ask the API server whether the tool's author may debug this namespace: ${errorReason(err)}`,
      { retryAfterSeconds: RETRY_SECONDS.failure },
    );
  }
}

/**
 * A tool whose author may patch only some of its pods, by name (PER_POD): not refused, nothing counted. The injector
 * asks about each pod by name before adding the container; the status names and counts no pod (the author may not
 * be told about the pods of the namespace they may not patch). The same answer at every sync, as a refusal's.
 */
function perPodAnswer(tool: ParentObject, now: Date): CompositeSyncResponse {
  const ready: ConditionInput = {
    type: 'Ready',
    status: false,
    reason: PER_POD,
    message: `its author may not patch pods/ephemeralcontainers in namespace ${tool.metadata.namespace ?? 'default'} as a whole, but may on some of the pods the tool selects, by name (an authorizer that decides per pod: RBAC's resourceNames): each pod is asked about by name before ${containerName(tool.metadata.name)} is added, and a pod its author may not patch gets nothing (that pod's failure, AuthorNotAllowed, retried with the backoff). The status counts and names no pod`,
  };
  return {
    status: { containerName: containerName(tool.metadata.name), conditions: conditionsFor(tool, [ready], now) },
    children: [],
  };
}

/**
 * The last complete count of this spec, when the status holds one (nothing cut short in it): at rest, a new count cut
 * short is remembered by the server, and the status kept as it is (that result) until a count completes.
 */
function countedAtRest(
  before: Status,
  generation: number,
): { counts: Counts; countedAt: string; stale: boolean } | undefined {
  const counts = previousCounts(before);
  const countedAt = before['countedAt'];
  if (!counts || typeof countedAt !== 'string') return undefined;
  if (before['observedGeneration'] !== generation || before['countProgress'] !== undefined) return undefined;
  const reason = previousConditions(before).find((c) => c.type === 'Ready')?.reason;
  if (reason === 'CountIncomplete') return undefined;
  // Said stale already (by this server before a restart, or another replica): stale until a count completes.
  return { counts, countedAt, stale: reason === 'CountStale' };
}

/**
 * Ready when the counts at rest have not completed for COUNT_STALE_MS: Unknown (the hook cannot tell whether every
 * pod carries the container), with the last complete counts kept and said to be that old. The message is the same at
 * every sync, so that the status is written once.
 */
function staleReadiness(countedAt: string): ConditionInput {
  return {
    type: 'Ready',
    status: 'Unknown',
    reason: 'CountStale',
    message: `no count of the pods has completed for ${COUNT_STALE_MS / 60_000} minutes: a pass over them takes longer than the API server keeps a list (its continue token expires, 410, and the pass starts again), or each sync runs out of time; the counts are those of ${countedAt} and may be stale; counting goes on every ${REFRESH_SECONDS}s`,
  };
}

/** countPods, its failure to read said as the temporary error it is. */
async function countOrExplain(...args: Parameters<typeof countPods>): Promise<CountResult> {
  try {
    return await countPods(...args);
  } catch (err) {
    // Already said (the namespace's tools could not be listed).
    if (err instanceof TemporaryError) throw err;
    throw new TemporaryError(errorReason(err), `could not list the pods the tool selects: ${errorReason(err)}`, {
      retryAfterSeconds: RETRY_SECONDS.failure,
    });
  }
}

/** The answer of a count: its counts (or the last complete ones, when cut short), and where it stopped. */
function countedAnswer(
  tool: ParentObject,
  now: Date,
  before: Status,
  result: CountResult,
  key: Buffer | undefined,
): CompositeSyncResponse {
  const last = previousCounts(before);
  const counts = result.complete ? result.counts : (last ?? emptyCounts());
  const same = last !== undefined && JSON.stringify(last) === JSON.stringify(counts);
  const countedAt = same && typeof before['countedAt'] === 'string' ? before['countedAt'] : rfc3339(now);
  const ready = readiness(tool.metadata.name, counts, result.complete ? undefined : result.read);
  const response = answer(tool, now, { counts, countedAt, ready, complete: result.complete });
  const progress = !result.complete && result.progress ? sealedProgress(result.progress, tool, key) : undefined;
  if (progress) response.status!['countProgress'] = progress;
  return response;
}

/**
 * The tool's status: how many pods it selects, carry its container (with its image, or an older one), are pending,
 * were skipped or failed, and why; Ready says what keeps it from being done. At rest the same status, so nothing is
 * written.
 */
export async function syncTool(
  hook: SyncHook<PodBuggerToolSpec, ToolClients, ToolSettings>,
): Promise<CompositeSyncResponse> {
  const { parent: tool, spec, now } = hook;
  const namespace = tool.metadata.namespace ?? 'default';
  const before = currentStatus(tool);
  const hold = held(tool, before, now);
  if (hold) return hold;
  const base = hook.services.kube();
  const kube = base.withSignal?.(hook.signal) ?? base;
  const policy = hook.settings.policy;
  // No call starts later than COUNT_BUDGET_MS into the sync, nor after the route's deadline.
  const began = performance.now();
  const over = () => hook.signal.aborted || performance.now() - began > COUNT_BUDGET_MS;
  // Refused by the policy (an excluded namespace included: its pods are never touched, nor read) or for its author.
  const policyRefusal = refusal(spec, namespace, policy);
  if (policyRefusal) return refusedAnswer(tool, now, policyRefusal);
  const view = await authorView(hook, kube, base, over);
  if (view.refused || view.perPod) {
    const response = view.refused ? refusedAnswer(tool, now, view.refused) : perPodAnswer(tool, now);
    // A pass over the pods by name under way: its next step soon (the status stays as it is meanwhile).
    if (view.soon) response.resyncAfterSeconds = REFRESH_SECONDS;
    return response;
  }
  const generation = tool.metadata.generation ?? 0;
  const rest = countedAtRest(before, generation);
  const memory = countMemoryFor(base);
  const key = JSON.stringify([namespace, tool.metadata.name, tool.metadata.uid ?? '', generation]);
  // Each page of the count takes one of the namespace's pages (COUNT_PAGES); none left, the count is cut short. A
  // count again at rest (its status holds a complete count) leaves half the burst to the tools that have none.
  const pages = countPagesFor(base);
  const reserve = rest ? COUNT_PAGES.burst / 2 : 0;
  const result = await countOrExplain(
    kube,
    tool,
    spec,
    () => over() || !pages.take(namespace, now.getTime(), reserve),
    {
      resume: previousProgress(before, tool, hook.settings.countKey) ?? (rest ? memory.take(key) : undefined),
      bodyLimit: hook.settings.bodyLimit,
    },
  );
  const shown = (r: CountResult): CountResult =>
    view.named
      ? r
      : r.complete
        ? { complete: true, counts: anonymous(r.counts) }
        : { ...r, ...(r.progress ? { progress: anonymous(r.progress) } : {}) };
  if (result.complete) memory.forget(key);
  else if (rest) {
    if (result.progress) memory.keep(key, result.progress);
    // The last complete result, as it was written (named or not: a change of the author's rights shows when the
    // count completes), until the counts have not completed for COUNT_STALE_MS: then said stale.
    const stale = rest.stale || now.getTime() - memory.incompleteSince(key, now.getTime()) >= COUNT_STALE_MS;
    const ready = stale ? staleReadiness(rest.countedAt) : readiness(tool.metadata.name, rest.counts, undefined);
    const kept = answer(tool, now, { counts: rest.counts, countedAt: rest.countedAt, ready });
    kept.resyncAfterSeconds = REFRESH_SECONDS;
    return kept;
  }
  return countedAnswer(tool, now, before, shown(result), hook.settings.countKey);
}
