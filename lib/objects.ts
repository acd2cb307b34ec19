// Reading what Metacontroller observed, and handing it back unchanged.
import { MAX_JSON_DEPTH, nestingRefused, parseJsonBody, valueDepthExceeds } from './json.js';
import type { KubeObject, ObjectMap } from './metacontroller.js';

/** The map key Metacontroller uses for a child type: `<Kind>.<apiVersion>`, e.g. `StatefulSet.apps/v1`. */
export function typeKey(kind: string, apiVersion: string): string {
  return `${kind}.${apiVersion}`;
}

/**
 * The observed objects of one type, whatever the map is keyed by (v1 `name`, v2 `namespace/name`),
 * sorted by namespace and name so that every answer built from them is deterministic.
 */
export function observed(map: ObjectMap | null | undefined, kind: string, apiVersion: string): KubeObject[] {
  const group = map?.[typeKey(kind, apiVersion)];
  if (!group) return [];
  return values(group).sort(compareObjects);
}

/**
 * The values of a map as JSON.parse built it. A map of many objects is a dictionary-mode object in V8, and
 * for..in walks one about twice as fast as Object.values (measured at 10 000 keys; perf: docs/performance.md).
 */
function values(group: Record<string, KubeObject>): KubeObject[] {
  const out: KubeObject[] = [];
  for (const key in group) out.push(group[key]!);
  return out;
}

/** The observed objects of one type in no particular order, for callers that order them themselves. */
export function observedUnordered(map: ObjectMap | null | undefined, kind: string, apiVersion: string): KubeObject[] {
  const group = map?.[typeKey(kind, apiVersion)];
  return group ? values(group) : [];
}

/**
 * The observed object of a type with this name, if any; with `namespace`, only one in that namespace. Related
 * objects can come from other namespaces (Metacontroller v4.17 lists a rule that names objects without a
 * namespace across all of them, and v2 hooks key by namespace/name), so a lookup for a namespaced parent passes
 * the parent's namespace.
 */
export function observedNamed(
  map: ObjectMap | null | undefined,
  kind: string,
  apiVersion: string,
  name: string,
  namespace?: string,
): KubeObject | undefined {
  const group = map?.[typeKey(kind, apiVersion)];
  if (!group) return undefined;
  const matches = (o: KubeObject | undefined): o is KubeObject =>
    Boolean(o) &&
    typeof o === 'object' &&
    o!.metadata?.name === name &&
    (namespace === undefined || (o!.metadata.namespace ?? '') === namespace);
  // v1 keys by name; v2 (and cluster-scoped parents) by namespace/name. Own keys only: a child named
  // `constructor` or `toString` must not find Object.prototype's.
  const direct = Object.hasOwn(group, name) ? group[name] : undefined;
  if (matches(direct)) return direct;
  const keyed =
    namespace !== undefined && Object.hasOwn(group, `${namespace}/${name}`) ? group[`${namespace}/${name}`] : undefined;
  if (matches(keyed)) return keyed;
  return values(group).find(matches);
}

/** Every observed object of every type, in a stable order. */
export function allObserved(map: ObjectMap | null | undefined): KubeObject[] {
  if (!map) return [];
  return Object.keys(map)
    .sort()
    .flatMap((key) => values(map[key] ?? {}).sort(compareObjects));
}

export function compareObjects(a: KubeObject, b: KubeObject): number {
  // Only names are checked by the envelope schema: a namespace of another type (an object with its own
  // toString, which `<` would call) sorts as none rather than throwing.
  const an = textOf(a.metadata.namespace);
  const bn = textOf(b.metadata.namespace);
  if (an !== bn) return an < bn ? -1 : 1;
  const a1 = textOf(a.metadata.name);
  const b1 = textOf(b.metadata.name);
  return a1 < b1 ? -1 : a1 > b1 ? 1 : 0;
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The annotation in which Metacontroller's dynamic apply keeps the last desired state it applied. */
export const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';

const SERVER_METADATA = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'ownerReferences',
  'selfLink',
  'finalizers',
] as const;

/**
 * The desired form of an observed child, for answers that must leave it exactly as it is (an invalid spec,
 * a dependency that is down). Metacontroller applies what a hook returns: returning the configuration it
 * last applied changes nothing. When that annotation is absent (server-side apply), the object is returned
 * without its server-populated fields and status.
 */
export function keepObserved(obj: KubeObject): KubeObject {
  // Handed back whole: the request is not scanned for depth as it arrives (lib/json.ts parseHookBody), so an object
  // nested deeper than a request may be is refused here, where it would be copied into the answer.
  if (valueDepthExceeds(obj, MAX_JSON_DEPTH)) throw nestingRefused();
  const lastApplied = obj.metadata.annotations?.[LAST_APPLIED];
  // The annotation is text anyone who can edit the object may write: nested deeper than a request may be, it is
  // not parsed (the answer would nest past the limit), and the sanitised copy is used instead.
  if (typeof lastApplied === 'string' && lastApplied) {
    try {
      const parsed = parseJsonBody(lastApplied) as KubeObject;
      if (
        parsed &&
        typeof parsed === 'object' &&
        parsed.kind === obj.kind &&
        parsed.metadata?.name === obj.metadata.name
      ) {
        return { ...parsed, apiVersion: obj.apiVersion, kind: obj.kind };
      }
    } catch {
      // fall through to the sanitised copy
    }
  }
  // A shallow copy of the levels it changes (top, metadata, annotations): the rest is handed back as it came,
  // which also spares a deep clone of whatever nesting an object has.
  const { status: _status, ...copy } = obj as KubeObject & { status?: unknown };
  const meta: Record<string, unknown> = { ...(obj.metadata as Record<string, unknown>) };
  for (const field of SERVER_METADATA) delete meta[field];
  const annotations = meta['annotations'] as Record<string, string> | undefined;
  if (annotations && typeof annotations === 'object') {
    const kept: Record<string, string> = { ...annotations };
    delete kept[LAST_APPLIED];
    delete kept['kubectl.kubernetes.io/last-applied-configuration'];
    if (Object.keys(kept).length === 0) delete meta['annotations'];
    else meta['annotations'] = kept;
  }
  return { ...copy, metadata: meta } as KubeObject;
}

/** Kubernetes Pod readiness: phase Running and the Ready condition True. */
export function isPodReady(pod: KubeObject): boolean {
  const status = pod['status'] as { phase?: unknown; conditions?: unknown } | undefined;
  if (!status || typeof status !== 'object' || status.phase !== 'Running' || !Array.isArray(status.conditions))
    return false;
  // Observed data: any element may be malformed (null, a string).
  return status.conditions.some((c: unknown) => {
    const condition = c as { type?: unknown; status?: unknown } | null;
    return (
      condition !== null && typeof condition === 'object' && condition.type === 'Ready' && condition.status === 'True'
    );
  });
}

/** True when the object is being deleted. */
export function isTerminating(obj: KubeObject): boolean {
  return Boolean(obj.metadata.deletionTimestamp);
}

/** True when a pod has ended (phase Failed or Succeeded): it runs nothing again, and its controller replaces it. */
export function isTerminal(pod: KubeObject): boolean {
  const phase = (pod['status'] as { phase?: unknown } | undefined)?.phase;
  return phase === 'Failed' || phase === 'Succeeded';
}

/** Reads a numeric field of an observed object's status, 0 when absent. */
export function statusNumber(obj: KubeObject | undefined, field: string): number {
  const status = obj?.['status'] as Record<string, unknown> | undefined;
  const value = status?.[field];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * The request with its related objects confined to the namespace of its parent (or decorated object, `owner`);
 * cluster-scoped objects, which have none, stay. Metacontroller v4.17 lists a rule that names objects without a
 * namespace across every namespace with either hook version, and a label rule across every namespace with v2
 * (pkg/controller/common/customize/manager.go L589-604, L665-683); a label rule cannot carry a namespace for
 * v1.5.20 (it refuses labelSelector with namespace). So no hook ever sees another namespace's objects, whatever
 * rule asked for them. The request is not copied: only `related` is replaced.
 */
export function confineRelated<
  T extends {
    parent?: { metadata?: { namespace?: string } } | null;
    object?: { metadata?: { namespace?: string } } | null;
    related?: Record<string, Record<string, unknown>> | null;
  },
>(request: T, owner: 'parent' | 'object' = 'parent'): T {
  // A CompositeController's parent, or a DecoratorController's object: only the member its route validated (the
  // envelope is open, so a decorator request may carry a `parent` of any shape, or the other way round).
  const namespace = request[owner]?.metadata?.namespace;
  if (!namespace || !request.related) return request;
  const related = request.related;
  if (!Object.keys(related).some((key) => Object.values(related[key]!).some((o) => inOtherNamespace(o, namespace))))
    return request;
  const confined: Record<string, Record<string, unknown>> = Object.create(null);
  for (const key of Object.keys(related)) {
    const kept: Record<string, unknown> = Object.create(null);
    for (const [name, o] of Object.entries(related[key]!)) if (!inOtherNamespace(o, namespace)) kept[name] = o;
    confined[key] = kept;
  }
  return { ...request, related: confined };
}

/** An object of a namespace other than `namespace` (a cluster-scoped one, which has none, is not). */
function inOtherNamespace(o: unknown, namespace: string): boolean {
  const ns = (o as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
  return typeof ns === 'string' && ns !== '' && ns !== namespace;
}
