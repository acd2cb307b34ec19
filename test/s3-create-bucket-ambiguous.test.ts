// S3 answers CreateBucket with a 5xx (InternalError: "We encountered
// an internal error. Please try again.") whose outcome is unknown: the bucket may have been made. The hook takes every
// AWS error code other than a missing answer as a refusal and removes the record of intent (hooks/s3/sync.ts,
// ensureBucket), so when the bucket was made, the next sync finds its own bucket untagged and without the record and
// refuses it ("already exists and is not managed by metaops"): the resource is wedged on its own half-made bucket,
// which is what the record of intent was for. (The SDK tries twice, maxAttempts 2; the last answer is what counts.)
import t from 'tap';
import { AwsError, type AwsApi } from '../hooks/s3/api.js';
import type { CompositeSyncResponse, ParentObject } from '../lib/metacontroller.js';
import { FakeAws } from './fixtures/fake-aws.js';
import { s3Sync as sync } from './fixtures/hooks.js';
import { objectMap } from './fixtures/requests.js';

for (const code of ['InternalError', 'ServiceUnavailable']) {
  t.test(`CreateBucket made the bucket but answered ${code}: the next sync converges on it`, async (t) => {
    const fake = new FakeAws();
    let once = false;
    const aws: AwsApi = new Proxy(fake, {
      get(target, prop, receiver) {
        if (prop === 'withDeadline') return () => aws;
        const value = Reflect.get(target, prop, receiver);
        if (prop !== 'createBucket') return typeof value === 'function' ? value.bind(target) : value;
        return async (bucket: string, region: string) => {
          await target.createBucket(bucket, region);
          if (!once) {
            once = true;
            throw new AwsError(code, 'We encountered an internal error. Please try again.', 'CreateBucket');
          }
        };
      },
    });
    const parent: ParentObject = {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name: 'data', namespace: 'tenant-a', uid: 'uid-a', generation: 1 },
      spec: { bucketName: 'tenant-a-data', deletionPolicy: 'Retain' },
    };
    const now = new Date('2026-01-02T03:04:05Z');
    let res: CompositeSyncResponse = await sync(
      { controller: {}, parent, children: objectMap([], 'v1', ['Secret.v1']) },
      aws,
      now,
    );
    t.ok(fake.buckets.has('tenant-a-data'), 'S3 made the bucket');
    for (let i = 0; i < 3; i++) {
      parent.status = structuredClone(res.status ?? {});
      res = await sync({ controller: {}, parent, children: objectMap([], 'v1', ['Secret.v1']) }, aws, now);
    }
    const ready = ((res.status?.['conditions'] ?? []) as Array<Record<string, unknown>>).find(
      (c) => c['type'] === 'Ready',
    );
    t.equal(ready?.['status'], 'True', `Ready (is ${ready?.['reason']}: ${ready?.['message']})`);
  });
}
