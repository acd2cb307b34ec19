// S3 answers CreateBucket with a 5xx (InternalError: "We encountered
// an internal error. Please try again.") whose outcome is unknown: the bucket may have been made. The hook takes every
// AWS error code other than a missing answer as a refusal and removes the record of intent (hooks/s3/sync.ts,
// ensureBucket), so when the bucket was made, the next sync finds its own bucket untagged and without the record and
// refuses it ("already exists and is not managed by metaops"): the resource is wedged on its own half-made bucket,
// which is what the record of intent was for. (The SDK tries twice, maxAttempts 2; the last answer is what counts.)
import t from 'tap';
import { AwsError, BUCKET_INTENT_TAG, OWNER_UID_TAG, type AwsApi } from '../../hooks/s3/api.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { s3Request, TENANT_A, withCreateBucket } from '../fixtures/s3.js';

/** Tenant A's resource asks for the bucket tenant-a-data, kept when the resource goes. */
const SPEC = { bucketName: 'tenant-a-data', deletionPolicy: 'Retain' };

for (const code of ['InternalError', 'ServiceUnavailable']) {
  t.test(`CreateBucket made the bucket but answered ${code}: the next sync converges on it`, async (t) => {
    const fake = new FakeAws();
    let once = false;
    const aws = withCreateBucket(fake, async (bucket, region) => {
      await fake.createBucket(bucket, region);
      if (!once) {
        once = true;
        throw new AwsError(code, 'We encountered an internal error. Please try again.', 'CreateBucket');
      }
    });
    const now = new Date('2026-01-02T03:04:05Z');
    let res: CompositeSyncResponse = await sync(s3Request(TENANT_A, SPEC), aws, now);
    t.ok(fake.buckets.has('tenant-a-data'), 'S3 made the bucket');
    for (let i = 0; i < 3; i++) {
      // What Metacontroller sends next: the status and the children the last answer asked for.
      res = await sync(s3Request(TENANT_A, SPEC, { status: res.status ?? {}, children: res.children }), aws, now);
    }
    const ready = ((res.status?.['conditions'] ?? []) as Array<Record<string, unknown>>).find(
      (c) => c['type'] === 'Ready',
    );
    t.equal(ready?.['status'], 'True', `Ready (is ${ready?.['reason']}: ${ready?.['message']})`);
    t.equal(fake.buckets.get('tenant-a-data')?.tags.get(OWNER_UID_TAG), 'uid-a', 'the bucket carries its owner tag');
    t.same(res.status?.['createdBuckets'], ['tenant-a-data'], 'recorded as created by this resource');
    t.notOk(
      [...fake.users.values()].some((u) => u.tags.has(BUCKET_INTENT_TAG)),
      'the record of intent is gone once the bucket is tagged',
    );
  });
}

/** The fake, whose first CreateBucket fails with `code` and makes nothing. */
function failsOnce(fake: FakeAws, code: string): AwsApi {
  let once = false;
  return withCreateBucket(fake, async (bucket, region) => {
    if (!once) {
      once = true;
      throw new AwsError(code, 'refused or failed', 'CreateBucket');
    }
    await fake.createBucket(bucket, region);
  });
}

const intentOf = (fake: FakeAws) => [...fake.users.values()].map((u) => u.tags.get(BUCKET_INTENT_TAG)).filter(Boolean);

for (const code of ['BucketAlreadyExists', 'InvalidBucketName', 'AccessDenied', 'TooManyBuckets']) {
  t.test(`CreateBucket refused (${code}): the record of intent goes`, async (t) => {
    const fake = new FakeAws();
    const res = await sync(s3Request(TENANT_A, SPEC), failsOnce(fake, code), new Date());
    t.match(JSON.stringify(res.status), new RegExp(code), 'the status says what AWS answered');
    t.same(intentOf(fake), [], 'no record of a bucket that was not made');
  });
}

for (const code of ['InternalError', 'ServiceUnavailable', 'SlowDown', 'SomethingNew']) {
  t.test(`CreateBucket failed without a definite refusal (${code}): the record of intent stays`, async (t) => {
    const fake = new FakeAws();
    await sync(s3Request(TENANT_A, SPEC), failsOnce(fake, code), new Date());
    t.same(intentOf(fake), ['tenant-a-data'], 'the record names the bucket that may exist');
  });
}
