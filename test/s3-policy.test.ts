// The S3 resource's IAM policy (hooks/s3/policy.ts), read as a document: the bucket's own operations on the
// bucket ARN, the object operations on `<bucket>/*`, the KMS key when one is named, and nothing else. The sync
// hook writes it, reads the policy IAM holds, and replaces a document that differs (checked on an in-memory AWS).
import t from 'tap';
import {
  arnParts,
  bucketArn,
  bucketNameProblem,
  bucketPolicy,
  kmsGrant,
  policyName,
  userName,
} from '../hooks/s3/policy.js';
import { s3Sync as sync } from './fixtures/hooks.js';
import type { CompositeSyncRequest, ParentObject } from '../lib/metacontroller.js';
import { FakeAws } from './fixtures/fake-aws.js';
import { FIXED_NOW } from './fixtures/requests.js';

const BUCKET_ACTIONS = [
  's3:ListBucket',
  's3:ListBucketVersions',
  's3:ListBucketMultipartUploads',
  's3:GetBucketLocation',
  's3:GetBucketVersioning',
];
const OBJECT_ACTIONS = [
  's3:GetObject',
  's3:GetObjectVersion',
  's3:PutObject',
  's3:DeleteObject',
  's3:DeleteObjectVersion',
  's3:GetObjectTagging',
  's3:PutObjectTagging',
  's3:AbortMultipartUpload',
  's3:ListMultipartUploadParts',
];

/** Whether a policy document allows `action` on `resource` (IAM's evaluation for Allow statements, '*' globs). */
function allows(doc: any, action: string, resource: string): boolean {
  const glob = (pattern: string, value: string) =>
    new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(value);
  return (doc.Statement as any[]).some(
    (s) =>
      s.Effect === 'Allow' &&
      !s.Condition &&
      ([] as string[]).concat(s.Action).some((a) => glob(a, action)) &&
      ([] as string[]).concat(s.Resource).some((r) => glob(r, resource)),
  );
}

t.test('the policy: bucket operations on the bucket, object operations on its objects, nothing else', async (t) => {
  const doc = JSON.parse(bucketPolicy('my-bucket'));
  t.equal(doc.Version, '2012-10-17');
  t.same(doc.Statement, [
    { Sid: 'Bucket', Effect: 'Allow', Action: BUCKET_ACTIONS, Resource: ['arn:aws:s3:::my-bucket'] },
    { Sid: 'Objects', Effect: 'Allow', Action: OBJECT_ACTIONS, Resource: ['arn:aws:s3:::my-bucket/*'] },
  ]);
  t.ok(allows(doc, 's3:GetObject', 'arn:aws:s3:::my-bucket/a/b.txt'), 'objects can be read');
  t.ok(allows(doc, 's3:PutObject', 'arn:aws:s3:::my-bucket/x'), 'and written');
  t.ok(allows(doc, 's3:ListBucket', 'arn:aws:s3:::my-bucket'), 'the bucket can be listed');
  t.notOk(allows(doc, 's3:GetObject', 'arn:aws:s3:::my-bucket-2/x'), 'not the objects of a bucket sharing the prefix');
  t.notOk(allows(doc, 's3:GetObject', 'arn:aws:s3:::other/x'), 'nor of another bucket');
  t.notOk(allows(doc, 's3:ListBucket', 'arn:aws:s3:::other'), 'nor list another bucket');
  t.notOk(allows(doc, 's3:DeleteBucket', 'arn:aws:s3:::my-bucket'), 'the bucket itself cannot be deleted');
  t.notOk(allows(doc, 's3:PutBucketPolicy', 'arn:aws:s3:::my-bucket'), 'nor its policy changed');
  t.notOk(allows(doc, 's3:PutBucketPublicAccessBlock', 'arn:aws:s3:::my-bucket'), 'nor made public');
  t.notOk(allows(doc, 'iam:CreateAccessKey', '*'), 'no IAM');
  t.notOk(allows(doc, 'kms:Decrypt', 'arn:aws:kms:us-east-1:123456789012:key/k'), 'no KMS without a key');
  for (const s of doc.Statement) {
    t.notOk(
      [].concat(s.Action).some((a: string) => a.includes('*')),
      `${s.Sid}: no wildcard action`,
    );
    t.notOk(s.NotAction || s.NotResource, `${s.Sid}: no Not* element`);
  }
  t.equal(bucketArn('b'), 'arn:aws:s3:::b');
});

t.test('SSE-KMS: that key only, or the keys behind one alias through a condition', async (t) => {
  const grant = kmsGrant('1234abcd-12ab-34cd-56ef-1234567890ab', 'eu-west-1', 'aws', '123456789012')!;
  t.same(grant, { resource: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab' });
  const doc = JSON.parse(bucketPolicy('b', grant));
  t.same(doc.Statement[2], {
    Sid: 'Kms',
    Effect: 'Allow',
    Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
    Resource: [grant.resource],
  });
  t.equal(doc.Statement.length, 3);
  const keyArn = 'arn:aws-cn:kms:cn-north-1:210987654321:key/k-1';
  t.same(kmsGrant(keyArn, 'eu-west-1', 'aws', '123456789012'), { resource: keyArn }, 'a key ARN is used as it is');
  t.same(kmsGrant('arn:aws:kms:us-west-2:210987654321:alias/team', 'eu-west-1', 'aws', '123456789012'), {
    resource: 'arn:aws:kms:us-west-2:210987654321:key/*',
    alias: 'alias/team',
  });
  const alias = kmsGrant('alias/mine', 'eu-west-1', 'aws-us-gov', '123456789012')!;
  t.same(alias, { resource: 'arn:aws-us-gov:kms:eu-west-1:123456789012:key/*', alias: 'alias/mine' });
  t.same(JSON.parse(bucketPolicy('b', alias)).Statement[2].Condition, {
    'ForAnyValue:StringEquals': { 'kms:ResourceAliases': 'alias/mine' },
  });
  t.equal(kmsGrant(undefined, 'eu-west-1', 'aws', '1'), undefined);
  t.equal(kmsGrant('', 'eu-west-1', 'aws', '1'), undefined);
  t.same(arnParts('arn:aws-cn:iam::123456789012:user/x'), { partition: 'aws-cn', account: '123456789012' });
  t.equal(arnParts('arn:aws:iam::12345:user/x'), undefined);
  t.equal(arnParts('nonsense'), undefined);
  t.equal(arnParts('xarn:aws:iam::123456789012:user/x'), undefined, 'an ARN from its first character');
  t.same(
    kmsGrant('xarn:aws:kms:us-west-2:210987654321:key/k', 'eu-west-1', 'aws', '123456789012'),
    {
      resource: 'arn:aws:kms:eu-west-1:123456789012:key/xarn:aws:kms:us-west-2:210987654321:key/k',
    },
    'not an ARN: taken as a key ID',
  );
});

t.test('IAM names: readable, within 64 characters, and told apart by the UID', async (t) => {
  const a = userName('team', 'a-prod', 'uid-1');
  const b = userName('team-a', 'prod', 'uid-2');
  t.not(a, b, 'names that join alike do not collide');
  t.match(a, /^metaops-team-a-prod-[0-9a-f]{12}$/);
  t.not(userName('ns', 'n', 'uid-1'), userName('ns', 'n', 'uid-2'), 'a re-created resource gets another user');
  const long = userName('n'.repeat(63), 'x'.repeat(253), 'u');
  t.equal(long.length, 64);
  t.match(userName('ns', 'a/b:c', 'u'), /^metaops-ns-a-b-c-/, 'characters IAM refuses are replaced');
  t.equal(policyName('ns', 'n', 'u'), userName('ns', 'n', 'u'));
});

t.test('bucket names: the S3 rules beyond the CRD pattern', async (t) => {
  t.equal(bucketNameProblem('my-bucket.1'), undefined);
  t.equal(bucketNameProblem('abc'), undefined);
  t.equal(bucketNameProblem('a'.repeat(63)), undefined);
  t.match(bucketNameProblem('ab'), /3 to 63/);
  t.match(bucketNameProblem('a'.repeat(64)), /3 to 63/);
  t.match(bucketNameProblem('Abc'), /lower-case/);
  t.match(bucketNameProblem('abc-'), /begin and end/);
  t.match(bucketNameProblem('a..b'), /two adjacent dots/);
  t.match(bucketNameProblem('192.168.1.1'), /IP address/);
  t.equal(bucketNameProblem('192.168.1.1a'), undefined);
  t.equal(bucketNameProblem('abc.1.2.3.4'), undefined, 'dotted digits at the end of a name are not an address');
  for (const p of ['xn--abc', 'sthree-abc', 'amzn-s3-demo-abc']) t.match(bucketNameProblem(p), /must not begin/, p);
  for (const s of ['abc-s3alias', 'abc--ol-s3', 'abc.mrap', 'abc--x-s3', 'abc--table-s3'])
    t.match(bucketNameProblem(s), /must not end/, s);
});

function s3Request(spec: Record<string, unknown>, status?: Record<string, unknown>): CompositeSyncRequest {
  const parent: ParentObject = {
    apiVersion: 'metaops.dev/v1alpha1',
    kind: 'S3',
    metadata: { name: 'app', namespace: 'ns', uid: 'uid-app', generation: 1 },
    spec: {
      versioning: false,
      encryption: { type: 'SSE-S3' },
      publicAccessBlock: {},
      deletionPolicy: 'Retain',
      forceDelete: false,
      ...spec,
    },
  };
  if (status) parent.status = status;
  return { controller: {}, parent, children: { 'Secret.v1': {} } };
}

t.test('the sync writes that policy, attaches it, and replaces a document that differs', async (t) => {
  const aws = new FakeAws();
  const res = await sync(s3Request({ bucketName: 'app-data' }), aws, FIXED_NOW);
  const policyArn = (res.status as any).policyArn as string;
  t.equal(policyArn, `arn:aws:iam::123456789012:policy/${policyName('ns', 'app', 'uid-app')}`);
  t.same(aws.document(policyArn), JSON.parse(bucketPolicy('app-data')));
  t.same(await aws.attachedPolicies(userName('ns', 'app', 'uid-app')), [policyArn]);
  // Someone widened the policy: the next sync reads it and puts the document back.
  aws.policies
    .get(policyArn)!
    .versions.push(
      JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }] }),
    );
  aws.calls = [];
  await sync(s3Request({ bucketName: 'app-data' }, res.status as Record<string, unknown>), aws, FIXED_NOW);
  t.same(aws.document(policyArn), JSON.parse(bucketPolicy('app-data')), 'the widened document is replaced');
  t.ok(aws.calls.includes(`setPolicyDocument ${policyArn}`));
  // The same document, written with other white space: left as it is.
  aws.policies.get(policyArn)!.versions.push(JSON.stringify(JSON.parse(bucketPolicy('app-data')), null, 2));
  aws.calls = [];
  await sync(s3Request({ bucketName: 'app-data' }, res.status as Record<string, unknown>), aws, FIXED_NOW);
  t.notOk(
    aws.calls.some((c) => c.startsWith('setPolicyDocument')),
    'an equal document is not rewritten',
  );
  t.notOk(
    aws.calls.some((c) => c.startsWith('attachPolicy')),
    'an attached policy is not attached again',
  );
  // SSE-KMS with a key: the policy grows the key's statement.
  await sync(
    s3Request(
      { bucketName: 'app-data', encryption: { type: 'SSE-KMS', kmsKeyId: 'k-1' } },
      res.status as Record<string, unknown>,
    ),
    aws,
    FIXED_NOW,
  );
  t.same(aws.document(policyArn).Statement[2].Resource, ['arn:aws:kms:us-east-1:123456789012:key/k-1']);
  // SSE-KMS without a key (the AWS managed key): no KMS statement.
  await sync(
    s3Request({ bucketName: 'app-data', encryption: { type: 'SSE-KMS' } }, res.status as Record<string, unknown>),
    aws,
    FIXED_NOW,
  );
  t.equal(aws.document(policyArn).Statement.length, 2);
});
