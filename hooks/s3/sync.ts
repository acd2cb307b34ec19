// S3 sync and finalize. The sync hook ensures, idempotently: the bucket with its settings, an IAM user named
// after the resource, a policy allowing the bucket's own operations and nothing else, one access key; and
// answers with the Secret holding the credentials. IAM returns a secret key only when the key is created, so
// the Secret itself is the memory: it is read back from the observed children and re-emitted.
import type { ConditionInput } from '../../lib/conditions.js';
import { conditionsFor, currentStatus, invalidSpecResponse } from '../../lib/hook.js';
import { childLabels } from '../../lib/labels.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { allObserved, keepObserved, observedNamed } from '../../lib/objects.js';
import { specParser } from '../../lib/spec.js';
import { AwsError, type AwsApi } from './api.js';
import { bucketArn, bucketNameProblem, bucketPolicy, policyName, userName } from './policy.js';
import { S3Spec, type S3Spec as Spec } from './schema.js';

const parser = specParser(S3Spec, (spec) => {
  const problem = bucketNameProblem(spec.bucketName);
  if (problem) return `spec.bucketName "${spec.bucketName}" ${problem}`;
  if (spec.encryption.type === 'SSE-S3' && spec.encryption.kmsKeyId) return 'spec.encryption.kmsKeyId is only used with type SSE-KMS';
  return undefined;
});

/** Seconds before retrying after an AWS error; throttling waits longer. */
export const BACKOFF_SECONDS = 30;
export const THROTTLED_SECONDS = 60;

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

function credentialsSecret(parent: ParentObject, spec: Spec, aws: AwsApi, key: { id: string; secret: string }, region: string): KubeObject {
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
  if (/AccessDenied|InvalidClientTokenId|SignatureDoesNotMatch|UnrecognizedClient|Forbidden/.test(code)) return 'AccessDenied';
  if (code === 'BucketAlreadyExists') return 'BucketAlreadyExists';
  if (/Timeout|Abort|ECONNREFUSED|ENOTFOUND|ECONNRESET|NetworkingError|socket/i.test(`${code} ${(err as Error)?.message}`)) {
    return 'Unreachable';
  }
  return 'AWSError';
}

function describe(err: unknown): string {
  if (err instanceof AwsError && /Abort/.test(err.code)) return `${err.operation}: no answer within the deadline`;
  if (err instanceof AwsError) return `${err.operation}: ${err.code}: ${err.message}`;
  return (err as Error)?.message ?? String(err);
}

export async function sync(request: CompositeSyncRequest, aws: AwsApi, now: Date): Promise<CompositeSyncResponse> {
  const parent = request.parent;
  const parsed = parser.parse(parent.spec);
  if (!parsed.ok) return invalidSpecResponse(request, parsed.message, now);
  const spec = parsed.spec;
  const ns = parent.metadata.namespace ?? 'default';
  const name = parent.metadata.name!;
  const previous = currentStatus(parent) as { bucketName?: string; retainedBuckets?: string[]; policyArn?: string };
  const region = spec.region ?? aws.region;
  const user = userName(ns, name);
  const observedSecret = observedNamed(request.children, 'Secret', 'v1', secretName(parent, spec));
  const retained = new Set(previous.retainedBuckets ?? []);
  const notes: ConditionInput[] = [];
  let step = 'bucket';

  try {
    await aws.ensureBucket(
      spec.bucketName,
      {
        region,
        versioning: spec.versioning,
        encryption: spec.encryption,
        publicAccessBlock: spec.publicAccessBlock,
        tags: spec.tags ?? {},
      },
      `${ns}/${name}`,
      previous.bucketName === spec.bucketName,
    );

    // A renamed bucket: the old one follows the deletion policy.
    const old = previous.bucketName;
    if (old && old !== spec.bucketName) {
      step = 'old bucket';
      if (spec.deletionPolicy === 'Delete') {
        const result = await aws.deleteBucket(old, spec.forceDelete);
        if (result === 'notEmpty') {
          notes.push({ type: 'OldBucketDeleted', status: false, reason: 'BucketNotEmpty', message: `old bucket ${old} is not empty; set forceDelete to empty it, or empty it yourself` });
        } else {
          retained.delete(old);
        }
      } else {
        retained.add(old);
      }
    }

    step = 'IAM user';
    await aws.ensureUser(user, { 'metaops.dev/owner': `${ns}/${name}` });
    step = 'IAM policy';
    const policyArn = await aws.ensurePolicy(policyName(ns, name), bucketPolicy(spec.bucketName));
    await aws.attachPolicy(user, policyArn);

    // The access key: the one in the observed Secret while IAM still has it; otherwise a new one, and the
    // others deleted, so the user never holds more than two.
    step = 'access key';
    const existing = await aws.listAccessKeys(user);
    const data = (observedSecret?.['data'] ?? {}) as Record<string, unknown>;
    const keptId = unb64(data[keys.id]);
    const keptSecret = unb64(data[keys.secret]);
    let key: { id: string; secret: string };
    if (keptId && keptSecret && existing.includes(keptId)) {
      key = { id: keptId, secret: keptSecret };
      for (const id of existing) if (id !== keptId) await aws.deleteAccessKey(user, id);
    } else {
      // Make room first: IAM allows two keys per user.
      for (const id of existing.slice(0, Math.max(0, existing.length - 1))) await aws.deleteAccessKey(user, id);
      key = await aws.createAccessKey(user);
      for (const id of existing.slice(-1)) await aws.deleteAccessKey(user, id);
      notes.push({
        type: 'KeyRotated',
        status: true,
        reason: observedSecret ? 'KeyNotInIAM' : 'SecretMissing',
        message: `created access key ${key.id}${existing.length ? ` and deleted ${existing.join(', ')}` : ''}`,
      });
    }

    const status: Record<string, unknown> = {
      bucketName: spec.bucketName,
      arn: bucketArn(spec.bucketName),
      region,
      iamUser: user,
      policyArn,
      accessKeyId: key.id,
      secretName: secretName(parent, spec),
      observedGeneration: parent.metadata.generation ?? 0,
      conditions: conditionsFor(
        parent,
        [
          { type: 'Ready', status: true, reason: 'Available', message: `bucket ${spec.bucketName} and its credentials in Secret ${secretName(parent, spec)}` },
          { type: 'Synced', status: true, reason: 'Synced', message: 'bucket, user, policy and access key are as specified' },
          ...notes.filter((n) => n.type !== 'KeyRotated'),
        ],
        now,
      ),
    };
    if (retained.size) status['retainedBuckets'] = [...retained].sort();
    return { status, children: [credentialsSecret(parent, spec, aws, key, region)] };
  } catch (err) {
    // Temporary or not, nothing already created is deleted: the Secret is kept as observed, and the
    // hook asks to be called again.
    const reason = reasonOf(err);
    const message = `${step}: ${describe(err)}`;
    const status: Record<string, unknown> = {
      ...currentStatus(parent),
      conditions: conditionsFor(
        parent,
        [
          { type: 'Ready', status: false, reason, message },
          { type: 'Synced', status: false, reason, message },
        ],
        now,
      ),
    };
    return {
      status,
      children: allObserved(request.children).map(keepObserved),
      resyncAfterSeconds: reason === 'Throttled' ? THROTTLED_SECONDS : BACKOFF_SECONDS,
    };
  }
}

/**
 * Finalize: the access keys, the policy and the user are removed, and the bucket per deletionPolicy (a
 * non-empty bucket only with forceDelete). `finalized` is answered only after checking that they are gone.
 */
export async function finalize(request: CompositeSyncRequest, aws: AwsApi, now: Date): Promise<CompositeSyncResponse> {
  const parent = request.parent;
  const ns = parent.metadata.namespace ?? 'default';
  const name = parent.metadata.name!;
  const previous = currentStatus(parent) as { bucketName?: string; policyArn?: string; retainedBuckets?: string[] };
  const parsed = parser.parse(parent.spec);
  // A spec that no longer validates still names what was created: fall back to the status.
  const spec = parsed.ok ? parsed.spec : undefined;
  const bucket = spec?.bucketName ?? previous.bucketName;
  const deletionPolicy = spec?.deletionPolicy ?? 'Retain';
  const user = userName(ns, name);
  const retained = new Set(previous.retainedBuckets ?? []);
  try {
    await aws.deleteUser(user);
    const policyArn = previous.policyArn;
    if (policyArn) await aws.deletePolicy(policyArn);
    let bucketGone = true;
    let bucketNote: ConditionInput | undefined;
    if (bucket && deletionPolicy === 'Delete') {
      const result = await aws.deleteBucket(bucket, spec?.forceDelete ?? false);
      if (result === 'notEmpty') {
        bucketGone = false;
        bucketNote = {
          type: 'Finalized',
          status: false,
          reason: 'BucketNotEmpty',
          message: spec?.forceDelete
            ? `emptying bucket ${bucket}`
            : `bucket ${bucket} is not empty and forceDelete is false: empty it, set forceDelete: true, or set deletionPolicy: Retain`,
        };
      } else {
        bucketGone = !(await aws.bucketExists(bucket));
      }
    } else if (bucket) {
      retained.add(bucket);
    }
    const userGone = !(await aws.userExists(user));
    const policyGone = !policyArn || !(await aws.policyExists(policyArn));
    const done = userGone && policyGone && bucketGone;
    const status: Record<string, unknown> = {
      ...currentStatus(parent),
      conditions: conditionsFor(
        parent,
        [
          bucketNote ??
            (done
              ? {
                  type: 'Finalized',
                  status: true,
                  reason: deletionPolicy === 'Delete' ? 'Deleted' : 'BucketRetained',
                  message:
                    deletionPolicy === 'Delete'
                      ? 'access keys, policy, user and bucket deleted'
                      : `access keys, policy and user deleted; bucket ${bucket} retained (deletionPolicy: Retain)`,
                }
              : { type: 'Finalized', status: false, reason: 'Deleting', message: 'waiting for AWS to confirm the deletions' }),
        ],
        now,
      ),
    };
    if (retained.size) status['retainedBuckets'] = [...retained].sort();
    return done ? { status, children: [], finalized: true } : { status, children: [], finalized: false, resyncAfterSeconds: 10 };
  } catch (err) {
    const reason = reasonOf(err);
    return {
      status: {
        ...currentStatus(parent),
        conditions: conditionsFor(parent, [{ type: 'Finalized', status: false, reason, message: describe(err) }], now),
      },
      children: allObserved(request.children).map(keepObserved),
      finalized: false,
      resyncAfterSeconds: reason === 'Throttled' ? THROTTLED_SECONDS : BACKOFF_SECONDS,
    };
  }
}
