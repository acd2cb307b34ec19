// Schema pieces shared by the controllers' spec and status.
import { Type, type TProperties } from '@sinclair/typebox';
import { Conditions } from './conditions.js';

/**
 * A map of strings under any key. A Record with plain string keys checks its values through the key pattern
 * `^(.*)$`, which a key holding a line break (\n, \r, U+2028, U+2029) does not match: such a key's value went
 * unchecked. This pattern matches every key, so every value is checked (the generated CRD is the same).
 */
export function stringMap(description: string) {
  return Type.Record(Type.String({ pattern: '^[\\s\\S]*$' }), Type.String(), { description });
}

/**
 * A replica count, from 0 to `maximum`. Every sized kind states its own maximum (README, "Limits"): what the hook,
 * Metacontroller and the API server can carry, since the status lists members by name and etcd refuses an
 * object over 1.5 MiB. The CRD enforces it, and so does the hook (the same schema), so a request that did not
 * come through the API server is refused too.
 */
export function sizeField(description: string, maximum: number) {
  return Type.Integer({ minimum: 0, maximum, format: 'int32', description: `${description} At most ${maximum}.` });
}

/** The longest container image reference accepted (registry, path, tag and digest fit well within it). */
export const MAX_IMAGE_LENGTH = 512;

/** A container image reference, bounded (a PodSet repeats it in every pod of its answer). */
export function imageField(description: string, defaultImage: string) {
  return Type.String({ minLength: 1, maxLength: MAX_IMAGE_LENGTH, default: defaultImage, description });
}

/** The stated maxima of `spec.size`. */
export const MAX_SIZE = {
  /** Pods owned one by one: an answer of 1000 pods is ~1.5 MB, and the status names each. */
  podset: 1000,
  /** A Deployment's replicas; the status names each pod. */
  memcached: 1000,
  /** A primary and its replicas: more than 9 members is no longer one small replicated database. */
  mysqlcluster: 9,
} as const;

/** The status every replicated kind reports: member names, counts and conditions. */
export function replicatedStatus<P extends TProperties>(extra: P) {
  return Type.Object(
    {
      nodes: Type.Optional(Type.Array(Type.String(), { description: 'Names of the member pods.' })),
      selector: Type.Optional(
        Type.String({
          description:
            'The label selector of the member pods, for the scale subresource (kubectl scale, HorizontalPodAutoscaler).',
        }),
      ),
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
