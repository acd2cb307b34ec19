// A resource's bucket deleted behind its back (by hand, by a lifecycle tool, by another account's admin) and not made
// again: "data that vanishes under a running member" (issue 31). The resource made that bucket (status.createdBuckets,
// and the record `metaops.dev/bucket.<bucket>: made` on its IAM user, say so) and its workload has been writing to it.
// Today the next sync makes a new, empty bucket under the same name, tells it as a routine `Normal BucketCreated`
// ("created bucket ...") and answers `Ready=True Available`: the workload goes on against an empty bucket and nothing
// says its data is gone. An EtcdCluster member whose claim is gone is never remade empty under its old identity, and a
// MySQL member 0 that lost its volume stays read-only; the S3 resource must at least say it: a Warning Event and a
// condition naming the bucket that was lost.
import t from 'tap';
import { s3 } from '../../hooks/s3/index.js';
import type { EventSpec } from '../../lib/events.js';
import { runHook } from '../../lib/operator.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { converge, Resource } from '../fixtures/s3-loop.js';

t.test('a bucket the resource made, deleted behind its back, is told as lost, not as a routine creation', async (t) => {
  const r = new Resource(new FakeAws(), { bucketName: 'orders-bucket', deletionPolicy: 'Retain' });
  await converge(r);
  t.same(r.status!['createdBuckets'], ['orders-bucket'], 'the resource made the bucket');
  r.fake.buckets.get('orders-bucket')!.objects = 7;
  // A day later the bucket, with its objects, is deleted out of band; nobody makes one of that name.
  r.fake.now = new Date(r.fake.now.getTime() + 24 * 3600 * 1000);
  r.fake.buckets.delete('orders-bucket');

  const events: EventSpec[] = [];
  const res = await runHook(s3, 'sync', r.request(), {
    now: r.fake.now,
    clients: { aws: async () => r.fake as never },
    services: { events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
  const conditions = (res.status as any).conditions as Array<{
    type: string;
    status: string;
    reason: string;
    message: string;
  }>;
  const told = (text: string) => /orders-bucket/.test(text) && /gone|lost|deleted|missing|vanish/i.test(text);
  t.ok(
    events.some((e) => e.type === 'Warning' && told(e.note)),
    `a Warning Event says bucket orders-bucket, which this resource made, is gone (told: ${JSON.stringify(events.map((e) => `${e.type} ${e.reason}: ${e.note}`))})`,
  );
  t.ok(
    conditions.some((c) => told(c.message)),
    `a condition says so (conditions: ${JSON.stringify(conditions.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`))})`,
  );
});

t.test(
  'the lost bucket stays said while the resource names it, the status then unchanged; a new bucket name ends it',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'orders-bucket', deletionPolicy: 'Retain' });
    await converge(r);
    r.fake.buckets.delete('orders-bucket');
    await r.run('sync');
    const lost = () => ((r.status!['conditions'] as any[]) ?? []).find((c) => c.type === 'BucketLost');
    t.equal(lost()?.status, 'True', 'the sync that made the bucket again says it was lost');
    const first = JSON.stringify(r.status);
    await r.run('sync');
    t.equal(JSON.stringify(r.status), first, 'the next sync, the bucket there again, answers the same status');
    r.spec = { ...r.spec, bucketName: 'orders-bucket-2' };
    await converge(r);
    t.equal(lost(), undefined, 'a resource that names another bucket no longer says the old one was lost');
  },
);

t.test(
  'a bucket never made by this resource (a sync killed before its status was written) is told as created',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'orders-bucket', deletionPolicy: 'Retain' });
    await r.killed('sync', 6);
    const res = await r.run('sync');
    t.notOk(
      ((res.status as any).conditions as any[]).some((c) => c.type === 'BucketLost'),
      'no BucketLost condition on a first creation finished after a crash',
    );
  },
);
