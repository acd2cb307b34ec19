// What a controller under hooks/ declares, and the answers every controller shares.
import type { TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import { buildConditions, previousConditions, type ConditionInput } from './conditions.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  DecoratorSyncRequest,
  DecoratorSyncResponse,
  ParentObject,
  RelatedResourceRule,
  Status,
} from './metacontroller.js';
import { allObserved, keepObserved } from './objects.js';
import type { Deps } from './deps.js';

export interface HookContext {
  log: FastifyBaseLogger;
  deps: Deps;
}

/** One printer column of `kubectl get`. */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** The custom resource a controller serves: enough to generate its CRD. */
export interface ResourceDefinition {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  scope: 'Namespaced' | 'Cluster';
  categories?: string[];
  description: string;
  spec: TSchema;
  status: TSchema;
  printerColumns: PrinterColumn[];
  /**
   * A scale subresource (`kubectl scale`, HorizontalPodAutoscaler): `spec.size` is the desired count,
   * `status.replicas` the current one and `status.selector` the pods' label selector.
   */
  scale?: boolean | { statusReplicasPath: string };
}

export type UpdateMethod = 'OnDelete' | 'Recreate' | 'InPlace' | 'RollingRecreate' | 'RollingInPlace';

export interface ChildResourceRule {
  apiVersion: string;
  resource: string;
  updateStrategy?: {
    method: UpdateMethod;
    statusChecks?: { conditions: Array<{ type: string; status?: string; reason?: string }> };
  };
  /** Why this strategy: written into the generated controller manifest as a comment. */
  why: string;
}

export interface CompositeHookDefinition {
  type: 'composite';
  /** Lower-case kind: the route segment, /hooks/<name>/... */
  name: string;
  resource: ResourceDefinition;
  childResources: ChildResourceRule[];
  /**
   * True when sync or finalize act on the world outside Metacontroller's apply (the Kubernetes API, etcd's
   * member API, AWS). Such hooks serve only an authenticated caller (lib/app.ts), and get no clients otherwise.
   */
  effects?: boolean;
  resyncPeriodSeconds?: number;
  sync(request: CompositeSyncRequest, ctx: HookContext): CompositeSyncResponse | Promise<CompositeSyncResponse>;
  finalize?(request: CompositeSyncRequest, ctx: HookContext): CompositeSyncResponse | Promise<CompositeSyncResponse>;
  customize?(request: CustomizeRequest, ctx: HookContext): CustomizeResponse;
}

export interface DecoratorHookDefinition {
  type: 'decorator';
  name: string;
  resources: Array<{ apiVersion: string; resource: string }>;
  attachments: ChildResourceRule[];
  /**
   * True when sync or finalize act on the world outside Metacontroller's apply (the Kubernetes API, etcd's
   * member API, AWS). Such hooks serve only an authenticated caller (lib/app.ts), and get no clients otherwise.
   */
  effects?: boolean;
  resyncPeriodSeconds?: number;
  sync(request: DecoratorSyncRequest, ctx: HookContext): DecoratorSyncResponse | Promise<DecoratorSyncResponse>;
  finalize?(request: DecoratorSyncRequest, ctx: HookContext): DecoratorSyncResponse | Promise<DecoratorSyncResponse>;
  customize?(request: CustomizeRequest, ctx: HookContext): CustomizeResponse;
}

export type HookDefinition = CompositeHookDefinition | DecoratorHookDefinition;

/** The parent's current status as an object (it may be absent or null). */
export function currentStatus(parent: ParentObject): Status {
  const status = parent.status;
  return status && typeof status === 'object' ? (status as Status) : {};
}

/** Conditions for a parent, carrying lastTransitionTime over from its current status. */
export function conditionsFor(parent: ParentObject, inputs: ConditionInput[], now: Date) {
  return buildConditions(inputs, previousConditions(parent.status), parent.metadata.generation, now);
}

/**
 * The answer to a spec that fails validation: every observed child returned as it is (nothing is deleted or
 * changed), the rest of the status kept, and Ready=False with reason InvalidSpec saying what is wrong.
 */
export function invalidSpecResponse(
  request: CompositeSyncRequest,
  message: string,
  now: Date,
  otherConditions: ConditionInput[] = [],
): CompositeSyncResponse {
  const parent = request.parent;
  const conditions = conditionsFor(
    parent,
    [{ type: 'Ready', status: false, reason: 'InvalidSpec', message }, ...otherConditions],
    now,
  );
  const status: Status = { ...currentStatus(parent), conditions };
  // observedGeneration says which spec the status describes; an invalid spec was looked at but not applied,
  // so it is left where it was. The condition's own observedGeneration names the spec that was rejected.
  return { status, children: allObserved(request.children).map(keepObserved) };
}

/**
 * The related-resources answer that asks Metacontroller for the parent's pods, selected by labels.
 * No namespace: Metacontroller refuses a rule with both a selector and a namespace, and for a namespaced
 * parent it looks only in the parent's own namespace.
 */
export function relatedPods(matchLabels: Record<string, string>): CustomizeResponse {
  const rule: RelatedResourceRule = { apiVersion: 'v1', resource: 'pods', labelSelector: { matchLabels } };
  return { relatedResources: [rule] };
}
