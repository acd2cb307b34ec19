// Every S3 resource's calls go to AWS with the operator's one identity, and IAM throttles an account's requests as a
// whole: what one namespace's resources call, every other namespace's S3 syncs wait behind (Metacontroller's five S3
// workers) and share the throttle with (a throttled sync is Ready=False Throttled, its bucket or key not made). A
// resource at rest costs 9 reads every 300 s (docs/s3.md). A resource deleted with `deletionPolicy: Delete` whose bucket
// is not empty (no `forceDelete`) waits at finalize for its tenant, who alone can empty it (its access key is deleted
// first) or set Retain; it waits for good if the tenant never does, and it is asked again every 10 s (RETRY_SECONDS.soon),
// 6 AWS calls each time (GetUser, ListAccessKeys, GetBucketTagging, ListObjectVersions, GetUser, GetPolicy on moto):
// ~2,200 calls an hour, 20 times a resource at rest. A namespace holds up to METAOPS_S3_BUCKETS_PER_NAMESPACE (100)
// such buckets: 100 deleted resources keep ~60 calls a second on the operator's identity, for as long as they wait.
//
// Must hold: a finalize that waits on what only the tenant can change backs off: an hour of waiting costs at most
// twice what an hour at rest does.
import t from 'tap';
import { FakeAws } from '../fixtures/fake-aws.js';
import { anHour, NamespaceResource } from '../fixtures/s3-namespace.js';

t.test('a finalize waiting on a bucket its tenant has not emptied costs about what an hour at rest does', async (t) => {
  const fake = new FakeAws();
  const r = new NamespaceResource(
    fake,
    'tenant-a',
    'data',
    { bucketName: 'tenant-a-data', deletionPolicy: 'Delete' },
    {},
  );
  await r.sync();
  await r.sync();
  t.equal(r.ready()['status'], 'True', 'the resource is Ready');

  const rest = await anHour(fake, r, 'sync');
  fake.buckets.get('tenant-a-data')!.objects = 1;
  const waiting = await anHour(fake, r, 'finalize');
  const reason = ((waiting.view.status?.['conditions'] as any[]) ?? []).find((c) => c.type === 'Finalized')?.reason;
  t.comment(
    `an hour at rest: ${rest.hookCalls} syncs, ${rest.awsCalls} AWS calls; an hour waiting at finalize (${reason}): ` +
      `${waiting.hookCalls} finalizes, ${waiting.awsCalls} AWS calls`,
  );
  t.equal(reason, 'BucketNotEmpty', 'the finalize waits on the bucket');
  t.ok(
    waiting.awsCalls <= 2 * rest.awsCalls,
    `waiting costs at most twice the calls of rest (${waiting.awsCalls} against ${rest.awsCalls})`,
  );
});
