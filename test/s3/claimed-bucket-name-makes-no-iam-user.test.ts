// An S3 resource naming a bucket whose claim another resource holds (the bucket gone for now: deleted out of band, its
// owner not yet synced to make it again) is refused BucketAlreadyExists before anything is made for it: no IAM user
// (the account's users are a quota every tenant shares), no entry in its namespace's ledger, no bucket. The claim is
// read with the account the namespace's ledger names, before the user.
import t from 'tap';
import { OWNER_TAG } from '../../hooks/s3/api.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';

const settings = { bucketsPerNamespace: 5 };

t.test("a resource naming a bucket another namespace's resource holds the claim of makes no IAM user", async (t) => {
  const fake = new FakeAws();
  const b = new NamespaceResource(fake, 'tenant-b', 'data', { bucketName: 'shared-name' }, settings);
  await b.sync();
  t.equal(b.ready()['status'], 'True', "B's resource is Ready");
  const a = new NamespaceResource(fake, 'tenant-a', 'first', { bucketName: 'tenant-a-first' }, settings);
  await a.sync();
  t.equal(a.ready()['status'], 'True', "A's first resource is Ready");
  // B's bucket deleted out of band; its claim stays until B's next sync makes the bucket again.
  fake.buckets.delete('shared-name');
  const users = fake.users.size;
  const policies = fake.policies.size;
  for (let i = 0; i < 5; i++) {
    const r = new NamespaceResource(fake, 'tenant-a', `taker-${i}`, { bucketName: 'shared-name' }, settings);
    await r.sync();
    await r.sync();
    t.equal(r.ready()['reason'], 'BucketAlreadyExists', `taker-${i} is refused`);
    t.same(r.children, [], `taker-${i} has no Secret`);
  }
  t.equal(fake.users.size, users, 'no IAM user made for the refused resources');
  t.notOk(
    [...fake.users.values()].some((u) => (u.tags.get(OWNER_TAG) ?? '').startsWith('tenant-a/taker-')),
    'none of them has a user',
  );
  t.equal(fake.policies.size, policies, 'no policy, claim or ledger entry made');
  t.notOk(fake.buckets.has('shared-name'), 'no bucket made');
  await b.sync();
  t.equal(b.ready()['status'], 'True', "B's resource makes its bucket again");
});
