// Old buckets a rename left behind (deletionPolicy: Delete) that still hold objects wait on what only their tenant
// can change (emptying them). They are looked at again less and less often, as a finalize waiting on its tenant is
// (10 s doubling to 300 s, from OldBucketDeleted's lastTransitionTime in the status, not from memory): before, every
// 30 s for good (one resource with nine such buckets: 120 syncs and 1,920 AWS calls an hour, 2.3 times the same ten
// buckets at rest), on the AWS identity every namespace shares. An hour of waiting costs at most twice an hour at rest.
import t from 'tap';
import { MAX_BUCKETS } from '../../hooks/s3/sync.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { budgeted } from '../fixtures/hooks.js';
import { anHour, NamespaceResource } from '../fixtures/s3-namespace.js';

/** Tenant A's resource `name`, made Ready on `bucket`. */
async function ready(fake: FakeAws, name: string, spec: Record<string, unknown>) {
  const r = new NamespaceResource(fake, 'tenant-a', name, spec, {});
  await r.sync();
  await r.sync();
  return r;
}

t.test('old buckets a rename left waiting on their tenant cost about what an hour at rest does', async (t) => {
  const fake = new FakeAws();
  budgeted(fake);
  const old = Array.from({ length: MAX_BUCKETS - 1 }, (_, i) => `tenant-a-old-${i}`);
  // The same ten buckets at rest: ten resources, each Ready on its own bucket.
  let rest = 0;
  for (const [i, bucket] of [...old, 'tenant-a-now'].entries()) {
    const r = await ready(fake, `rest-${i}`, { bucketName: `${bucket}-rest`, deletionPolicy: 'Delete' });
    rest += (await anHour(fake, r)).awsCalls;
  }
  // One resource renamed nine times, an object left in each bucket it leaves behind.
  let r = await ready(fake, 'renamed', { bucketName: old[0], deletionPolicy: 'Delete' });
  for (const bucket of [...old.slice(1), 'tenant-a-now']) {
    fake.buckets.get(r.spec['bucketName'] as string)!.objects = 1;
    const next = new NamespaceResource(fake, 'tenant-a', 'renamed', { ...r.spec, bucketName: bucket }, {});
    next.status = r.status;
    next.children = r.children;
    await next.sync();
    await next.sync();
    r = next;
  }
  t.equal(r.ready()['status'], 'True', 'the renamed resource is Ready on its current bucket');
  const waiting = await anHour(fake, r);
  t.comment(
    `ten buckets at rest for an hour: ${rest} AWS calls; one resource with nine old buckets waiting: ` +
      `${waiting.hookCalls} syncs, ${waiting.awsCalls} AWS calls`,
  );
  t.ok(
    old.every((b) => fake.buckets.has(b)),
    'the old buckets wait (not empty)',
  );
  t.ok(
    waiting.awsCalls <= 2 * rest,
    `waiting costs at most twice the calls of the same buckets at rest (${waiting.awsCalls} against ${rest})`,
  );
});
