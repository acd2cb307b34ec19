// AWS answers that lag (a dependency that half-works, issue 31). S3 bucket tags are bucket configuration, which S3
// documents as eventually consistent: right after PutBucketTagging a GetBucketTagging may still answer NoSuchTagSet (an
// untagged bucket); IAM is eventually consistent too (a policy just created may read as NoSuchEntity). The hook must not
// destroy on doubt (GUIDE): a resource whose own bucket (recorded in its status, tagged by it) reads once as untagged
// must not revoke its own grant, delete its access keys and drop its Secret; and a sync that finds its own half-made
// bucket (untagged, its record of intent, its claim) must not give the bucket up for good because IAM read its claim
// late (issue 31: "never a resource wedged on its own half-made bucket"); finalize must not leave its own bucket behind on
// one stale read; and a key made a moment ago that ListAccessKeys does not show yet must not be replaced (key churn
// under a running workload). The in-memory AWS with stale reads.
import t from 'tap';
import { OWNER_UID_TAG, type AwsApi } from '../../hooks/s3/api.js';
import { userName } from '../../hooks/s3/policy.js';
import { KEY_GRACE_SECONDS } from '../../hooks/s3/sync.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { converge, ready, Resource } from '../fixtures/s3-loop.js';

const USER = userName('ns', 'app', 'uid-app');

/** The fake AWS whose next `stale` reads of `bucket` answer no tags (NoSuchTagSet), as a lagging replica would. */
function staleTags(fake: FakeAws, bucket: string, stale: number): AwsApi {
  let left = stale;
  return new Proxy(fake, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'withDeadline') return () => staleTags(fake, bucket, left);
      if (prop !== 'findBucket') return typeof value === 'function' ? value.bind(target) : value;
      return async (name: string, hint?: string) => {
        const found = await fake.findBucket(name, hint);
        if (found && name === bucket && left > 0) {
          left--;
          return { ...found, tags: new Map<string, string>() };
        }
        return found;
      };
    },
  }) as unknown as AwsApi;
}

const secretKeyId = (children: KubeObject[]) => {
  const secret = children.find((c) => c.kind === 'Secret');
  const id = (secret?.['data'] as Record<string, string> | undefined)?.['AWS_ACCESS_KEY_ID'];
  return id ? Buffer.from(id, 'base64').toString() : undefined;
};

t.test(
  'one stale read of its own bucket\u2019s tags does not revoke the resource\u2019s keys or drop its Secret',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'own-bucket' });
    await converge(r);
    const key = secretKeyId(r.children);
    t.ok(key, 'Ready, its Secret holds its key');
    t.equal(r.fake.buckets.get('own-bucket')?.tags.get(OWNER_UID_TAG), 'uid-app', 'the bucket carries its tags');
    t.same(r.status?.['createdBuckets'], ['own-bucket'], 'and the status records it as created by this resource');
    const res = await r.run('sync', staleTags(r.fake, 'own-bucket', 1));
    const ready = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
    t.same(r.fake.keyIds(USER), [key], `its access key is not deleted (Ready: ${ready?.reason}: ${ready?.message})`);
    t.equal(secretKeyId(res.children), key, 'its Secret is kept in the answer (the workload keeps its credentials)');
    t.equal(r.fake.users.get(USER)?.policies.length, 1, 'its policy stays attached');
    // The tags read right at the next sync: the same key, no churn.
    await converge(r);
    t.equal(secretKeyId(r.children), key, 'the next sync is Ready with the same key');
  },
);

/** The fake AWS whose reads of the policy `arn` answer NoSuchEntity while `stale` reads are left (IAM's lag). */
function staleClaim(fake: FakeAws, arn: string, stale: { left: number }): AwsApi {
  const aws: AwsApi = new Proxy(fake, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'withDeadline') return () => aws;
      if (prop !== 'getPolicy') return typeof value === 'function' ? value.bind(target) : value;
      return async (asked: string) => {
        if (asked === arn && stale.left > 0) {
          stale.left--;
          return undefined;
        }
        return fake.getPolicy(asked);
      };
    },
  }) as unknown as AwsApi;
  return aws;
}

t.test(
  'a killed sync left its bucket untagged under its own claim; IAM reads that claim late: the bucket is not abandoned',
  async (t) => {
    const claimArn = `arn:aws:iam::123456789012:policy/metaops.bucket.half-made`;
    // The kill point after which the bucket exists untagged and this resource's claim of it exists (IAM has it).
    let n = 0;
    for (; n < 50; n++) {
      const probe = new Resource(new FakeAws(), { bucketName: 'half-made' });
      await probe.killed('sync', n);
      const b = probe.fake.buckets.get('half-made');
      if (b && b.tags.size === 0 && probe.fake.policies.has(claimArn)) break;
    }
    t.ok(n < 50, `killed after call ${n}: the bucket is made and claimed, not tagged`);
    const r = new Resource(new FakeAws(), { bucketName: 'half-made' });
    await r.killed('sync', n);
    // The restarted hook's next sync: IAM does not list the claim made a moment ago (twice: read, and read again
    // after CreatePolicy answered EntityAlreadyExists).
    const res = await r.run('sync', staleClaim(r.fake, claimArn, { left: 2 }));
    const first = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
    // IAM has caught up: the syncs after must converge on the bucket this resource made.
    let ready: any;
    for (let i = 0; i < 4 && ready?.status !== 'True'; i++) {
      const next = await r.run('sync');
      ready = ((next.status as any).conditions as any[]).find((c) => c.type === 'Ready');
      if (ready?.reason === 'SecretPending')
        r.fake.now = new Date(r.fake.now.getTime() + (KEY_GRACE_SECONDS + 1) * 1000);
    }
    t.equal(
      ready?.status,
      'True',
      `Ready once IAM answers (after the stale sync: ${first?.reason}: ${first?.message}; now ${ready?.reason}: ${ready?.message})`,
    );
    t.equal(r.fake.buckets.get('half-made')?.tags.get(OWNER_UID_TAG), 'uid-app', 'the bucket carries its owner tags');
  },
);

t.test(
  'finalize with deletionPolicy Delete: one stale read of its bucket\u2019s tags does not leave the bucket behind',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'to-delete', deletionPolicy: 'Delete', forceDelete: true });
    await converge(r);
    // DeleteBucket's own read of the tags, right before it deletes (GetBucketTagging: NoSuchTagSet), is the stale one.
    const fake = r.fake;
    const deleteBucket = fake.deleteBucket.bind(fake);
    let stale = 1;
    fake.deleteBucket = (bucket, force, owned) =>
      deleteBucket(bucket, force, (tags) => (bucket === 'to-delete' && stale-- > 0 ? owned(new Map()) : owned(tags)));
    const res = await r.run('finalize');
    let finalized = res.finalized === true;
    for (let i = 0; i < 4 && !finalized; i++) finalized = (await r.run('finalize')).finalized === true;
    const done = ((r.status as any).conditions as any[]).find((c) => c.type === 'Finalized');
    t.ok(finalized, 'finalized');
    t.notOk(r.fake.buckets.has('to-delete'), `the bucket this resource made is deleted (Finalized: ${done?.message})`);
  },
);

t.test('a key created a moment ago that IAM does not list yet is not replaced (no silent key churn)', async (t) => {
  const r = new Resource(new FakeAws(), { bucketName: 'fresh-key' });
  await converge(r);
  const key = secretKeyId(r.children);
  // The next sync comes at once (Metacontroller saw the Secret created); ListAccessKeys lags and lists no key.
  const fake = r.fake;
  const list = fake.listAccessKeys.bind(fake);
  let stale = 1;
  fake.listAccessKeys = async (user) => (stale-- > 0 ? [] : list(user));
  const res = await r.run('sync');
  t.equal(secretKeyId(res.children), key, 'the Secret keeps the key it was given a moment ago');
  t.same(fake.keyIds(USER), [key], 'no second key is made');
  // Workloads read the key at start; one replaced now is deleted after the grace period under them.
});

t.test(
  'a rename (Delete): one stale read of the old bucket\u2019s tags neither leaves it behind as retained nor keeps its claim',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'old-one', deletionPolicy: 'Delete', forceDelete: true });
    await converge(r);
    r.spec = { ...r.spec, bucketName: 'new-one' };
    const fake = r.fake;
    const deleteBucket = fake.deleteBucket.bind(fake);
    let stale = 1;
    fake.deleteBucket = (bucket, force, owned) =>
      deleteBucket(bucket, force, (tags) => (bucket === 'old-one' && stale-- > 0 ? owned(new Map()) : owned(tags)));
    await converge(r);
    t.notOk(r.status?.['retainedBuckets'], 'not listed as retained (left alone) on one untagged read');
    await r.run('sync');
    t.notOk(fake.buckets.has('old-one'), 'deleted at the next sync, per deletionPolicy');
    t.notOk(fake.policies.has(`arn:aws:iam::123456789012:policy/metaops.bucket.old-one`), 'its claim released');
    t.same(r.status?.['createdBuckets'], ['new-one']);
  },
);

t.test(
  'a bucket made before the records (none on the user) read once untagged: taken back under its claim; without a claim, neither refused as another\u2019s nor revoked',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'older' });
    await converge(r);
    const key = secretKeyId(r.children);
    const user = r.fake.users.get(USER)!;
    user.tags.delete('metaops.dev/bucket.older');
    let res = await r.run('sync', staleTags(r.fake, 'older', 1));
    t.equal(ready(res)?.status, 'True', 'its claim says it is this resource\u2019s: Ready');
    t.equal(user.tags.get('metaops.dev/bucket.older'), 'made', 'and recorded on the user from now on');
    // No record and no claim (a bucket from before the claims), the status records it: no answer either way.
    user.tags.delete('metaops.dev/bucket.older');
    r.fake.policies.delete('arn:aws:iam::123456789012:policy/metaops.bucket.older');
    res = await r.run('sync', staleTags(r.fake, 'older', 1));
    t.match(ready(res), { status: 'False', reason: 'OwnershipUnconfirmed' });
    t.same(r.fake.keyIds(USER), [key], 'its key stays');
    t.equal(secretKeyId(res.children), key, 'its Secret stays');
    t.equal(user.policies.length, 1, 'its policy stays attached');
    t.equal(r.fake.buckets.get('older')!.tags.size, 2, 'and the bucket is not touched');
    t.equal(ready(await r.run('sync'))?.status, 'True', 'the tags read back: Ready');
  },
);

t.test(
  'right after a rotation, a ListAccessKeys that still shows only the old key does not rotate again',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'rotated' });
    await converge(r);
    const first = secretKeyId(r.children)!;
    // The Secret is really gone, long after its key was made: a new key.
    r.fake.now = new Date(r.fake.now.getTime() + 3600_000);
    r.children = [];
    await converge(r);
    const second = secretKeyId(r.children)!;
    t.not(second, first, 'rotated');
    const fake = r.fake;
    const list = fake.listAccessKeys.bind(fake);
    let stale = 1;
    fake.listAccessKeys = async (user) =>
      stale-- > 0 ? [{ id: first, created: new Date(fake.now.getTime() - 3600_000) }] : list(user);
    const res = await r.run('sync');
    t.equal(secretKeyId(res.children), second, 'the Secret keeps the new key');
    t.same(fake.keyIds(USER), [second], 'no third key');
  },
);

t.test('a key IAM really no longer has is replaced, whatever date its Secret carries', async (t) => {
  for (const stamp of [undefined, '2100-01-01T00:00:00.000Z', 'not a date']) {
    const r = new Resource(new FakeAws(), { bucketName: 'gone-key' });
    await converge(r);
    const key = secretKeyId(r.children)!;
    r.fake.now = new Date(r.fake.now.getTime() + 3600_000);
    const secret = r.children.find((c) => c.kind === 'Secret')!;
    if (stamp !== undefined) secret.metadata!.annotations = { 'metaops.dev/access-key-created': stamp };
    r.fake.users.get(USER)!.keys = [];
    await converge(r);
    const now = secretKeyId(r.children);
    t.ok(now && now !== key, `${stamp ?? 'the date written'}: a new key`);
    t.same(r.fake.keyIds(USER), [now]);
  }
});
