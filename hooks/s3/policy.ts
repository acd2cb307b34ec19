// Pure pieces of the S3 controller: bucket name rules, IAM names, the least-privilege policy.
import { createHash } from 'node:crypto';
import { parseJson } from '../../lib/index.js';

/**
 * S3's bucket naming rules (general purpose buckets), beyond the CRD's pattern: undefined when the name is
 * valid, else why not.
 */
export function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return 'must be 3 to 63 characters long';
  if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(name)) {
    return 'may contain only lower-case letters, digits, dots and hyphens, and must begin and end with a letter or digit';
  }
  if (name.includes('..')) return 'must not contain two adjacent dots';
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name)) return 'must not be formatted as an IP address';
  for (const prefix of ['xn--', 'sthree-', 'amzn-s3-demo-'])
    if (name.startsWith(prefix)) return `must not begin with "${prefix}"`;
  for (const suffix of ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3']) {
    if (name.endsWith(suffix)) return `must not end with "${suffix}"`;
  }
  return undefined;
}

/** IAM names: at most `max` characters of [\w+=,.@-]. */
function clean(base: string): string {
  return base.replace(/[^\w+=,.@-]/g, '-');
}

/**
 * The IAM user of an S3 resource: a readable `metaops-<namespace>-<name>` prefix, cut to fit IAM's 64
 * characters, and 12 hex digits of a hash of the resource's UID. Joining namespace and name alone is ambiguous
 * (`team`/`a-prod` and `team-a`/`prod`); the UID also tells apart a resource deleted and re-created under the
 * same name.
 */
export function userName(namespace: string, name: string, uid: string): string {
  const hash = createHash('sha256').update(uid).digest('hex').slice(0, 12);
  return `${clean(`metaops-${namespace}-${name}`).slice(0, 64 - 13)}-${hash}`;
}

/** The managed policy of an S3 resource: named like its user (users and policies are apart in IAM). */
export function policyName(namespace: string, name: string, uid: string): string {
  return userName(namespace, name, uid);
}

export function bucketArn(bucket: string): string {
  return `arn:aws:s3:::${bucket}`;
}

/**
 * The bucket's own operations on the bucket and its objects, and nothing else. The seed's operator allowed
 * s3:* on the bucket ARN only, so every object operation was denied; object actions need `<bucket>/*`. With a KMS
 * key (an exact key ARN that kmsKeyRefusal accepted), also that key's data-key and decrypt actions.
 */
export function bucketPolicy(bucket: string, kmsKeyArn?: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'Bucket',
        Effect: 'Allow',
        Action: [
          's3:ListBucket',
          's3:ListBucketVersions',
          's3:ListBucketMultipartUploads',
          's3:GetBucketLocation',
          's3:GetBucketVersioning',
        ],
        Resource: [bucketArn(bucket)],
      },
      {
        Sid: 'Objects',
        Effect: 'Allow',
        Action: [
          's3:GetObject',
          's3:GetObjectVersion',
          's3:PutObject',
          's3:DeleteObject',
          's3:DeleteObjectVersion',
          's3:GetObjectTagging',
          's3:PutObjectTagging',
          's3:AbortMultipartUpload',
          's3:ListMultipartUploadParts',
        ],
        Resource: [`${bucketArn(bucket)}/*`],
      },
      ...(kmsKeyArn ? [kmsStatement(kmsKeyArn)] : []),
    ],
  });
}

/** bucketPolicy's statement granting a KMS key: its data-key and decrypt actions on that key alone. */
function kmsStatement(kmsKeyArn: string): Record<string, unknown> {
  return { Sid: 'Kms', Effect: 'Allow', Action: ['kms:GenerateDataKey', 'kms:Decrypt'], Resource: [kmsKeyArn] };
}

/** A policy document read, with its Statement array; undefined for a text that is not JSON or has no such array. */
function readPolicy(document: string): { parsed: object; statements: unknown[] } | undefined {
  let parsed: unknown;
  try {
    parsed = parseJson(document);
  } catch {
    return undefined;
  }
  const statements = (parsed as { Statement?: unknown } | null)?.Statement;
  return Array.isArray(statements) ? { parsed: parsed as object, statements } : undefined;
}

/**
 * The bucket a policy document of bucketPolicy's grants: its `Bucket` statement's one resource, a valid bucket name;
 * undefined for any other document (nothing is guessed from it).
 */
export function grantedBucket(document: string): string | undefined {
  const statements = readPolicy(document)?.statements;
  if (!statements) return undefined;
  const resources = statements
    .filter((s) => (s as { Sid?: unknown } | null)?.Sid === 'Bucket')
    .flatMap((s) => ([] as unknown[]).concat((s as { Resource?: unknown }).Resource ?? []));
  if (resources.length !== 1 || typeof resources[0] !== 'string') return undefined;
  const bucket = /^arn:aws:s3:::(.+)$/.exec(resources[0])?.[1];
  return bucket !== undefined && !bucketNameProblem(bucket) ? bucket : undefined;
}

/**
 * The policy document without its statements that allow any KMS action (bucketPolicy's `Kms`), or undefined when it
 * has none: every other statement kept as written. `keep`: the key the rules grant now, whose statement is kept when
 * it is exactly bucketPolicy's for that key (any other KMS statement goes: a wildcard, a condition, another key). A
 * document that is not JSON with a Statement array is not touched (undefined).
 */
export function withoutKmsGrant(document: string, keep?: string): string | undefined {
  const policy = readPolicy(document);
  if (!policy) return undefined;
  const { parsed, statements } = policy;
  const grantsKms = (s: unknown) =>
    ([] as unknown[])
      .concat((s as { Action?: unknown } | null)?.Action ?? [])
      .some((a) => typeof a === 'string' && a.toLowerCase().startsWith('kms:'));
  const kept = statements.filter(
    (s) => !grantsKms(s) || (keep !== undefined && JSON.stringify(s) === JSON.stringify(kmsStatement(keep))),
  );
  if (kept.length === statements.length) return undefined;
  return JSON.stringify({ ...parsed, Statement: kept });
}

/**
 * An exact KMS key ARN, `arn:<partition>:kms:<region>:<account>:key/<key id>`, the key ID a UUID or a multi-Region
 * key's `mrk-` and 32 hex digits: nothing an IAM policy reads as more than one key (no `*`, no alias, no bare ID
 * that the region and account would have to complete). The CRD's pattern for spec.encryption.kmsKeyId.
 */
export const KMS_KEY_ARN_PATTERN =
  '^arn:aws(-[a-z]+)*:kms:[a-z]{2}(-[a-z]+)+-[0-9]+:[0-9]{12}:key/(mrk-[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$';
const KMS_KEY_ARN = new RegExp(KMS_KEY_ARN_PATTERN);

/** The parts of an exact KMS key ARN; undefined for anything else. */
export function kmsKeyParts(arn: string): { partition: string; region: string; account: string } | undefined {
  if (!KMS_KEY_ARN.test(arn)) return undefined;
  const [, partition, , region, account] = arn.split(':') as [string, string, string, string, string];
  return { partition, region, account };
}

/**
 * The KMS key a raw spec (one that may not pass the schema) asks to be granted: spec.encryption.kmsKeyId with type
 * SSE-KMS, when it is an exact key ARN; else undefined.
 */
export function rawKmsKey(spec: unknown): string | undefined {
  const encryption = (spec as { encryption?: unknown } | null | undefined)?.encryption;
  const { type, kmsKeyId } = (encryption ?? {}) as { type?: unknown; kmsKeyId?: unknown };
  return type === 'SSE-KMS' && typeof kmsKeyId === 'string' && kmsKeyParts(kmsKeyId) ? kmsKeyId : undefined;
}

/**
 * Why spec.encryption.kmsKeyId, read from the raw spec before the schema, is no exact key ARN (undefined when it is,
 * or is absent): said plainly, rather than as the CRD pattern it misses.
 */
export function kmsKeyIdProblem(spec: unknown): string | undefined {
  const encryption = (spec as { encryption?: unknown } | null | undefined)?.encryption;
  const id = (encryption as { kmsKeyId?: unknown } | null | undefined)?.kmsKeyId;
  if (typeof id !== 'string' || KMS_KEY_ARN.test(id)) return undefined;
  const shown = JSON.stringify(id.length > 80 ? `${id.slice(0, 77)}...` : id);
  return `spec.encryption.kmsKeyId ${shown} is not the ARN of a KMS key (arn:<partition>:kms:<region>:<account>:key/<key id>): aliases, key IDs and wildcards are never granted`;
}

/** The characters AWS allows in a tag's key and value: letters, digits and spaces of any script, and + - = . _ : / @. */
const AWS_TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;
/** The longest tag key and value AWS takes, in Unicode characters. */
export const MAX_TAG_KEY = 128;
export const MAX_TAG_VALUE = 256;

/**
 * Why AWS would refuse spec.tags as the bucket's tag set (InvalidTag), read from the raw spec before any AWS call:
 * a key of 1 to 128 and a value of at most 256 characters, each of letters, digits, spaces and `+ - = . _ : / @`,
 * and no key with the prefix AWS reserves (`aws:`, in any case). Undefined when AWS takes every tag. Checked before
 * the bucket is made, so that no bucket is left whose tags every later sync fails to put.
 */
export function tagsProblem(spec: unknown): string | undefined {
  const tags = (spec as { tags?: unknown } | null | undefined)?.tags;
  if (!tags || typeof tags !== 'object' || Array.isArray(tags)) return undefined;
  for (const [key, value] of Object.entries(tags as Record<string, unknown>)) {
    const shown = JSON.stringify(key.length > 40 ? `${key.slice(0, 37)}...` : key);
    const keyLength = [...key].length;
    if (keyLength === 0 || keyLength > MAX_TAG_KEY)
      return `spec.tags key ${shown} must be 1 to ${MAX_TAG_KEY} characters (it has ${keyLength}), as AWS requires`;
    if (key.toLowerCase().startsWith('aws:'))
      return `spec.tags key ${shown} starts with aws:, a prefix AWS reserves for its own tags`;
    if (!AWS_TAG_TEXT.test(key))
      return `spec.tags key ${shown} must hold only letters, digits, spaces and + - = . _ : / @, as AWS requires`;
    if (typeof value !== 'string') continue;
    const valueLength = [...value].length;
    if (valueLength > MAX_TAG_VALUE)
      return `spec.tags.${key} must be at most ${MAX_TAG_VALUE} characters (it has ${valueLength}), as AWS requires`;
    if (!AWS_TAG_TEXT.test(value))
      return `spec.tags.${key} ${JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value)} must hold only letters, digits, spaces and + - = . _ : / @, as AWS requires`;
  }
  return undefined;
}

/** What METAOPS_KMS_KEY_ALLOWLIST allows: each key ARN, for every namespace or for the namespaces named. */
export type KmsAllowlist = ReadonlyArray<{ arn: string; namespace?: string }>;

/** A namespace name (a DNS label). */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** One allowlist entry: `<key ARN>` (every namespace) or `<namespace>=<key ARN>`; undefined when it is neither. */
function kmsEntry(text: string): { arn: string; namespace?: string } | undefined {
  const eq = text.indexOf('=');
  const namespace = eq < 0 ? undefined : text.slice(0, eq);
  const arn = text.slice(eq + 1);
  if (!kmsKeyParts(arn)) return undefined;
  if (namespace === undefined) return { arn };
  return NAMESPACE.test(namespace) ? { arn, namespace } : undefined;
}

function entries(value: string): string[] {
  return value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
}

/**
 * The server's KMS allowlist (METAOPS_KMS_KEY_ALLOWLIST, comma separated, as METAOPS_DEBUG_IMAGE_ALLOWLIST is):
 * unset, no key may be named and SSE-KMS uses the AWS managed key.
 */
export function kmsAllowlistFromEnv(env: NodeJS.ProcessEnv): KmsAllowlist {
  const value = env['METAOPS_KMS_KEY_ALLOWLIST'];
  return value === undefined ? [] : entries(value).flatMap((e) => kmsEntry(e) ?? []);
}

/** What is wrong with METAOPS_KMS_KEY_ALLOWLIST (the server refuses to start): set but empty, or an entry that is no key. */
export function kmsAllowlistProblems(env: NodeJS.ProcessEnv): string[] {
  const value = env['METAOPS_KMS_KEY_ALLOWLIST'];
  if (value === undefined) return [];
  const listed = entries(value);
  if (listed.length === 0) return ['METAOPS_KMS_KEY_ALLOWLIST is empty: list key ARNs, or unset it'];
  return listed
    .filter((e) => !kmsEntry(e))
    .map(
      (e) =>
        `METAOPS_KMS_KEY_ALLOWLIST entry ${JSON.stringify(e)} is not <key ARN> or <namespace>=<key ARN> (arn:<partition>:kms:<region>:<account>:key/<key id>; no alias, no wildcard)`,
    );
}

/**
 * Why a parent in `namespace` may not name this KMS key, or undefined when the server's allowlist allows it there.
 * Checked before any AWS call: a key the server does not allow is never put on a bucket or in a policy.
 */
export function kmsKeyNotAllowed(arn: string, namespace: string, allowlist: KmsAllowlist): string | undefined {
  if (allowlist.some((e) => e.arn === arn && (e.namespace === undefined || e.namespace === namespace)))
    return undefined;
  return allowlist.length === 0
    ? `spec.encryption.kmsKeyId: this server allows no customer managed KMS key (METAOPS_KMS_KEY_ALLOWLIST); leave kmsKeyId out to use the AWS managed key`
    : `spec.encryption.kmsKeyId ${arn} is not allowed for namespace ${namespace} by the server's KMS key allowlist (METAOPS_KMS_KEY_ALLOWLIST); nothing is granted`;
}

/**
 * Why the bucket's user may not be granted this key, or undefined when it is an exact key ARN in the operator's
 * own partition and account (those of its IAM user) and in the bucket's region (where S3 can use it). Checked
 * again where the policy is written, whatever the allowlist says: a key of another account is never granted.
 */
export function kmsKeyRefusal(
  arn: string,
  where: { partition: string; account: string; region: string },
): string | undefined {
  const key = kmsKeyParts(arn);
  if (!key) return `${arn} is not the ARN of a KMS key`;
  if (key.partition !== where.partition || key.account !== where.account)
    return `the KMS key ${arn} is not in the operator's AWS account; it is never granted`;
  if (key.region !== where.region)
    return `the KMS key ${arn} is not in the bucket's region ${where.region}; it is never granted`;
  return undefined;
}

/** The partition and account of an IAM ARN (arn:<partition>:iam::<account>:...). */
export function arnParts(arn: string): { partition: string; account: string } | undefined {
  const m = /^arn:([\w-]+):iam::(\d{12}):/.exec(arn);
  return m ? { partition: m[1]!, account: m[2]! } : undefined;
}

/**
 * A policy ARN as the status shows it: the operator's AWS account ID replaced by `<account>` (a tenant reads the
 * status; the account is the operator's, not the tenant's), the partition and the policy's name as they are.
 * The hook never reads it back to find the policy: it derives the ARN from the IAM user's.
 */
export function shownPolicyArn(arn: string): string {
  return arn.replace(/^(arn:[\w-]+:iam::)\d{12}:/, '$1<account>:');
}

/** AWS's words as a tenant may read them: lib/aws-text.ts (shared with EtcdBackup's status). */
export { scrubAwsText } from '../../lib/index.js';

/**
 * The claim of a bucket: an IAM managed policy named after the bucket (`metaops.bucket.<bucket>`; a dot never
 * begins the `metaops-` policies of S3 resources), tagged with its owner, granting nothing and attached to no one.
 * IAM refuses a second CreatePolicy of one name (EntityAlreadyExists), so of two syncs that both believe they
 * created the bucket (in us-east-1 CreateBucket answers 200 for a bucket the account owns already), exactly one
 * holds the claim; the other tags and grants nothing. It lives in AWS beside the bucket: it outlives a restart of
 * metaops, holds between replicas and between clusters sharing the account. Taken after CreateBucket and before the
 * owner tags (or before an untagged bucket is taken back); released once the bucket is deleted or retained.
 */
export function claimName(bucket: string): string {
  return `metaops.bucket.${bucket}`;
}

/** The claim's ARN, in the account and partition of the resource's IAM user. */
export function claimArn(userArn: string, bucket: string): string | undefined {
  const arn = arnParts(userArn);
  return arn ? `arn:${arn.partition}:iam::${arn.account}:policy/${claimName(bucket)}` : undefined;
}
