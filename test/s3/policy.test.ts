// The S3 resource's IAM policy (hooks/s3/policy.ts), read as a document: the bucket's own operations on the
// bucket ARN, the object operations on `<bucket>/*`, the KMS key when one is named, and nothing else. The sync
// hook writes it, reads the policy IAM holds, and replaces a document that differs (checked on an in-memory AWS).
import t from 'tap';
import {
  arnParts,
  bucketArn,
  bucketNameProblem,
  bucketPolicy,
  grantedBucket,
  kmsAllowlistFromEnv,
  kmsAllowlistProblems,
  kmsKeyIdProblem,
  kmsKeyNotAllowed,
  kmsKeyParts,
  kmsKeyRefusal,
  policyName,
  scrubAwsText,
  userName,
  withoutKmsGrant,
} from '../../hooks/s3/policy.js';
import { AwsError } from '../../hooks/s3/api.js';
import { s3 } from '../../hooks/s3/index.js';
import { runHook } from '../../lib/operator.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import type { CompositeSyncRequest } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

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

const KEY_A = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const KEY_B = 'arn:aws:kms:us-east-1:123456789012:key/bbbbbbbb-12ab-34cd-56ef-1234567890ab';
const MRK = `arn:aws-us-gov:kms:us-gov-west-1:123456789012:key/mrk-${'0123456789abcdef'.repeat(2)}`;

t.test('SSE-KMS: one exact key ARN, granted as it is', async (t) => {
  const doc = JSON.parse(bucketPolicy('b', KEY_A));
  t.same(doc.Statement[2], {
    Sid: 'Kms',
    Effect: 'Allow',
    Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
    Resource: [KEY_A],
  });
  t.equal(doc.Statement.length, 3);
  t.notOk(allows(doc, 'kms:Decrypt', KEY_B), 'no other key');
  t.equal(JSON.parse(bucketPolicy('b')).Statement.length, 2, 'no key, no KMS statement');
  t.same(kmsKeyParts(KEY_A), { partition: 'aws', region: 'us-east-1', account: '123456789012' });
  t.same(kmsKeyParts(MRK), { partition: 'aws-us-gov', region: 'us-gov-west-1', account: '123456789012' });
  for (const id of [
    '*',
    'arn:aws:kms:us-east-1:123456789012:key/*',
    'arn:aws:kms:*:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    'arn:aws:kms:us-east-1:*:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    'alias/team',
    'arn:aws:kms:us-east-1:123456789012:alias/team',
    '1234abcd-12ab-34cd-56ef-1234567890ab',
    `${KEY_A}x`,
    `x${KEY_A}`,
    `${KEY_A}\n`,
    'arn:aws:kms:us-east-1:12345678901:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    'arn:aws:kms:us-east-1:123456789012:key/1234ABCD-12ab-34cd-56ef-1234567890ab',
    'arn:aws:kms:us-east-1:123456789012:key/mrk-0123',
    'arn:aws:s3:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    'arn:awsx:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    'arn:aws:kms:useast1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  ]) {
    t.equal(kmsKeyParts(id), undefined, `${id}: no key ARN`);
    t.match(kmsKeyIdProblem({ encryption: { type: 'SSE-KMS', kmsKeyId: id } }), /is not the ARN of a KMS key/, id);
  }
  t.equal(kmsKeyIdProblem({ encryption: { type: 'SSE-KMS', kmsKeyId: KEY_A } }), undefined);
  t.equal(kmsKeyIdProblem({ encryption: { type: 'SSE-KMS' } }), undefined);
  t.equal(kmsKeyIdProblem(null), undefined);
  t.equal(kmsKeyIdProblem({ encryption: null }), undefined);
  t.equal(
    kmsKeyIdProblem({ encryption: { kmsKeyId: 'k'.repeat(200) } }),
    `spec.encryption.kmsKeyId "${'k'.repeat(77)}..." is not the ARN of a KMS key (arn:<partition>:kms:<region>:<account>:key/<key id>): aliases, key IDs and wildcards are never granted`,
    'a long value is cut short in the message',
  );
  t.match(kmsKeyIdProblem({ encryption: { kmsKeyId: 'k'.repeat(80) } }), `"${'k'.repeat(80)}" is not`, '80: whole');
  t.match(kmsKeyIdProblem({ encryption: { kmsKeyId: 'k'.repeat(81) } }), `"${'k'.repeat(77)}..." is not`, '81: cut');
  t.same(arnParts('arn:aws-cn:iam::123456789012:user/x'), { partition: 'aws-cn', account: '123456789012' });
  t.equal(arnParts('arn:aws:iam::12345:user/x'), undefined);
  t.equal(arnParts('nonsense'), undefined);
  t.equal(arnParts('xarn:aws:iam::123456789012:user/x'), undefined, 'an ARN from its first character');
});

t.test('the KMS allowlist: key ARNs, for every namespace or for one', async (t) => {
  const env = (v: string) => ({ METAOPS_KMS_KEY_ALLOWLIST: v });
  t.same(kmsAllowlistFromEnv({}), [], 'unset: no key');
  t.strictSame(kmsAllowlistFromEnv(env(KEY_A)), [{ arn: KEY_A }], 'for every namespace: no namespace named');
  for (const ns of ['team-b-', '-team', `${'a'.repeat(64)}`, 'a.b', 'Team'])
    t.same(kmsAllowlistFromEnv(env(`${ns}=${KEY_B}`)), [], `${ns}: not a namespace`);
  t.strictSame(kmsAllowlistFromEnv(env(`${'a'.repeat(63)}=${KEY_B}`)), [{ arn: KEY_B, namespace: 'a'.repeat(63) }]);
  t.strictSame(kmsAllowlistFromEnv(env(`a=${KEY_B}`)), [{ arn: KEY_B, namespace: 'a' }]);
  t.same(kmsAllowlistFromEnv(env(` ${KEY_A} , team-b=${KEY_B},`)), [
    { arn: KEY_A },
    { arn: KEY_B, namespace: 'team-b' },
  ]);
  t.same(kmsAllowlistProblems({}), []);
  t.same(kmsAllowlistProblems(env(`${KEY_A},team-b=${KEY_B}`)), []);
  t.same(kmsAllowlistProblems(env(' , ')), ['METAOPS_KMS_KEY_ALLOWLIST is empty: list key ARNs, or unset it']);
  const bad = kmsAllowlistProblems(env(`*,alias/x,Team=${KEY_B},=${KEY_A},a=b=${KEY_A},${KEY_A}`));
  t.equal(bad.length, 5, bad.join('\n'));
  t.match(bad[0], /^METAOPS_KMS_KEY_ALLOWLIST entry "\*" is not <key ARN> or <namespace>=<key ARN>/);
  t.same(kmsAllowlistFromEnv(env(`*,Team=${KEY_B},${KEY_A}`)), [{ arn: KEY_A }], 'a bad entry allows nothing');

  const list = kmsAllowlistFromEnv(env(`${KEY_A},team-b=${KEY_B}`));
  t.equal(kmsKeyNotAllowed(KEY_A, 'team-a', list), undefined, 'a key for every namespace');
  t.equal(kmsKeyNotAllowed(KEY_A, 'team-b', list), undefined);
  t.equal(kmsKeyNotAllowed(KEY_B, 'team-b', list), undefined, "tenant B's key, in B");
  t.equal(
    kmsKeyNotAllowed(KEY_B, 'team-a', list),
    `spec.encryption.kmsKeyId ${KEY_B} is not allowed for namespace team-a by the server's KMS key allowlist (METAOPS_KMS_KEY_ALLOWLIST); nothing is granted`,
    "tenant B's key, named by tenant A",
  );
  t.match(kmsKeyNotAllowed(KEY_A, 'team-a', []), /this server allows no customer managed KMS key/);

  const here = { partition: 'aws', account: '123456789012', region: 'us-east-1' };
  t.equal(kmsKeyRefusal(KEY_A, here), undefined);
  t.match(kmsKeyRefusal(KEY_A.replace('123456789012', '210987654321'), here), /not in the operator's AWS account/);
  t.match(kmsKeyRefusal(KEY_A.replace('arn:aws:', 'arn:aws-cn:'), here), /not in the operator's AWS account/);
  t.match(kmsKeyRefusal(KEY_A.replace('us-east-1', 'eu-west-1'), here), /not in the bucket's region us-east-1/);
  t.match(kmsKeyRefusal('alias/x', here), /is not the ARN of a KMS key/);
  t.notMatch(
    kmsKeyRefusal(KEY_A.replace('123456789012', '210987654321'), here)!,
    /123456789012/,
    "the operator's account is not said",
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

/** A request for the S3 resource `app` of namespace `ns` with `spec` (over the defaults) and `status`. */
const appRequest = (spec: Record<string, unknown>, status?: Record<string, unknown>): CompositeSyncRequest =>
  s3Request(
    { name: 'app', namespace: 'ns', uid: 'uid-app' },
    { ...S3_DEFAULTS, ...spec },
    { status, apiVersion: 'metaops.dev/v1alpha1' },
  );

t.test('the sync writes that policy, attaches it, and replaces a document that differs', async (t) => {
  const aws = new FakeAws();
  const res = await sync(appRequest({ bucketName: 'app-data' }), aws, FIXED_NOW);
  t.equal(
    (res.status as any).policyArn,
    `arn:aws:iam::<account>:policy/${policyName('ns', 'app', 'uid-app')}`,
    "the status shows the policy without the operator's account",
  );
  const policyArn = `arn:aws:iam::123456789012:policy/${policyName('ns', 'app', 'uid-app')}`;
  t.same(aws.document(policyArn), JSON.parse(bucketPolicy('app-data')));
  t.same(await aws.attachedPolicies(userName('ns', 'app', 'uid-app')), [policyArn]);
  // Someone widened the policy: the next sync reads it and puts the document back.
  aws.policies
    .get(policyArn)!
    .versions.push(
      JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }] }),
    );
  aws.calls = [];
  await sync(appRequest({ bucketName: 'app-data' }, res.status as Record<string, unknown>), aws, FIXED_NOW);
  t.same(aws.document(policyArn), JSON.parse(bucketPolicy('app-data')), 'the widened document is replaced');
  t.ok(aws.calls.includes(`setPolicyDocument ${policyArn}`));
  // The same document, written with other white space: left as it is.
  aws.policies.get(policyArn)!.versions.push(JSON.stringify(JSON.parse(bucketPolicy('app-data')), null, 2));
  aws.calls = [];
  await sync(appRequest({ bucketName: 'app-data' }, res.status as Record<string, unknown>), aws, FIXED_NOW);
  t.notOk(
    aws.calls.some((c) => c.startsWith('setPolicyDocument')),
    'an equal document is not rewritten',
  );
  t.notOk(
    aws.calls.some((c) => c.startsWith('attachPolicy')),
    'an attached policy is not attached again',
  );
  // SSE-KMS with a key the server allows: the policy grows the key's statement.
  await sync(
    appRequest(
      { bucketName: 'app-data', encryption: { type: 'SSE-KMS', kmsKeyId: KEY_A } },
      res.status as Record<string, unknown>,
    ),
    aws,
    FIXED_NOW,
    { kms: [{ arn: KEY_A }] },
  );
  t.same(aws.document(policyArn).Statement[2].Resource, [KEY_A]);
  // SSE-KMS without a key (the AWS managed key): no KMS statement.
  await sync(
    appRequest({ bucketName: 'app-data', encryption: { type: 'SSE-KMS' } }, res.status as Record<string, unknown>),
    aws,
    FIXED_NOW,
  );
  t.equal(aws.document(policyArn).Statement.length, 2);
});

/** An S3 resource of tenant `namespace`, with SSE-KMS and this key. */
function tenantRequest(namespace: string, kmsKeyId: string | undefined, bucketName: string): CompositeSyncRequest {
  const req = appRequest({ bucketName, encryption: { type: 'SSE-KMS', ...(kmsKeyId ? { kmsKeyId } : {}) } });
  req.parent.metadata = { name: 'app', namespace, uid: `uid-${namespace}`, generation: 1 };
  return req;
}

/** Every KMS resource any policy document in this AWS grants. */
function kmsGranted(aws: FakeAws): string[] {
  return [...aws.policies.keys()].flatMap((arn) =>
    (aws.document(arn).Statement as any[])
      .filter((s) => [].concat(s.Action).some((a: string) => a.startsWith('kms:')))
      .flatMap((s) => s.Resource as string[]),
  );
}

t.test(
  "tenant A cannot reach past its namespace through a KMS key: '*', aliases, key IDs and tenant B's key are refused before any AWS call",
  async (t) => {
    // The server allows tenant B (namespace team-b) its own key; it allows tenant A none.
    const settings = { kms: [{ arn: KEY_B, namespace: 'team-b' }] };
    for (const kmsKeyId of [
      '*',
      'arn:aws:kms:us-east-1:123456789012:key/*',
      'alias/aws/s3',
      'arn:aws:kms:us-east-1:123456789012:alias/team-b',
      'bbbbbbbb-12ab-34cd-56ef-1234567890ab',
      KEY_B,
    ]) {
      const aws = new FakeAws();
      const res = await sync(tenantRequest('team-a', kmsKeyId, 'team-a-data'), aws, FIXED_NOW, settings);
      const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
      t.match(ready, { status: 'False', reason: 'InvalidSpec' }, `${kmsKeyId}: InvalidSpec`);
      t.match(ready.message, /spec\.encryption\.kmsKeyId/, `${kmsKeyId}: the message names the field`);
      t.same(aws.calls, [], `${kmsKeyId}: no bucket, user, policy or key is made`);
      t.same(kmsGranted(aws), [], `${kmsKeyId}: nothing granted`);
      t.same(res.children, [], `${kmsKeyId}: no Secret`);
    }
    // Tenant B names its own key: granted, that key only.
    const aws = new FakeAws();
    const b = await sync(tenantRequest('team-b', KEY_B, 'team-b-data'), aws, FIXED_NOW, settings);
    t.match(
      (b.status as any).conditions.find((c: any) => c.type === 'Ready'),
      { status: 'True' },
    );
    t.same(kmsGranted(aws), [KEY_B], "tenant B's policy grants its key");
    // Tenant A without a key: the AWS managed key, no KMS statement.
    const a = await sync(tenantRequest('team-a', undefined, 'team-a-data'), aws, FIXED_NOW, settings);
    t.match(
      (a.status as any).conditions.find((c: any) => c.type === 'Ready'),
      { status: 'True' },
    );
    t.same(kmsGranted(aws), [KEY_B], 'still only B’s key, in B’s policy');
  },
);

t.test('a key of another account or region is never granted, even when the allowlist names it', async (t) => {
  const foreign = KEY_A.replace('123456789012', '210987654321');
  const elsewhere = KEY_A.replace('us-east-1', 'eu-west-1');
  for (const key of [foreign, elsewhere]) {
    const aws = new FakeAws();
    const res = await sync(tenantRequest('team-a', key, 'team-a-data'), aws, FIXED_NOW, { kms: [{ arn: key }] });
    const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.match(ready, {
      status: 'False',
      reason: 'InvalidSpec',
      message: /^IAM policy: spec\.encryption\.kmsKeyId: the KMS key/,
    });
    if (key === foreign) t.notMatch(ready.message, /123456789012/, "the operator's account is not said");
    t.same(kmsGranted(aws), [], `${key}: no policy grants it`);
    t.same((res.status as any).createdBuckets, ['team-a-data'], 'the bucket made before is recorded');
    t.equal(res.resyncAfterSeconds, undefined, 'not retried until the spec changes');
  }
});

t.test(
  'the server reads its KMS allowlist from METAOPS_KMS_KEY_ALLOWLIST and refuses to start with a bad one',
  async (t) => {
    t.same(s3.settings!({ env: { METAOPS_KMS_KEY_ALLOWLIST: `team-b=${KEY_B}` } }), {
      kms: [{ arn: KEY_B, namespace: 'team-b' }],
      bucketsPerNamespace: 100,
      operatorRegion: 'us-east-1',
    });
    t.same(s3.settings!({ env: {} }), { kms: [], bucketsPerNamespace: 100, operatorRegion: 'us-east-1' });
    t.same(s3.configProblems!({ METAOPS_KMS_KEY_ALLOWLIST: `team-b=${KEY_B}` }), []);
    t.match(s3.configProblems!({ METAOPS_KMS_KEY_ALLOWLIST: '*' }), [/METAOPS_KMS_KEY_ALLOWLIST entry "\*"/]);
    const { settingsFromEnv, ConfigError } = await import('../../lib/config.js');
    const { configProblems } = await import('../../main/operators.js');
    t.throws(() => settingsFromEnv({ METAOPS_KMS_KEY_ALLOWLIST: 'alias/x' }, configProblems), ConfigError);
    // Through the app: the allowlist of the server's environment, not of the request.
    const { testApp } = await import('../fixtures/app.js');
    const aws = new FakeAws();
    const app = testApp({
      env: { METAOPS_KMS_KEY_ALLOWLIST: `team-b=${KEY_B}` },
      services: { now: () => FIXED_NOW },
      clients: { s3: { aws: async () => aws } },
      allowUnauthenticated: true,
    });
    t.teardown(() => app.close());
    const post = async (ns: string) =>
      (
        await app.inject({
          method: 'POST',
          url: '/hooks/s3/sync',
          payload: tenantRequest(ns, KEY_B, `${ns}-data`),
        })
      ).json();
    t.match(
      (await post('team-a')).status.conditions.find((c: any) => c.type === 'Ready'),
      { reason: 'InvalidSpec' },
    );
    t.match(
      (await post('team-b')).status.conditions.find((c: any) => c.type === 'Ready'),
      { status: 'True' },
    );
    t.same(kmsGranted(aws), [KEY_B]);
  },
);

t.test('AWS errors reach the status and Events without the operator’s account ID or IAM identity', async (t) => {
  const said =
    'User: arn:aws:iam::123456789012:user/metaops-operator is not authorized to perform: iam:CreateUser on ' +
    'resource: arn:aws:iam::123456789012:user/metaops-team-a-app-0123456789ab because no identity-based policy ' +
    'allows the iam:CreateUser action (account 123456789012, key AKIAIOSFODNN7EXAMPLE, role ' +
    'arn:aws-cn:sts::210987654321:assumed-role/ops/session-1)';
  t.equal(
    scrubAwsText(said),
    'User: arn:aws:iam::<account>:user/<name> is not authorized to perform: iam:CreateUser on resource: ' +
      'arn:aws:iam::<account>:user/<name> because no identity-based policy allows the iam:CreateUser action ' +
      '(account <account>, key <access key>, role arn:aws-cn:sts::<account>:assumed-role/<name>)',
  );
  t.equal(scrubAwsText('Account ID: 123456789012.'), 'Account ID: <account>.');
  t.equal(scrubAwsText('accountId=123456789012'), 'accountId=<account>');
  t.equal(scrubAwsText('Account\t=\t123456789012'), 'Account\t=\t<account>');
  t.equal(
    scrubAwsText('arn:aws:s3:::bucket-123456789012'),
    'arn:aws:s3:::bucket-<account>',
    'twelve digits are taken for an account wherever they stand, even in a bucket name',
  );
  // Bare, as AWS writes the account in many messages and documents.
  t.equal(
    scrubAwsText('The account 123456789012 owns it; "Principal":{"AWS":"123456789012"} (owner:123456789012)'),
    'The account <account> owns it; "Principal":{"AWS":"<account>"} (owner:<account>)',
  );
  t.equal(scrubAwsText('owner 123456789012.'), 'owner <account>.');
  t.equal(scrubAwsText('id123456789012x'), 'id<account>x', 'next to letters too');
  // IAM unique IDs: users, roles (and assumed-role sessions), groups, instance profiles, policies, keys.
  t.equal(
    scrubAwsText(
      'userid AIDAJQABLZS4A3QDU576Q, session AROA3XFRBF535PLBIFPI4:botocore-session-1 (AGPAJ4EXAMPLE7TTNGMW2)',
    ),
    'userid <unique id>, session <unique id>:botocore-session-1 (<unique id>)',
  );
  for (const id of [
    'AIPAJ2EXAMPLEQRSTUVWX',
    'ANPAJ2UCCR6DPCEXAMPLE',
    'ANVAJ2UCCR6DPCEXAMPLE',
    'APKAEIBAERJR2EXAMPLE',
    'ASCACKCEVSQ6C2EXAMPLE',
    'ACCAJ2EXAMPLEQRSTUVWX',
    'ABIAJ2EXAMPLEQRSTUVWX',
  ])
    t.equal(scrubAwsText(`id=${id};`), 'id=<unique id>;', id);
  // Access keys of every length AWS uses, and a key with a run of twelve digits leaves no part behind.
  t.equal(scrubAwsText('ASIAY34FZKBOKMUTVV7A and AKIA123456789012ABCD'), '<access key> and <access key>');
  t.equal(scrubAwsText('AIDA123456789012345678'), '<unique id>');
  t.equal(scrubAwsText('the word AIDAN and ASIA stay'), 'the word AIDAN and ASIA stay', 'too short for an ID');
  t.equal(scrubAwsText('bucket 1234567890123 and 12345678901'), 'bucket 1234567890123 and 12345678901');
  t.equal(scrubAwsText(KEY_A), KEY_A.replace('123456789012', '<account>'));

  class Refusing extends FakeAws {
    override async createUser(): Promise<never> {
      throw new AwsError('AccessDenied', said.slice(0, 200), 'CreateUser');
    }
  }
  const events: Array<{ reason: string; note: string }> = [];
  const res = await runHook(s3, 'sync', tenantRequest('team-a', undefined, 'team-a-data'), {
    now: FIXED_NOW,
    clients: { aws: async () => new Refusing() },
    services: { events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
  const text = JSON.stringify(res.status) + JSON.stringify(events);
  t.match((res.status as any).conditions[0], {
    reason: 'AccessDenied',
    message: /^IAM user: CreateUser: AccessDenied: User: arn:aws:iam::<account>:user\/<name> is not authorized/,
  });
  t.ok(
    events.some((e) => e.reason === 'AccessDenied'),
    'told as an Event',
  );
  t.notMatch(text, /123456789012|metaops-operator/, 'neither the account nor the identity');
});

t.test('AWS errors that name the account bare or an IAM unique ID reach the tenant without them', async (t) => {
  const said =
    'Access Denied for 123456789012 (principal AROA3XFRBF535PLBIFPI4:metaops, user AIDAJQABLZS4A3QDU576Q, key ASIAY34FZKBOKMUTVV7A)';
  class Refusing extends FakeAws {
    override async createUser(): Promise<never> {
      throw new AwsError('AccessDenied', said, 'CreateUser');
    }
  }
  const events: Array<{ reason: string; note: string }> = [];
  const res = await runHook(s3, 'sync', tenantRequest('team-a', undefined, 'team-a-data'), {
    now: FIXED_NOW,
    clients: { aws: async () => new Refusing() },
    services: { events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
  t.match((res.status as any).conditions[0], {
    reason: 'AccessDenied',
    message: /Access Denied for <account> \(principal <unique id>:metaops, user <unique id>, key <access key>\)/,
  });
  t.ok(
    events.some((e) => e.reason === 'AccessDenied'),
    'told as an Event',
  );
  const text = JSON.stringify(res.status) + JSON.stringify(events);
  t.notMatch(text, /123456789012|AROA3|AIDAJ|ASIAY/, 'neither the account nor an IAM ID, in the status or the Events');
});

t.test(
  'a policy document that is not JSON, or has no Statement array, grants no bucket and is not rewritten',
  async (t) => {
    const kms = bucketPolicy('tenant-bucket', 'arn:aws:kms:us-east-1:123456789012:key/k');
    t.equal(grantedBucket(kms), 'tenant-bucket', 'a document of bucketPolicy grants its bucket');
    t.type(withoutKmsGrant(kms), 'string', 'and its KMS statement is taken out');
    for (const document of ['not json', 'null', '"Statement"', '{}', '{"Statement":{"Sid":"Bucket"}}', '[]']) {
      t.equal(grantedBucket(document), undefined, `${document}: no bucket`);
      t.equal(withoutKmsGrant(document), undefined, `${document}: not rewritten`);
    }
  },
);
