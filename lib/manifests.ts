// Generating Kubernetes manifests from the controllers' definitions: each CRD from its TypeBox schemas, each
// CompositeController / DecoratorController from its routes (lib/routes.ts, the list the server serves) and its
// child rules. `npm run manifests` writes them; a test fails when the committed files differ from what this produces.
import type { TSchema } from '@sinclair/typebox';
import type { HookDefinition, ResourceDefinition } from './hook.js';
import { routesOf, type HookRoute } from './routes.js';
import { MAX_BYTES } from './schemas.js';
import { parseJson } from './parse-json.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/**
 * Turns a TypeBox (JSON Schema) schema into a Kubernetes structural schema: no $id, types everywhere,
 * Records as additionalProperties, unions of literals as enums, T | null as nullable, open objects as
 * x-kubernetes-preserve-unknown-fields.
 */
export function structural(schema: TSchema | JsonObject): JsonObject {
  const src = parseJson(JSON.stringify(schema)) as JsonObject;
  return convert(src);
}

/** The bounds of a union's branches that apply to a value of the branch's type only (open fields: convert). */
function branchBounds(branches: readonly JsonObject[]): JsonObject {
  const out: JsonObject = {};
  for (const branch of branches) {
    const keys =
      branch['type'] === 'string'
        ? ['minLength', 'maxLength', 'pattern']
        : branch['type'] === 'number' || branch['type'] === 'integer'
          ? ['minimum', 'maximum']
          : [];
    for (const key of keys) if (branch[key] !== undefined) out[key] = branch[key] as Json;
  }
  return out;
}

/** One schema node as a structural one: a union, a constant, or an object, array or scalar keyword by keyword. */
function convert(node: JsonObject): JsonObject {
  if (Array.isArray(node['anyOf'])) return convertUnion(node, node['anyOf'] as JsonObject[]);
  if ('const' in node) {
    const out: JsonObject = {};
    copyAnnotations(node, out);
    out['type'] = typeof node['const'] === 'number' ? 'number' : 'string';
    out['enum'] = [node['const'] as Json];
    return out;
  }
  const out = convertKeywords(node);
  tidyObject(out);
  return out;
}

/** A union: a field kept open, T | null as nullable T, or a union of constants as an enum; no other. */
function convertUnion(node: JsonObject, branches: JsonObject[]): JsonObject {
  const out: JsonObject = {};
  // A field kept open on purpose (e.g. a number-or-string the hook checks): no type, no branches, but each branch's
  // bounds on the value of its type (a string's pattern and length, a number's range), which the API server applies
  // to a value of that type only.
  if (node['x-kubernetes-preserve-unknown-fields'] === true) {
    copyAnnotations(node, out);
    Object.assign(out, branchBounds(branches));
    out['x-kubernetes-preserve-unknown-fields'] = true;
    return out;
  }
  const nonNull = branches.filter((b) => b['type'] !== 'null');
  if (nonNull.length < branches.length && nonNull.length === 1) {
    const inner = convert({ ...nonNull[0]!, ...withoutKeys(node, ['anyOf']) });
    inner['nullable'] = true;
    return inner;
  }
  if (branches.every((b) => 'const' in b)) {
    const values = branches.map((b) => b['const'] as Json);
    copyAnnotations(node, out);
    out['type'] = typeof values[0] === 'number' ? 'number' : 'string';
    out['enum'] = values;
    return out;
  }
  throw new Error(`cannot express this union in a structural schema: ${JSON.stringify(node).slice(0, 200)}`);
}

/** Each keyword of a node that is no union or constant, rewritten where a structural schema says it otherwise. */
function convertKeywords(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      // MAX_BYTES is no keyword a CRD knows: the hook enforces it, the description says it (lib/schemas.ts).
      case '$id':
      case '$schema':
      case MAX_BYTES:
        break;
      case 'properties': {
        const props: JsonObject = {};
        for (const [name, sub] of Object.entries(value as JsonObject)) props[name] = convert(sub as JsonObject);
        out['properties'] = props;
        break;
      }
      case 'patternProperties': {
        const subs = Object.values(value as JsonObject);
        if (subs.length !== 1) throw new Error('only single-pattern Records are supported');
        out['additionalProperties'] = convert(subs[0] as JsonObject);
        break;
      }
      case 'additionalProperties':
        if (value === true) out['x-kubernetes-preserve-unknown-fields'] = true;
        else if (value && typeof value === 'object') out['additionalProperties'] = convert(value as JsonObject);
        // `false` is how structural schemas behave anyway (unknown fields are pruned); it may not be written.
        break;
      case 'items':
        out['items'] = convert(value as JsonObject);
        break;
      default:
        out[key] = value as Json;
    }
  }
  return out;
}

/** What a CRD's object schema may not say: required defaulted fields, properties beside additionalProperties. */
function tidyObject(out: JsonObject): void {
  if (Array.isArray(out['required']) && out['properties']) {
    // A defaulted field is filled in by the API server before validation: requiring it says nothing more,
    // and would make an enclosing default such as `{}` invalid.
    const props = out['properties'] as JsonObject;
    const required = (out['required'] as string[]).filter(
      (name) => !('default' in ((props[name] as JsonObject) ?? {})),
    );
    if (required.length) out['required'] = required;
    else delete out['required'];
  }
  if (out['type'] === 'object' && out['properties'] && out['additionalProperties']) {
    // properties and additionalProperties are mutually exclusive in a CRD schema.
    delete out['additionalProperties'];
  }
  if (out['type'] === 'object' && !out['properties'] && !out['additionalProperties']) {
    out['x-kubernetes-preserve-unknown-fields'] = true;
  }
}

function copyAnnotations(from: JsonObject, to: JsonObject): void {
  for (const key of ['description', 'default']) if (key in from) to[key] = from[key] as Json;
}

function withoutKeys(node: JsonObject, keys: string[]): JsonObject {
  const copy: JsonObject = {};
  for (const [k, v] of Object.entries(node)) if (!keys.includes(k)) copy[k] = v;
  return copy;
}

export function crdName(r: ResourceDefinition): string {
  return `${r.plural}.${r.group}`;
}

export function crd(r: ResourceDefinition): JsonObject {
  const names: JsonObject = { kind: r.kind, listKind: `${r.kind}List`, plural: r.plural, singular: r.singular };
  if (r.shortNames?.length) names['shortNames'] = r.shortNames;
  if (r.categories?.length) names['categories'] = r.categories;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: crdName(r),
      labels: { 'app.kubernetes.io/part-of': 'metaops', 'app.kubernetes.io/managed-by': 'metaops' },
    },
    spec: {
      group: r.group,
      names,
      scope: r.scope,
      versions: [
        {
          name: r.version,
          served: true,
          storage: true,
          subresources: r.scale
            ? {
                status: {},
                scale: {
                  specReplicasPath: '.spec.size',
                  statusReplicasPath: typeof r.scale === 'object' ? r.scale.statusReplicasPath : '.status.replicas',
                  labelSelectorPath: '.status.selector',
                },
              }
            : { status: {} },
          additionalPrinterColumns: r.printerColumns.map((c) => ({ ...c }) as JsonObject),
          schema: {
            openAPIV3Schema: {
              description: r.description,
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string', description: 'APIVersion of this representation of the object.' },
                kind: { type: 'string', description: 'Kind of the REST resource this object represents.' },
                metadata: { type: 'object' },
                spec: structural(r.spec),
                status: structural(r.status),
              },
            },
          },
        },
      ],
    },
  };
}

/** Where Metacontroller reaches the hooks: the in-cluster Service, or a URL (the end-to-end suite). */
export type WebhookTarget =
  { kind: 'service'; name: string; namespace: string; port: number } | { kind: 'url'; base: string };

export const PRODUCTION_TARGET: WebhookTarget = { kind: 'service', name: 'metaops', namespace: 'metaops', port: 80 };

/**
 * The Secret whose `token` every shipped webhook sends as `Authorization: Bearer` (Metacontroller v4.17's webhook
 * `authorization` field: pkg/apis/metacontroller/v1alpha1/types.go, `Webhook.Authorization` with a `SecretKeyRef`
 * of name, namespace and key). The Deployment reads the same key into METAOPS_AUTH_TOKEN. The README's install
 * creates it before `kubectl apply -k manifests/`.
 */
export const PRODUCTION_AUTHORIZATION = { namespace: 'metaops', name: 'metaops-hook-token', key: 'token' } as const;

/** The webhook timeout the shipped controllers give Metacontroller (its own default too): every deadline is below it. */
export const WEBHOOK_TIMEOUT_SECONDS = 10;

export interface ControllerOptions {
  target: WebhookTarget;
  timeout?: string;
  /**
   * Metacontroller's webhook `etag` cache (v4.x): the hooks answer 304 to an unchanged resync. On by default;
   * off for Metacontroller releases that do not have the field (v1.5.x, which the end-to-end suite runs).
   */
  etag?: boolean;
  /**
   * The Secret (namespace, name, key) whose value Metacontroller (v4.x) sends as `Authorization: Bearer` on every
   * hook call: the webhook `authorization` field. Pair it with METAOPS_AUTH_TOKEN on the server.
   */
  authorization?: { namespace: string; name: string; key: string };
  /** Overrides every controller's resync period (the end-to-end suite resyncs often, to check quiet at rest). */
  resyncPeriodSeconds?: number;
  /**
   * A DecoratorController's `ignoreStatusChanges` (v4.x: no hook call about a change of a decorated object's status
   * alone). On by default where the definition asks for it; off for Metacontroller releases that do not have the
   * field (v1.5.x, whose CRD refuses it).
   */
  ignoreStatusChanges?: boolean;
  /**
   * The sync and finalize hooks' `version` where the definition asks for one (`hookVersion`: v4.x). Off for
   * Metacontroller releases that do not have the field (v1.5.x, whose CRD has no such field, and which sends a
   * namespaced parent its cluster-scoped related objects without it).
   */
  hookVersions?: boolean;
}

/**
 * Metacontroller's webhook ETag cache (v4.17, pkg/hooks/webhook.go L107-117): without `cacheTimeoutSeconds` its
 * entries never expire (one full answer kept per parent ever seen; for a decorator on pods, per pod of the
 * cluster), and it reads `cacheCleanupSeconds` whenever the timeout is set (L112-114: a timeout without a cleanup
 * dereferences a nil pointer). Both are set: an entry lives ten minutes, expired entries are swept every five.
 */
export const ETAG = { enabled: true, cacheTimeoutSeconds: 600, cacheCleanupSeconds: 300 } as const;

/**
 * True when a child rule rolls (RollingRecreate, RollingInPlace). v4.17 then calls the sync hook once per
 * ControllerRevision, concurrently (pkg/controller/composite/controller_revision.go L153-171), while its ETag cache
 * is keyed by the parent's kind, namespace and name only (pkg/hooks/webhook_etag.go L38-48): one call's 304 can
 * be answered from the cache entry another revision's call has just written, i.e. with another revision's
 * children. Such controllers get no ETag.
 */
export function rolling(def: HookDefinition): boolean {
  const rules = def.type === 'composite' ? def.childResources : def.attachments;
  return rules.some(
    (r) => r.updateStrategy?.method === 'RollingRecreate' || r.updateStrategy?.method === 'RollingInPlace',
  );
}

/** The webhook Metacontroller calls for one of the definition's routes (lib/routes.ts, the list the server serves). */
function webhook(def: HookDefinition, route: HookRoute, options: ControllerOptions): JsonObject {
  const { path, hook } = route;
  const timeout = options.timeout ?? `${WEBHOOK_TIMEOUT_SECONDS}s`;
  const t = options.target;
  const wh: JsonObject =
    t.kind === 'url'
      ? { url: `${t.base}${path}`, timeout }
      : { service: { name: t.name, namespace: t.namespace, port: t.port }, path, timeout };
  // Customize answers are cached by Metacontroller already; sync and finalize answers carry ETags.
  if ((options.etag ?? true) && hook !== 'customize' && !rolling(def)) wh['etag'] = { ...ETAG };
  if (options.authorization) {
    wh['authorization'] = { type: 'Bearer', secretRef: { ...options.authorization } };
  }
  // Customize's version decides how Metacontroller lists the rules (v1: a namespaced parent's rules in its
  // namespace), sync's and finalize's what the request carries: only those take the definition's version.
  if (def.hookVersion && hook !== 'customize' && (options.hookVersions ?? true))
    return { version: def.hookVersion, webhook: wh };
  return { webhook: wh };
}

export function controllerName(def: HookDefinition): string {
  return `metaops-${def.name}`;
}

export function controller(def: HookDefinition, options: ControllerOptions): JsonObject {
  const hooks: JsonObject = {};
  for (const route of routesOf(def)) hooks[route.hook] = webhook(def, route, options);
  const rules = (def.type === 'composite' ? def.childResources : def.attachments).map((c) => {
    const rule: JsonObject = { apiVersion: c.apiVersion, resource: c.resource };
    if (c.updateStrategy) rule['updateStrategy'] = parseJson(JSON.stringify(c.updateStrategy)) as Json;
    return rule;
  });
  const metadata = { name: controllerName(def), labels: { 'app.kubernetes.io/part-of': 'metaops' } };
  if (def.type === 'composite') {
    const spec: JsonObject = {
      generateSelector: true,
      parentResource: { apiVersion: `${def.resource.group}/${def.resource.version}`, resource: def.resource.plural },
      childResources: rules,
      hooks,
    };
    const resync = options.resyncPeriodSeconds ?? def.resyncPeriodSeconds;
    if (resync) spec['resyncPeriodSeconds'] = resync;
    return { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata, spec };
  }
  const spec: JsonObject = {
    resources: def.resources.map((r) => {
      const { ignoreStatusChanges, ...rule } = parseJson(JSON.stringify(r)) as JsonObject;
      return ignoreStatusChanges && (options.ignoreStatusChanges ?? true) ? { ...rule, ignoreStatusChanges } : rule;
    }),
    attachments: rules,
    hooks,
  };
  const resync = options.resyncPeriodSeconds ?? def.resyncPeriodSeconds;
  if (resync) spec['resyncPeriodSeconds'] = resync;
  return { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController', metadata, spec };
}

/** The reason for each child rule's update strategy, in order, for comments in the generated YAML. */
export function childRuleReasons(def: HookDefinition): string[] {
  return (def.type === 'composite' ? def.childResources : def.attachments).map((c) => c.why);
}
