// A customer managed KMS key goes into the tenant IAM user's policy only while the server's allowlist
// (METAOPS_KMS_KEY_ALLOWLIST) allows it for the resource's namespace (docs/operating.md "KMS keys": "a key the server
// does not allow is never put on a bucket or in a policy"). The check runs before any AWS call and refuses the spec
// (InvalidSpec, every child kept): a key granted while it was allowed stays granted once a cluster admin takes it off
// the list, or gives it to another namespace only. Tenant A keeps kms:Decrypt and kms:GenerateDataKey on the key
// through the access key in its own Secret, for as long as the resource lives.
// Expected: once the server no longer allows the key for the namespace, no policy the hook made grants it.
import t from 'tap';
import type { CompositeSyncRequest } from '../../lib/metacontroller.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

/** Tenant A's S3 resource with SSE-KMS and the key, its status as the last answer left it. */
const request = (status?: Record<string, unknown>): CompositeSyncRequest =>
  s3Request(
    { name: 'app', namespace: 'team-a', uid: 'uid-app' },
    { ...S3_DEFAULTS, bucketName: 'team-a-data', encryption: { type: 'SSE-KMS', kmsKeyId: KEY } },
    { status, apiVersion: 'metaops.dev/v1alpha1' },
  );

/** Every KMS resource any policy document in this AWS grants. */
function kmsGranted(aws: FakeAws): string[] {
  return [...aws.policies.keys()].flatMap((arn) =>
    (aws.document(arn).Statement as Array<{ Action: string | string[]; Resource: string | string[] }>)
      .filter((s) => ([] as string[]).concat(s.Action).some((a) => a.startsWith('kms:')))
      .flatMap((s) => ([] as string[]).concat(s.Resource)),
  );
}

for (const [what, kms] of [
  ['taken off the allowlist', []],
  ['given to another namespace only', [{ arn: KEY, namespace: 'team-b' }]],
] as const) {
  t.test(`a KMS key ${what} is no longer granted to the tenant's IAM user`, async (t) => {
    const aws = new FakeAws();
    // Allowed for team-a: granted.
    const first = await sync(request(), aws, FIXED_NOW, { kms: [{ arn: KEY, namespace: 'team-a' }] });
    t.same(kmsGranted(aws), [KEY], 'granted while the server allows it for the namespace');
    // The cluster admin narrows the allowlist (the server restarted with it); the resource syncs again.
    const after = await sync(request(first.status as Record<string, unknown>), aws, FIXED_NOW, { kms: [...kms] });
    t.match(
      JSON.stringify((after.status as { conditions?: unknown }).conditions),
      /not allowed for namespace team-a|allows no customer managed KMS key/,
      'the spec is refused, as it says',
    );
    t.same(kmsGranted(aws), [], 'no policy grants the key the server no longer allows the namespace');
  });
}
