// Schema pieces shared by the controllers' spec and status.
import { Type, type TProperties } from '@sinclair/typebox';
import { ReplicatedConditions } from './conditions.js';
import { DNS1123_SUBDOMAIN_PATTERN } from './values.js';

/**
 * The schema keyword of a bound on a value's size as JSON (UTF-8 bytes). A CRD's structural schema can bound a
 * string's length and a list's or a map's entries, but not what a free-form object (an affinity, a claim spec)
 * holds, nor the keys of a map: such fields carry this bound, which the hook enforces (lib/spec.ts: InvalidSpec,
 * every child kept) and the CRD's description states. It is left out of the CRD itself (lib/manifests.ts).
 */
export const MAX_BYTES = 'x-metaops-max-bytes';

/** How large a value copied from a spec into children may be, said as the CRD describes it. */
function sizeNote(maxBytes: number): string {
  return `At most ${maxBytes >= 1024 ? `${maxBytes / 1024} KiB` : `${maxBytes} bytes`} as JSON.`;
}

/** A map's bounds: its entries, each value's length, and its whole size as JSON (which bounds the keys too). */
export interface MapBounds {
  maxProperties: number;
  maxValueLength: number;
  maxBytes: number;
  /** A pattern every value matches (in the CRD and in the hook: so one JavaScript and Go's RE2 read alike). */
  valuePattern?: string;
}

/**
 * A map of strings under any key, bounded. A Record with plain string keys checks its values through the key
 * pattern `^(.*)$`, which a key holding a line break (\n, \r, U+2028, U+2029) does not match: such a key's value
 * went unchecked. This pattern matches every key, so every value is checked (the generated CRD is the same).
 */
export function stringMap(description: string, bounds: MapBounds) {
  const value = Type.String({
    maxLength: bounds.maxValueLength,
    ...(bounds.valuePattern ? { pattern: bounds.valuePattern } : {}),
  });
  return Type.Record(Type.String({ pattern: '^[\\s\\S]*$' }), value, {
    maxProperties: bounds.maxProperties,
    [MAX_BYTES]: bounds.maxBytes,
    description: `${description} At most ${bounds.maxProperties} entries. ${sizeNote(bounds.maxBytes)}`,
  });
}

/**
 * A free-form object (a core/v1 type the CRD keeps open: `x-kubernetes-preserve-unknown-fields`), bounded: at most
 * `maxBytes` as JSON, which the hook enforces, and at most `maxProperties` fields at its top level, which the CRD
 * enforces too.
 */
export function freeForm(description: string, maxBytes: number, maxProperties = 32) {
  return Type.Object(
    {},
    {
      'x-kubernetes-preserve-unknown-fields': true,
      maxProperties,
      [MAX_BYTES]: maxBytes,
      description: `${description} ${sizeNote(maxBytes)}`,
    },
  );
}

/** A list of free-form objects (tolerations, environment variables), bounded in entries, each and as a whole. */
export function freeFormList(
  description: string,
  item: { what: string; maxBytes: number },
  maxItems: number,
  maxBytes: number,
) {
  return Type.Array(freeForm(item.what, item.maxBytes), {
    maxItems,
    [MAX_BYTES]: maxBytes,
    description: `${description} At most ${maxItems} entries. ${sizeNote(maxBytes)}`,
  });
}

/** The longest name of a Kubernetes object (a DNS subdomain) a spec may name: a Secret, a StorageClass. */
export const MAX_NAME_LENGTH = 253;

/**
 * The name of an object of the parent's namespace that a child refers to (a Secret it mounts or reads keys of): a
 * DNS-1123 subdomain, as the API server requires of a `secretName` or a `secretKeyRef`. Without the pattern the
 * CRD accepts a name (`AWS_Creds`, `aws..creds`) that makes the child one the API server refuses.
 */
export function objectNameField(description: string) {
  return Type.String({ maxLength: MAX_NAME_LENGTH, pattern: DNS1123_SUBDOMAIN_PATTERN, description });
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

/** How long a rollout may go without progress (spec.progressDeadlineSeconds' default, a Deployment's). */
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;
export const MAX_PROGRESS_DEADLINE_SECONDS = 86400;

/**
 * spec.progressDeadlineSeconds of a replicated kind (PodSet, Memcached, MySQLCluster: lib/replicas.ts stalled), whose
 * members are `what` (pods, members): as a Deployment's, for a rollout or scale only.
 */
export function progressDeadlineField(what: string) {
  return Type.Integer({
    minimum: 1,
    maximum: MAX_PROGRESS_DEADLINE_SECONDS,
    default: DEFAULT_PROGRESS_DEADLINE_SECONDS,
    description: `How long a rollout or scale may go without progress (no ${what.replace(/s$/, '')} made, turned Ready or updated) while ${what} are missing or not Ready before Progressing turns False with reason ProgressDeadlineExceeded (as a Deployment's progressDeadlineSeconds). Once the rollout completed, ${what} that stop being Ready are no rollout: Available and Degraded say it, and no deadline applies until the spec changes or ${what} are missing.`,
  });
}

/** The longest container image reference accepted (registry, path, tag and digest fit well within it). */
export const MAX_IMAGE_LENGTH = 512;

/** A container image reference, bounded (a PodSet repeats it in every pod of its answer). */
export function imageField(description: string, defaultImage: string) {
  return Type.String({ minLength: 1, maxLength: MAX_IMAGE_LENGTH, default: defaultImage, description });
}

/**
 * status.heldBy (lib/ownership.ts HeldRecord): while a parent is held for a name another owner holds, each such name
 * and its holder (at most 3), so that the parent stays held while the holder exists and wants the name.
 */
export function heldBySchema() {
  const name = Type.String({ maxLength: MAX_NAME_LENGTH });
  const ref = (props: Record<string, ReturnType<typeof Type.String>>) =>
    Type.Object(props, { additionalProperties: false });
  return Type.Array(
    Type.Object(
      {
        child: ref({ apiVersion: name, kind: name, name }),
        holder: ref({ apiVersion: name, kind: name, name, uid: name }),
        yieldsTo: Type.Optional(
          Type.Object(
            { apiVersion: name, kind: name, name, uid: name },
            {
              additionalProperties: false,
              description:
                'The parent, created before this resource, that wants names this resource wants: this resource never served (nothing of value is lost) and releases every child that parent wants.',
            },
          ),
        ),
        unseenSince: Type.Optional(
          Type.String({
            format: 'date-time',
            maxLength: 40,
            description:
              'The name free and the holder not among the related objects Metacontroller sent since this time: the resource stays held until 30 minutes after it unless the holder is seen (Metacontroller keeps a customize answer per generation, so a holder recorded since may exist and not be sent).',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    {
      maxItems: 3,
      description:
        'While held for a name another owner holds: the name and its holder. The resource stays held while that holder exists and wants the name, even when the name is free for a moment.',
    },
  );
}

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
      conditions: Type.Optional(ReplicatedConditions),
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
