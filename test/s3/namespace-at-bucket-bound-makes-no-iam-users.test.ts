// A namespace at its bound on buckets (METAOPS_S3_BUCKETS_PER_NAMESPACE) is refused TooManyBuckets before anything is
// made in the operator's account: no bucket, no Secret, and no IAM user either. The account's IAM users are a quota
// every tenant shares (5,000 users an account, a hard limit): a user made for each refused resource would let one
// namespace, already at its bucket bound, fill the account's users until every other namespace's next S3 resource
// failed at CreateUser.
import t from 'tap';
import { FakeAws, usersOf, withUserQuota } from '../fixtures/fake-aws.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';

const LIMIT = 2;
const settings = { bucketsPerNamespace: LIMIT };

t.test('S3 resources refused TooManyBuckets make no IAM user in the operator account', async (t) => {
  const aws = new FakeAws();
  for (const i of [1, 2]) {
    const r = new NamespaceResource(aws, 'tenant-a', `kept-${i}`, { bucketName: `tenant-a-kept-${i}` }, settings);
    await r.sync();
    t.equal(r.ready()['status'], 'True', `resource ${i} is Ready`);
  }
  const before = usersOf(aws, 'tenant-a').length;
  t.equal(before, LIMIT, 'one IAM user per resource holding a bucket');
  for (let i = 0; i < 20; i++) {
    const r = new NamespaceResource(aws, 'tenant-a', `more-${i}`, { bucketName: `tenant-a-more-${i}` }, settings);
    await r.sync();
    await r.sync();
    t.equal(r.ready()['reason'], 'TooManyBuckets', `resource more-${i} is refused`);
    t.same(r.children, [], `resource more-${i} has no Secret`);
  }
  t.equal(usersOf(aws, 'tenant-a').length, before, 'the refused resources made no IAM user');
});

t.test("tenant A's refused S3 resources do not use up the account's IAM users tenant B needs", async (t) => {
  const fake = new FakeAws();
  // An account with room for 6 users: A's two buckets, and room for others.
  const aws = withUserQuota(fake, 6);
  const resource = (ns: string, name: string) =>
    new NamespaceResource(fake, ns, name, { bucketName: `${ns}-${name}` }, settings, aws);
  for (const name of ['one', 'two']) {
    const r = resource('tenant-a', name);
    await r.sync();
    t.equal(r.ready()['status'], 'True', `A's ${name} is Ready`);
  }
  // A, at its bound, applies more S3 resources: each refused TooManyBuckets.
  for (let i = 0; i < 10; i++) {
    const r = resource('tenant-a', `extra-${i}`);
    await r.sync().catch(() => undefined);
    t.not(r.ready()['status'], 'True', `A's extra-${i} is not Ready`);
  }
  const b = resource('tenant-b', 'data');
  await b.sync();
  t.equal(b.ready()['status'], 'True', `B's first S3 resource is Ready (${JSON.stringify(b.ready()['message'])})`);
});
