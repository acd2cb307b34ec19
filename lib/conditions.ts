// Kubernetes-style status conditions (metav1.Condition), computed from what was observed.
//
// lastTransitionTime only moves when a condition's status changes: it is carried over from the parent's
// current status otherwise, so the same observed state always gives the same answer.
import { Type } from '@sinclair/typebox';

export const ConditionStatus = Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]);

// Only type and status are required: Metacontroller itself adds an `Updated` condition during rolling
// updates, without a timestamp, and the CRD must accept it.
const conditionFields = {
  type: Type.String({ description: 'Type of condition in CamelCase, e.g. Ready.' }),
  status: ConditionStatus,
  reason: Type.Optional(Type.String({ description: 'One-word CamelCase reason for the last transition.' })),
  message: Type.Optional(Type.String({ description: 'Human-readable details.' })),
  lastTransitionTime: Type.Optional(Type.String({ format: 'date-time' })),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
};
export const Condition = Type.Object(conditionFields);
/** A condition of a replicated kind (lib/replicas.ts): its Progressing=True also says when progress was last made. */
export const ReplicatedCondition = Type.Object({
  ...conditionFields,
  lastUpdateTime: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        "Progressing=True: when the members last made progress (one created, turned Ready or updated) or started missing, as a Deployment's; the progress deadline counts from it.",
    }),
  ),
});
export type Condition = {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  /** Progressing=True of a replicated kind (lib/replicas.ts): when its members last made progress. */
  lastUpdateTime?: string;
  observedGeneration?: number;
};

export const Conditions = Type.Array(Condition, {
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});
export const ReplicatedConditions = Type.Array(ReplicatedCondition, {
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});

export interface ConditionInput {
  type: string;
  status: boolean | 'Unknown';
  reason: string;
  message: string;
}

/** The conditions currently reported in a parent's status, tolerant of anything malformed. */
export function previousConditions(status: unknown): Condition[] {
  if (!status || typeof status !== 'object') return [];
  const list = (status as { conditions?: unknown }).conditions;
  if (!Array.isArray(list)) return [];
  return list.filter((c): c is Condition => !!c && typeof c === 'object' && typeof (c as Condition).type === 'string');
}

/** Builds the conditions, keeping each one's lastTransitionTime unless its status changed. */
export function buildConditions(
  inputs: ConditionInput[],
  previous: Condition[],
  observedGeneration: number | undefined,
  now: Date,
): Condition[] {
  // Formatted only when a condition changes: on a resync of a settled parent every time is carried over.
  let stamp: string | undefined;
  return inputs.map((input) => {
    const status = input.status === 'Unknown' ? 'Unknown' : input.status ? 'True' : 'False';
    const before = previous.find((c) => c.type === input.type);
    const lastTransitionTime =
      before && before.status === status && before.lastTransitionTime
        ? before.lastTransitionTime
        : (stamp ??= rfc3339(now));
    const condition: Condition = {
      type: input.type,
      status,
      reason: input.reason,
      message: input.message,
      lastTransitionTime,
    };
    if (observedGeneration !== undefined) condition.observedGeneration = observedGeneration;
    return condition;
  });
}

/** RFC 3339 to the second, as Kubernetes writes metav1.Time: 2026-01-01T00:00:00Z. */
export function rfc3339(time: Date): string {
  const iso = time.toISOString();
  // toISOString always ends in .sssZ (for years 0 to 9999).
  return iso.slice(0, iso.length - 5) + 'Z';
}
