// A KMS key the server no longer allows the namespace (METAOPS_KMS_KEY_ALLOWLIST), or a key the policy may not grant
// (another account's, another region's), is withdrawn from the tenant IAM user's policy when the spec is refused
// (docs/operating.md "KMS keys"): only the policy's KMS statement goes. The bucket, its settings and default
// encryption, the user, its access key and the credentials Secret are kept as they were; a resource that never had a
// grant gets nothing made.
import t from 'tap';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const FOREIGN = 'arn:aws:kms:us-east-1:210987654321:key/aaaaaaaa-12ab-34cd-56ef-1234567890ab';

/** Tenant A's S3 resource with SSE-KMS and `key`, its status and Secret as the last answer left them. */
const request = (key: string, status?: Record<string, unknown>, children?: KubeObject[]): CompositeSyncRequest =>
  s3Request(
    { name: 'app', namespace: 'team-a', uid: 'uid-app' },
    { ...S3_DEFAULTS, bucketName: 'team-a-data', encryption: { type: 'SSE-KMS', kmsKeyId: key } },
    { status, ...(children ? { children } : {}), apiVersion: 'metaops.dev/v1alpha1' },
  );

/** The statements of the tenant user's policy (bucketPolicy: Bucket, Objects, Kms), by Sid. */
function statements(aws: FakeAws): string[] {
  return [...aws.policies.keys()]
    .flatMap((arn) => aws.document(arn).Statement as Array<{ Sid: string }>)
    .map((s) => s.Sid)
    .filter((sid) => ['Bucket', 'Objects', 'Kms'].includes(sid));
}

t.test(`a key taken off the allowlist: only the policy's KMS statement goes`, async (t) => {
  const aws = new FakeAws();
  const first = await sync(request(KEY), aws, FIXED_NOW, { kms: [{ arn: KEY, namespace: 'team-a' }] });
  const secret = first.children.find((c) => c.kind === 'Secret')!;
  t.ok(secret, 'the credentials Secret');
  t.same(statements(aws), ['Bucket', 'Objects', 'Kms'], 'granted while allowed');
  const bucketBefore = structuredClone(aws.buckets.get('team-a-data'));
  const userBefore = structuredClone(aws.users.get([...aws.users.keys()][0]!));
  aws.calls.length = 0;

  const after = await sync(request(KEY, first.status as Record<string, unknown>, [secret]), aws, FIXED_NOW, {
    kms: [],
  });
  t.match(
    (after.status as { conditions: unknown[] }).conditions,
    [{ type: 'Ready', status: 'False', reason: 'InvalidSpec' }],
    'refused',
  );
  t.same(statements(aws), ['Bucket', 'Objects'], 'the bucket and its objects still granted, no KMS key');
  t.same(
    aws.calls.filter((c) => !c.startsWith('setPolicyDocument')),
    [],
    'nothing else written: no bucket setting, tag, user, key or policy made or deleted',
  );
  t.same(aws.buckets.get('team-a-data'), bucketBefore, 'the bucket, its settings and encryption as they were');
  t.same(aws.users.get([...aws.users.keys()][0]!), userBefore, 'the user, its access key as they were');
  t.same(
    after.children.map((c) => [c.kind, c.metadata.name]),
    [['Secret', secret.metadata.name]],
    'the Secret kept',
  );

  // Refused again: nothing more to withdraw, nothing written.
  aws.calls.length = 0;
  await sync(request(KEY, after.status as Record<string, unknown>, [secret]), aws, FIXED_NOW, { kms: [] });
  t.same(aws.calls, [], 'a second refusal writes nothing');
});

t.test("the spec names another account's key instead: the key granted before is withdrawn", async (t) => {
  const aws = new FakeAws();
  const first = await sync(request(KEY), aws, FIXED_NOW, { kms: [{ arn: KEY }, { arn: FOREIGN }] });
  t.same(statements(aws), ['Bucket', 'Objects', 'Kms'], 'granted while the spec named it');
  const after = await sync(request(FOREIGN, first.status as Record<string, unknown>), aws, FIXED_NOW, {
    kms: [{ arn: KEY }, { arn: FOREIGN }],
  });
  t.match(
    (after.status as { conditions: unknown[] }).conditions,
    [{ type: 'Ready', status: 'False', reason: 'InvalidSpec', message: /not in the operator's AWS account/ }],
    'refused',
  );
  t.same(statements(aws), ['Bucket', 'Objects'], 'neither key granted');
  t.equal(aws.users.size, 1, 'the user kept');
});

t.test('a key the server never allowed: nothing is made', async (t) => {
  const aws = new FakeAws();
  const res = await sync(request(KEY), aws, FIXED_NOW, { kms: [] });
  t.match((res.status as { conditions: unknown[] }).conditions, [{ reason: 'InvalidSpec' }]);
  t.same(aws.calls, [], 'no AWS write');
  t.equal(aws.users.size, 0, 'no user');
  t.equal(aws.buckets.size, 0, 'no bucket');
  t.equal(aws.policies.size, 0, 'no policy');
});
