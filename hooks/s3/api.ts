// What the S3 controller needs of AWS (S3 and IAM), as a small interface, and the error its implementations
// throw. No SDK here: the hooks import this, and the SDK (aws.ts) is loaded only when an S3 resource is synced.
//
// The interface is made of primitives (read this, create that); what is ours, and what may be changed or
// deleted, is decided in sync.ts from the objects' own tags (see docs/s3-failures.md). The one exception is
// deleteBucket, which re-reads the bucket's tags itself right before it empties or deletes anything.
import { byCodeUnits } from '../../lib/index.js';

export interface Encryption {
  type: 'SSE-S3' | 'SSE-KMS';
  kmsKeyId?: string | undefined;
}

export interface PublicAccessBlock {
  blockPublicAcls: boolean;
  ignorePublicAcls: boolean;
  blockPublicPolicy: boolean;
  restrictPublicBuckets: boolean;
}

export interface BucketSettings {
  versioning: boolean;
  encryption: Encryption;
  publicAccessBlock: PublicAccessBlock;
  /** Every tag of the bucket, the owner tags included. */
  tags: Map<string, string>;
}

/** The tags that mark a bucket, IAM user or policy as made by one S3 resource. */
export const OWNER_TAG = 'metaops.dev/owner';
export const OWNER_UID_TAG = 'metaops.dev/owner-uid';
/**
 * The record of intent on the resource's own IAM user, written before CreateBucket and removed once the bucket
 * carries its owner tags: the bucket it names, if it exists without any tag, was created by this resource (a sync
 * killed between CreateBucket and PutBucketTagging), and is taken back rather than refused as someone else's.
 */
export const BUCKET_INTENT_TAG = 'metaops.dev/creating-bucket';

/**
 * The record of one bucket on the resource's own IAM user: `metaops.dev/bucket.<bucket>`, written (with the record
 * of intent, in the same call) before CreateBucket and kept for as long as the resource manages the bucket: `made`
 * until it is deleted, `retained` once a rename or finalize retained it, until the status lists it as retained. The
 * memory of every bucket this resource made lives on AWS, beside the bucket: a sync killed before its status was
 * written, or a status lost, forgets none of them (deletionPolicy, retainedBuckets and finalize find them here).
 */
export const BUCKET_RECORD_PREFIX = 'metaops.dev/bucket.';
export type BucketRecord = 'made' | 'retained';

export function bucketRecordTag(bucket: string): string {
  return `${BUCKET_RECORD_PREFIX}${bucket}`;
}

/** The buckets the user's tags record, each `made` or `retained`. */
export function bucketRecords(tags: Map<string, string>): Map<string, BucketRecord> {
  const out = new Map<string, BucketRecord>();
  for (const [k, v] of tags) {
    if (k.startsWith(BUCKET_RECORD_PREFIX) && k.length > BUCKET_RECORD_PREFIX.length)
      out.set(k.slice(BUCKET_RECORD_PREFIX.length), v === 'retained' ? 'retained' : 'made');
  }
  return out;
}

export interface AccessKey {
  id: string;
  secret: string;
}

export interface AccessKeyInfo {
  id: string;
  /** IAM's own creation date of the key. */
  created: Date;
}

export interface BucketFound {
  /** The region the bucket is in (where every call about it goes). */
  region: string;
  tags: Map<string, string>;
}

export interface IamUser {
  arn: string;
  tags: Map<string, string>;
}

export interface IamPolicy {
  arn: string;
  defaultVersionId: string;
  tags: Map<string, string>;
  /** IAM's own creation date of the policy, when IAM gives one. */
  created?: Date | undefined;
}

/** A policy as ListPolicies names it. */
export interface ListedPolicy {
  name: string;
  arn: string;
  /** IAM's own creation date of the policy. */
  created: Date;
}

export interface AwsApi {
  readonly region: string;
  readonly endpoint: string | undefined;
  /** The same API, every call of which is abandoned `ms` from now: one hook call's budget. */
  withDeadline(ms: number, signal?: AbortSignal): AwsApi;

  /**
   * The bucket's region and tags; undefined when no such bucket exists. `regionHint` is tried first (a wrong
   * hint costs one redirect); the region found is remembered. Every call about a bucket expects it in the operator's
   * own AWS account (S3's ExpectedBucketOwner): a bucket of that name in another account is thrown as
   * BUCKET_OF_ANOTHER_ACCOUNT (S3 refuses it with the operator's account expected, and answers without), never found.
   */
  findBucket(bucket: string, regionHint?: string): Promise<BucketFound | undefined>;
  /**
   * Creates the bucket in `region`, untagged. Not a claim: in us-east-1 S3 answers 200 to a CreateBucket of a
   * bucket this account already owns, and elsewhere BucketAlreadyOwnedByYou is taken as done too; who owns the
   * bucket is decided by its claim (sync.ts, claimName).
   */
  createBucket(bucket: string, region: string): Promise<void>;
  /** Replaces the bucket's tags. */
  tagBucket(bucket: string, region: string, tags: Map<string, string>): Promise<void>;
  /** Reads each setting and writes only those that differ; returns the names of those written. */
  applyBucketSettings(
    bucket: string,
    region: string,
    settings: BucketSettings,
    currentTags: Map<string, string>,
  ): Promise<string[]>;
  /**
   * Empties (with `force`, one page per call) and deletes the bucket, after re-reading its tags: a bucket whose
   * tags `owned` does not accept is left alone ('notOwned'), and so is a bucket of that name in another account
   * ('absent': none is in the operator's). 'notEmpty' when objects remain.
   */
  deleteBucket(
    bucket: string,
    force: boolean,
    owned: (tags: Map<string, string>) => boolean,
    regionHint?: string,
  ): Promise<'deleted' | 'absent' | 'notEmpty' | 'notOwned'>;

  getUser(user: string): Promise<IamUser | undefined>;
  createUser(user: string, tags: Map<string, string>): Promise<IamUser>;
  /** Deletes the user's keys, detaches its policies, deletes it. The caller checked its tags. */
  deleteUser(user: string): Promise<void>;
  /** Sets these tags on the user (its other tags stay). */
  tagUser(user: string, tags: Map<string, string>): Promise<void>;
  /** Removes these tag keys from the user. */
  untagUser(user: string, keys: string[]): Promise<void>;

  getPolicy(arn: string): Promise<IamPolicy | undefined>;
  policyDocument(arn: string, versionId: string): Promise<string>;
  /** Creates a managed policy, under `path` (`/a/b/`; `/` when absent). Its ARN. */
  createPolicy(name: string, document: string, tags: Map<string, string>, path?: string): Promise<string>;
  /**
   * The account's own (customer managed) policies under `pathPrefix`, at most `max` of them in one call (IAM's
   * ListPolicies, Scope Local, MaxItems): `truncated` when IAM has more.
   */
  listPolicies(pathPrefix: string, max: number): Promise<{ policies: ListedPolicy[]; truncated: boolean }>;
  /** Makes `document` the policy's default version (IAM keeps five: the oldest non-default goes first). */
  setPolicyDocument(arn: string, document: string): Promise<void>;
  deletePolicy(arn: string): Promise<void>;

  attachedPolicies(user: string): Promise<string[]>;
  attachPolicy(user: string, policyArn: string): Promise<void>;
  detachPolicy(user: string, policyArn: string): Promise<void>;

  listAccessKeys(user: string): Promise<AccessKeyInfo[]>;
  createAccessKey(user: string): Promise<AccessKey>;
  deleteAccessKey(user: string, id: string): Promise<void>;
}

/** An AWS failure, with the service's error code (AccessDenied, BucketAlreadyExists, Throttling, ...). */
export class AwsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly operation: string,
  ) {
    super(message);
  }
}

/**
 * The code of findBucket's failure for a bucket of another AWS account: bucket names are global, so a tenant can make
 * a bucket of any free name in an account of its own, tag it as one of its S3 resources' and open its policy to the
 * operator. Such a bucket is never any resource's: nothing is made for it, and nothing is deleted in it.
 */
export const BUCKET_OF_ANOTHER_ACCOUNT = 'BucketOfAnotherAccount';

export function ofAnotherAccount(err: unknown): boolean {
  return err instanceof AwsError && err.code === BUCKET_OF_ANOTHER_ACCOUNT;
}

/**
 * The bucket as it is in the operator's account: another account's bucket of that name is none of it (undefined, as
 * absent). For the callers that look at a bucket this resource made or recorded (gone from the account, its claim,
 * record and ledger entry go); the spec's bucket is refused instead (sync.ts ensureBucket).
 */
export async function findOwnBucket(
  aws: AwsApi,
  bucket: string,
  regionHint?: string,
): Promise<BucketFound | undefined> {
  try {
    return await aws.findBucket(bucket, regionHint);
  } catch (err) {
    if (ofAnotherAccount(err)) return undefined;
    throw err;
  }
}

/** Tags as AWS lists them, into a Map (a tag key such as `__proto__` is an ordinary key). */
export function tagMap(
  list: ReadonlyArray<{ Key?: string | undefined; Value?: string | undefined }> | undefined,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of list ?? []) if (typeof t.Key === 'string') out.set(t.Key, t.Value ?? '');
  return out;
}

export function tagList(tags: Map<string, string>): { Key: string; Value: string }[] {
  return [...tags].sort(([a], [b]) => byCodeUnits(a, b)).map(([Key, Value]) => ({ Key, Value }));
}

const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/** A region as AWS names it; GetBucketLocation's legacy answers ('' and null for us-east-1, EU) mapped. */
export function normaliseRegion(value: string | null | undefined): string {
  if (value === undefined || value === null || value === '') return 'us-east-1';
  if (value === 'EU') return 'eu-west-1';
  if (!REGION.test(value))
    throw new AwsError('InvalidRegion', `AWS named the region "${value.slice(0, 40)}"`, 'GetBucketLocation');
  return value;
}

/**
 * The AWS partition of a region, by its prefix: `aws-cn` (cn-north-1), `aws-us-gov` (us-gov-west-1), `aws-iso`
 * (us-iso-east-1), `aws-iso-b` (us-isob-east-1), `aws-iso-e` (eu-isoe-west-1), `aws-iso-f` (us-isof-south-1), and
 * `aws` for the rest. Each partition is its own set of accounts and endpoints (amazonaws.com.cn, c2s.ic.gov, ...).
 */
export function partitionOf(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  const iso = /^[a-z]{2}-iso([a-z]?)-/.exec(region);
  if (iso) return iso[1] ? `aws-iso-${iso[1]}` : 'aws-iso';
  return 'aws';
}

/** The operator's region (AWS_REGION, AWS_DEFAULT_REGION, else us-east-1), as the SDK client takes it. */
export function operatorRegionOf(env: NodeJS.ProcessEnv): string {
  return env['AWS_REGION']?.trim() || env['AWS_DEFAULT_REGION']?.trim() || 'us-east-1';
}

/**
 * A region outside the operator's partition: no bucket of the operator's account can be there, and a call would
 * send the operator's signed request (its access key ID, the bucket's name) to another partition's hosts.
 */
export function foreignRegionProblem(field: string, region: unknown, operatorRegion: string): string | undefined {
  if (typeof region !== 'string' || region === '') return undefined;
  const own = partitionOf(operatorRegion);
  const theirs = partitionOf(region);
  return theirs === own
    ? undefined
    : `${field} ${JSON.stringify(region)} is in AWS partition ${theirs}, not the operator's (${own}, region ${operatorRegion}): its buckets are not the operator's account's, and metaops sends no request there`;
}
