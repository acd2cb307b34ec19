// PodBuggerTool: one CompositeController on the tools (no children). Its customize hook asks Metacontroller for
// the pods the tool's selector matches, in the tool's namespace, as related objects; its sync hook adds the tool's
// ephemeral container to those of them that lack it, and reports. Metacontroller cannot write the
// pods/ephemeralcontainers subresource, so the hook adds the containers itself through the Kubernetes API.
//
// Nothing is ever called about a pod no tool selects: Metacontroller syncs a tool again when a pod its customize
// rule selects is added, changed or deleted (v4.17.0 pkg/controller/common/customize/manager.go L284-286 register
// the informer handlers; L299-322 onRelatedAdd/onRelatedUpdate and L343-351 notifyRelatedParents enqueue the
// parents whose related rule matches the pod; v1.5.20 the same, L111 and L127-150), so a new matching pod, or a
// pod relabelled into the selector, brings a sync of the tool.
//
// The record of an injection is the ephemeral container itself (`debug-<tool>`; it cannot be removed or changed)
// and the tool's status: which pods carry it, which could not get it and why. No pod annotation is written.
import type { ConditionInput } from '../../lib/conditions.js';
import { RETRY_SECONDS as RETRY } from '../../lib/errors.js';
import { conditionsFor, currentStatus, type ClientEnvironment } from '../../lib/hook.js';
import type { SyncHook } from '../../lib/operator.js';
import { createHash } from 'node:crypto';
import { errorReason, type KubeApi, type KubeEvent } from '../../lib/kube.js';
import type {
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  KubeObject,
} from '../../lib/metacontroller.js';
import { byCodeUnits } from '../../lib/names.js';
import { isTerminating, observed } from '../../lib/objects.js';
import {
  containerName,
  ephemeralContainer,
  ephemeralImages,
  matches,
  parser,
  policyFromEnv,
  refusal,
  selectorOf,
  type DebugPolicy,
} from './match.js';
import { resource, type PodBuggerToolSpec } from './schema.js';

export const TOOL_API = `${resource.group}/${resource.version}`;
export const RETRY_SECONDS = RETRY.failure;
/** Pods injected by one sync (the hook has a deadline); the rest are left to the next one, a second later. */
export const MAX_PER_SYNC = 20;
/** Pods read and patched side by side. */
const CONCURRENCY = 5;
/** Failures listed in the status (all are counted in `failed`). */
export const MAX_FAILURES = 100;
const LAST_INJECTED = 10;

/** Where a failure to act is said: a log line that names the tool and the pod. */
export interface ToolHookLog {
  warn(obj: Record<string, unknown>, msg: string): void;
}

/** The tools' settings: the debug policy (METAOPS_DEBUG_*) and the work budget. */
export interface ToolSettings {
  policy: DebugPolicy;
  /** How long after the call began a new API call may still start. */
  workBudgetMs: number;
}

export function toolSettings({ env }: ClientEnvironment): ToolSettings {
  return { policy: policyFromEnv(env), workBudgetMs: WORK_BUDGET_MS };
}

interface ToolHookDeps {
  kube: KubeApi;
  policy: DebugPolicy;
  now: Date;
  log: ToolHookLog;
  /** How long after the call began a new API call may still start (default WORK_BUDGET_MS). */
  budgetMs?: number;
  /** Aborted when the route's deadline passed (the caller was answered 429): no API call starts after it. */
  signal: AbortSignal;
}

/**
 * No API call starts later than this after the sync began; the pods not reached are left to the next sync (a
 * second later). With the kube client's 3 s per call and events waited for at most EVENTS_WAIT_MS, a sync ends
 * by about 3.5 + 3 + 1 = 7.5 s, inside the route's 8.5 s deadline, however slow the API server is: otherwise a
 * slow server turns every sync into a 429 whose status is never written (a tool left Ready while it fails).
 */
export const WORK_BUDGET_MS = 3500;
const EVENTS_WAIT_MS = 1000;

/** A failed attempt to add the tool's container to a pod: a stable reason, no raw error text. */
export interface PodFailure {
  pod: string;
  reason: string;
}

/** An event name for one occurrence: the tool's name where it is valid, and a hash of what happened. */
function eventName(tool: string, occurrence: string): string {
  const hash = createHash('sha256').update(occurrence).digest('hex').slice(0, 16);
  const prefix = tool
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 200)
    .replace(/^-+|-+$/g, '');
  return prefix ? `${prefix}.${hash}` : hash;
}

/** The tool hook's customize: the pods its selector matches, as related objects (in the tool's namespace). */
export function customizeTool(request: CustomizeRequest): CustomizeResponse {
  const parsed = parser.parse(request.parent?.['spec']);
  if (!parsed.ok) return { relatedResources: [] };
  return { relatedResources: [{ apiVersion: 'v1', resource: 'pods', labelSelector: selectorOf(parsed.spec) }] };
}

/** The previous status's failures, tolerant of anything malformed. */
function previousFailures(status: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  const list = status['failures'];
  if (!Array.isArray(list)) return out;
  for (const f of list as Array<{ pod?: unknown; reason?: unknown }>) {
    if (f && typeof f.pod === 'string' && typeof f.reason === 'string') out.set(f.pod, f.reason);
  }
  return out;
}

function previousLast(status: Record<string, unknown>): string[] {
  const list = status['lastInjected'];
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
}

/** Runs `fn` on every item, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

interface Outcome {
  /** Pods the container was added to by this sync: name to image. */
  added: Map<string, string>;
  /** Pods found carrying the container on the re-read, though the request's pod did not: name to image. */
  found: Map<string, string>;
  failed: Map<string, string>;
  /** Pods left for the next sync (more than MAX_PER_SYNC wanted it). */
  deferred: number;
}

/**
 * Adds the tool's container to the pods of `missing` (pods of the request that the request's tool selects and that
 * do not carry it).
 *
 * The request says which pods might need it; it is not trusted for what is done. Before a PATCH the tool and the
 * pod are read again from the API server, the decision is made again on what they say (the tool not being
 * deleted, its spec valid and allowed by the server's policy, the pod in the tool's namespace, not terminating,
 * selected by the tool, without the container), and the PATCH carries the pod's uid and resourceVersion, so the
 * container added is the one the real tool asks for, on the pod that was looked at. Pods of excluded namespaces
 * are never touched (refused before this is called).
 */
// eslint-disable-next-line max-lines-per-function -- the budgeted worker pool and its outcome in one place, so that the deadline arithmetic is readable
async function inject(
  tool: KubeObject,
  missing: KubeObject[],
  previous: Map<string, string>,
  deps: ToolHookDeps,
): Promise<Outcome> {
  const out: Outcome = { added: new Map(), found: new Map(), failed: new Map(), deferred: 0 };
  const began = performance.now();
  const budget = deps.budgetMs ?? WORK_BUDGET_MS;
  const late = () => performance.now() - began > budget;
  // No API call starts once the route's deadline passed either.
  const over = () => deps.signal.aborted || late();
  // A pod not reached in time keeps the failure it had, and is tried by the next sync.
  const defer = (podName: string) => {
    out.deferred += 1;
    const reason = previous.get(podName);
    if (reason) out.failed.set(podName, reason);
  };
  const toolName = tool.metadata.name!;
  const namespace = tool.metadata.namespace ?? 'default';
  const container = containerName(toolName);
  const events: KubeEvent[] = [];
  let realUid = tool.metadata.uid;

  const fail = (podName: string, podUid: string | undefined, err: unknown) => {
    const reason = errorReason(err);
    out.failed.set(podName, reason);
    const note = `could not add ${container} to pod ${namespace}/${podName}: ${reason}`;
    deps.log.warn(
      {
        podbuggertool: `${namespace}/${toolName}`,
        pod: `${namespace}/${podName}`,
        reason,
        err: err instanceof Error ? err.message : String(err),
      },
      `PodBuggerTool ${namespace}/${toolName}: ${note}`,
    );
    // An event when the failure is new (not at every retry of the same one), on the tool, with the pod related.
    // Not when the API server cannot be reached: the event could not be either, and the hook has a deadline.
    if (previous.get(podName) !== reason && reason !== 'Unreachable') {
      events.push({
        namespace,
        name: eventName(toolName, `${namespace}/${toolName}/${namespace}/${podName}/${podUid ?? ''}/${reason}`),
        eventTime: deps.now,
        type: 'Warning',
        reason: 'InjectionFailed',
        action: 'AddEphemeralContainer',
        note,
        regarding: {
          apiVersion: TOOL_API,
          kind: resource.kind,
          namespace,
          name: toolName,
          ...(realUid ? { uid: realUid } : {}),
        },
        related: { apiVersion: 'v1', kind: 'Pod', namespace, name: podName, ...(podUid ? { uid: podUid } : {}) },
      });
    }
  };

  // Pods that failed before go last: a pod that keeps failing does not hold the others back.
  const ordered = [...missing].sort((a, b) => {
    const fa = previous.has(a.metadata.name!) ? 1 : 0;
    const fb = previous.has(b.metadata.name!) ? 1 : 0;
    return fa - fb || byCodeUnits(a.metadata.name!, b.metadata.name!);
  });
  const now = ordered.slice(0, MAX_PER_SYNC);
  out.deferred = ordered.length - now.length;
  // What is not tried now keeps the failure it had.
  for (const p of ordered.slice(MAX_PER_SYNC)) {
    const reason = previous.get(p.metadata.name!);
    if (reason) out.failed.set(p.metadata.name!, reason);
  }

  // The tool as the API server has it now.
  let real: KubeObject | undefined;
  try {
    real = await deps.kube.get(TOOL_API, resource.plural, namespace, toolName);
  } catch (err) {
    for (const p of now) fail(p.metadata.name!, p.metadata.uid, err);
  }
  let spec: PodBuggerToolSpec | undefined;
  if (
    real &&
    !isTerminating(real) &&
    (!tool.metadata.uid || !real.metadata.uid || real.metadata.uid === tool.metadata.uid)
  ) {
    realUid = real.metadata.uid ?? realUid;
    const parsed = parser.parse(real['spec']);
    if (parsed.ok && !refusal(parsed.spec, namespace, deps.policy)) spec = parsed.spec;
  }

  if (spec) {
    const wanted = spec;
    await eachLimited(now, CONCURRENCY, async (requested) => {
      const podName = requested.metadata.name!;
      if (over()) return defer(podName);
      let pod: KubeObject | undefined;
      try {
        pod = await deps.kube.get('v1', 'pods', namespace, podName);
      } catch (err) {
        fail(podName, requested.metadata.uid, err);
        return;
      }
      if (!pod || isTerminating(pod) || (pod.metadata.namespace ?? namespace) !== namespace || !matches(wanted, pod))
        return;
      const have = ephemeralImages(pod).get(container);
      // Already there (by us, by hand, or the request lagged): never added twice.
      if (have !== undefined) {
        out.found.set(podName, have);
        return;
      }
      if (over()) return defer(podName);
      try {
        await deps.kube.addEphemeralContainers(namespace, podName, [ephemeralContainer(toolName, wanted, pod)], {
          ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}),
          ...(pod.metadata.resourceVersion ? { resourceVersion: pod.metadata.resourceVersion } : {}),
        });
        out.added.set(podName, wanted.image);
      } catch (err) {
        fail(podName, pod.metadata.uid, err);
      }
    });
  }

  // Events are waited for at most EVENTS_WAIT_MS (they go on in the background): never past the deadline.
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, EVENTS_WAIT_MS)));
  const written = Promise.all(
    events.map(async (event) => {
      try {
        await deps.kube.createEvent?.(event);
      } catch (err) {
        deps.log.warn(
          {
            podbuggertool: `${namespace}/${toolName}`,
            reason: errorReason(err),
            err: err instanceof Error ? err.message : String(err),
          },
          `PodBuggerTool ${namespace}/${toolName}: could not record the event ${event.reason}: ${errorReason(err)}`,
        );
      }
    }),
  );
  await Promise.race([written, waited]);
  clearTimeout(timer);
  return out;
}

/**
 * Adds the tool's container, once, to the pods it selects that lack it, and reports on the tool how many pods
 * match, how many carry its container, and which could not get it and why. At rest (every matching pod carries
 * it, or the same failures again) the API server is not called, or gives the same answer, and the status is the
 * same.
 */
// eslint-disable-next-line max-lines-per-function -- the tool's status is one literal of six counts and a condition; the decisions are in match.ts and inject()
export async function syncTool(
  hook: SyncHook<PodBuggerToolSpec, unknown, ToolSettings>,
): Promise<CompositeSyncResponse> {
  const { request, spec } = hook;
  const tool = request.parent;
  const kube = hook.services.kube();
  const deps: ToolHookDeps = {
    // Every call made with the call's signal: one in flight when the route's deadline passes is abandoned.
    kube: kube.withSignal?.(hook.signal) ?? kube,
    policy: hook.settings.policy,
    now: hook.now,
    log: hook.log,
    budgetMs: hook.settings.workBudgetMs,
    signal: hook.signal,
  };
  const toolName = tool.metadata.name!;
  const namespace = tool.metadata.namespace ?? 'default';
  const name = containerName(toolName);
  const before = currentStatus(tool);
  const previous = previousFailures(before);
  // The pods the request lists that this tool selects: a pod the request lists but the tool does not select is
  // neither counted nor touched.
  const pods = observed(request.related, 'Pod', 'v1').filter(
    (p) =>
      !isTerminating(p) && (p.metadata.namespace ?? 'default') === namespace && p.metadata.name && matches(spec, p),
  );
  const refused = refusal(spec, namespace, deps.policy);
  const missing = pods.filter((p) => !ephemeralImages(p).has(name));
  const outcome: Outcome =
    refused || isTerminating(tool) || missing.length === 0
      ? { added: new Map(), found: new Map(), failed: new Map(), deferred: 0 }
      : await inject(tool, missing, previous, deps);

  // A pod carries the tool only with the tool's current image: an ephemeral container cannot be changed, so a
  // pod injected before the image changed keeps the old one, and is counted apart.
  const carrying = (p: KubeObject) =>
    outcome.added.get(p.metadata.name!) ?? outcome.found.get(p.metadata.name!) ?? ephemeralImages(p).get(name);
  const injected = pods.filter((p) => carrying(p) === spec.image).map((p) => p.metadata.name!);
  const outdated = pods.filter((p) => {
    const image = carrying(p);
    return image !== undefined && image !== spec.image;
  });
  const failedPods = [...outcome.failed]
    .map(([pod, reason]) => ({ pod, reason }))
    .sort((a, b) => byCodeUnits(a.pod, b.pod));
  // Most recent first: the pods this sync added, then those the last status named, then the others by name.
  const carriers = new Set(injected);
  const last = [...new Set([...[...outcome.added.keys()].sort(byCodeUnits), ...previousLast(before), ...injected])]
    .filter((p) => carriers.has(p))
    .slice(0, LAST_INJECTED);
  const older =
    outdated.length > 0
      ? `; ${outdated.length} carry it with an older image (ephemeral containers cannot be changed)`
      : '';
  let ready: ConditionInput;
  if (refused) ready = { type: 'Ready', status: false, reason: refused.reason, message: refused.message };
  else if (failedPods.length > 0) {
    const shown = failedPods
      .slice(0, 5)
      .map((f) => `${f.pod} (${f.reason})`)
      .join(', ');
    const more = failedPods.length > 5 ? ` and ${failedPods.length - 5} more` : '';
    ready = {
      type: 'Ready',
      status: false,
      reason: 'InjectionFailed',
      message: `${name} could not be added to ${failedPods.length} of ${pods.length} matching pods: ${shown}${more}; retried every ${RETRY_SECONDS}s`,
    };
  } else {
    ready = {
      type: 'Ready',
      status: true,
      reason: 'Injecting',
      message: `${injected.length} of ${pods.length} matching pods carry ${name}${older}`,
    };
  }
  const response: CompositeSyncResponse = {
    status: {
      matched: pods.length,
      injected: injected.length,
      outdated: outdated.length,
      failed: failedPods.length,
      failures: failedPods.slice(0, MAX_FAILURES),
      lastInjected: last,
      containerName: name,
      conditions: conditionsFor(tool, [ready], deps.now),
    },
    children: [],
  };
  // Not done yet: the next sync tries again (sooner when pods were only left for later).
  if (outcome.deferred > 0) response.resyncAfterSeconds = 1;
  else if (failedPods.length > 0) response.resyncAfterSeconds = RETRY_SECONDS;
  return response;
}
