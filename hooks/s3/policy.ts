// Pure pieces of the S3 controller: bucket name rules, IAM names, the least-privilege policy.
import { createHash } from 'node:crypto';

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
 * s3:* on the bucket ARN only, so every object operation was denied; object actions need `<bucket>/*`.
 */
export function bucketPolicy(bucket: string, kms?: KmsGrant): string {
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
      ...(kms
        ? [
            {
              Sid: 'Kms',
              Effect: 'Allow',
              Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
              Resource: [kms.resource],
              ...(kms.alias ? { Condition: { 'ForAnyValue:StringEquals': { 'kms:ResourceAliases': kms.alias } } } : {}),
            },
          ]
        : []),
    ],
  });
}

/** What the bucket's user may use of KMS: one key, or the key behind one alias. */
export interface KmsGrant {
  resource: string;
  alias?: string;
}

/**
 * The KMS grant for SSE-KMS with a customer key: that key's data-key and decrypt actions and nothing wider.
 * A key ID becomes the key's ARN in the bucket's region and the account; an alias (name or ARN) is granted
 * through the `kms:ResourceAliases` condition, as IAM cannot name a key by its alias. undefined: no key named
 * (the AWS managed key, which S3 uses on the caller's behalf).
 */
export function kmsGrant(
  kmsKeyId: string | undefined,
  region: string,
  partition: string,
  account: string,
): KmsGrant | undefined {
  if (!kmsKeyId) return undefined;
  const arn = /^arn:([\w-]+):kms:([a-z0-9-]+):(\d{12}):(key|alias)\/(.+)$/.exec(kmsKeyId);
  if (arn) {
    const [, p, r, a, kind, rest] = arn;
    return kind === 'key'
      ? { resource: kmsKeyId }
      : { resource: `arn:${p}:kms:${r}:${a}:key/*`, alias: `alias/${rest}` };
  }
  if (kmsKeyId.startsWith('alias/'))
    return { resource: `arn:${partition}:kms:${region}:${account}:key/*`, alias: kmsKeyId };
  return { resource: `arn:${partition}:kms:${region}:${account}:key/${kmsKeyId}` };
}

/** The partition and account of an IAM ARN (arn:<partition>:iam::<account>:...). */
export function arnParts(arn: string): { partition: string; account: string } | undefined {
  const m = /^arn:([\w-]+):iam::(\d{12}):/.exec(arn);
  return m ? { partition: m[1]!, account: m[2]! } : undefined;
}
