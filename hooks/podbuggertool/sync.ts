// PodBuggerTool: a DecoratorController hook on pods (inject) and a CompositeController hook on the tools
// (report). Metacontroller cannot write the pods/ephemeralcontainers subresource, so the pod hook adds the
// containers itself through the Kubernetes API; the injection is recorded in an annotation on the pod.
import type { ConditionInput } from '../../lib/conditions.js';
import { conditionsFor, invalidSpecResponse } from '../../lib/hook.js';
import { createHash } from 'node:crypto';
import { errorReason, type KubeApi, type KubeEvent } from '../../lib/kube.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  DecoratorSyncRequest,
  DecoratorSyncResponse,
  KubeObject,
} from '../../lib/metacontroller.js';
import { isTerminating, observed } from '../../lib/objects.js';
import {
  ANNOTATION,
  containerName,
  ephemeralContainer,
  ephemeralImages,
  failures,
  FAILURES_ANNOTATION,
  matches,
  parser,
  recorded,
  recordText,
  refusal,
  selectorOf,
  type DebugPolicy,
  type Failure,
  type Injection,
} from './match.js';
import { resource, type PodBuggerToolSpec } from './schema.js';

export const TOOL_API = `${resource.group}/${resource.version}`;
export const RETRY_SECONDS = 30;

/** Where a failure to act is said: a log line that names the tool and the pod. */
export interface PodHookLog {
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface PodHookDeps {
  kube: KubeApi;
  policy: DebugPolicy;
  now: Date;
  log?: PodHookLog;
}

/** An event name for one occurrence: the tool's name where it is valid, and a hash of what happened. */
function eventName(tool: string, occurrence: string): string {
  const hash = createHash('sha256').update(occurrence).digest('hex').slice(0, 16);
  const prefix = tool.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 200).replace(/^-+|-+$/g, '');
  return prefix ? `${prefix}.${hash}` : hash;
}

/** The pod hook's customize: the PodBuggerTools of the pod's namespace, as related objects. */
export function customizePod(): CustomizeResponse {
  return { relatedResources: [{ apiVersion: TOOL_API, resource: resource.plural }] };
}

interface Candidate {
  tool: string;
  spec: PodBuggerToolSpec;
}

/**
 * The tools of the pod's namespace that may add their container to this pod: not terminating, a valid spec
 * that selects the pod, allowed by the server's policy.
 */
function candidates(tools: KubeObject[], pod: KubeObject, namespace: string, policy: DebugPolicy): Candidate[] {
  const out: Candidate[] = [];
  for (const tool of tools) {
    if (isTerminating(tool) || (tool.metadata.namespace ?? 'default') !== namespace || !tool.metadata.name) continue;
    const parsed = parser.parse(tool['spec']);
    if (!parsed.ok || !matches(parsed.spec, pod) || refusal(parsed.spec, namespace, policy)) continue;
    out.push({ tool: tool.metadata.name, spec: parsed.spec });
  }
  return out;
}

/**
 * Adds, once, the debug container of every tool of the pod's namespace that matches it.
 *
 * The request says which tools might apply; it is not trusted for what is done. Before a PATCH the pod and each
 * tool are read again from the API server, the decision is made again on what it says, and the PATCH carries the
 * pod's uid and resourceVersion, so the containers added are the ones the real tools ask for, on the pod that
 * was looked at. Pods of excluded namespaces are never touched.
 */
export async function syncPod(request: DecoratorSyncRequest, deps: PodHookDeps): Promise<DecoratorSyncResponse> {
  const pod = request.object;
  if (isTerminating(pod)) return { attachments: [] };
  const namespace = pod.metadata.namespace ?? 'default';
  const podName = pod.metadata.name!;
  const record = recorded(pod);
  const before = failures(pod);
  const failed = new Map<string, Failure>();
  const events: KubeEvent[] = [];
  const added = new Map<string, Injection>();

  const observedTools = observed(request.related, resource.kind, TOOL_API);
  const recordPresent = (pod: KubeObject, list: Candidate[]) => {
    const have = ephemeralImages(pod);
    return list.filter(({ tool }) => {
      const name = containerName(tool);
      if (!have.has(name)) return true;
      // Already there (by us or by hand): never added twice; recorded, with the image it has, if it was not.
      if (!record.has(tool)) record.set(tool, { container: name, image: have.get(name)!, at: deps.now.toISOString() });
      return false;
    });
  };
  let wanted = recordPresent(pod, candidates(observedTools, pod, namespace, deps.policy));

  if (wanted.length > 0) {
    const failAll = (list: Candidate[], err: unknown) => {
      for (const { tool } of list) fail(tool, err);
    };
    const fail = (tool: string, err: unknown) => {
      const reason = errorReason(err);
      const container = containerName(tool);
      failed.set(tool, { container, reason });
      const note = `could not add ${container} to pod ${namespace}/${podName}: ${reason}`;
      deps.log?.warn(
        { podbuggertool: `${namespace}/${tool}`, pod: `${namespace}/${podName}`, reason, err: err instanceof Error ? err.message : String(err) },
        `PodBuggerTool ${namespace}/${tool}: ${note}`,
      );
      // An event when the failure is new (not at every retry of the same one), on the tool, with the pod related.
      // Not when the API server cannot be reached: the event could not be either, and the hook has a deadline.
      if (before.get(tool)?.reason !== reason && reason !== 'Unreachable') {
        const uid = reread.get(tool)?.metadata.uid;
        events.push({
          namespace,
          name: eventName(tool, `${namespace}/${tool}/${namespace}/${podName}/${pod.metadata.uid ?? ''}/${reason}`),
          eventTime: deps.now,
          type: 'Warning',
          reason: 'InjectionFailed',
          action: 'AddEphemeralContainer',
          note,
          regarding: { apiVersion: TOOL_API, kind: resource.kind, namespace, name: tool, ...(uid ? { uid } : {}) },
          related: { apiVersion: 'v1', kind: 'Pod', namespace, name: podName, ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}) },
        });
      }
    };
    const reread = new Map<string, KubeObject>();
    let current: KubeObject | undefined;
    try {
      current = await deps.kube.get('v1', 'pods', namespace, podName);
    } catch (err) {
      failAll(wanted, err);
    }
    if (current && !isTerminating(current) && (current.metadata.namespace ?? namespace) === namespace) {
      // The tools as the API server has them now (read side by side: the hook has a deadline).
      await Promise.all(
        wanted.map(async ({ tool }) => {
          try {
            const real = await deps.kube.get(TOOL_API, resource.plural, namespace, tool);
            if (real) reread.set(tool, real);
          } catch (err) {
            fail(tool, err);
          }
        }),
      );
      const tools = wanted.flatMap(({ tool }) => (reread.has(tool) ? [reread.get(tool)!] : []));
      wanted = recordPresent(current, candidates(tools, current, namespace, deps.policy));
      if (wanted.length > 0) {
        try {
          await deps.kube.addEphemeralContainers(
            namespace,
            podName,
            wanted.map(({ tool, spec }) => ephemeralContainer(tool, spec, current!)),
            { ...(current.metadata.uid ? { uid: current.metadata.uid } : {}), ...(current.metadata.resourceVersion ? { resourceVersion: current.metadata.resourceVersion } : {}) },
          );
          for (const { tool, spec } of wanted) added.set(tool, { container: containerName(tool), image: spec.image, at: deps.now.toISOString() });
        } catch (err) {
          failAll(wanted, err);
        }
      }
    }
  }

  await Promise.all(
    events.map(async (event) => {
      try {
        await deps.kube.createEvent?.(event);
      } catch (err) {
        deps.log?.warn(
          { podbuggertool: `${namespace}/${event.regarding.name}`, reason: errorReason(err), err: err instanceof Error ? err.message : String(err) },
          `PodBuggerTool ${namespace}/${event.regarding.name}: could not record the event ${event.reason}: ${errorReason(err)}`,
        );
      }
    }),
  );
  for (const [tool, entry] of added) record.set(tool, entry);
  const response: DecoratorSyncResponse = { attachments: [] };
  const annotations: Record<string, string | null> = {};
  if (record.size > 0) annotations[ANNOTATION] = recordText(record);
  // The failures of this sync only: a tool that now succeeds, or no longer applies, has none.
  if (failed.size > 0) annotations[FAILURES_ANNOTATION] = recordText(failed);
  else if (pod.metadata.annotations && Object.hasOwn(pod.metadata.annotations, FAILURES_ANNOTATION)) annotations[FAILURES_ANNOTATION] = null;
  if (Object.keys(annotations).length > 0) response.annotations = annotations;
  // Not recorded: the next sync tries again.
  if (failed.size > 0) response.resyncAfterSeconds = RETRY_SECONDS;
  return response;
}

/** The tool hook's customize: the pods its selector matches, as related objects. */
export function customizeTool(request: CustomizeRequest): CustomizeResponse {
  const parsed = parser.parse(request.parent?.['spec']);
  if (!parsed.ok) return { relatedResources: [] };
  return { relatedResources: [{ apiVersion: 'v1', resource: 'pods', labelSelector: selectorOf(parsed.spec) }] };
}

/** Reports, on the tool, how many pods match, how many carry its container, and what could not be done. */
export function syncTool(request: CompositeSyncRequest, policy: DebugPolicy, now: Date): CompositeSyncResponse {
  const tool = request.parent;
  const parsed = parser.parse(tool.spec);
  if (!parsed.ok) return invalidSpecResponse(request, parsed.message, now);
  const spec = parsed.spec;
  const toolName = tool.metadata.name!;
  const namespace = tool.metadata.namespace ?? 'default';
  const name = containerName(toolName);
  const pods = observed(request.related, 'Pod', 'v1').filter(
    (p) => !isTerminating(p) && (p.metadata.namespace ?? 'default') === namespace && matches(spec, p),
  );
  // A pod carries the tool only with the tool's current image: an ephemeral container cannot be changed, so a
  // pod injected before the image changed keeps the old one, and is counted apart.
  const carrying = (p: KubeObject) => ephemeralImages(p).get(name);
  const injected = pods.filter((p) => carrying(p) === spec.image);
  const outdated = pods.filter((p) => {
    const image = carrying(p);
    return image !== undefined && image !== spec.image;
  });
  const failedPods = pods
    .filter((p) => carrying(p) === undefined)
    .flatMap((p) => {
      const f = failures(p).get(toolName);
      return f ? [{ pod: p.metadata.name!, reason: f.reason }] : [];
    })
    .sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
  const last = injected
    .map((p) => ({ name: p.metadata.name!, at: recorded(p).get(toolName)?.at ?? '' }))
    .sort((a, b) => (a.at === b.at ? (a.name < b.name ? -1 : 1) : a.at < b.at ? 1 : -1))
    .slice(0, 10)
    .map((x) => x.name);
  const refused = refusal(spec, namespace, policy);
  const older = outdated.length > 0 ? `; ${outdated.length} carry it with an older image (ephemeral containers cannot be changed)` : '';
  let ready: ConditionInput;
  if (refused) ready = { type: 'Ready', status: false, reason: refused.reason, message: refused.message };
  else if (failedPods.length > 0) {
    const shown = failedPods.slice(0, 5).map((f) => `${f.pod} (${f.reason})`).join(', ');
    const more = failedPods.length > 5 ? ` and ${failedPods.length - 5} more` : '';
    ready = {
      type: 'Ready',
      status: false,
      reason: 'InjectionFailed',
      message: `${name} could not be added to ${failedPods.length} of ${pods.length} matching pods: ${shown}${more}; retried every ${RETRY_SECONDS}s`,
    };
  } else {
    ready = { type: 'Ready', status: true, reason: 'Injecting', message: `${injected.length} of ${pods.length} matching pods carry ${name}${older}` };
  }
  return {
    status: {
      matched: pods.length,
      injected: injected.length,
      outdated: outdated.length,
      failed: failedPods.length,
      lastInjected: last,
      containerName: name,
      observedGeneration: tool.metadata.generation ?? 0,
      conditions: conditionsFor(tool, [ready], now),
    },
    children: [],
  };
}
