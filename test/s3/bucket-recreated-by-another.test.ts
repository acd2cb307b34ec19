// A resource's bucket deleted behind its back and created again under the same name by someone else in the operator's
// account (by hand, by another tool), untagged, holding that someone's objects: "objects deleted and recreated under
// the same name" (issue 31), "Never adopt an untagged bucket without such a record [of intent]", "never destroy on
// doubt" (the developers' guide). The resource's record (`metaops.dev/bucket.<bucket>: made` on its IAM user) and
// claim still name the bucket, but they were written for the bucket it made, which is gone: the new one is not its
// bucket, and must not be tagged as its own, granted to its IAM user (the tenant would read and write that data), or
// emptied and deleted by its finalizer with `deletionPolicy: Delete` and `forceDelete`.
import t from 'tap';
import { OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { userName } from '../../hooks/s3/policy.js';
import { TAGS_SETTLE_SECONDS } from '../../hooks/s3/sync.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { converge, ready, Resource } from '../fixtures/s3-loop.js';

t.test(
  'a bucket deleted and created again untagged by someone else is not adopted, granted or deleted by the resource',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'orders-bucket', deletionPolicy: 'Delete', forceDelete: true });
    await converge(r);
    // Long after: the bucket deleted out of band, and someone makes a bucket of that name for themselves.
    r.fake.now = new Date(r.fake.now.getTime() + 24 * 3600 * 1000);
    r.fake.buckets.delete('orders-bucket');
    r.fake.buckets.set('orders-bucket', { region: 'us-east-1', tags: new Map(), objects: 5 });
    const res = await r.run('sync');
    t.not(
      r.fake.buckets.get('orders-bucket')?.tags.get(OWNER_UID_TAG),
      'uid-app',
      'the new bucket is not tagged as the resource\u2019s',
    );
    t.not(ready(res).status, 'True', `the resource does not say Ready on someone else's bucket (${ready(res).reason})`);
    const fin = await r.run('finalize');
    t.ok(
      r.fake.buckets.has('orders-bucket') && r.fake.buckets.get('orders-bucket')!.objects === 5,
      `finalize with Delete + forceDelete leaves the other owner's bucket and objects (finalized: ${fin.finalized}; calls: ${r.fake.calls.filter((c) => c.includes('orders-bucket')).join(', ')})`,
    );
  },
);

const USER = userName('ns', 'app', 'uid-app');
const later = (r: Resource, seconds: number) => (r.fake.now = new Date(r.fake.now.getTime() + seconds * 1000));
const remake = (r: Resource, bucket: string) => {
  r.fake.buckets.delete(bucket);
  r.fake.buckets.set(bucket, { region: 'us-east-1', tags: new Map(), objects: 5 });
};

t.test('the resource keeps no way into the bucket someone made again, and says how to hand it back', async (t) => {
  const r = new Resource(new FakeAws(), { bucketName: 'orders-bucket' });
  await converge(r);
  later(r, 24 * 3600);
  remake(r, 'orders-bucket');
  const res = await r.run('sync');
  t.match(ready(res), { status: 'False', reason: 'BucketAlreadyExists' });
  t.match(ready(res).message, `tag it with ${OWNER_UID_TAG}=uid-app`, 'the message says how to hand it back');
  t.same(r.fake.users.get(USER)!.policies, [], 'the policy granting the bucket is detached from the user');
  t.same(r.fake.keyIds(USER), [], 'its access keys are deleted');
  t.notOk(
    res.children.some((c) => c.kind === 'Secret'),
    'and the answer drops the Secret that held them',
  );
  t.equal(r.fake.buckets.get('orders-bucket')!.tags.size, 0, 'the bucket is not tagged');
  t.equal(ready(await r.run('sync')).status, 'False', 'the next sync refuses it too');
  // Handed back: the bucket tagged with the resource's UID is its bucket again.
  r.fake.buckets.get('orders-bucket')!.tags.set(OWNER_UID_TAG, 'uid-app');
  await converge(r);
  t.equal(ready(await r.run('sync')).status, 'True', 'handed back: Ready');
});

t.test('an untagged read within the settling time of its claim is a stale read: taken back', async (t) => {
  for (const [age, taken] of [
    [TAGS_SETTLE_SECONDS - 1, true],
    [TAGS_SETTLE_SECONDS, false],
  ] as const) {
    const r = new Resource(new FakeAws(), { bucketName: 'fresh-bucket' });
    await converge(r);
    later(r, age);
    r.fake.buckets.get('fresh-bucket')!.tags = new Map();
    const res = await r.run('sync');
    t.equal(ready(res).status, taken ? 'True' : 'False', `${age} s after the claim: taken back ${taken}`);
    t.equal(r.fake.buckets.get('fresh-bucket')!.tags.get(OWNER_UID_TAG), taken ? 'uid-app' : undefined);
  }
});

t.test('a renamed-away bucket (Delete) someone made again is neither emptied nor deleted', async (t) => {
  const r = new Resource(new FakeAws(), { bucketName: 'old-orders', deletionPolicy: 'Delete', forceDelete: true });
  await converge(r);
  later(r, 24 * 3600);
  remake(r, 'old-orders');
  r.spec = { ...r.spec, bucketName: 'new-orders' };
  await converge(r);
  await r.run('sync');
  t.equal(r.fake.buckets.get('old-orders')?.objects, 5, 'the other owner\u2019s bucket keeps its objects');
  t.equal(r.fake.buckets.get('old-orders')!.tags.size, 0, 'and is not tagged');
  t.notOk(r.fake.users.get(USER)!.tags.has('metaops.dev/bucket.old-orders'), 'the record of it is dropped');
});

t.test('finalize with its status lost: a recorded bucket someone made again is left alone', async (t) => {
  const r = new Resource(new FakeAws(), { bucketName: 'lost-status', deletionPolicy: 'Delete', forceDelete: true });
  await converge(r);
  later(r, 24 * 3600);
  remake(r, 'lost-status');
  r.status = {};
  let fin = await r.run('finalize');
  for (let i = 0; i < 3 && !fin.finalized; i++) fin = await r.run('finalize');
  t.ok(fin.finalized, 'finalized');
  t.equal(r.fake.buckets.get('lost-status')?.objects, 5, 'the other owner\u2019s bucket keeps its objects');
  t.equal(r.fake.buckets.get('lost-status')!.tags.size, 0, 'and is not tagged');
  t.notOk(r.fake.users.has(USER), 'the resource\u2019s own user is gone');
});

t.test('a bucket from before the records, its claim old, made again by someone: not taken back', async (t) => {
  const r = new Resource(new FakeAws(), { bucketName: 'pre-records' });
  await converge(r);
  r.fake.users.get(USER)!.tags.delete('metaops.dev/bucket.pre-records');
  later(r, 24 * 3600);
  remake(r, 'pre-records');
  t.equal(ready(await r.run('sync')).status, 'False');
  t.equal(r.fake.buckets.get('pre-records')!.tags.size, 0, 'not tagged');
});
