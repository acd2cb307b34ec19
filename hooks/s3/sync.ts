// S3 sync and finalize. The sync hook ensures, idempotently: the bucket with its settings, an IAM user named
// after the resource, a policy allowing the bucket's own operations and nothing else, one access key; and
// answers with the Secret holding the credentials. IAM returns a secret key only when the key is created, so
// the Secret itself is the memory: it is read back from the observed children and re-emitted.
//
// Ownership comes from the AWS objects' own tags (metaops.dev/owner-uid = this resource's UID), never from
// the status, which anyone allowed to write s3s/status can change; a bucket is emptied or deleted only when the
// status recorded it as created by this resource *and* its tags, read right before, agree. What the hook does
// when AWS is slow, wrong or someone else's: docs/s3-failures.md.
import type { ConditionInput } from '../../lib/conditions.js';
import { RETRY_SECONDS, TemporaryError } from '../../lib/errors.js';
import { conditionsFor, currentStatus } from '../../lib/hook.js';
import type { FinalizeHook, SyncHook } from '../../lib/operator.js';
import { childLabels } from '../../lib/labels.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { allObserved, keepObserved, observedNamed } from '../../lib/objects.js';
import { specParser } from '../../lib/spec.js';
import { AwsError, OWNER_TAG, OWNER_UID_TAG, type AwsApi } from './api.js';
import { arnParts, bucketArn, bucketNameProblem, bucketPolicy, kmsGrant, policyName, userName } from './policy.js';
import { S3Spec, type S3Spec as Spec } from './schema.js';

export const parser = specParser(S3Spec, (spec) => {
  const problem = bucketNameProblem(spec.bucketName);
  if (problem) return `spec.bucketName "${spec.bucketName}" ${problem}`;
  if (spec.encryption.type === 'SSE-S3' && spec.encryption.kmsKeyId)
    return 'spec.encryption.kmsKeyId is only used with type SSE-KMS';
  return undefined;
});

/** Everything AWS does in one hook call fits in this, below Metacontroller's 10 s webhook timeout. */
export const HOOK_BUDGET_MS = 7000;

/** The S3 hooks' clients: AWS (S3 and IAM) from the SDK's standard credential chain. */
export interface S3Clients {
  /**
   * Created on first use; the SDK is loaded only then, so a server that serves no S3 resource never pays its
   * memory (perf: docs/performance.md).
   */
  aws(): Promise<AwsApi>;
}

export function s3Clients(): S3Clients {
  let aws: Promise<AwsApi> | undefined;
  return { aws: () => (aws ??= import('./aws.js').then((m) => new m.SdkAwsApi())) };
}

/** An AWS failure as the framework renders it (lib/operator.ts): conditions, a resync, throttling waits longer. */
function awsFailure(
  err: unknown,
  message: string,
  options: { conditions: string[]; status?: Record<string, unknown> },
): TemporaryError {
  const reason = reasonOf(err);
  return new TemporaryError(reason, message, {
    ...options,
    retryAfterSeconds: reason === 'Throttled' ? RETRY_SECONDS.throttled : RETRY_SECONDS.failure,
  });
}

/** Tags in the spec that are not a map of strings: said as an invalid spec. */
export function tagsProblem(parent: ParentObject): string | undefined {
  const tags = tagsOf(parent.spec);
  return typeof tags === 'string' ? tags : undefined;
}

const keys = {
  id: 'AWS_ACCESS_KEY_ID',
  secret: 'AWS_SECRET_ACCESS_KEY',
  region: 'AWS_REGION',
  bucket: 'BUCKET_NAME',
  endpoint: 'AWS_ENDPOINT_URL',
} as const;

export function secretName(parent: ParentObject, spec: Spec): string {
  return spec.secretName ?? `${parent.metadata.name}-credentials`;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: unknown) => (typeof s === 'string' ? Buffer.from(s, 'base64').toString('utf8') : undefined);

/** A key younger than this may sit in a Secret that Metacontroller's cache does not show yet. */
export const KEY_GRACE_SECONDS = 120;

interface Owner {
  namespace: string;
  name: string;
  uid: string;
}

function ownerOf(parent: ParentObject): Owner {
  const namespace = parent.metadata.namespace ?? 'default';
  const name = parent.metadata.name!;
  return { namespace, name, uid: parent.metadata.uid ?? `${namespace}/${name}` };
}

function ownerTags(owner: Owner): Map<string, string> {
  return new Map([
    [OWNER_TAG, `${owner.namespace}/${owner.name}`],
    [OWNER_UID_TAG, owner.uid],
  ]);
}

/**
 * Whether these tags say `owner` made the object. `legacy`: a bucket made before the UID tag existed, with only
 * the namespace/name tag, is this resource's when its status already named it.
 */
function owns(owner: Owner, tags: Map<string, string>, legacy = false): boolean {
  const uid = tags.get(OWNER_UID_TAG);
  if (uid !== undefined) return uid === owner.uid;
  return legacy && tags.get(OWNER_TAG) === `${owner.namespace}/${owner.name}`;
}

function notOurs(owner: Owner, what: string, tags: Map<string, string>): string {
  const by = tags.get(OWNER_TAG);
  if (by === `${owner.namespace}/${owner.name}`) {
    return `${what} was made by an earlier S3 resource named ${by} (uid ${tags.get(OWNER_UID_TAG) ?? 'unknown'}), not this one; to hand it over, set its tag ${OWNER_UID_TAG} to ${owner.uid}`;
  }
  if (by !== undefined) return `${what} belongs to S3 resource ${by}`;
  return `${what} already exists and is not managed by metaops`;
}

/** The status fields this hook reads back, each checked for its type (the status is anyone's to write). */
interface Previous {
  bucketName: string | undefined;
  region: string | undefined;
  policyArn: string | undefined;
  iamUser: string | undefined;
  createdBuckets: string[] | undefined;
  retainedBuckets: string[];
}

function previousOf(parent: ParentObject): Previous {
  const s = currentStatus(parent) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const strs = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, 100) : undefined;
  return {
    bucketName: str(s['bucketName']),
    region: str(s['region']),
    policyArn: str(s['policyArn']),
    iamUser: str(s['iamUser']),
    createdBuckets: strs(s['createdBuckets']),
    retainedBuckets: strs(s['retainedBuckets']) ?? [],
  };
}

/** The buckets the status records as created by this resource (a status from before the field: its bucket). */
function recordedBuckets(previous: Previous): Set<string> {
  return new Set(previous.createdBuckets ?? (previous.bucketName ? [previous.bucketName] : []));
}

function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

function credentialsSecret(
  parent: ParentObject,
  spec: Spec,
  aws: AwsApi,
  key: { id: string; secret: string },
  region: string,
): KubeObject {
  const data: Record<string, string> = {
    [keys.id]: b64(key.id),
    [keys.secret]: b64(key.secret),
    [keys.region]: b64(region),
    [keys.bucket]: b64(spec.bucketName),
  };
  if (aws.endpoint) data[keys.endpoint] = b64(aws.endpoint);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretName(parent, spec),
      namespace: parent.metadata.namespace,
      labels: childLabels('s3', parent.metadata.name!, 'credentials'),
    },
    type: 'Opaque',
    data,
  };
}

/** AWS error codes as condition reasons. */
export function reasonOf(err: unknown): string {
  const code = err instanceof AwsError ? err.code : 'Unknown';
  if (/Throttl|SlowDown|RequestLimitExceeded|TooManyRequests/.test(code)) return 'Throttled';
  if (
    /AccessDenied|InvalidClientTokenId|InvalidAccessKeyId|SignatureDoesNotMatch|UnrecognizedClient|Forbidden/.test(code)
  )
    return 'AccessDenied';
  if (
    code === 'BucketAlreadyExists' ||
    code === 'IAMNameTaken' ||
    code === 'RegionMismatch' ||
    code === 'ResponseTooLarge'
  )
    return code;
  if (
    /Timeout|Abort|ECONNREFUSED|ENOTFOUND|ECONNRESET|NetworkingError|socket/i.test(`${code} ${(err as Error)?.message}`)
  ) {
    return 'Unreachable';
  }
  return 'AWSError';
}

function describe(err: unknown): string {
  if (err instanceof AwsError && /Abort/.test(err.code)) return `${err.operation}: no answer within the deadline`;
  if (err instanceof AwsError) return `${err.operation}: ${err.code}: ${err.message}`;
  return (err as Error)?.message ?? String(err);
}

/**
 * Each transition made in AWS is told as an Event (hook.event: BucketCreated, BucketRetained, AccessKeyCreated,
 * KeyRotated); it never changes the answer.
 */
// eslint-disable-next-line max-lines-per-function, complexity -- bucket, rename, user, policy, key and Secret in the order AWS needs them; the split into a pure plan and named effects (review item 4) is not done yet
export async function sync(hook: SyncHook<Spec, S3Clients>): Promise<CompositeSyncResponse> {
  const { request, parent, spec, now } = hook;
  const note = hook.event;
  const aws = (await hook.clients.aws()).withDeadline(HOOK_BUDGET_MS, hook.signal);
  const specTags = tagsOf(parent.spec) as Map<string, string>;
  const owner = ownerOf(parent);
  const previous = previousOf(parent);
  const user = userName(owner.namespace, owner.name, owner.uid);
  // Found by the object's own name, never by a key of the observed map: a Secret named `constructor` must not
  // find Object.prototype's.
  const wantedSecret = secretName(parent, spec);
  const observedSecret = observedNamed(request.children, 'Secret', 'v1', wantedSecret);
  const recorded = recordedBuckets(previous);
  const created = new Set(recorded);
  const retained = new Set(previous.retainedBuckets);
  const notes: ConditionInput[] = [];
  const bucket = spec.bucketName;
  let step = 'bucket';

  try {
    // The bucket: ours by its tags, or created now; someone else's is refused and never touched.
    const hint = spec.region ?? (previous.bucketName === bucket ? previous.region : undefined);
    const found = await aws.findBucket(bucket, hint);
    let region: string;
    let tags: Map<string, string>;
    const desiredTags = new Map<string, string>(specTags);
    for (const [k, v] of ownerTags(owner)) desiredTags.set(k, v);
    if (!found) {
      region = spec.region ?? aws.region;
      await aws.createBucket(bucket, region, ownerTags(owner));
      tags = ownerTags(owner);
      note({
        type: 'Normal',
        reason: 'BucketCreated',
        action: 'CreateBucket',
        note: `created bucket ${bucket} in ${region}`,
        subject: bucket,
      });
    } else {
      if (!owns(owner, found.tags, recorded.has(bucket)))
        throw new AwsError('BucketAlreadyExists', notOurs(owner, `bucket ${bucket}`, found.tags), 'CreateBucket');
      if (spec.region && spec.region !== found.region) {
        throw new AwsError(
          'RegionMismatch',
          `bucket ${bucket} is in ${found.region}, spec.region says ${spec.region}; a bucket cannot move`,
          'GetBucketLocation',
        );
      }
      region = found.region;
      tags = found.tags;
    }
    created.add(bucket);
    retained.delete(bucket);
    await aws.applyBucketSettings(
      bucket,
      region,
      {
        versioning: spec.versioning,
        encryption: spec.encryption,
        publicAccessBlock: spec.publicAccessBlock,
        tags: desiredTags,
      },
      tags,
    );

    // Buckets a rename left behind: Retain lists them; Delete deletes them (re-checking their tags), and one
    // that is not empty stays listed, with a condition, until it is gone.
    step = 'old buckets';
    const waiting: string[] = [];
    for (const old of [...created].sort()) {
      if (old === bucket) continue;
      if (spec.deletionPolicy === 'Retain') {
        created.delete(old);
        retained.add(old);
        note({
          type: 'Normal',
          reason: 'BucketRetained',
          action: 'RetainBucket',
          note: `old bucket ${old} is retained (deletionPolicy Retain); it is no longer managed`,
          subject: old,
        });
        continue;
      }
      // Emptied or deleted only under this resource's own UID tag: a bucket tagged by name alone (an older metaops)
      // may be claimed by a sync, never destroyed on the strength of a status that anyone with s3s/status can write.
      const result = await aws.deleteBucket(old, spec.forceDelete, (t) => owns(owner, t));
      if (result === 'notEmpty') waiting.push(old);
      else created.delete(old);
      if (result === 'notOwned') retained.add(old);
    }
    if (waiting.length) {
      notes.push({
        type: 'OldBucketDeleted',
        status: false,
        reason: 'BucketNotEmpty',
        message: spec.forceDelete
          ? `emptying old bucket ${waiting.join(', ')}`
          : `old bucket ${waiting.join(', ')} is not empty; set forceDelete to empty it, empty it yourself, or set deletionPolicy: Retain`,
      });
    }

    step = 'IAM user';
    let iamUser = await aws.getUser(user);
    if (!iamUser) iamUser = await aws.createUser(user, ownerTags(owner));
    else if (!owns(owner, iamUser.tags))
      throw new AwsError('IAMNameTaken', notOurs(owner, `IAM user ${user}`, iamUser.tags), 'CreateUser');
    const arn = arnParts(iamUser.arn);
    if (!arn) throw new AwsError('InvalidResponse', 'the IAM user has no usable ARN', 'GetUser');

    step = 'IAM policy';
    const policy = policyName(owner.namespace, owner.name, owner.uid);
    const policyArn = `arn:${arn.partition}:iam::${arn.account}:policy/${policy}`;
    const document = bucketPolicy(
      bucket,
      spec.encryption.type === 'SSE-KMS'
        ? kmsGrant(spec.encryption.kmsKeyId, region, arn.partition, arn.account)
        : undefined,
    );
    const existingPolicy = await aws.getPolicy(policyArn);
    if (!existingPolicy) await aws.createPolicy(policy, document, ownerTags(owner));
    else if (!owns(owner, existingPolicy.tags))
      throw new AwsError('IAMNameTaken', notOurs(owner, `IAM policy ${policy}`, existingPolicy.tags), 'CreatePolicy');
    else if (!sameJson(await aws.policyDocument(policyArn, existingPolicy.defaultVersionId), document))
      await aws.setPolicyDocument(policyArn, document);
    if (!(await aws.attachedPolicies(user)).includes(policyArn)) await aws.attachPolicy(user, policyArn);

    // The access key: the one in the observed Secret while IAM still has it. Otherwise a new one, unless IAM
    // has a key younger than the grace period: that one is in a Secret Metacontroller's cache does not show yet
    // (a sync that races the Secret's creation must not rotate the key it just made).
    step = 'access key';
    const existing = await aws.listAccessKeys(user);
    const ageOf = (k: { created: Date }) => (now.getTime() - k.created.getTime()) / 1000;
    const data = (observedSecret?.['data'] ?? {}) as Record<string, unknown>;
    const keptId = Object.hasOwn(data, keys.id) ? unb64(data[keys.id]) : undefined;
    const keptSecret = Object.hasOwn(data, keys.secret) ? unb64(data[keys.secret]) : undefined;
    let key: { id: string; secret: string } | undefined;
    let recheckIn: number | undefined;
    const newest = existing[existing.length - 1];
    if (keptId && keptSecret && existing.some((k) => k.id === keptId)) {
      key = { id: keptId, secret: keptSecret };
      for (const k of existing) {
        if (k.id === keptId) continue;
        if (ageOf(k) >= KEY_GRACE_SECONDS) await aws.deleteAccessKey(user, k.id);
        else recheckIn = Math.min(recheckIn ?? Infinity, Math.ceil(KEY_GRACE_SECONDS - ageOf(k)) + 1);
      }
    } else if (newest && ageOf(newest) < KEY_GRACE_SECONDS) {
      const wait = Math.max(5, Math.ceil(KEY_GRACE_SECONDS - ageOf(newest)) + 1);
      const status: Record<string, unknown> = {
        ...currentStatus(parent),
        bucketName: bucket,
        region,
        accessKeyId: newest.id,
        ...bucketLists(created, retained),
        conditions: conditionsFor(
          parent,
          [
            {
              type: 'Ready',
              status: false,
              reason: 'SecretPending',
              message: `waiting for Secret ${secretName(parent, spec)} with access key ${newest.id} to be observed`,
            },
            {
              type: 'Synced',
              status: false,
              reason: 'SecretPending',
              message: `access key ${newest.id} is new; it is rotated only if its Secret is still missing after ${KEY_GRACE_SECONDS} s`,
            },
          ],
          now,
        ),
      };
      return { status, children: allObserved(request.children).map(keepObserved), resyncAfterSeconds: wait };
    } else {
      // Make room first: IAM allows two keys per user.
      const rotated = existing.length > 0 || Boolean(keptId);
      for (const k of existing.slice(0, Math.max(0, existing.length - 1))) await aws.deleteAccessKey(user, k.id);
      key = await aws.createAccessKey(user);
      for (const k of existing.slice(-1)) await aws.deleteAccessKey(user, k.id);
      note(
        rotated
          ? {
              type: 'Normal',
              reason: 'KeyRotated',
              action: 'CreateAccessKey',
              note: `new access key ${key.id} for IAM user ${user} in Secret ${wantedSecret}; the previous key is deleted`,
              subject: key.id,
            }
          : {
              type: 'Normal',
              reason: 'AccessKeyCreated',
              action: 'CreateAccessKey',
              note: `access key ${key.id} for IAM user ${user} in Secret ${wantedSecret}`,
              subject: key.id,
            },
      );
    }
    // The Secret gets this user's key: the user an older metaops named after namespace and name alone goes,
    // with its keys, as a rotated key does (only if its tag names this resource).
    step = 'old IAM user';
    await retireLegacyUser(aws, owner, previous, user);

    const status: Record<string, unknown> = {
      bucketName: bucket,
      arn: bucketArn(bucket),
      region,
      iamUser: user,
      policyArn,
      accessKeyId: key.id,
      secretName: secretName(parent, spec),
      ...bucketLists(created, retained),
      observedGeneration: parent.metadata.generation ?? 0,
      conditions: conditionsFor(
        parent,
        [
          {
            type: 'Ready',
            status: true,
            reason: 'Available',
            message: `bucket ${bucket} and its credentials in Secret ${secretName(parent, spec)}`,
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
    const res: CompositeSyncResponse = { status, children: [credentialsSecret(parent, spec, aws, key, region)] };
    if (waiting.length) res.resyncAfterSeconds = RETRY_SECONDS.failure;
    else if (recheckIn !== undefined) res.resyncAfterSeconds = recheckIn;
    return res;
  } catch (err) {
    // Temporary or not, nothing already created is deleted: the Secret is kept as observed (lib/operator.ts),
    // and the hook asks to be called again. What was created is recorded, so that finalize can clean it up.
    throw awsFailure(err, `${step}: ${describe(err)}`, {
      conditions: ['Ready', 'Synced'],
      status: bucketLists(created, retained),
    });
  }
}

/**
 * spec.tags as sent, every own key included: the parsed spec may have lost a key such as `__proto__` (a clone
 * through a plain object drops it), and it is an ordinary tag key for S3. A string when a value is not a string.
 */
function tagsOf(spec: unknown): Map<string, string> | string {
  const tags = (spec as { tags?: unknown } | undefined)?.tags;
  const out = new Map<string, string>();
  if (tags === undefined || tags === null || typeof tags !== 'object' || Array.isArray(tags)) return out;
  for (const key of Object.keys(tags)) {
    const value = (tags as Record<string, unknown>)[key];
    if (typeof value !== 'string') return `spec.tags["${key.slice(0, 128)}"] must be a string`;
    out.set(key, value);
  }
  return out;
}

/**
 * The IAM user named in status by a metaops from before the UID in names (`metaops-<namespace>-<name>`):
 * deleted, keys and all, when its owner tag names this resource and no other UID. A status naming someone
 * else's user changes nothing.
 */
async function retireLegacyUser(aws: AwsApi, owner: Owner, previous: Previous, user: string): Promise<void> {
  const legacy = previous.iamUser;
  if (!legacy || legacy === user) return;
  const found = await aws.getUser(legacy);
  if (!found || found.tags.get(OWNER_TAG) !== `${owner.namespace}/${owner.name}`) return;
  if (!owns(owner, found.tags, true)) return;
  await aws.deleteUser(legacy);
}

function bucketLists(created: Set<string>, retained: Set<string>): Record<string, string[] | undefined> {
  return {
    createdBuckets: created.size ? [...created].sort() : undefined,
    retainedBuckets: retained.size ? [...retained].sort() : undefined,
  };
}

/**
 * Finalize: the access keys, the policy and the user are removed (each only if its tags say this resource made
 * it), and the buckets this resource created per deletionPolicy (a non-empty one only with forceDelete; each
 * re-checked by its tags right before). `finalized` is answered only after checking that they are gone.
 */
// eslint-disable-next-line complexity -- keys, policy, user and buckets removed in the order IAM allows, each only when its tags name this resource
export async function finalize(hook: FinalizeHook<Spec, S3Clients>): Promise<CompositeSyncResponse> {
  const { parent, now } = hook;
  const aws = (await hook.clients.aws()).withDeadline(HOOK_BUDGET_MS, hook.signal);
  const owner = ownerOf(parent);
  const previous = previousOf(parent);
  // A spec that no longer validates: the safe choice, Retain.
  const spec = hook.spec;
  const deletionPolicy = spec?.deletionPolicy ?? 'Retain';
  const user = userName(owner.namespace, owner.name, owner.uid);
  const created = recordedBuckets(previous);
  const retained = new Set(previous.retainedBuckets);
  const notOwned: string[] = [];
  try {
    let policyArn = previous.policyArn;
    const iamUser = await aws.getUser(user);
    if (iamUser && owns(owner, iamUser.tags)) {
      const arn = arnParts(iamUser.arn);
      if (arn)
        policyArn = `arn:${arn.partition}:iam::${arn.account}:policy/${policyName(owner.namespace, owner.name, owner.uid)}`;
      await aws.deleteUser(user);
    }
    if (policyArn) {
      const policy = await aws.getPolicy(policyArn);
      if (policy && owns(owner, policy.tags)) await aws.deletePolicy(policyArn);
    }
    await retireLegacyUser(aws, owner, previous, user);
    const waiting: string[] = [];
    for (const bucket of [...created].sort()) {
      if (deletionPolicy === 'Retain') {
        retained.add(bucket);
        created.delete(bucket);
        continue;
      }
      // Only under this resource's own UID tag (see the rename above).
      const result = await aws.deleteBucket(bucket, spec?.forceDelete ?? false, (t) => owns(owner, t));
      if (result === 'notEmpty') waiting.push(bucket);
      else created.delete(bucket);
      if (result === 'notOwned') notOwned.push(bucket);
    }
    const userLeft = await aws.getUser(user);
    const userGone = !userLeft || !owns(owner, userLeft.tags);
    const policyLeft = policyArn ? await aws.getPolicy(policyArn) : undefined;
    const policyGone = !policyLeft || !owns(owner, policyLeft.tags);
    const done = userGone && policyGone && waiting.length === 0;
    const kept = [...retained].sort();
    const finalized: ConditionInput = waiting.length
      ? {
          type: 'Finalized',
          status: false,
          reason: 'BucketNotEmpty',
          message: spec?.forceDelete
            ? `emptying bucket ${waiting.join(', ')}`
            : `bucket ${waiting.join(', ')} is not empty and forceDelete is false: empty it, set forceDelete: true, or set deletionPolicy: Retain`,
        }
      : done
        ? {
            type: 'Finalized',
            status: true,
            reason: deletionPolicy === 'Delete' && kept.length === 0 ? 'Deleted' : 'BucketRetained',
            message:
              `access keys, policy and user deleted` +
              (kept.length
                ? `; bucket ${kept.join(', ')} retained`
                : deletionPolicy === 'Delete'
                  ? ' and the buckets this resource created'
                  : '') +
              (notOwned.length ? `; ${notOwned.join(', ')} left alone: its tags name another owner` : ''),
          }
        : { type: 'Finalized', status: false, reason: 'Deleting', message: 'waiting for AWS to confirm the deletions' };
    const status: Record<string, unknown> = {
      ...currentStatus(parent),
      ...bucketLists(created, retained),
      conditions: conditionsFor(parent, [finalized], now),
    };
    return done
      ? { status, children: [], finalized: true }
      : { status, children: [], finalized: false, resyncAfterSeconds: RETRY_SECONDS.soon };
  } catch (err) {
    throw awsFailure(err, describe(err), { conditions: ['Finalized'] });
  }
}
