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
import { PermanentError, RETRY_SECONDS, TemporaryError } from '../../lib/errors.js';
import type { EventSpec } from '../../lib/events.js';
import { conditionsFor, currentStatus } from '../../lib/hook.js';
import type { FinalizeHook, SyncHook } from '../../lib/operator.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { allObserved, keepObserved, observedNamed } from '../../lib/objects.js';
import { specParser } from '../../lib/spec.js';
import { AwsError, OWNER_TAG, OWNER_UID_TAG, type AccessKey, type AwsApi } from './api.js';
import {
  bucketCreated,
  bucketLists,
  bucketRetained,
  credentialsSecret,
  grantedKmsKey,
  keptKey,
  keyCreated,
  oldBucketsCondition,
  pendingStatus,
  planKeys,
  planOldBuckets,
  readyStatus,
  resyncAfter,
} from './plan.js';
import {
  arnParts,
  bucketNameProblem,
  bucketPolicy,
  kmsKeyRefusal,
  policyName,
  scrubAwsText,
  userName,
} from './policy.js';
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

export { KEY_GRACE_SECONDS } from './plan.js';

export function secretName(parent: ParentObject, spec: Spec): string {
  return spec.secretName ?? `${parent.metadata.name}-credentials`;
}

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

/** An AWS failure as the status and Events say it: AWS's words without the operator's account and identity. */
function describe(err: unknown): string {
  if (err instanceof AwsError && /Abort/.test(err.code)) return `${err.operation}: no answer within the deadline`;
  if (err instanceof AwsError) return scrubAwsText(`${err.operation}: ${err.code}: ${err.message}`);
  return scrubAwsText((err as Error)?.message ?? String(err));
}

/** One sync's inputs, and the buckets it records as created and retained as it goes (on failure too). */
interface SyncRun {
  aws: AwsApi;
  spec: Spec;
  owner: Owner;
  previous: Previous;
  /** The IAM user of this resource. */
  user: string;
  /** The credentials Secret's name. */
  secretName: string;
  observedSecret: KubeObject | undefined;
  specTags: Map<string, string>;
  /** The buckets the status records as created by this resource, as the sync found them. */
  recorded: ReadonlySet<string>;
  created: Set<string>;
  retained: Set<string>;
  /** Conditions beside Ready and Synced (old buckets waiting). */
  notes: ConditionInput[];
  note: (event: EventSpec) => void;
  now: Date;
}

/**
 * The sync: the bucket, the buckets a rename left behind, the IAM user, its policy, its access key, the user of
 * an older metaops, in the order AWS needs them, each a named step; the answer is built from what they made
 * (plan.ts). Each transition made in AWS is told as an Event (hook.event: BucketCreated, BucketRetained,
 * AccessKeyCreated, KeyRotated); it never changes the answer.
 */
export async function sync(hook: SyncHook<Spec, S3Clients>): Promise<CompositeSyncResponse> {
  const { request, parent, spec, now } = hook;
  const aws = (await hook.clients.aws()).withDeadline(HOOK_BUDGET_MS, hook.signal);
  const owner = ownerOf(parent);
  const previous = previousOf(parent);
  const wantedSecret = secretName(parent, spec);
  const recorded = recordedBuckets(previous);
  const run: SyncRun = {
    aws,
    spec,
    owner,
    previous,
    user: userName(owner.namespace, owner.name, owner.uid),
    secretName: wantedSecret,
    // Found by the object's own name, never by a key of the observed map: a Secret named `constructor` must not
    // find Object.prototype's.
    observedSecret: observedNamed(request.children, 'Secret', 'v1', wantedSecret),
    specTags: tagsOf(parent.spec),
    recorded,
    created: new Set(recorded),
    retained: new Set(previous.retainedBuckets),
    notes: [],
    note: hook.event,
    now,
  };
  const step = stepsOf(run);
  const region = await step('bucket', () => ensureBucket(run));
  const waiting = await step('old buckets', () => retireOldBuckets(run));
  const arn = await step('IAM user', () => ensureUser(run));
  const policyArn = await step('IAM policy', () => ensurePolicy(run, arn, region));
  const key = await step('access key', () => ensureKey(run));
  const synced = { bucket: spec.bucketName, region, secretName: wantedSecret };
  if ('pending' in key) {
    const status = pendingStatus(
      parent,
      { ...synced, lists: bucketLists(run.created, run.retained) },
      key.pending,
      now,
    );
    return { status, children: allObserved(request.children).map(keepObserved), resyncAfterSeconds: key.wait };
  }
  // The Secret gets this user's key: the user an older metaops named after namespace and name alone goes,
  // with its keys, as a rotated key does (only if its tag names this resource).
  await step('old IAM user', () => retireLegacyUser(aws, owner, previous, run.user));
  const done = { ...synced, lists: bucketLists(run.created, run.retained) };
  return {
    status: readyStatus(parent, { ...done, user: run.user, policyArn, keyId: key.key.id }, run.notes, now),
    children: [credentialsSecret(parent, done, key.key, aws.endpoint)],
    ...resyncAfter(waiting, key.recheckIn),
  };
}

/**
 * Runs a named step of the sync. A failure, temporary or not, deletes nothing already created: it is answered
 * as `<step>: <what AWS said>` on Ready and Synced, the Secret kept as observed (lib/operator.ts), the hook
 * called again; what was created so far is recorded, so that finalize can clean it up.
 */
function stepsOf(run: SyncRun) {
  return async <T>(name: string, effect: () => Promise<T>): Promise<T> => {
    try {
      return await effect();
    } catch (err) {
      const options = { conditions: ['Ready', 'Synced'], status: bucketLists(run.created, run.retained) };
      // A spec the step refused (a KMS key of another account): that reason, not an AWS failure's.
      if (err instanceof PermanentError) throw new PermanentError(err.reason, `${name}: ${err.message}`, options);
      throw awsFailure(err, `${name}: ${describe(err)}`, options);
    }
  };
}

/** The bucket: ours by its tags, or created now; someone else's is refused and never touched. Its region. */
async function ensureBucket(run: SyncRun): Promise<string> {
  const { aws, spec, owner, previous } = run;
  const bucket = spec.bucketName;
  const hint = spec.region ?? (previous.bucketName === bucket ? previous.region : undefined);
  const found = await aws.findBucket(bucket, hint);
  let region: string;
  let tags: Map<string, string>;
  const desiredTags = new Map<string, string>(run.specTags);
  for (const [k, v] of ownerTags(owner)) desiredTags.set(k, v);
  if (!found) {
    region = spec.region ?? aws.region;
    await aws.createBucket(bucket, region, ownerTags(owner));
    tags = ownerTags(owner);
    run.note(bucketCreated(bucket, region));
  } else {
    if (!owns(owner, found.tags, run.recorded.has(bucket)))
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
  run.created.add(bucket);
  run.retained.delete(bucket);
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
  return region;
}

/**
 * Buckets a rename left behind: Retain lists them; Delete deletes them (re-checking their tags), and one that is
 * not empty stays listed, with a condition, until it is gone. The buckets still waiting.
 */
async function retireOldBuckets(run: SyncRun): Promise<string[]> {
  const { aws, spec, owner, created, retained } = run;
  const plan = planOldBuckets(created, spec.bucketName, spec.deletionPolicy);
  for (const old of plan.retain) {
    created.delete(old);
    retained.add(old);
    run.note(bucketRetained(old));
  }
  const waiting: string[] = [];
  for (const old of plan.delete) {
    // Emptied or deleted only under this resource's own UID tag: a bucket tagged by name alone (an older metaops)
    // may be claimed by a sync, never destroyed on the strength of a status that anyone with s3s/status can write.
    const result = await aws.deleteBucket(old, spec.forceDelete, (t) => owns(owner, t));
    if (result === 'notEmpty') waiting.push(old);
    else created.delete(old);
    if (result === 'notOwned') retained.add(old);
  }
  const condition = oldBucketsCondition(waiting, spec.forceDelete);
  if (condition) run.notes.push(condition);
  return waiting;
}

/** The IAM user: ours by its tags, or created now. Its ARN's partition and account. */
async function ensureUser(run: SyncRun): Promise<{ partition: string; account: string }> {
  const { aws, owner, user } = run;
  let iamUser = await aws.getUser(user);
  if (!iamUser) iamUser = await aws.createUser(user, ownerTags(owner));
  else if (!owns(owner, iamUser.tags))
    throw new AwsError('IAMNameTaken', notOurs(owner, `IAM user ${user}`, iamUser.tags), 'CreateUser');
  const arn = arnParts(iamUser.arn);
  if (!arn) throw new AwsError('InvalidResponse', 'the IAM user has no usable ARN', 'GetUser');
  return arn;
}

/** The policy allowing the bucket's operations (ours by its tags, its document as specified), attached. Its ARN. */
async function ensurePolicy(
  run: SyncRun,
  arn: { partition: string; account: string },
  region: string,
): Promise<string> {
  const { aws, spec, owner, user } = run;
  const policy = policyName(owner.namespace, owner.name, owner.uid);
  const policyArn = `arn:${arn.partition}:iam::${arn.account}:policy/${policy}`;
  const key = grantedKmsKey(spec.encryption);
  const refusal = key ? kmsKeyRefusal(key, { ...arn, region }) : undefined;
  if (refusal) throw new PermanentError('InvalidSpec', `spec.encryption.kmsKeyId: ${refusal}`);
  const document = bucketPolicy(spec.bucketName, key);
  const existingPolicy = await aws.getPolicy(policyArn);
  if (!existingPolicy) await aws.createPolicy(policy, document, ownerTags(owner));
  else if (!owns(owner, existingPolicy.tags))
    throw new AwsError('IAMNameTaken', notOurs(owner, `IAM policy ${policy}`, existingPolicy.tags), 'CreatePolicy');
  else if (!sameJson(await aws.policyDocument(policyArn, existingPolicy.defaultVersionId), document))
    await aws.setPolicyDocument(policyArn, document);
  if (!(await aws.attachedPolicies(user)).includes(policyArn)) await aws.attachPolicy(user, policyArn);
  return policyArn;
}

/**
 * The access key, as planKeys says: the one in the observed Secret while IAM still has it (the others deleted
 * once past the grace period). Otherwise a new one, unless IAM has a key younger than the grace period: that
 * one is in a Secret Metacontroller's cache does not show yet (a sync that races the Secret's creation must not
 * rotate the key it just made), and is waited for. Room is made first: IAM allows two keys per user.
 */
async function ensureKey(
  run: SyncRun,
): Promise<{ key: AccessKey; recheckIn: number | undefined } | { pending: string; wait: number }> {
  const { aws, user } = run;
  const plan = planKeys(await aws.listAccessKeys(user), keptKey(run.observedSecret), run.now);
  if ('pending' in plan) return { pending: plan.pending.id, wait: plan.wait };
  if ('keep' in plan) {
    for (const id of plan.deleteOld) await aws.deleteAccessKey(user, id);
    return { key: plan.keep, recheckIn: plan.recheckIn };
  }
  for (const id of plan.deleteBefore) await aws.deleteAccessKey(user, id);
  const key = await aws.createAccessKey(user);
  for (const id of plan.deleteAfter) await aws.deleteAccessKey(user, id);
  run.note(keyCreated(plan.rotated, key.id, user, run.secretName));
  return { key, recheckIn: undefined };
}

/**
 * spec.tags as sent, every own key included: a key such as `__proto__` is an ordinary tag key for S3, and reading
 * the raw object (into a Map, never into `{}`) keeps it. The spec was checked against the schema first (every
 * value of every own key a string, `__proto__` included), so this only reads.
 */
function tagsOf(spec: ParentObject['spec']): Map<string, string> {
  // Stryker disable next-line OptionalChaining: the sync runs only with a valid spec, so parent.spec is there
  const tags = (spec as { tags?: Record<string, string> } | undefined)?.tags ?? {};
  return new Map(Object.entries(tags));
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
  const forceDelete = spec?.forceDelete === true;
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
      const result = await aws.deleteBucket(bucket, forceDelete, (t) => owns(owner, t));
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
          message: forceDelete
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
