// The Metacontroller hook contract: what Metacontroller POSTs to a hook and what it expects back.
//
// Covers CompositeController sync/finalize, DecoratorController sync/finalize and the customize hook,
// for hook API versions v1 and v2. The two versions differ in how the children/related maps are keyed
// (`name`, or `namespace/name` when the parent is cluster scoped or for v2 related objects), so code reads
// these maps by value (see lib/objects.ts) and never by constructing keys.
//
// Everything Kubernetes sends is declared open (`additionalProperties: true`): Metacontroller passes whole
// objects and a hook must see every field of them. Response schemas are open too: Fastify's serialiser drops
// undeclared properties, which would silently strip fields from the children we return.
import { Type, type Static } from '@sinclair/typebox';

const open = { additionalProperties: true } as const;

export const ObjectMeta = Type.Object(
  {
    name: Type.Optional(Type.String()),
    generateName: Type.Optional(Type.String()),
    namespace: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    generation: Type.Optional(Type.Integer()),
    resourceVersion: Type.Optional(Type.String()),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
    deletionTimestamp: Type.Optional(Type.String()),
    creationTimestamp: Type.Optional(Type.String()),
  },
  open,
);
export type ObjectMeta = Static<typeof ObjectMeta>;

/** Any Kubernetes object as it travels on the wire. */
export const KubeObject = Type.Object(
  {
    apiVersion: Type.String({ minLength: 1 }),
    kind: Type.String({ minLength: 1 }),
    metadata: ObjectMeta,
  },
  open,
);
export type KubeObject = Static<typeof KubeObject> & Record<string, unknown>;

/**
 * A parent's (or a decorated object's) metadata: its name is always there. Metacontroller sends objects as the API
 * server stores them, and a stored object has a name (`generateName` is turned into one at creation); a request
 * without it is refused (400: `must have required property 'name'`) before any hook reads it.
 */
export const ParentMeta = Type.Object({ ...ObjectMeta.properties, name: Type.String({ minLength: 1 }) }, open);
export type ParentMeta = Static<typeof ParentMeta>;

/** A parent object: like KubeObject, but named, and its spec and status are always objects when present. */
export const ParentObject = Type.Object(
  {
    apiVersion: Type.String({ minLength: 1 }),
    kind: Type.String({ minLength: 1 }),
    metadata: ParentMeta,
    spec: Type.Optional(Type.Object({}, open)),
    status: Type.Optional(Type.Union([Type.Object({}, open), Type.Null()])),
  },
  open,
);
export type ParentObject = Static<typeof ParentObject> & Record<string, unknown>;

/**
 * An observed child or related object: checked for what the hooks rely on (apiVersion, kind, metadata.name),
 * the rest passed through. Deep checks of every field of every child would cost more than the hook itself (perf: docs/performance.md).
 */
export const ObservedObject = Type.Object(
  {
    apiVersion: Type.String({ minLength: 1 }),
    kind: Type.String({ minLength: 1 }),
    metadata: Type.Object({ name: Type.String({ minLength: 1 }) }, open),
  },
  open,
);
/** An observed object as the request schema checked it: a KubeObject whose name is there. */
export type ObservedObject = KubeObject & Static<typeof ObservedObject>;

/**
 * `{"<Kind>.<apiVersion>": {"<name>" | "<namespace>/<name>": object}}`: the children or related objects
 * Metacontroller observed, grouped by type. v1 keys by name when parent and child share a scope; v2 and
 * cluster-scoped parents key by namespace/name. (additionalProperties rather than a Record's
 * patternProperties: the same meaning, without a regular expression test per key.)
 */
export const ObjectMap = Type.Unsafe<Record<string, Record<string, ObservedObject>>>(
  Type.Object({}, { additionalProperties: Type.Object({}, { additionalProperties: ObservedObject }) }),
);
export type ObjectMap = Static<typeof ObjectMap>;

/** The CompositeController or DecoratorController object itself; hooks only read it. */
export const ControllerObject = Type.Unsafe<Record<string, unknown>>(Type.Object({}, open));

export const CompositeSyncRequest = Type.Object(
  {
    controller: ControllerObject,
    parent: ParentObject,
    children: Type.Optional(ObjectMap),
    related: Type.Optional(Type.Union([ObjectMap, Type.Null()])),
    finalizing: Type.Optional(Type.Boolean()),
  },
  open,
);
export type CompositeSyncRequest = Static<typeof CompositeSyncRequest>;

export type Status = Record<string, unknown>;

/**
 * Any JSON value, serialised as it is. Response schemas list exactly the fields Metacontroller knows (v2
 * hooks unmarshal strictly), and leave children and status to the native serialiser: a schema that walked
 * every field of every child would be slower than JSON.stringify and could only drop fields.
 */
const AnyJson = Type.Unsafe<Status | null>({});

/**
 * The list of children (or attachments): an array of objects, handed whole to JSON.stringify. Declared as an
 * array of any, fast-json-stringify calls JSON.stringify once per child and concatenates: at 10 pods that was
 * 3-5 us more than one call on the whole list (bench/RESULTS.md). The hooks' types say it is an array.
 */
const ObjectList = Type.Unsafe<KubeObject[]>({ description: 'an array of Kubernetes objects' });

export const CompositeSyncResponse = Type.Object({
  status: AnyJson,
  children: ObjectList,
  resyncAfterSeconds: Type.Optional(Type.Number({ minimum: 0 })),
  finalized: Type.Optional(Type.Boolean()),
});
export type CompositeSyncResponse = Static<typeof CompositeSyncResponse>;

export const DecoratorSyncRequest = Type.Object(
  {
    controller: ControllerObject,
    object: ParentObject,
    attachments: Type.Optional(ObjectMap),
    related: Type.Optional(Type.Union([ObjectMap, Type.Null()])),
    finalizing: Type.Optional(Type.Boolean()),
  },
  open,
);
export type DecoratorSyncRequest = Static<typeof DecoratorSyncRequest>;

/** A null value removes the label or annotation. */
const StringPatch = Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]));

export const DecoratorSyncResponse = Type.Object({
  labels: Type.Optional(StringPatch),
  annotations: Type.Optional(StringPatch),
  status: Type.Optional(AnyJson),
  attachments: ObjectList,
  resyncAfterSeconds: Type.Optional(Type.Number({ minimum: 0 })),
  finalized: Type.Optional(Type.Boolean()),
});
export type DecoratorSyncResponse = Static<typeof DecoratorSyncResponse>;

/** The customize hook is sent the controller and the parent (CompositeController) or object (Decorator). */
export const CustomizeRequest = Type.Object(
  {
    controller: ControllerObject,
    parent: Type.Optional(ParentObject),
    object: Type.Optional(ParentObject),
  },
  open,
);
export type CustomizeRequest = Static<typeof CustomizeRequest>;

export const LabelSelectorRequirement = Type.Object({
  key: Type.String(),
  operator: Type.Union([
    Type.Literal('In'),
    Type.Literal('NotIn'),
    Type.Literal('Exists'),
    Type.Literal('DoesNotExist'),
  ]),
  values: Type.Optional(Type.Array(Type.String())),
});
export const LabelSelector = Type.Object({
  matchLabels: Type.Optional(Type.Record(Type.String(), Type.String())),
  matchExpressions: Type.Optional(Type.Array(LabelSelectorRequirement)),
});
export type LabelSelector = Static<typeof LabelSelector>;

export const RelatedResourceRule = Type.Object({
  apiVersion: Type.String(),
  resource: Type.String(),
  labelSelector: Type.Optional(LabelSelector),
  namespace: Type.Optional(Type.String()),
  names: Type.Optional(Type.Array(Type.String())),
});
export type RelatedResourceRule = Static<typeof RelatedResourceRule>;

export const CustomizeResponse = Type.Object({
  relatedResources: Type.Array(RelatedResourceRule),
});
export type CustomizeResponse = Static<typeof CustomizeResponse>;

/** The hooks a route can serve. */
export type HookName = 'sync' | 'finalize' | 'customize';
