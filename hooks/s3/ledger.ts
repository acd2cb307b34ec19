// The namespace's ledger of buckets: every bucket an S3 resource of a namespace makes counts against a bound per
// namespace (METAOPS_S3_BUCKETS_PER_NAMESPACE) for as long as it exists, whether a live resource lists it or not.
// The account's bucket quota is shared by every tenant, and the buckets deletionPolicy Retain leaves when a resource
// is deleted are listed by no object: without this, a tenant that may hold one S3 resource at a time could delete
// and create again until the account is full.
//
// The ledger lives in AWS, beside the buckets (it outlives a restart of metaops, holds between replicas and between
// clusters sharing the account): one IAM managed policy per bucket, under the namespace's own path
// (/metaops/namespace-buckets/<namespace>/), granting nothing and attached to no one. Counting is one ListPolicies
// call (Scope Local, PathPrefix), made only before a CreateBucket, before anything is made for it (countBuckets: a
// resource the bound refuses makes no IAM user), never at rest but by a refused resource, whose recheck it is.
//
// Crash-consistent: the entry is written before CreateBucket and removed only once its bucket is gone; a sync killed
// in between leaves an entry that counts (never a bucket that does not), and the next sync of the resource finds its
// entry and goes on. Two syncs that reserve at once each count again after writing their entry, and an entry goes on
// only when fewer than `limit` others are as old or older (never both on one free place).
import { createHash } from 'node:crypto';
import { PermanentError, TemporaryError, RETRY_SECONDS } from '../../lib/index.js';
import { AwsError, findOwnBucket, OWNER_TAG, type AwsApi, type ListedPolicy } from './api.js';
import { arnParts, bucketArn, claimArn } from './policy.js';

/** The variable that sets the bound, and its default (an account has 10,000 buckets by default, 100 on old ones). */
export const BUCKETS_PER_NAMESPACE_ENV = 'METAOPS_S3_BUCKETS_PER_NAMESPACE';
export const DEFAULT_BUCKETS_PER_NAMESPACE = 100;
/** The largest bound: every entry of a namespace is read in one ListPolicies call (IAM's MaxItems is 1000). */
export const MAX_BUCKETS_PER_NAMESPACE = 900;

/** Ledger entries whose bucket is gone, removed at most this many per sync (one HeadBucket each), only when full. */
export const PRUNE_PER_SYNC = 10;
/**
 * An entry younger than this may belong to a CreateBucket under way (or killed and retried): never removed on its
 * bucket's absence before then.
 */
export const ENTRY_SETTLE_SECONDS = 600;

function bound(value: string | undefined): number | undefined {
  if (value === undefined) return DEFAULT_BUCKETS_PER_NAMESPACE;
  if (!/^\d{1,4}$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return n >= 1 && n <= MAX_BUCKETS_PER_NAMESPACE ? n : undefined;
}

/** The bound the server's settings give (the default when unset). */
export function bucketsPerNamespaceFromEnv(env: NodeJS.ProcessEnv): number {
  return bound(env[BUCKETS_PER_NAMESPACE_ENV]) ?? DEFAULT_BUCKETS_PER_NAMESPACE;
}

/** What is wrong with METAOPS_S3_BUCKETS_PER_NAMESPACE (the server refuses to start). */
export function bucketsPerNamespaceProblems(env: NodeJS.ProcessEnv): string[] {
  const value = env[BUCKETS_PER_NAMESPACE_ENV];
  if (value === undefined || bound(value) !== undefined) return [];
  return [
    `${BUCKETS_PER_NAMESPACE_ENV} ${JSON.stringify(value.slice(0, 40))} is not a whole number from 1 to ${MAX_BUCKETS_PER_NAMESPACE}`,
  ];
}

/** The IAM path of a namespace's ledger (a namespace is a DNS label: a path IAM accepts). */
export function ledgerPath(namespace: string): string {
  return `/metaops/namespace-buckets/${namespace}/`;
}

/**
 * The entry's name: IAM policy names are unique in the account whatever their path, so it names the namespace (by a
 * hash) as well as the bucket: a namespace's stale entry never blocks another namespace's bucket of that name.
 */
export function ledgerName(namespace: string, bucket: string): string {
  return `metaops.ns.${createHash('sha256').update(namespace).digest('hex').slice(0, 12)}.${bucket}`;
}

/** The entry's ARN, in the account and partition of `accountArn` (any ARN of the account: the user's). */
export function ledgerArn(accountArn: string, namespace: string, bucket: string): string | undefined {
  const arn = arnParts(accountArn);
  return arn
    ? `arn:${arn.partition}:iam::${arn.account}:policy${ledgerPath(namespace)}${ledgerName(namespace, bucket)}`
    : undefined;
}

/** The bucket an entry of this namespace names. */
function bucketOf(namespace: string, entry: ListedPolicy): string | undefined {
  const prefix = `${ledgerName(namespace, '')}`;
  return entry.name.startsWith(prefix) ? entry.name.slice(prefix.length) : undefined;
}

/** The entry's document: a Deny on the bucket (attached to no one; attached by mistake, it only denies). */
function entryDocument(bucket: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Sid: 'MetaopsNamespaceBucket', Effect: 'Deny', Action: 's3:*', Resource: bucketArn(bucket) }],
  });
}

export interface Reservation {
  aws: AwsApi;
  namespace: string;
  bucket: string;
  /** Any ARN of the operator's account (this resource's IAM user's). */
  accountArn: string;
  /** The tags of the entry (the resource that wrote it). */
  tags: Map<string, string>;
  limit: number;
  now: Date;
}

/** The namespace's entries, one ListPolicies (its short pages followed): at most MAX_BUCKETS_PER_NAMESPACE + 100. */
async function entries(
  r: Pick<Reservation, 'aws' | 'namespace'>,
): Promise<{ listed: ListedPolicy[]; truncated: boolean }> {
  const { policies, truncated } = await r.aws.listPolicies(ledgerPath(r.namespace), MAX_BUCKETS_PER_NAMESPACE + 100);
  // Only this namespace's own entries (the prefix ends with a slash, so namespace a-b's are not listed for a; the
  // name's hash of the namespace is checked as well).
  return { listed: policies.filter((p) => bucketOf(r.namespace, p) !== undefined), truncated };
}

function refusal(r: Pick<Reservation, 'namespace' | 'bucket' | 'limit'>, count: number): string {
  return `namespace ${r.namespace} already holds ${count} buckets made by metaops (retained ones included), the most this server allows a namespace (${BUCKETS_PER_NAMESPACE_ENV}=${r.limit}); bucket ${r.bucket} was not created. To free a place: delete buckets you no longer need in AWS (ask the operator; a retained bucket leaves the count once it is gone), and use deletionPolicy: Delete on S3 resources whose buckets need not outlive them`;
}

/**
 * Whether the bucket of that name is still the namespace's: 'namespace' when its owner tags name a resource of the
 * namespace (or, untagged, the bucket's claim does), 'gone' when it is absent or another's (its owner tags or its claim
 * name another namespace, or S3 answers AccessDenied: a bucket of another AWS account, bucket names being global),
 * 'unknown' when untagged and no claim says whose (a sync killed between CreateBucket and its tags: kept, counted).
 * At most one GetBucketTagging and one GetPolicy.
 */
export async function bucketHolder(
  aws: AwsApi,
  accountArn: string,
  namespace: string,
  bucket: string,
): Promise<'namespace' | 'gone' | 'unknown'> {
  let found;
  try {
    // Another account's bucket of that name (bucket names are global) is not the namespace's: gone.
    found = await findOwnBucket(aws, bucket);
  } catch (err) {
    if (err instanceof AwsError && err.code === 'AccessDenied') return 'gone';
    throw err;
  }
  if (!found) return 'gone';
  const by = found.tags.get(OWNER_TAG) ?? (await claimOwner(aws, accountArn, bucket));
  if (by === undefined) return 'unknown';
  return by.startsWith(`${namespace}/`) ? 'namespace' : 'gone';
}

/** The owner tag of the bucket's claim (policy.ts claimArn, at the account's root path). */
async function claimOwner(aws: AwsApi, accountArn: string, bucket: string): Promise<string | undefined> {
  const arn = claimArn(accountArn, bucket);
  if (!arn) return undefined;
  const claim = await aws.getPolicy(arn);
  return claim?.tags.get(OWNER_TAG);
}

/** Whether a bucket's owner tags name a resource of another namespace (the bucket is not this namespace's). */
export function namesAnotherNamespace(tags: Map<string, string> | undefined, namespace: string): boolean {
  const by = tags?.get(OWNER_TAG);
  return by !== undefined && !by.startsWith(`${namespace}/`);
}

/**
 * Entries of buckets no longer the namespace's (absent, or another namespace's or account's bucket of that name),
 * older than ENTRY_SETTLE_SECONDS, removed (at most PRUNE_PER_SYNC entries looked at, starting at a place that moves
 * with the clock, so that successive syncs look at every entry). How many went.
 */
async function prune(
  r: Pick<Reservation, 'aws' | 'namespace' | 'bucket' | 'accountArn' | 'now'>,
  listed: ListedPolicy[],
): Promise<number> {
  const old = listed.filter((e) => r.now.getTime() - e.created.getTime() >= ENTRY_SETTLE_SECONDS * 1000);
  if (old.length === 0) return 0;
  const start = (Math.floor(r.now.getTime() / 60_000) * PRUNE_PER_SYNC) % old.length;
  let removed = 0;
  for (let i = 0; i < Math.min(PRUNE_PER_SYNC, old.length); i++) {
    const entry = old[(start + i) % old.length]!;
    const bucket = bucketOf(r.namespace, entry)!;
    if (bucket === r.bucket) continue;
    if ((await bucketHolder(r.aws, r.accountArn, r.namespace, bucket)) !== 'gone') continue;
    await r.aws.deletePolicy(entry.arn);
    removed++;
  }
  return removed;
}

/**
 * Whether this entry is admitted: fewer than `limit` other entries of the namespace are as old as it or older. Two
 * entries of one moment (IAM's dates have whole seconds) each count the other: both may be refused (each sync tries
 * again), never both admitted past the bound. An entry admitted stays admitted: every later entry counts it.
 */
function admitted(listed: ListedPolicy[], name: string, limit: number): boolean {
  const own = listed.find((e) => e.name === name);
  if (!own) return false;
  return listed.filter((e) => e.name !== name && e.created.getTime() <= own.created.getTime()).length < limit;
}

/** The namespace's entries as one ListPolicies gave them (countBuckets), for reserveBucket to go on from. */
export interface Counted {
  listed: ListedPolicy[];
  truncated: boolean;
}

const full = (c: Counted, limit: number) => c.truncated || c.listed.length >= limit;

/**
 * Before anything is made for a new bucket (the resource's IAM user, the bucket's claim, its entry): the namespace's
 * entries (one ListPolicies, which needs no ARN of the account), and the bound applied as reserveBucket applies it. A
 * full namespace (its entries of buckets no longer its own, older than ENTRY_SETTLE_SECONDS, pruned first) refuses
 * TooManyBuckets, unless the bucket's own entry is there (listed, or, for a resource whose user exists, read with
 * GetPolicy: a sync of it killed after writing its entry, not listed yet): reserveBucket then goes on as before. A
 * resource refused here has made nothing in the account: no IAM user (the account's users are a quota every tenant
 * shares: one per refused resource would let a namespace at its bound fill it), no claim, no entry. A resource
 * without its user wrote no entry (its entry is written after its user), so it reads none: its calls at rest are
 * GetUser, the bucket's lookup and this ListPolicies, and the prune's (docs/s3.md).
 *
 * `accountArn`: the resource's user's when it exists. The count and an ARN of the account (the user's, else any
 * listed entry's; undefined when the user does not exist and the namespace has no entry).
 */
export async function countBuckets(
  r: Omit<Reservation, 'accountArn' | 'tags'> & { accountArn: string | undefined },
): Promise<{ counted: Counted; accountArn: string | undefined }> {
  let counted = await entries(r);
  const accountArn = r.accountArn ?? counted.listed[0]?.arn;
  if (!full(counted, r.limit) || !accountArn) return { counted, accountArn };
  if (counted.listed.some((e) => e.name === ledgerName(r.namespace, r.bucket))) return { counted, accountArn };
  const own = r.accountArn ? ledgerArn(r.accountArn, r.namespace, r.bucket) : undefined;
  if (own && (await r.aws.getPolicy(own))) return { counted, accountArn };
  if ((await prune({ ...r, accountArn }, counted.listed)) > 0) counted = await entries(r);
  if (full(counted, r.limit)) throw new PermanentError('TooManyBuckets', refusal(r, counted.listed.length));
  return { counted, accountArn };
}

/**
 * Before a CreateBucket: the bucket's entry in the namespace's ledger, found (a sync killed after writing it, or
 * another resource of the namespace making the same bucket) or written now, and admitted (see admitted). Refused (TooManyBuckets, no bucket made) when the namespace is full: a PermanentError when it was
 * full before this sync wrote anything, a TemporaryError (retried soon) when another sync took the last place at the
 * same moment (this sync's entry is removed again).
 */
export async function reserveBucket(r: Reservation & { counted?: Counted }): Promise<void> {
  const arn = ledgerArn(r.accountArn, r.namespace, r.bucket);
  if (!arn) throw new AwsError('InvalidResponse', 'the IAM user has no usable ARN', 'GetUser');
  const name = ledgerName(r.namespace, r.bucket);
  let wrote = false;
  if (!(await r.aws.getPolicy(arn))) {
    // The count made before the user (countBuckets), else one now.
    let { listed, truncated } = r.counted ?? (await entries(r));
    if (truncated || listed.length >= r.limit) {
      if ((await prune(r, listed)) > 0) ({ listed, truncated } = await entries(r));
      if (truncated || listed.length >= r.limit) throw new PermanentError('TooManyBuckets', refusal(r, listed.length));
    }
    try {
      await r.aws.createPolicy(name, entryDocument(r.bucket), r.tags, ledgerPath(r.namespace));
      wrote = true;
    } catch (err) {
      // Written a moment ago by another resource of the namespace making the same bucket: the same entry.
      if (!(err instanceof AwsError && err.code === 'EntityAlreadyExists')) throw err;
    }
  }
  // Counted again with this entry: two syncs that both found one place free are ordered by their entries. An entry
  // IAM does not list yet (IAM is eventually consistent) cannot be ordered: nothing is created until it is listed,
  // with every entry older than it (the entry stays and counts; the next sync finds it and counts again).
  const { listed, truncated } = await entries(r);
  if (!truncated && !listed.some((e) => e.name === name)) {
    throw new TemporaryError(
      'BucketPlacePending',
      `bucket ${r.bucket}'s place in namespace ${r.namespace}'s count of buckets is written and not yet listed by IAM; nothing was created, the next sync counts again`,
      { retryAfterSeconds: RETRY_SECONDS.step },
    );
  }
  if (!truncated && admitted(listed, name, r.limit)) return;
  if (wrote) await r.aws.deletePolicy(arn);
  throw new TemporaryError('TooManyBuckets', refusal(r, listed.length - (wrote ? 1 : 0)), {
    retryAfterSeconds: RETRY_SECONDS.failure,
  });
}

/**
 * After a CreateBucket: the bucket's entry, written again if it went meanwhile (pruned as absent while this sync's
 * CreateBucket was under way): a bucket never stays uncounted.
 */
export async function keepEntry(r: Omit<Reservation, 'limit' | 'now'>): Promise<void> {
  const arn = ledgerArn(r.accountArn, r.namespace, r.bucket);
  if (!arn || (await r.aws.getPolicy(arn))) return;
  await r.aws
    .createPolicy(ledgerName(r.namespace, r.bucket), entryDocument(r.bucket), r.tags, ledgerPath(r.namespace))
    .catch((err: unknown) => {
      if (!(err instanceof AwsError && err.code === 'EntityAlreadyExists')) throw err;
    });
}

/** Once the bucket is gone (deleted by metaops, or found absent): its entry removed, its place free. */
export async function releaseEntry(
  aws: AwsApi,
  accountArn: string | undefined,
  namespace: string,
  bucket: string,
): Promise<void> {
  const arn = accountArn ? ledgerArn(accountArn, namespace, bucket) : undefined;
  if (!arn || !(await aws.getPolicy(arn))) return;
  await aws.deletePolicy(arn);
}

/**
 * As releaseEntry, for a bucket this resource may never have made: its entry goes only when the bucket is no longer
 * the namespace's (absent, another namespace's or another account's; see bucketHolder).
 */
export async function releaseEntryIfAbsent(
  aws: AwsApi,
  accountArn: string | undefined,
  namespace: string,
  bucket: string,
): Promise<void> {
  const arn = accountArn ? ledgerArn(accountArn, namespace, bucket) : undefined;
  if (!arn || !(await aws.getPolicy(arn))) return;
  if ((await bucketHolder(aws, accountArn!, namespace, bucket)) !== 'gone') return;
  await aws.deletePolicy(arn);
}
