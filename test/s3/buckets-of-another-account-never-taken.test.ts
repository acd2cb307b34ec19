// A bucket is an S3 resource's only when it is in the operator's own AWS account. Bucket names are global: a tenant can
// make buckets in an account of its own, tag each with one of its S3 resources' owner tags (it reads their UIDs) and
// open their policy to the operator. Taken as the resources' own (no CreateBucket), none would count against the
// namespace's bound on buckets, and each would cost the operator's account an IAM user, a policy and a key, a quota
// every tenant shares. Every call about a bucket expects the operator's account as its owner (ExpectedBucketOwner, the
// account STS names, asked once): S3 refuses another account's bucket with a 403, and the adapter, answered when it asks
// again without the expectation, knows it for another account's. On the SDK adapter over the AWS model
// (test/fixtures/aws-model.ts); the same attack against moto is test/real/s3-buckets-of-another-account-refused.test.ts.
import t from 'tap';
import { OWNER_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { policyName, userName } from '../../hooks/s3/policy.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { AwsModel } from '../fixtures/aws-model.js';
import { s3Finalize, s3Sync } from '../fixtures/hooks.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

const TENANT_ACCOUNT = '111111111111';
const BOUND = 2;
const settings = { bucketsPerNamespace: BOUND };

const tagsOf = (name: string) => [
  { Key: OWNER_TAG, Value: `team-a/${name}` },
  { Key: OWNER_UID_TAG, Value: `uid-team-a-${name}` },
];

const ready = (res: CompositeSyncResponse) =>
  ((res.status?.['conditions'] as any[]) ?? []).find((c) => c.type === 'Ready') ?? {};

/** S3 resource `name` of team-a on the model, its status and children carried from one answer to the next. */
function resource(m: AwsModel, name: string, spec: Record<string, unknown>) {
  let status: Record<string, unknown> | undefined;
  let children: any[] = [];
  const api = m.api();
  const request = () =>
    s3Request(
      { name, namespace: 'team-a', uid: `uid-team-a-${name}` },
      { ...S3_DEFAULTS, ...spec },
      {
        status,
        children,
      },
    );
  return {
    async sync() {
      const res = await s3Sync(request(), api, m.now, settings);
      status = res.status ?? undefined;
      children = res.children;
      return res;
    },
    async finalize() {
      const res = await s3Finalize(request(), api, m.now);
      status = res.status ?? undefined;
      return res;
    },
  };
}

t.test(
  "buckets of the tenant's own account, tagged as its resources' and open to the operator, are refused",
  async (t) => {
    const m = new AwsModel();
    for (let i = 0; i < 5; i++)
      m.buckets.set(`team-a-own-${i}`, {
        region: 'us-east-1',
        tags: tagsOf(`r${i}`),
        objects: [],
        owner: TENANT_ACCOUNT,
        open: true,
      });
    for (let i = 0; i < 5; i++) {
      const r = resource(m, `r${i}`, { bucketName: `team-a-own-${i}` });
      for (const _ of [1, 2]) {
        const res = await r.sync();
        const cond = ready(res);
        t.equal(cond.status, 'False', `r${i} is not Ready`);
        t.equal(cond.reason, 'BucketAlreadyExists', `r${i}: refused as another's bucket`);
        t.match(cond.message, /owned by another AWS account, not the operator's/, `r${i}: the message says why`);
        t.notMatch(cond.message, /\d{12}/, `r${i}: the message names neither account`);
        t.same(res.children, [], `r${i}: no Secret`);
      }
    }
    t.same([...m.users.keys()], [], 'no IAM user made in the operator account');
    t.same([...m.policies.keys()], [], 'no policy, claim or ledger entry made');
    for (let i = 0; i < 5; i++) {
      const b = m.buckets.get(`team-a-own-${i}`)!;
      t.same(b.tags, tagsOf(`r${i}`), `team-a-own-${i}'s tags untouched`);
      t.same([b.publicAccessBlock, b.encryption, b.versioning], [undefined, undefined, undefined], 'nor its settings');
    }
    t.notOk(
      m.calls.some((c) => /^(CreateBucket|Put|Delete)/.test(c)),
      'no bucket created, and nothing written to any',
    );
  },
);

t.test('a bucket of another account closed to the operator: AccessDenied, and nothing made', async (t) => {
  const m = new AwsModel();
  m.buckets.set('team-a-closed', { region: 'us-east-1', tags: tagsOf('c'), objects: [], owner: TENANT_ACCOUNT });
  const res = await resource(m, 'c', { bucketName: 'team-a-closed' }).sync();
  t.equal(ready(res).reason, 'AccessDenied');
  t.same([...m.users.keys(), ...m.policies.keys()], [], 'no user, no policy');
});

t.test("a resource's bucket deleted, its name taken by another account: refused, its grant revoked", async (t) => {
  const m = new AwsModel();
  const r = resource(m, 'data', { bucketName: 'team-a-data', deletionPolicy: 'Delete', forceDelete: true });
  let res = await r.sync();
  t.equal(ready(res).status, 'True', 'Ready on its own bucket');
  const user = userName('team-a', 'data', 'uid-team-a-data');
  const policy = `arn:aws:iam::${m.account}:policy/${policyName('team-a', 'data', 'uid-team-a-data')}`;
  t.same(m.users.get(user)!.attached, [policy], 'its policy attached');
  const entries = () => [...m.policies.keys()].filter((arn) => arn.includes('/namespace-buckets/'));
  t.equal(entries().length, 1, "the bucket counted in the namespace's ledger");

  // Deleted outside metaops; the tenant makes the name again in its own account, tagged as the resource's, open.
  m.buckets.set('team-a-data', {
    region: 'us-east-1',
    tags: tagsOf('data'),
    objects: [{ Key: 'theirs', VersionId: 'v1' }],
    owner: TENANT_ACCOUNT,
    open: true,
  });
  res = await r.sync();
  t.equal(ready(res).reason, 'BucketAlreadyExists', 'refused');
  t.match(ready(res).message, /grant to it and its access keys were revoked/);
  t.same(res.children, [], 'the Secret is no longer answered');
  t.same(m.users.get(user)!.attached, [], 'the policy detached');
  t.same(m.users.get(user)!.keys, [], 'the access keys deleted');
  t.same(entries(), [], "its place in the namespace's ledger freed");

  let fin = await r.finalize();
  for (let i = 0; i < 3 && !fin.finalized; i++) fin = await r.finalize();
  t.ok(fin.finalized, 'finalized');
  t.ok(m.buckets.has('team-a-data'), "the other account's bucket is not deleted");
  t.same(m.buckets.get('team-a-data')!.objects, [{ Key: 'theirs', VersionId: 'v1' }], 'nor emptied');
  t.notOk(m.users.has(user), 'the user deleted');
  t.notOk(m.policies.has(policy), 'the policy deleted');
});

t.test("every call about a bucket expects the operator's account, which STS is asked once", async (t) => {
  const m = new AwsModel();
  const r = resource(m, 'data', { bucketName: 'team-a-data', deletionPolicy: 'Delete', forceDelete: true });
  for (const _ of [1, 2, 3]) t.equal(ready(await r.sync()).status, 'True');
  m.buckets.get('team-a-data')!.objects.push({ Key: 'k', VersionId: 'v1' });
  let fin = await r.finalize();
  for (let i = 0; i < 3 && !fin.finalized; i++) fin = await r.finalize();
  t.ok(fin.finalized, 'emptied, deleted and finalized');
  t.notOk(m.buckets.has('team-a-data'), 'its own bucket deleted');
  t.same(m.withoutOwner, [], 'no S3 call about a bucket without ExpectedBucketOwner');
  t.equal(m.calls.filter((c) => c === 'GetCallerIdentity').length, 1, "the operator's account asked once");
});
