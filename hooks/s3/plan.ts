// The S3 sync's decisions, without I/O (sync.ts reads AWS, asks these, and does what they say, in order): which
// access key the Secret gets and which keys go, what becomes of the buckets a rename left behind, and the
// answers the sync gives (the ready status and its Secret, the status while a new key's Secret is pending).
// What is ours is not decided here: it comes from the AWS objects' own tags (sync.ts, docs/s3-failures.md).
import {
  childLabels,
  type ConditionInput,
  conditionsFor,
  currentStatus,
  type EventSpec,
  type KubeObject,
  type ParentObject,
  RETRY_SECONDS,
} from '../../lib/index.js';
import type { AccessKey, AccessKeyInfo, Encryption } from './api.js';
import { bucketArn, shownPolicyArn } from './policy.js';

/** A key younger than this may sit in a Secret that Metacontroller's cache does not show yet. */
export const KEY_GRACE_SECONDS = 120;

/** The keys of the credentials Secret's data. */
export const SECRET_KEYS = {
  id: 'AWS_ACCESS_KEY_ID',
  secret: 'AWS_SECRET_ACCESS_KEY',
  region: 'AWS_REGION',
  bucket: 'BUCKET_NAME',
  endpoint: 'AWS_ENDPOINT_URL',
} as const;

// UTF-8 both ways (Buffer's default).
const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: unknown) => (typeof s === 'string' ? Buffer.from(s, 'base64').toString() : undefined);

/**
 * The annotation of the credentials Secret that says when IAM created its key (ISO 8601): a key the Secret holds that
 * ListAccessKeys does not show yet (IAM is eventually consistent) is kept while it is younger than the grace period.
 */
export const KEY_CREATED_ANNOTATION = 'metaops.dev/access-key-created';

/** The key ID and secret the observed Secret holds, each read from its own data key only, and its creation date. */
export interface KeptKey {
  id: string | undefined;
  secret: string | undefined;
  created?: Date | undefined;
}

export function keptKey(observedSecret: KubeObject | undefined): KeptKey {
  const data = (observedSecret?.['data'] ?? {}) as Record<string, unknown>;
  const annotations = (observedSecret?.metadata?.annotations ?? {}) as Record<string, unknown>;
  const stamp = Object.hasOwn(annotations, KEY_CREATED_ANNOTATION) ? annotations[KEY_CREATED_ANNOTATION] : undefined;
  const created = typeof stamp === 'string' ? new Date(stamp) : undefined;
  return {
    id: Object.hasOwn(data, SECRET_KEYS.id) ? unb64(data[SECRET_KEYS.id]) : undefined,
    secret: Object.hasOwn(data, SECRET_KEYS.secret) ? unb64(data[SECRET_KEYS.secret]) : undefined,
    ...(created && !Number.isNaN(created.getTime()) ? { created } : {}),
  };
}

/**
 * What to do with the user's access keys:
 * - keep: the key in the observed Secret, while IAM still has it; `deleteOld`, the other keys older than the
 *   grace period; `recheckIn`, when the youngest of the others will be old enough to go (seconds), if any.
 * - pending: IAM's newest key is younger than the grace period and is not the Secret's: it is in a Secret
 *   Metacontroller's cache does not show yet (a sync that races the Secret's creation must not rotate the key it
 *   just made); nothing is created or deleted, the sync looks again in `wait` seconds.
 * - create: a new key; IAM allows two per user, so `deleteBefore` go before it is created, `deleteAfter` (the
 *   newest old one) after. `rotated`: there was a key before (in IAM or in the Secret). `deferred`: the old keys
 *   left because a Secret still holds them (`inUse`).
 * - waitForSecrets: a new key is needed, but IAM's two keys are both held by Secrets still present (`inUse`): nothing
 *   is created or deleted until one of them is gone.
 *
 * `inUse`: the keys that observed Secrets of this resource other than the one answered hold (a renamed secretName's
 * old Secret, until Metacontroller has deleted it): their readers use them, so they are never deleted, whatever their
 * age; the next sync after that Secret is gone deletes them.
 */
export type KeyPlan =
  | { keep: AccessKey; deleteOld: string[]; recheckIn: number | undefined }
  | { pending: AccessKeyInfo; wait: number }
  | { create: true; deleteBefore: string[]; deleteAfter: string[]; rotated: boolean; deferred?: string[] }
  | { waitForSecrets: string[] };

/** `existing`: the user's keys as IAM lists them, oldest first (by IAM's own creation date). */
export function planKeys(
  existing: readonly AccessKeyInfo[],
  kept: KeptKey,
  now: Date,
  inUse: ReadonlySet<string> = new Set(),
): KeyPlan {
  const ageOf = (k: AccessKeyInfo) => (now.getTime() - k.created.getTime()) / 1000;
  const listed = existing.find((k) => k.id === kept.id);
  if (kept.id && kept.secret && listed) {
    const deleteOld: string[] = [];
    let recheckIn: number | undefined;
    for (const k of existing) {
      if (k.id === kept.id || inUse.has(k.id)) continue;
      if (ageOf(k) >= KEY_GRACE_SECONDS) deleteOld.push(k.id);
      else recheckIn = Math.min(recheckIn ?? Infinity, Math.ceil(KEY_GRACE_SECONDS - ageOf(k)) + 1);
    }
    return { keep: { id: kept.id, secret: kept.secret }, deleteOld, recheckIn };
  }
  // The Secret's key, made less than the grace period ago, that IAM does not list yet (ListAccessKeys lags behind
  // CreateAccessKey): kept, and nothing deleted on a list that is behind; looked at again once the grace has passed.
  // A list that shows a key made after it is not behind: the Secret's key was replaced (a stale view of the Secret).
  const young = kept.created && ageOf({ id: '', created: kept.created });
  const behind = kept.created && existing.every((k) => k.created.getTime() < kept.created!.getTime());
  if (kept.id && kept.secret && behind && young !== undefined && young >= 0 && young < KEY_GRACE_SECONDS)
    return {
      keep: { id: kept.id, secret: kept.secret },
      deleteOld: [],
      recheckIn: Math.ceil(KEY_GRACE_SECONDS - young) + 1,
    };
  const newest = existing[existing.length - 1];
  if (newest && ageOf(newest) < KEY_GRACE_SECONDS)
    return { pending: newest, wait: Math.max(5, Math.ceil(KEY_GRACE_SECONDS - ageOf(newest)) + 1) };
  return createPlan(existing, kept, inUse);
}

/**
 * A new key (planKeys' create): room made for it (at most one key left when it is created), the newest old key that
 * may go deleted after it (a failed create leaves it), unless a key in use already takes the one place.
 */
function createPlan(existing: readonly AccessKeyInfo[], kept: KeptKey, inUse: ReadonlySet<string>): KeyPlan {
  const rotated = existing.length > 0 || Boolean(kept.id);
  const free = existing.filter((k) => !inUse.has(k.id)).map((k) => k.id);
  const deferred = existing.filter((k) => inUse.has(k.id)).map((k) => k.id);
  if (deferred.length >= 2) return { waitForSecrets: deferred };
  const after = deferred.length === 0 ? free.slice(-1) : [];
  return {
    create: true,
    deleteBefore: free.slice(0, free.length - after.length),
    deleteAfter: after,
    rotated,
    ...(deferred.length ? { deferred } : {}),
  };
}

/**
 * The key plan for the Secret answered (`wanted`, as observed; absent while a renamed secretName's Secret is not made
 * yet) and the other observed Secrets of this resource (`others`: a renamed secretName's old Secret, until it is
 * deleted): the wanted Secret's key while it can stand; else the key of another observed Secret of this resource that
 * can (a rename publishes the key in use under the new name, so its readers keep working and nothing is rotated);
 * else planKeys' answer for the wanted Secret. Never a key that an old Secret holds is deleted (`inUse`).
 */
export function planKeysOf(
  existing: readonly AccessKeyInfo[],
  wanted: KeptKey,
  others: readonly KeptKey[],
  now: Date,
): { plan: KeyPlan; kept: KeptKey } {
  const inUse = new Set(others.flatMap((k) => (k.id ? [k.id] : [])));
  const plan = planKeys(existing, wanted, now, inUse);
  if ('keep' in plan) return { plan, kept: wanted };
  for (const other of others) {
    const copied = planKeys(existing, other, now, inUse);
    if ('keep' in copied) return { plan: copied, kept: other };
  }
  return { plan, kept: wanted };
}

/**
 * The buckets this resource created other than `bucket` (a rename left them behind), in name order: all
 * retained (listed, no longer managed) under Retain, else all to delete (deleteBucket re-checks their tags).
 */
export function planOldBuckets(
  created: Iterable<string>,
  bucket: string,
  deletionPolicy: 'Retain' | 'Delete',
): { retain: string[]; delete: string[] } {
  const old = [...created].filter((b) => b !== bucket).sort();
  return deletionPolicy === 'Retain' ? { retain: old, delete: [] } : { retain: [], delete: old };
}

/**
 * The condition of old buckets a rename left that are not empty (undefined when none is waiting): kept as they are
 * (a rename never empties a bucket, whatever forceDelete says: that is the resource's deletion's), and how to take
 * one back, have it deleted or keep it.
 */
export function oldBucketsCondition(
  waiting: readonly string[],
  bucket: string,
  forceDelete: boolean,
): ConditionInput | undefined {
  if (!waiting.length) return undefined;
  const them = waiting.length > 1 ? 'them' : 'it';
  return {
    type: 'OldBucketDeleted',
    status: false,
    reason: 'BucketNotEmpty',
    message:
      `old bucket ${waiting.join(', ')} is not empty and is kept with its objects (spec.bucketName was changed to ${bucket}; ` +
      `a rename never empties a bucket): set spec.bucketName back to use ${them} again, empty ${them} yourself to have ${them} deleted, ` +
      `or set deletionPolicy: Retain to keep ${them} (looked at again less and less often, at least every 5 minutes: ` +
      `an emptied bucket is deleted within 5 minutes)` +
      (forceDelete ? `; forceDelete empties ${them} when this S3 resource is deleted` : ''),
  };
}

/**
 * The KMS key the bucket's policy grants the use of: spec.encryption's key under SSE-KMS only (the spec check
 * also refuses a kmsKeyId with SSE-S3).
 */
export function grantedKmsKey(encryption: Encryption): string | undefined {
  return encryption.type === 'SSE-KMS' ? encryption.kmsKeyId : undefined;
}

/** The buckets created and retained, as the status lists them (sorted; absent when empty). */
export function bucketLists(created: Set<string>, retained: Set<string>): Record<string, string[] | undefined> {
  return {
    createdBuckets: created.size ? [...created].sort() : undefined,
    retainedBuckets: retained.size ? [...retained].sort() : undefined,
  };
}

export function bucketCreated(bucket: string, region: string): EventSpec {
  return {
    type: 'Normal',
    reason: 'BucketCreated',
    action: 'CreateBucket',
    note: `created bucket ${bucket} in ${region}`,
    subject: bucket,
  };
}

/** The Warning of a bucket this resource made, found gone (deleted outside metaops) and made again, empty. */
export function bucketLost(bucket: string, region: string): EventSpec {
  return {
    type: 'Warning',
    reason: 'BucketLost',
    action: 'CreateBucket',
    note: `bucket ${bucket}, which this resource made, was gone (deleted outside metaops, with what it held); made again in ${region}, empty`,
    subject: bucket,
  };
}

const BUCKET_LOST = 'BucketLost';

/**
 * The condition that says the bucket was lost and made again empty: kept for as long as the resource names that
 * bucket (bucketLostBefore reads it back), so that `kubectl describe` still says it after the Event is gone.
 */
export function bucketLostCondition(bucket: string): ConditionInput {
  return {
    type: BUCKET_LOST,
    status: true,
    reason: 'DeletedOutsideMetaops',
    message: `bucket ${bucket}, which this resource made, was found gone (deleted outside metaops) and made again, empty: restore its objects from a copy if the workload needs them`,
  };
}

/** The lost-bucket condition the previous status carries for `bucket`, to be kept (undefined when none). */
export function bucketLostBefore(parent: ParentObject, bucket: string): ConditionInput | undefined {
  const conditions = (currentStatus(parent) as { conditions?: unknown }).conditions;
  if (!Array.isArray(conditions)) return undefined;
  const said = conditions.find(
    (c) => (c as { type?: unknown } | null)?.type === BUCKET_LOST && (c as { status?: unknown }).status === 'True',
  ) as { message?: unknown } | undefined;
  const kept = bucketLostCondition(bucket);
  return said && said.message === kept.message ? kept : undefined;
}

export function bucketRetained(bucket: string): EventSpec {
  return {
    type: 'Normal',
    reason: 'BucketRetained',
    action: 'RetainBucket',
    note: `old bucket ${bucket} is retained (deletionPolicy Retain); it is no longer managed`,
    subject: bucket,
  };
}

/**
 * The Event of a new key: KeyRotated when it replaces one, else AccessKeyCreated. `deferred`: old keys an old Secret
 * still holds (deleted once it is gone).
 */
export function keyCreated(
  rotated: boolean,
  keyId: string,
  user: string,
  secretName: string,
  deferred: readonly string[] = [],
): EventSpec {
  const previous = deferred.length
    ? `the previous key ${deferred.join(', ')} is deleted once the Secret that holds it is gone`
    : 'the previous key is deleted';
  return rotated
    ? {
        type: 'Normal',
        reason: 'KeyRotated',
        action: 'CreateAccessKey',
        note: `new access key ${keyId} for IAM user ${user} in Secret ${secretName}; ${previous}`,
        subject: keyId,
      }
    : {
        type: 'Normal',
        reason: 'AccessKeyCreated',
        action: 'CreateAccessKey',
        note: `access key ${keyId} for IAM user ${user} in Secret ${secretName}`,
        subject: keyId,
      };
}

/** What the sync has made: the statuses and the Secret are built from it. */
export interface Synced {
  bucket: string;
  region: string;
  /** The credentials Secret's name. */
  secretName: string;
  /** bucketLists of the buckets created and retained. */
  lists: Record<string, string[] | undefined>;
}

/**
 * The status while IAM's newest key (`keyId`) waits for its Secret to be observed: the rest of the status kept,
 * Ready and Synced False, SecretPending.
 */
export function pendingStatus(parent: ParentObject, synced: Synced, keyId: string, now: Date): Record<string, unknown> {
  return {
    ...currentStatus(parent),
    bucketName: synced.bucket,
    region: synced.region,
    accessKeyId: keyId,
    ...synced.lists,
    conditions: conditionsFor(
      parent,
      [
        {
          type: 'Ready',
          status: false,
          reason: 'SecretPending',
          message: `waiting for Secret ${synced.secretName} with access key ${keyId} to be observed`,
        },
        {
          type: 'Synced',
          status: false,
          reason: 'SecretPending',
          message: `access key ${keyId} is new; it is rotated only if its Secret is still missing after ${KEY_GRACE_SECONDS} s`,
        },
      ],
      now,
    ),
  };
}

/** The status once everything is as specified: Ready and Synced True, followed by `notes` (old buckets). */
export function readyStatus(
  parent: ParentObject,
  synced: Synced & { user: string; policyArn: string; keyId: string },
  notes: ConditionInput[],
  now: Date,
): Record<string, unknown> {
  return {
    bucketName: synced.bucket,
    arn: bucketArn(synced.bucket),
    region: synced.region,
    iamUser: synced.user,
    policyArn: shownPolicyArn(synced.policyArn),
    accessKeyId: synced.keyId,
    secretName: synced.secretName,
    ...synced.lists,
    observedGeneration: parent.metadata.generation ?? 0,
    conditions: conditionsFor(
      parent,
      [
        {
          type: 'Ready',
          status: true,
          reason: 'Available',
          message: `bucket ${synced.bucket} and its credentials in Secret ${synced.secretName}`,
        },
        {
          type: 'Synced',
          status: true,
          reason: 'Synced',
          message: 'bucket, user, policy and access key are as specified',
        },
        ...notes,
      ],
      now,
    ),
  };
}

/**
 * When a ready sync asks to be called again (the answer's resyncAfterSeconds, absent for the resync period): soon
 * while old buckets wait on AWS (`waiting`: read untagged under this resource's claim); after `tenantWait` (or when a
 * young key may go, if sooner) while old buckets wait only on their tenant (not empty: sync.ts tenantWaitSeconds, the
 * finalize's backoff); else when a young key may go.
 */
export function resyncAfter(
  waiting: readonly string[],
  recheckIn: number | undefined,
  tenantWait?: number,
): { resyncAfterSeconds?: number } {
  if (waiting.length) return { resyncAfterSeconds: RETRY_SECONDS.failure };
  if (tenantWait !== undefined)
    return { resyncAfterSeconds: recheckIn === undefined ? tenantWait : Math.min(tenantWait, recheckIn) };
  return recheckIn === undefined ? {} : { resyncAfterSeconds: recheckIn };
}

/** The credentials Secret: the key, the region, the bucket and (when AWS is not the default) the endpoint. */
export function credentialsSecret(
  parent: ParentObject,
  synced: Synced,
  key: AccessKey & { created: Date },
  endpoint: string | undefined,
): KubeObject {
  const data: Record<string, string> = {
    [SECRET_KEYS.id]: b64(key.id),
    [SECRET_KEYS.secret]: b64(key.secret),
    [SECRET_KEYS.region]: b64(synced.region),
    [SECRET_KEYS.bucket]: b64(synced.bucket),
  };
  if (endpoint) data[SECRET_KEYS.endpoint] = b64(endpoint);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: synced.secretName,
      namespace: parent.metadata.namespace,
      labels: childLabels('s3', parent.metadata.name!, 'credentials'),
      annotations: { [KEY_CREATED_ANNOTATION]: key.created.toISOString() },
    },
    type: 'Opaque',
    data,
  };
}

/** The annotation of a Secret an S3 resource claims before its keys are made (sync.ts claimOf). */
export const PENDING_ANNOTATION = 'metaops.dev/credentials-pending';

/**
 * The Secret `name` claimed for `parent` before its keys are made (sync.ts claimOf): its labels, an annotation that
 * says it is pending, and no data. The full Secret (credentialsSecret) replaces it in place once the keys are made:
 * the annotation and every key of its data then come with one update.
 */
export function pendingSecret(parent: ParentObject, name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: parent.metadata.namespace,
      labels: childLabels('s3', parent.metadata.name!, 'credentials'),
      annotations: {
        [PENDING_ANNOTATION]: 'the IAM user, bucket and access key are not made yet: the S3 resource status says why',
      },
    },
    type: 'Opaque',
  };
}
