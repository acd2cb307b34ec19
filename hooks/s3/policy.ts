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
  for (const prefix of ['xn--', 'sthree-', 'amzn-s3-demo-']) if (name.startsWith(prefix)) return `must not begin with "${prefix}"`;
  for (const suffix of ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3']) {
    if (name.endsWith(suffix)) return `must not end with "${suffix}"`;
  }
  return undefined;
}

/** IAM names: at most 64 characters of [\w+=,.@-]; long ones keep a readable prefix and a hash. */
function iamName(base: string, max = 64): string {
  const clean = base.replace(/[^\w+=,.@-]/g, '-');
  if (clean.length <= max) return clean;
  const hash = createHash('sha256').update(base).digest('hex').slice(0, 8);
  return `${clean.slice(0, max - 9)}-${hash}`;
}

/** The IAM user of an S3 resource: named after its namespace and name. */
export function userName(namespace: string, name: string): string {
  return iamName(`metaops-${namespace}-${name}`);
}

export function policyName(namespace: string, name: string): string {
  return iamName(`metaops-${namespace}-${name}-bucket`, 128);
}

export function bucketArn(bucket: string): string {
  return `arn:aws:s3:::${bucket}`;
}

/**
 * The bucket's own operations on the bucket and its objects, and nothing else. The seed's operator allowed
 * s3:* on the bucket ARN only, so every object operation was denied; object actions need `<bucket>/*`.
 */
export function bucketPolicy(bucket: string): string {
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
    ],
  });
}
