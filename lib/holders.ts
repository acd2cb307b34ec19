// Child names of every type wanted by parents of different kinds: the same mechanism lib/podholders.ts gives pod
// names, for Services, Secrets, StatefulSets, Deployments, claims, Jobs... A kind whose parents make children
// declares how it names them (`nameShapes`, lib/operator.ts: `<prefix><parent name><suffix>`, with an ordinal or not,
// or a name its spec chooses) besides the names themselves (`childNames`), and defineComposite registers both here:
// lib/ names no kind. A parent held for a name another parent's child holds remembers the holder (status.heldBy,
// lib/ownership.ts); when the name is free for a moment (the child deleted by hand, a clean-up, a restore), the parent
// stays held while the holder exists with that uid, is not being deleted and still wants the name (`holderWants`:
// its kind's childNames, and for pods its kind's podNames). Customize asks for the candidate holders by name
// (`holderRules`: for each name the parent's children may take, the parent of each other kind whose shape makes it),
// or, for a kind whose spec chooses the name, for every parent of that kind in the
// namespace.
import type { PodNames, ResourceDefinition } from './hook.js';
import type { KubeObject, ParentObject, RelatedResourceRule } from './metacontroller.js';
import { type ChildName, heldRecordsOf, type HolderJudge, type HolderRef } from './ownership.js';
import { podHolderRules, podHolderWants, podNamerResource } from './podholders.js';

/**
 * How a parent names children of one type: `<prefix><parent name><suffix>` (and `-<ordinal>` after it when
 * `ordinal`), or a name its spec chooses (`chosen`: any name, so every parent of the kind is a candidate holder).
 */
export type NameShape =
  | { apiVersion: string; kind: string; prefix?: string; suffix?: string; ordinal?: boolean }
  | { apiVersion: string; kind: string; chosen: true };

/** A kind whose parents name children, as its definition declared it. */
interface Namer {
  kind: string;
  apiVersion: string;
  resource: string;
  childNames: (parent: ParentObject) => ChildName[];
  /** The names its answer makes now (CompositeOperator.currentNames), when they are fewer than childNames. */
  currentNames?: (parent: ParentObject) => ChildName[];
  shapes: readonly NameShape[];
  /** Pods are judged by the kind's podNames (what it wants now), not its childNames (what it may ever take). */
  namesPods: boolean;
  /** The parent's name makes no child under any naming it may use now (CompositeOperator.nameRefused). */
  nameRefused?: (holder: KubeObject) => boolean;
}

const namers = new Map<string, Namer>();
/** The same, in one order (by `apiVersion/kind`): customize's rules do not depend on which definition came first. */
let ordered: readonly Namer[] = [];

const keyOf = (apiVersion: unknown, kind: unknown) => `${String(apiVersion)}/${String(kind)}`;

/** The kind's child names and their shapes (called by defineComposite). A kind declared again keeps the last. */
export function registerChildNames(
  resource: ResourceDefinition,
  childNames: (parent: ParentObject) => ChildName[],
  shapes: readonly NameShape[],
  {
    podNames,
    currentNames,
    nameRefused,
  }: {
    podNames?: PodNames | undefined;
    currentNames?: ((parent: ParentObject) => ChildName[]) | undefined;
    nameRefused?: ((holder: KubeObject) => boolean) | undefined;
  } = {},
): void {
  const apiVersion = `${resource.group}/${resource.version}`;
  namers.set(keyOf(apiVersion, resource.kind), {
    kind: resource.kind,
    apiVersion,
    resource: resource.plural,
    childNames,
    ...(currentNames ? { currentNames } : {}),
    shapes: shapes.map((s) => ({ ...s })),
    namesPods: podNames !== undefined,
    ...(nameRefused ? { nameRefused } : {}),
  });
  ordered = [...namers.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, n]) => n);
}

/**
 * The names a holder of a kind that declared child names wants (lib/ownership.ts HolderWants), undefined for another
 * kind (a record of it holds nothing): the names its answer makes now (its kind's currentNames, else its childNames),
 * with its pods those its podNames want now. Not every name it may ever take: a parent of a kind that kept a naming
 * from before a suffix, serving under the suffixed name, does not want the unsuffixed one, and a parent of another
 * kind made after it that wants that name takes it. A parent whose name its kind refuses under every naming it may use
 * (nameRefused: refused InvalidSpec for its name, which cannot change) makes no child, ever: it wants nothing, and
 * keeps no name from anyone.
 */
export function holderWants(holder: KubeObject): ChildName[] | undefined {
  const namer = namers.get(keyOf(holder.apiVersion, holder.kind));
  if (!namer) return podHolderWants(holder);
  if (!holder.metadata?.name || namer.nameRefused?.(holder)) return [];
  const pods = podHolderWants(holder);
  const names = (namer.currentNames ?? namer.childNames)(holder as ParentObject);
  return [...(namer.namesPods ? names.filter((n) => n.kind !== 'Pod') : names), ...(pods ?? [])];
}

/**
 * The namings a parent of a kind that kept a naming from before a suffix may use now, read from its object as stored
 * (a parent of another kind sees none of its children): `true` the naming before the suffix, `false` today's. The one
 * its status records (`recorded`); today's when the status records a sync (conditions, observedGeneration) but no
 * naming (a cluster of today, refused or held before it made anything); both when the status records nothing (lost:
 * a restore from a backup, written over, or never written), since a parent from before the suffix may serve under the
 * names before it: never taken on doubt. Of those, the ones whose names the kind accepts (`fits`): a naming its name
 * cannot make (too long for it) makes nothing.
 */
export function namingsOf(
  holder: KubeObject,
  recorded: boolean | undefined,
  fits: (legacy: boolean) => boolean,
): boolean[] {
  const status = holder['status'] as { conditions?: unknown; observedGeneration?: unknown } | null | undefined;
  const synced =
    !!status &&
    typeof status === 'object' &&
    ((Array.isArray(status.conditions) && status.conditions.length > 0) ||
      typeof status.observedGeneration === 'number');
  const candidates = recorded !== undefined ? [recorded] : synced ? [false] : [false, true];
  return candidates.filter(fits);
}

/** The parent's name `name` makes under `shape` when it has that type and fits, else undefined. */
function parentNameOf(shape: NameShape, child: ChildName): string | undefined {
  if ('chosen' in shape || shape.kind !== child.kind || shape.apiVersion !== child.apiVersion) return undefined;
  let name = child.name;
  if (shape.ordinal) {
    const m = /-(0|[1-9][0-9]*)$/.exec(name);
    if (!m) return undefined;
    name = name.slice(0, name.length - m[0].length);
  }
  const prefix = shape.prefix ?? '';
  const suffix = shape.suffix ?? '';
  if (name.length <= prefix.length + suffix.length || !name.startsWith(prefix) || !name.endsWith(suffix))
    return undefined;
  return name.slice(prefix.length, name.length - suffix.length);
}

/**
 * The names of `other`'s parents whose children, by its declared shapes, take one of `wanted`; `chosen` when one of
 * its shapes is a name its spec chooses of a type among `wanted` (any of its parents could hold it).
 */
function namesByShape(other: Namer, wanted: readonly ChildName[]): { names: Set<string>; chosen: boolean } {
  const names = new Set<string>();
  let chosen = false;
  for (const shape of other.shapes) {
    for (const child of wanted) {
      if ('chosen' in shape) {
        chosen ||= shape.kind === child.kind && shape.apiVersion === child.apiVersion;
        continue;
      }
      const holder = parentNameOf(shape, child);
      if (holder !== undefined) names.add(holder);
    }
  }
  return { names, chosen };
}

/**
 * The customize rules that ask for the parents of the kinds that declared child names, other than `parent` itself,
 * whose children can take one of `parent`'s child names: by name in the parent's namespace; of a kind whose spec
 * chooses a name of that type, the holders of that kind the parent recorded (status.heldBy), by name. With the pod
 * holders (podHolderRules), one rule per kind.
 */
export function holderRules(parent: ParentObject): RelatedResourceRule[] {
  const own = namers.get(keyOf(parent.apiVersion, parent.kind));
  const name = parent.metadata.name;
  const namespace = parent.metadata.namespace ?? '';
  const pods = podHolderRules(parent);
  if (!own || !name) return pods;
  const wanted = own.childNames(parent).filter((c) => !(own.namesPods && c.kind === 'Pod'));
  const rules: RelatedResourceRule[] = [];
  for (const other of ordered) {
    const { names, chosen } = namesByShape(other, wanted);
    const forPods = pods.find((r) => r.apiVersion === other.apiVersion && r.resource === other.resource);
    for (const n of forPods?.names ?? []) names.add(n);
    if (other === own) names.delete(name);
    // A name the other kind's spec chooses could be any of its parents': never all of them (every one would be sent
    // with each sync, past the body limit with a few thousand, and each change of one would sync this parent); the
    // holders of that kind this parent recorded when it found the name taken (status.heldBy), by name.
    if (chosen)
      for (const r of heldRecordsOf(parent))
        if (r.holder.apiVersion === other.apiVersion && r.holder.kind === other.kind) names.add(r.holder.name);
    if (names.size > 0)
      rules.push({ apiVersion: other.apiVersion, resource: other.resource, namespace, names: [...names].sort() });
  }
  // Pod holders of a kind that declared no child names (none today): asked for as podHolderRules has it.
  for (const r of pods)
    if (!ordered.some((o) => o.apiVersion === r.apiVersion && o.resource === r.resource)) rules.push(r);
  return rules;
}

/**
 * How customize asks for `holder`, a parent `parent` recorded (lib/ownership.ts HolderJudge.askedFor): `always` when
 * holderRules of the parent without its status (what any answer of its generation asked for, cached or not) name it,
 * so a holder not among the related objects does not exist; `recorded` for another holder of a kind that declared
 * names, asked for only because status.heldBy records it (a name its kind's spec chooses): Metacontroller keeps the
 * customize answer for the generation and a status write keeps it, so such a holder may exist and not be sent;
 * undefined for a kind that declared no names (it holds nothing).
 */
export function askedFor(parent: ParentObject, holder: HolderRef): 'always' | 'recorded' | undefined {
  const resource =
    namers.get(keyOf(holder.apiVersion, holder.kind))?.resource ?? podNamerResource(holder.apiVersion, holder.kind);
  if (!resource) return undefined;
  const { status: _status, ...bare } = parent;
  const always = holderRules(bare as ParentObject).some(
    (r) => r.apiVersion === holder.apiVersion && r.resource === resource && (r.names ?? []).includes(holder.name),
  );
  return always ? 'always' : 'recorded';
}

/** How a parent of any kind judges the holders it recorded, at `now` (lib/ownership.ts HolderJudge). */
export function holderJudge(now: Date): HolderJudge {
  return { wants: holderWants, askedFor, now };
}

/** The shapes a kind declared (a test checks each of its childNames against them). */
export function shapesOf(apiVersion: string, kind: string): readonly NameShape[] | undefined {
  return namers.get(keyOf(apiVersion, kind))?.shapes;
}

/** Whether a name is one a shape makes from a parent's name. */
export function shapeMakes(shape: NameShape, parentName: string, child: ChildName): boolean {
  if ('chosen' in shape) return shape.kind === child.kind && shape.apiVersion === child.apiVersion;
  return parentNameOf(shape, child) === parentName;
}
