// Schema pieces shared by the controllers' spec and status.
import { Type, type TProperties } from '@sinclair/typebox';
import { Conditions } from './conditions.js';

/** A replica count: a non-negative int32, as Kubernetes workloads have it. */
export function sizeField(description: string) {
  return Type.Integer({ minimum: 0, maximum: 2147483647, format: 'int32', description });
}

/** The status every replicated kind reports: member names, counts and conditions. */
export function replicatedStatus<P extends TProperties>(extra: P) {
  return Type.Object(
    {
      nodes: Type.Optional(Type.Array(Type.String(), { description: 'Names of the member pods.' })),
      replicas: Type.Optional(Type.Integer({ minimum: 0, description: 'Members that exist.' })),
      readyReplicas: Type.Optional(Type.Integer({ minimum: 0, description: 'Members that are Ready.' })),
      ready: Type.Optional(Type.String({ description: 'Ready members over desired, as kubectl shows it.' })),
      observedGeneration: Type.Optional(
        Type.Integer({ minimum: 0, description: 'The metadata.generation this status describes.' }),
      ),
      conditions: Type.Optional(Conditions),
      ...extra,
    },
    { additionalProperties: false },
  );
}

export const commonPrinterColumns = {
  /** `kubectl get`'s SIZE: spec.size, of members (a cluster) or pods. */
  size: (of: 'members' | 'pods') =>
    ({ name: 'SIZE', type: 'integer', jsonPath: '.spec.size', description: `Desired number of ${of}.` }) as const,
  ready: { name: 'READY', type: 'string', jsonPath: '.status.ready', description: 'Ready members over desired.' },
  status: {
    name: 'STATUS',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
    description: 'Reason of the Ready condition.',
  },
  age: { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
} as const;
