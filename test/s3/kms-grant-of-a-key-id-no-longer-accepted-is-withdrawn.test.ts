// A KMS grant the tenant IAM user's policy holds from before kmsKeyId had to be an exact key ARN is withdrawn once
// the spec is refused (docs/operating.md "KMS keys": a refusal withdraws a grant made before). metaops before issue
// 29's fix granted spec.encryption.kmsKeyId as given: `*` or a bare key ID became `arn:<p>:kms:<region>:<account>:
// key/<id>` (`key/*`: every key of the account in the region), an alias became `key/*` under a kms:ResourceAliases
// condition. Such an S3 resource is still stored with that kmsKeyId after the upgrade (the CRD's pattern is checked
// on writes, not on what etcd holds). Its spec is now refused before the sync (hooks/s3/index.ts specProblem,
// kmsKeyIdProblem: InvalidSpec), so no AWS call is made, and the old grant stands: tenant A's access key in its own
// Secret keeps kms:Decrypt and kms:GenerateDataKey on every key of the account (tenant B's among them).
// Expected: once such a spec is refused, no policy the hook made grants any KMS key.
import t from 'tap';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const EVERY_KEY = 'arn:aws:kms:us-east-1:123456789012:key/*';

/** Tenant A's S3 resource with SSE-KMS and `key`, its status and Secret as the last answer left them. */
const request = (key: string, status?: Record<string, unknown>, children?: KubeObject[]): CompositeSyncRequest =>
  s3Request(
    { name: 'app', namespace: 'team-a', uid: 'uid-app' },
    { ...S3_DEFAULTS, bucketName: 'team-a-data', encryption: { type: 'SSE-KMS', kmsKeyId: key } },
    { status, ...(children ? { children } : {}), apiVersion: 'metaops.dev/v1alpha1' },
  );

/** Every KMS resource any policy document in this AWS grants. */
function kmsGranted(aws: FakeAws): string[] {
  return [...aws.policies.keys()].flatMap((arn) =>
    (aws.document(arn).Statement as Array<{ Action: string | string[]; Resource: string | string[] }>)
      .filter((s) => ([] as string[]).concat(s.Action).some((a) => a.startsWith('kms:')))
      .flatMap((s) => ([] as string[]).concat(s.Resource)),
  );
}

/** The Kms statement the earlier metaops wrote for each kmsKeyId it took as given. */
const earlierGrants: Array<[string, Record<string, unknown>]> = [
  ['*', { Resource: [EVERY_KEY] }],
  ['1234abcd-12ab-34cd-56ef-1234567890ab', { Resource: [KEY] }],
  [
    'alias/team-b-data',
    {
      Resource: [EVERY_KEY],
      Condition: { 'ForAnyValue:StringEquals': { 'kms:ResourceAliases': 'alias/team-b-data' } },
    },
  ],
  [
    'arn:aws:kms:us-east-1:123456789012:alias/team-b-data',
    {
      Resource: [EVERY_KEY],
      Condition: { 'ForAnyValue:StringEquals': { 'kms:ResourceAliases': 'alias/team-b-data' } },
    },
  ],
];

for (const [kmsKeyId, grant] of earlierGrants) {
  t.test(`a grant made for kmsKeyId ${JSON.stringify(kmsKeyId)} before it was refused is withdrawn`, async (t) => {
    const aws = new FakeAws();
    // The resource's user, policy, bucket and Secret as a sync made them (with a key then granted as given).
    const first = await sync(request(KEY), aws, FIXED_NOW, { kms: [{ arn: KEY }] });
    const secret = first.children.find((c) => c.kind === 'Secret')!;
    t.ok(secret, 'the credentials Secret');
    const policyArn = [...aws.policies.keys()].find((arn) =>
      (aws.document(arn).Statement as Array<{ Sid?: string }>).some((s) => s.Sid === 'Kms'),
    );
    t.ok(policyArn, "the tenant user's policy");
    const policy = aws.policies.get(policyArn!)!;
    // The policy's document as the earlier metaops wrote it for this kmsKeyId.
    const document = JSON.parse(policy.versions[policy.versions.length - 1]!) as {
      Statement: Array<Record<string, unknown>>;
    };
    document.Statement = document.Statement.map((s) =>
      s['Sid'] === 'Kms'
        ? { Sid: 'Kms', Effect: 'Allow', Action: ['kms:GenerateDataKey', 'kms:Decrypt'], ...grant }
        : s,
    );
    policy.versions.push(JSON.stringify(document));
    t.same(kmsGranted(aws), grant['Resource'], 'granted as the earlier metaops granted it');

    // After the upgrade: the stored resource, its kmsKeyId unchanged, syncs again.
    const after = await sync(request(kmsKeyId, first.status as Record<string, unknown>, [secret]), aws, FIXED_NOW, {
      kms: [{ arn: KEY }],
    });
    t.match(
      (after.status as { conditions: unknown[] }).conditions,
      [{ type: 'Ready', status: 'False', reason: 'InvalidSpec' }],
      'refused',
    );
    t.same(kmsGranted(aws), [], 'no policy grants a KMS key once the spec is refused');
  });
}

// The same withdrawal when the spec is refused for another field: a key the cluster admin gave to tenant B only stays
// granted to tenant A for as long as A's spec is refused before the sync (a tag AWS refuses, here), since only a sync
// that reaches the allowlist check withdraws it.
t.test('a key given to another namespace only is withdrawn while the spec is refused for another field', async (t) => {
  const aws = new FakeAws();
  const first = await sync(request(KEY), aws, FIXED_NOW, { kms: [{ arn: KEY, namespace: 'team-a' }] });
  const secret = first.children.find((c) => c.kind === 'Secret')!;
  t.same(kmsGranted(aws), [KEY], 'granted while the server allows it for team-a');
  // Tenant A adds a tag AWS refuses; the admin gives the key to team-b only (the server restarted with it).
  const refused = request(KEY, first.status as Record<string, unknown>, [secret]);
  (refused.parent.spec as Record<string, unknown>)['tags'] = { 'aws:owner': 'team-a' };
  const after = await sync(refused, aws, FIXED_NOW, { kms: [{ arn: KEY, namespace: 'team-b' }] });
  t.match(
    (after.status as { conditions: unknown[] }).conditions,
    [{ type: 'Ready', status: 'False', reason: 'InvalidSpec' }],
    'refused',
  );
  t.same(kmsGranted(aws), [], 'no policy grants team-a the key the server now allows team-b only');
});
