// S3, systek.no/v1 (the seed's API, served verbatim: `operator-sdk init --domain systek.no` + `create api
// --version v1 --kind S3`): an S3 bucket and a least-privilege IAM user, policy and access key for it, with the
// credentials in a Secret (the seed's S3 operator, without its bugs).
import { Type, type Static } from '@sinclair/typebox';
import {
  commonPrinterColumns,
  Conditions,
  DNS1123_SUBDOMAIN_PATTERN,
  heldBySchema,
  MAX_NAME_LENGTH,
  type ResourceDefinition,
  stringMap,
} from '../../lib/index.js';
import { KMS_KEY_ARN_PATTERN } from './policy.js';

/** S3 allows 50 tags on a bucket, keys of 128 and values of 256 characters; metaops adds its two owner tags. */
export const MAX_TAGS = 48;
/**
 * What the CRD can say of a tag value: none of the ASCII characters AWS refuses (it takes letters, digits and spaces
 * of any script and + - = . _ : / @). Characters beyond ASCII are left to the hook (hooks/s3/policy.ts tagsProblem,
 * which also checks the keys: a CRD schema has no rule for a map's keys), since the `\p{L}` classes this would need
 * read differently in the schema checker and in the API server.
 */
const TAG_VALUE_PATTERN = '^[^\\x00-\\x1f!"#$%&\'()*,;<>?\\[\\\\\\]^`{|}~\\x7f]*$';

export const S3Spec = Type.Object(
  {
    bucketName: Type.String({
      minLength: 3,
      maxLength: 63,
      pattern: '^[a-z0-9][a-z0-9.-]*[a-z0-9]$',
      description: 'The bucket name (S3 naming rules: 3-63 lower-case letters, digits, dots and hyphens).',
    }),
    region: Type.Optional(
      Type.String({
        pattern: '^[a-z]{2}(-[a-z]+)+-[0-9]+$',
        maxLength: 32,
        description: "AWS region of the bucket; default: the operator's region.",
      }),
    ),
    versioning: Type.Boolean({ default: false, description: 'Enable object versioning.' }),
    encryption: Type.Object(
      {
        type: Type.Union([Type.Literal('SSE-S3'), Type.Literal('SSE-KMS')], { default: 'SSE-S3' }),
        kmsKeyId: Type.Optional(
          Type.String({
            pattern: KMS_KEY_ARN_PATTERN,
            maxLength: 128,
            description:
              "With SSE-KMS: the ARN of a customer managed key (arn:<partition>:kms:<region>:<account>:key/<key id>) in the operator's account and the bucket's region, which the server's settings allow for this namespace (METAOPS_KMS_KEY_ALLOWLIST). Aliases, key IDs and wildcards are refused. Without it: the AWS managed key.",
          }),
        ),
      },
      { default: {}, description: 'Default server-side encryption of the bucket.' },
    ),
    publicAccessBlock: Type.Object(
      {
        blockPublicAcls: Type.Boolean({ default: true }),
        ignorePublicAcls: Type.Boolean({ default: true }),
        blockPublicPolicy: Type.Boolean({ default: true }),
        restrictPublicBuckets: Type.Boolean({ default: true }),
      },
      { default: {}, description: 'S3 Block Public Access; every flag is on unless turned off.' },
    ),
    tags: Type.Optional(
      stringMap(
        'Tags of the bucket, as AWS takes them: keys of 1 to 128 and values of at most 256 characters, of letters, digits, spaces and + - = . _ : / @, no key starting with aws: (checked by the hook before any AWS call).',
        { maxProperties: MAX_TAGS, maxValueLength: 256, maxBytes: 24 * 1024, valuePattern: TAG_VALUE_PATTERN },
      ),
    ),
    deletionPolicy: Type.Union([Type.Literal('Retain'), Type.Literal('Delete')], {
      default: 'Retain',
      description: 'What happens to the bucket when the S3 resource is deleted or renamed.',
    }),
    forceDelete: Type.Boolean({
      default: false,
      description:
        'With deletionPolicy Delete: when the S3 resource is deleted, empty its buckets (every object version) before deleting them. A rename never empties a bucket: the old one is kept until it is empty, then deleted.',
    }),
    secretName: Type.Optional(
      Type.String({
        pattern: DNS1123_SUBDOMAIN_PATTERN,
        maxLength: MAX_NAME_LENGTH,
        description:
          'The credentials Secret (a DNS-1123 subdomain: dot-separated parts, each starting and ending with a lower-case letter or digit). Default: <name>-credentials.',
      }),
    ),
  },
  { description: 'S3Spec: the bucket and how it is managed.' },
);
export type S3Spec = Static<typeof S3Spec>;

export const S3Status = Type.Object(
  {
    bucketName: Type.Optional(Type.String()),
    arn: Type.Optional(Type.String()),
    region: Type.Optional(Type.String()),
    iamUser: Type.Optional(Type.String()),
    policyArn: Type.Optional(Type.String()),
    accessKeyId: Type.Optional(Type.String({ description: 'The access key in the Secret (never the secret key).' })),
    secretName: Type.Optional(Type.String()),
    createdBuckets: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Buckets this resource created and has not deleted: the current one, and old ones a rename with deletionPolicy Delete could not delete yet. Only these are ever emptied or deleted, and only when their metaops.dev/owner-uid tag still names this resource.',
      }),
    ),
    retainedBuckets: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Buckets left in place by deletionPolicy Retain (renames, deletion), or whose tags name another owner.',
      }),
    ),
    heldBy: Type.Optional(heldBySchema()),
    observedGeneration: Type.Optional(Type.Integer()),
    conditions: Type.Optional(Conditions),
  },
  { additionalProperties: false },
);

export const resource: ResourceDefinition = {
  group: 'systek.no',
  version: 'v1',
  kind: 'S3',
  plural: 's3s',
  singular: 's3',
  scope: 'Namespaced',
  categories: ['metaops'],
  description: 'S3 is an S3 bucket with a least-privilege IAM user, policy and access key kept in a Secret.',
  spec: S3Spec,
  status: S3Status,
  printerColumns: [
    { name: 'BUCKET', type: 'string', jsonPath: '.status.bucketName', description: 'The bucket.' },
    { name: 'READY', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'REASON', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason', priority: 1 },
    commonPrinterColumns.age,
  ],
};
