// PodBuggerTool: a DecoratorController hook on pods (inject) and a CompositeController hook on the tools
// (report). Metacontroller cannot write the pods/ephemeralcontainers subresource, so the pod hook adds the
// containers itself through the Kubernetes API; the injection is recorded in an annotation on the pod.
import { conditionsFor, invalidSpecResponse } from '../../lib/hook.js';
import type { KubeApi } from '../../lib/kube.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  DecoratorSyncRequest,
  DecoratorSyncResponse,
} from '../../lib/metacontroller.js';
import { isTerminating, observed } from '../../lib/objects.js';
import {
  ANNOTATION,
  containerName,
  ephemeralContainer,
  ephemeralNames,
  imageAllowed,
  matches,
  parser,
  recorded,
  selectorOf,
  type Injection,
} from './match.js';
import { resource } from './schema.js';

export const TOOL_API = `${resource.group}/${resource.version}`;
export const RETRY_SECONDS = 30;

export interface PodHookDeps {
  kube: KubeApi;
  allowlist: string[] | undefined;
  now: Date;
}

/** The pod hook's customize: the PodBuggerTools of the pod's namespace, as related objects. */
export function customizePod(): CustomizeResponse {
  return { relatedResources: [{ apiVersion: TOOL_API, resource: resource.plural }] };
}

/** Adds, once, the debug container of every tool of the pod's namespace that matches it. */
export async function syncPod(request: DecoratorSyncRequest, deps: PodHookDeps): Promise<DecoratorSyncResponse> {
  const pod = request.object;
  if (isTerminating(pod)) return { attachments: [] };
  const namespace = pod.metadata.namespace ?? 'default';
  const have = ephemeralNames(pod);
  const record: Record<string, Injection> = recorded(pod);
  const toAdd: Array<Record<string, unknown>> = [];
  const added: Record<string, Injection> = {};
  for (const tool of observed(request.related, resource.kind, TOOL_API)) {
    // Only tools of the pod's own namespace touch it.
    if (isTerminating(tool) || (tool.metadata.namespace ?? 'default') !== namespace) continue;
    const parsed = parser.parse(tool['spec']);
    if (!parsed.ok || !matches(parsed.spec, pod) || !imageAllowed(parsed.spec.image, deps.allowlist)) continue;
    const toolName = tool.metadata.name!;
    const name = containerName(toolName);
    const entry = { container: name, image: parsed.spec.image, at: deps.now.toISOString() };
    if (have.has(name)) {
      // Already there (by us or by hand): never added twice; recorded if it was not.
      record[toolName] ??= entry;
      continue;
    }
    toAdd.push(ephemeralContainer(toolName, parsed.spec, pod));
    added[toolName] = entry;
  }
  let retry: number | undefined;
  if (toAdd.length > 0) {
    try {
      await deps.kube.addEphemeralContainers(namespace, pod.metadata.name!, toAdd);
      Object.assign(record, added);
    } catch {
      // Not recorded: the next sync tries again.
      retry = RETRY_SECONDS;
    }
  }
  const response: DecoratorSyncResponse = { attachments: [] };
  if (Object.keys(record).length > 0) {
    const sorted = Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k]!]));
    response.annotations = { [ANNOTATION]: JSON.stringify(sorted) };
  }
  if (retry) response.resyncAfterSeconds = retry;
  return response;
}

/** The tool hook's customize: the pods its selector matches, as related objects. */
export function customizeTool(request: CustomizeRequest): CustomizeResponse {
  const parsed = parser.parse(request.parent?.['spec']);
  if (!parsed.ok) return { relatedResources: [] };
  return { relatedResources: [{ apiVersion: 'v1', resource: 'pods', labelSelector: selectorOf(parsed.spec) }] };
}

/** Reports, on the tool, how many pods match and how many carry its container. */
export function syncTool(request: CompositeSyncRequest, allowlist: string[] | undefined, now: Date): CompositeSyncResponse {
  const tool = request.parent;
  const parsed = parser.parse(tool.spec);
  if (!parsed.ok) return invalidSpecResponse(request, parsed.message, now);
  const spec = parsed.spec;
  const toolName = tool.metadata.name!;
  const name = containerName(toolName);
  const pods = observed(request.related, 'Pod', 'v1').filter(
    (p) => !isTerminating(p) && p.metadata.namespace === tool.metadata.namespace && matches(spec, p),
  );
  const injected = pods.filter((p) => ephemeralNames(p).has(name));
  const last = injected
    .map((p) => ({ name: p.metadata.name!, at: recorded(p)[toolName]?.at ?? '' }))
    .sort((a, b) => (a.at === b.at ? (a.name < b.name ? -1 : 1) : a.at < b.at ? 1 : -1))
    .slice(0, 10)
    .map((x) => x.name);
  const allowed = imageAllowed(spec.image, allowlist);
  return {
    status: {
      matched: pods.length,
      injected: injected.length,
      lastInjected: last,
      containerName: name,
      observedGeneration: tool.metadata.generation ?? 0,
      conditions: conditionsFor(
        tool,
        [
          allowed
            ? { type: 'Ready', status: true, reason: 'Injecting', message: `${injected.length} of ${pods.length} matching pods carry ${name}` }
            : {
                type: 'Ready',
                status: false,
                reason: 'ImageNotAllowed',
                message: `image ${spec.image} is not in the server's debug image allowlist (${(allowlist ?? []).join(', ')}); nothing is injected`,
              },
        ],
        now,
      ),
    },
    children: [],
  };
}
