// An S3 resource with deletionPolicy Delete and forceDelete (what a team sets so that deleting the resource leaves
// no bucket behind) whose spec.bucketName is edited by mistake (a typo, a GitOps change applied to the wrong
// resource) and reverted a minute later. forceDelete reads as "empty the bucket before deleting it" when the
// resource is deleted (docs/s3.md), but a rename applies it at once: the first sync after the edit empties and
// deletes the bucket in use, with every object in it, and the revert makes a new empty bucket under the old name.
// An edit of the spec, undone, loses the data (issue 31: edits reverted; docs/s3-failures.md: "never destroy on
// doubt"). A bucket a rename leaves should not be emptied by that rename (forceDelete is for finalize), or not
// before a revert could still take it back.
import t from 'tap';
import { FakeAws } from '../fixtures/fake-aws.js';
import { converge, ready, Resource } from '../fixtures/s3-loop.js';

t.test('a bucketName edited and reverted (Delete, forceDelete) keeps the objects of the bucket in use', async (t) => {
  const r = new Resource(new FakeAws(), { bucketName: 'orders-data', deletionPolicy: 'Delete', forceDelete: true });
  await converge(r);
  r.fake.buckets.get('orders-data')!.objects = 1200;

  r.spec = { ...r.spec, bucketName: 'orders-dta' }; // the typo
  await converge(r);
  await r.run('sync');
  r.spec = { ...r.spec, bucketName: 'orders-data' }; // reverted
  await converge(r);
  const res = await r.run('sync');

  t.equal(ready(res)?.status, 'True', 'Ready on orders-data again');
  t.equal(
    r.fake.buckets.get('orders-data')?.objects,
    1200,
    `orders-data still holds its 1200 objects (it holds ${r.fake.buckets.get('orders-data')?.objects ?? 'nothing: gone'})`,
  );
});
