// a CreateBucket left without an answer keeps the record of
// intent on the user; if the tenant then renames the bucket in its spec and deletes the S3 resource before the next
// sync, finalize takes the claim of the intent's bucket (recordIntent -> holdClaim) but releases only the claims of
// the buckets its status recorded and its spec names (releaseClaims). The claim `metaops.bucket.<bucket>` of a
// deleted resource stays in IAM: with deletionPolicy Delete the bucket is gone, and no S3 resource of any tenant can
// ever create that bucket name again ("belongs to another S3 resource"), nothing left that any sync undoes.
import t from 'tap';
import { AwsError, OWNER_TAG, OWNER_UID_TAG, type AwsApi } from '../../hooks/s3/api.js';
import { claimName } from '../../hooks/s3/sync.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import { s3Request, withCreateBucket } from '../fixtures/s3.js';

const NOW = new Date('2026-01-02T03:04:05Z');
const claimArn = (bucket: string) => `arn:aws:iam::123456789012:policy/${claimName(bucket)}`;

const request = (namespace: string, uid: string, spec: Record<string, unknown>, status?: Record<string, unknown>) =>
  s3Request({ name: 'data', namespace, uid }, spec, { status });

/** The fake, whose first CreateBucket creates the bucket and then answers nothing (the hook's deadline). */
function silentOnce(fake: FakeAws): AwsApi {
  let done = false;
  return withCreateBucket(fake, async (bucket, region) => {
    await fake.createBucket(bucket, region);
    if (!done) {
      done = true;
      throw new AwsError('TimeoutError', 'no answer within the deadline', 'CreateBucket');
    }
  });
}

t.test(
  'finalize after a silent CreateBucket and a rename releases the claim it took: the bucket name stays usable',
  async (t) => {
    const fake = new FakeAws();
    const aws = silentOnce(fake);
    // Tenant A asks for bucket "shared-name"; AWS makes it but the answer never comes.
    let res: CompositeSyncResponse = await sync(
      request('tenant-a', 'uid-a', { bucketName: 'shared-name', deletionPolicy: 'Delete' }),
      aws,
      NOW,
    );
    t.ok(fake.buckets.has('shared-name'), 'the bucket exists (AWS made it)');
    t.notOk(fake.policies.has(claimArn('shared-name')), 'no claim yet: the sync died before it');
    // A renames the bucket in its spec and deletes the resource before any sync runs again.
    res = await finalize(
      request('tenant-a', 'uid-a', { bucketName: 'other-name', deletionPolicy: 'Delete' }, res.status ?? undefined),
      aws,
      NOW,
    );
    if (!res.finalized)
      res = await finalize(
        request('tenant-a', 'uid-a', { bucketName: 'other-name', deletionPolicy: 'Delete' }, res.status ?? undefined),
        aws,
        NOW,
      );
    t.ok(res.finalized, 'finalized');
    t.notOk(fake.buckets.has('shared-name'), 'its half-made bucket was deleted (deletionPolicy Delete)');
    t.notOk(
      fake.policies.has(claimArn('shared-name')),
      'no claim of a deleted bucket is left behind by a deleted resource',
    );
    // Tenant B, later, asks for the now free bucket name.
    const b = await sync(
      request('tenant-b', 'uid-b', { bucketName: 'shared-name', deletionPolicy: 'Retain' }),
      fake,
      NOW,
    );
    const ready = ((b.status?.['conditions'] ?? []) as Array<Record<string, unknown>>).find(
      (c) => c['type'] === 'Ready',
    );
    t.equal(
      ready?.['status'],
      'True',
      `tenant B gets the free bucket name (Ready: ${ready?.['reason']}: ${ready?.['message']})`,
    );
  },
);

t.test(
  'finalize with Retain after a silent CreateBucket and a rename: the bucket is retained, no claim left',
  async (t) => {
    const fake = new FakeAws();
    const aws = silentOnce(fake);
    let res: CompositeSyncResponse = await sync(
      request('tenant-a', 'uid-a', { bucketName: 'kept-name', deletionPolicy: 'Retain' }),
      aws,
      NOW,
    );
    for (let i = 0; i < 2 && !res.finalized; i++)
      res = await finalize(
        request('tenant-a', 'uid-a', { bucketName: 'other-name', deletionPolicy: 'Retain' }, res.status ?? undefined),
        aws,
        NOW,
      );
    t.ok(res.finalized, 'finalized');
    t.equal(
      fake.buckets.get('kept-name')?.tags.get(OWNER_UID_TAG),
      'uid-a',
      'retained, tagged as this resource made it',
    );
    t.same(res.status?.['retainedBuckets'], ['kept-name'], 'listed as retained');
    t.notOk(fake.policies.has(claimArn('kept-name')), 'its claim released: its own tags guard it now');
  },
);

t.test("a sync whose record of intent names a bucket that is gone releases that bucket's claim", async (t) => {
  const fake = new FakeAws();
  const aws = silentOnce(fake);
  const res = await sync(request('tenant-a', 'uid-a', { bucketName: 'vanished', deletionPolicy: 'Delete' }), aws, NOW);
  // A sync killed after taking the claim and before tagging; then the untagged bucket is deleted by hand.
  fake.buckets.delete('vanished');
  await fake.createPolicy(
    claimName('vanished'),
    '{}',
    new Map([
      [OWNER_TAG, 'tenant-a/data'],
      [OWNER_UID_TAG, 'uid-a'],
    ]),
  );
  await sync(
    request('tenant-a', 'uid-a', { bucketName: 'renamed', deletionPolicy: 'Delete' }, res.status ?? undefined),
    aws,
    NOW,
  );
  t.notOk(fake.policies.has(claimArn('vanished')), 'the claim of the vanished bucket is released');
  t.ok(fake.buckets.has('renamed'), 'the renamed bucket is made');
});
