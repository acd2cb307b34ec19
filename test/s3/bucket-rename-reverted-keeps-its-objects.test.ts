// An S3 resource with deletionPolicy Delete and forceDelete (what a team sets so that deleting the resource leaves
// no bucket behind) whose spec.bucketName is edited by mistake (a typo, a GitOps change applied to the wrong
// resource) and reverted a minute later. forceDelete reads as "empty the bucket before deleting it" when the
// resource is deleted (docs/s3.md), but a rename applies it at once: the first sync after the edit empties and
// deletes the bucket in use, with every object in it, and the revert makes a new empty bucket under the old name.
// An edit of the spec, undone, loses the data (issue 31: edits reverted; docs/s3-failures.md: "never destroy on
// doubt"). A bucket a rename leaves is not emptied by that rename (forceDelete is for finalize): it is kept, owned
// and recorded, said in status and a Warning event, deleted once empty, and a revert takes it back with its objects.
import t from 'tap';
import { FakeAws } from '../fixtures/fake-aws.js';
import { converge, ready, Resource } from '../fixtures/s3-loop.js';
import { OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { S3_EVENTS } from '../../hooks/s3/index.js';
import { conditionEvents } from '../../lib/events.js';

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

t.test(
  'the bucket a rename leaves is kept, said in status and a Warning; deleting the resource empties both',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'orders-data', deletionPolicy: 'Delete', forceDelete: true });
    await converge(r);
    r.fake.buckets.get('orders-data')!.objects = 1200;
    const before = r.status;
    r.spec = { ...r.spec, bucketName: 'orders-dta' };
    await converge(r);
    t.equal(r.fake.buckets.get('orders-data')?.objects, 1200, 'kept with its objects');
    t.equal(r.fake.buckets.get('orders-data')?.tags.get(OWNER_UID_TAG), 'uid-app', 'still tagged as this resource’s');
    t.same(r.status!['createdBuckets'], ['orders-data', 'orders-dta'], 'still recorded as created');
    const parent = { ...r.request().parent, status: before };
    t.match(
      conditionEvents(parent, r.status, S3_EVENTS),
      [{ type: 'Warning', reason: 'BucketNotEmpty', note: /orders-data is not empty and is kept with its objects/ }],
      'a Warning event says it is kept, and why',
    );
    // Emptied by the tenant: deleted at the next sync.
    r.fake.buckets.get('orders-data')!.objects = 0;
    await r.run('sync');
    t.notOk(r.fake.buckets.has('orders-data'), 'deleted once empty');
    t.same(r.status!['createdBuckets'], ['orders-dta']);

    // forceDelete is the deletion's: a resource deleted with a kept, non-empty old bucket empties and deletes both.
    const d = new Resource(new FakeAws(), { bucketName: 'orders-data', deletionPolicy: 'Delete', forceDelete: true });
    await converge(d);
    d.fake.buckets.get('orders-data')!.objects = 5;
    d.spec = { ...d.spec, bucketName: 'orders-dta' };
    await converge(d);
    d.fake.buckets.get('orders-dta')!.objects = 2;
    let done = false;
    for (let i = 0; i < 10 && !done; i++) done = (await d.run('finalize')).finalized === true;
    t.ok(done, 'finalized');
    t.same([...d.fake.buckets.keys()], [], 'both buckets emptied and deleted');
  },
);
