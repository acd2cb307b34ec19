// Pod names wanted by parents of different kinds. An operator whose parents name pods `<base>-<ordinal>`, each base
// the parent's name plus one of a few suffixes, declares it in its definition (`podNames`, lib/hook.ts), and
// defineComposite registers the declaration here: lib/ names no kind. Two parents of kinds that declare pod names
// can want one pod name (a parent `web` whose pods are `<name>-pod-<i>`, and a parent `web-pod` of a kind whose pods
// are `<name>-<i>`). Whichever comes second is held (lib/ownership.ts takenNames) and remembers the holder
// (status.heldBy). When the holder's pod is gone for a moment (evicted, node lost, deleted by hand), the name is free;
// the parent held stays held while the holder still exists (the same UID) and still wants the name, judged here from
// the holder's own object by its kind's `wants`. Customize asks for the parents that can hold one of a parent's pod
// names, by name (podHolderRules): a handful of objects, whatever the namespace holds.
import type { PodNames, ResourceDefinition } from './hook.js';
import type { KubeObject, ParentObject, RelatedResourceRule } from './metacontroller.js';
import type { ChildName } from './ownership.js';

/** A kind whose parents name pods `<base>-<ordinal>`, as its definition declared it. */
interface PodNamer extends PodNames {
  kind: string;
  apiVersion: string;
  resource: string;
}

/** Every kind that declared pod names, by `apiVersion/kind`: the definitions made (defineComposite). */
const namers = new Map<string, PodNamer>();
/** The same, in their one order (sortedNamers): the answer is the same whatever order the definitions were made in. */
let ordered: readonly PodNamer[] = [];

/**
 * The kind's pod names, as its definition declares them (called by defineComposite). A kind declared again (a
 * definition made twice) keeps the last declaration.
 */
export function registerPodNames(resource: ResourceDefinition, podNames: PodNames): void {
  const apiVersion = `${resource.group}/${resource.version}`;
  const namer: PodNamer = {
    kind: resource.kind,
    apiVersion,
    resource: resource.plural,
    suffixes: [...podNames.suffixes],
    wants: podNames.wants,
  };
  namers.set(`${apiVersion}/${resource.kind}`, namer);
  ordered = sortedNamers([...namers.values()]);
}

/**
 * One order for the kinds: by API group read from its top-level domain down (`apps.example.com` as
 * `com.example.apps`), then version and kind, so that customize's rules do not depend on which definition a process
 * made first.
 */
function sortedNamers(list: PodNamer[]): PodNamer[] {
  const key = (n: PodNamer) => {
    const [group = '', version = ''] = n.apiVersion.split('/');
    return [group.split('.').reverse().join('.'), version, n.kind].join('/');
  };
  return list.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * The pod names a parent wants for ordinals below its spec.size (at most `max`), under each base (its name plus each
 * suffix): the `wants` of a kind whose parents name their pods by ordinal.
 */
export function ordinalPodNames(holder: KubeObject, suffixes: readonly string[], max: number): string[] {
  const name = holder.metadata.name ?? '';
  const size = Math.min(Number((holder['spec'] as { size?: unknown } | undefined)?.size), max);
  const out: string[] = [];
  for (const suffix of suffixes) for (let i = 0; i < size; i++) out.push(`${name}${suffix}-${i}`);
  return out;
}

function namerOf(obj: { kind?: unknown; apiVersion?: unknown }): PodNamer | undefined {
  return namers.get(`${String(obj.apiVersion)}/${String(obj.kind)}`);
}

/** The API resource (plural) of a kind that declared pod names, undefined for another. */
export function podNamerResource(apiVersion: string, kind: string): string | undefined {
  return namerOf({ apiVersion, kind })?.resource;
}

/**
 * The pods a holder of a kind that declared pod names wants (lib/ownership.ts HolderWants), undefined for another
 * kind. A holder being deleted wants nothing (ownership.ts does not judge it at all).
 */
export function podHolderWants(holder: KubeObject): ChildName[] | undefined {
  const namer = namerOf(holder);
  if (!namer) return undefined;
  return namer.wants(holder).map((name) => ({ apiVersion: 'v1', kind: 'Pod', name }));
}

/**
 * The parents of the kinds that declared pod names, other than `parent` itself, whose pods can take one of `parent`'s
 * pod names: for each base of the parent's (its name plus a suffix of its kind), each name that base makes with
 * another kind's suffix. Asked for by name in the parent's namespace, so that a parent held for a pod name can judge
 * its holder.
 */
export function podHolderRules(parent: ParentObject): RelatedResourceRule[] {
  const own = namerOf(parent);
  const name = parent.metadata.name;
  if (!own || !name) return [];
  const bases = own.suffixes.map((s) => `${name}${s}`);
  const rules: RelatedResourceRule[] = [];
  for (const other of ordered) {
    const names = new Set<string>();
    for (const base of bases)
      for (const suffix of other.suffixes)
        if (base.length > suffix.length && base.endsWith(suffix)) names.add(base.slice(0, base.length - suffix.length));
    if (other === own) names.delete(name);
    if (names.size > 0)
      rules.push({
        apiVersion: other.apiVersion,
        resource: other.resource,
        namespace: parent.metadata.namespace ?? '',
        names: [...names].sort(),
      });
  }
  return rules;
}
