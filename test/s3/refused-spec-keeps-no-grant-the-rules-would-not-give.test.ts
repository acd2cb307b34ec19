// A spec refused before the sync (the raw spec's checks, the schema and its checks) runs no sync, so nothing there
// holds what an earlier answer granted to today's rules: hooks/s3/sync.ts `refused` does (docs/s3.md "Refused
// specs"). What the tenant IAM user's policy grants is narrowed to what the rules give now: a KMS key only when the
// raw spec names it exactly, the server allows it for the namespace, and it is in the operator's account and the
// region of the bucket the policy grants (which is ours); a policy granting a bucket whose tags name another owner is
// detached. What the rules still give is kept (a spec refused for a tag does not cut the tenant off its own key), and
// the namespace's ledger of buckets neither gains nor loses a place on a refusal.
import t, { type Test } from 'tap';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';
import { AwsError, OWNER_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { ledgerPath } from '../../hooks/s3/ledger.js';

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const WEST_KEY = 'arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const FOREIGN_KEY = 'arn:aws:kms:us-east-1:210987654321:key/1234abcd-12ab-34cd-56ef-1234567890ab';

/** Tenant A's S3 resource with `spec` over SSE-KMS under KEY, its status and Secret as the last answer left them. */
const request = (
  spec: Record<string, unknown>,
  status?: Record<string, unknown>,
  children?: KubeObject[],
): CompositeSyncRequest =>
  s3Request(
    { name: 'app', namespace: 'team-a', uid: 'uid-app' },
    { ...S3_DEFAULTS, bucketName: 'team-a-data', encryption: { type: 'SSE-KMS', kmsKeyId: KEY }, ...spec },
    { status, ...(children ? { children } : {}), apiVersion: 'metaops.dev/v1alpha1' },
  );

/** The tenant user's policy ARN (the one with bucketPolicy's statements). */
function userPolicy(aws: FakeAws): string {
  return [...aws.policies.keys()].find((arn) =>
    (aws.document(arn).Statement as Array<{ Sid?: string }>).some((s) => s.Sid === 'Bucket'),
  )!;
}

/** Every KMS resource the tenant user's policy grants. */
function kmsGranted(aws: FakeAws): string[] {
  return (aws.document(userPolicy(aws)).Statement as Array<{ Action: string[]; Resource: string[] }>)
    .filter((s) => s.Action.some((a) => a.startsWith('kms:')))
    .flatMap((s) => s.Resource);
}

/** Whether the tenant user's policy is attached to a user. */
function attached(aws: FakeAws): boolean {
  const arn = userPolicy(aws);
  return [...aws.users.values()].some((u) => u.policies.includes(arn));
}

/** A resource made (its key granted while `allowed`), then `spec` refused: the AWS writes of the refused sync. */
async function refusedAfterGrant(
  aws: FakeAws,
  spec: Record<string, unknown>,
  allowed = [{ arn: KEY }],
  before?: (aws: FakeAws) => void,
): Promise<{ status: Record<string, unknown>; writes: string[]; secret: KubeObject }> {
  const first = await sync(request({}), aws, FIXED_NOW, { kms: [{ arn: KEY }] });
  const secret = first.children.find((c) => c.kind === 'Secret')!;
  before?.(aws);
  aws.calls.length = 0;
  const after = await sync(request(spec, first.status as Record<string, unknown>, [secret]), aws, FIXED_NOW, {
    kms: allowed,
  });
  return { status: after.status as Record<string, unknown>, writes: [...aws.calls], secret };
}

const refusedFor = (t: Test, status: Record<string, unknown>, message: RegExp) =>
  t.match(
    (status as { conditions: unknown[] }).conditions,
    [{ type: 'Ready', status: 'False', reason: 'InvalidSpec', message }],
    'refused before the sync',
  );

t.test('a key the spec names and the server allows stays granted while the spec is refused for a tag', async (t) => {
  const aws = new FakeAws();
  const { status, writes } = await refusedAfterGrant(aws, { tags: { 'aws:owner': 'team-a' } });
  refusedFor(t, status, /aws:/);
  t.same(kmsGranted(aws), [KEY], 'the key still granted');
  t.ok(attached(aws), 'the policy still attached');
  t.same(writes, [], 'nothing written');
});

// Each check before the sync, with a key the rules no longer give: withdrawn whichever check refused the spec.
const refusals: Array<[string, Record<string, unknown>, RegExp, Array<{ arn: string; namespace?: string }>]> = [
  [
    'a tag AWS refuses (the raw spec)',
    { tags: { 'aws:owner': 'team-a' } },
    /aws:/,
    [{ arn: KEY, namespace: 'team-b' }],
  ],
  ['a field of the wrong type (the schema)', { versioning: 'yes' }, /versioning/, [{ arn: KEY, namespace: 'team-b' }]],
  [
    'kmsKeyId kept with type SSE-S3 (the schema check)',
    { encryption: { type: 'SSE-S3', kmsKeyId: KEY } },
    /only used with type SSE-KMS/,
    [{ arn: KEY }],
  ],
];
for (const [what, spec, message, allowed] of refusals) {
  t.test(`a key the rules no longer give is withdrawn when the spec is refused for ${what}`, async (t) => {
    const aws = new FakeAws();
    const { status, writes } = await refusedAfterGrant(aws, spec, allowed);
    refusedFor(t, status, message);
    t.same(kmsGranted(aws), [], 'no KMS key granted');
    t.ok(attached(aws), "the bucket's statements still granted");
    t.same(
      writes.map((w) => w.split(' ')[0]),
      ['setPolicyDocument'],
      'only the policy document written: no bucket, user, key or Secret touched',
    );
  });
}

// A key the allowlist lists for the namespace, but which the policy may not grant (another region than the bucket's,
// another account): an older metaops granted it as given; the sync's own check (ensurePolicy) never runs.
for (const [what, key] of [
  ["in another region than the bucket's", WEST_KEY],
  ['of another account', FOREIGN_KEY],
] as const) {
  t.test(`a key ${what} granted before is withdrawn while the spec is refused`, async (t) => {
    const aws = new FakeAws();
    const { status } = await refusedAfterGrant(
      aws,
      { encryption: { type: 'SSE-KMS', kmsKeyId: key }, tags: { 'aws:owner': 'team-a' } },
      [{ arn: key }],
      (aws) => {
        // The policy as a metaops that granted the key as given wrote it.
        const policy = aws.policies.get(userPolicy(aws))!;
        policy.versions.push(policy.versions.at(-1)!.replaceAll(KEY, key));
      },
    );
    refusedFor(t, status, /aws:/);
    t.same(kmsGranted(aws), [], 'no KMS key granted');
  });
}

// An older metaops let two resources take one bucket (before the claims): the one whose tags lost it keeps a policy
// granting it, which its next sync revokes (sync.ts lostBucket) only if the spec is not refused first.
t.test(
  'a policy granting a bucket whose tags name another resource is detached while the spec is refused',
  async (t) => {
    const aws = new FakeAws();
    const { status, writes } = await refusedAfterGrant(
      aws,
      { tags: { 'aws:owner': 'team-a' } },
      [{ arn: KEY }],
      (aws) => {
        aws.buckets.get('team-a-data')!.tags = new Map([
          [OWNER_TAG, 'team-b/data'],
          [OWNER_UID_TAG, 'uid-b'],
        ]);
      },
    );
    refusedFor(t, status, /aws:/);
    t.notOk(attached(aws), "the policy granting another's bucket is detached");
    t.same(kmsGranted(aws), [], 'no KMS key kept for a bucket that is not ours');
    t.same(
      writes.map((w) => w.split(' ')[0]),
      ['detachPolicy', 'setPolicyDocument'],
      'only the grant narrowed: the bucket, its tags, the user and its keys untouched',
    );
    t.equal(aws.buckets.get('team-a-data')!.tags.get(OWNER_UID_TAG), 'uid-b', "the other resource's bucket untouched");
    t.equal([...aws.users.values()][0]!.keys.length, 1, 'the access key kept');
  },
);

t.test('a bucket read untagged is no answer: nothing detached while the spec is refused', async (t) => {
  const aws = new FakeAws();
  const { writes } = await refusedAfterGrant(aws, { tags: { 'aws:owner': 'team-a' } }, [{ arn: KEY }], (aws) => {
    aws.buckets.get('team-a-data')!.tags = new Map();
  });
  t.ok(attached(aws), 'the policy still attached');
  t.same(
    writes.map((w) => w.split(' ')[0]),
    ['setPolicyDocument'],
    'only the key withdrawn (kept only for a bucket found ours)',
  );
});

t.test("a refused spec takes no place in the namespace's ledger and frees none", async (t) => {
  const aws = new FakeAws();
  const ledger = () => [...aws.policies.keys()].filter((arn) => arn.includes(ledgerPath('team-a'))).sort();
  const first = await sync(request({}), aws, FIXED_NOW, { kms: [{ arn: KEY }] });
  const secret = first.children.find((c) => c.kind === 'Secret')!;
  const entries = ledger();
  t.equal(entries.length, 1, "the bucket's place");
  aws.calls.length = 0;
  // A new bucket named, with a tag AWS refuses: refused before any place is taken, the old bucket's kept.
  await sync(
    request({ bucketName: 'team-a-more', tags: { 'aws:x': 'y' } }, first.status as Record<string, unknown>, [secret]),
    aws,
    FIXED_NOW,
    { kms: [{ arn: KEY }], bucketsPerNamespace: 1 },
  );
  t.same(ledger(), entries, 'the ledger as it was');
  t.same(aws.calls, [], 'nothing written');
  t.notOk(aws.buckets.has('team-a-more'), 'no bucket made');
});

t.test('AWS failing while the spec is refused: still InvalidSpec, the failure said, asked again', async (t) => {
  const aws = new FakeAws();
  const first = await sync(request({}), aws, FIXED_NOW, { kms: [{ arn: KEY }] });
  aws.getUser = async () => {
    throw new AwsError('Throttling', 'Rate exceeded', 'GetUser');
  };
  const after = await sync(
    request({ tags: { 'aws:owner': 'team-a' } }, first.status as Record<string, unknown>),
    aws,
    FIXED_NOW,
    { kms: [] },
  );
  refusedFor(t, after.status as Record<string, unknown>, /aws:.*could not be checked yet: GetUser: Throttling/);
  t.ok((after.resyncAfterSeconds ?? 0) > 0, 'asked again');
  t.same(kmsGranted(aws), [KEY], 'the grant stands until AWS answers');
});
