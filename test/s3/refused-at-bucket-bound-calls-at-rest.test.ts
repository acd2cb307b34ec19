// What an S3 resource refused TooManyBuckets (its namespace at METAOPS_S3_BUCKETS_PER_NAMESPACE) costs at each resync:
// every call it makes, read or write, counted on the in-memory AWS. It rechecks the bound each time (a place freed by
// a bucket deleted out of band is found by the prune and taken), and makes nothing while refused.
import t from 'tap';
import { OWNER_TAG } from '../../hooks/s3/api.js';
import { ENTRY_SETTLE_SECONDS, PRUNE_PER_SYNC } from '../../hooks/s3/ledger.js';
import { counting, FakeAws } from '../fixtures/fake-aws.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';

const LIMIT = 2;
const settings = { bucketsPerNamespace: LIMIT };

const userOf = (fake: FakeAws, name: string) =>
  [...fake.users.values()].some((u) => u.tags.get(OWNER_TAG) === `tenant-a/${name}`);

async function fullNamespace(fake: FakeAws) {
  const kept: NamespaceResource[] = [];
  for (const i of [1, 2]) {
    const r = new NamespaceResource(fake, 'tenant-a', `kept-${i}`, { bucketName: `tenant-a-kept-${i}` }, settings);
    await r.sync();
    kept.push(r);
  }
  return kept;
}

t.test(
  'a new resource refused at the bound: GetUser, the bucket, one ListPolicies a resync, nothing made',
  async (t) => {
    const fake = new FakeAws();
    await fullNamespace(fake);
    const refused = new NamespaceResource(fake, 'tenant-a', 'more', { bucketName: 'tenant-a-more' }, settings);
    await refused.sync();
    t.equal(refused.ready()['reason'], 'TooManyBuckets');
    const writes = fake.calls.length;
    const { aws, sent } = counting(fake);
    await refused.sync(aws);
    await refused.sync(aws);
    t.equal(refused.ready()['reason'], 'TooManyBuckets', 'still refused');
    t.same(
      sent,
      ['getUser', 'findBucket', 'listPolicies', 'getUser', 'findBucket', 'listPolicies'],
      'three reads each',
    );
    t.equal(fake.calls.length, writes, 'no write');
    t.notOk(userOf(fake, 'more'), 'no IAM user');
  },
);

t.test(
  'a resource with its user renamed to a new bucket at the bound: one GetPolicy of its own entry more',
  async (t) => {
    const fake = new FakeAws();
    const [kept] = await fullNamespace(fake);
    kept!.spec['bucketName'] = 'tenant-a-renamed';
    await kept!.sync();
    t.equal(kept!.ready()['reason'], 'TooManyBuckets');
    const writes = fake.calls.length;
    const { aws, sent } = counting(fake);
    await kept!.sync(aws);
    t.same(sent, ['getUser', 'findBucket', 'listPolicies', 'getPolicy'], 'four reads');
    t.equal(fake.calls.length, writes, 'no write');
  },
);

t.test('once the entries are settled the recheck prunes at most PRUNE_PER_SYNC, and takes a place freed', async (t) => {
  const fake = new FakeAws();
  await fullNamespace(fake);
  const refused = new NamespaceResource(fake, 'tenant-a', 'more', { bucketName: 'tenant-a-more' }, settings);
  await refused.sync();
  fake.now = new Date(fake.now.getTime() + (ENTRY_SETTLE_SECONDS + 1) * 1000);
  const writes = fake.calls.length;
  const { aws, sent } = counting(fake);
  await refused.sync(aws);
  t.equal(refused.ready()['reason'], 'TooManyBuckets');
  t.ok(LIMIT <= PRUNE_PER_SYNC);
  // Each settled entry's bucket is looked up (both still the namespace's, tagged: no claim read).
  t.same(sent, ['getUser', 'findBucket', 'listPolicies', 'findBucket', 'findBucket'], 'the prune reads each entry');
  t.equal(fake.calls.length, writes, 'no write');
  t.notOk(userOf(fake, 'more'), 'no IAM user');

  // A bucket of the namespace deleted out of band: the next recheck frees its place and the resource goes on.
  fake.buckets.delete('tenant-a-kept-1');
  await refused.sync();
  await refused.sync();
  t.equal(refused.ready()['status'], 'True', 'the refused resource took the freed place');
  t.ok(fake.buckets.has('tenant-a-more'));
});
