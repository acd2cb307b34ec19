// IAM is eventually consistent: a policy just made may be missing from ListPolicies for a few seconds (the ledger
// itself allows for it: "An entry IAM does not list yet", hooks/s3/ledger.ts). The namespace's bound on buckets
// (METAOPS_S3_BUCKETS_PER_NAMESPACE) must hold while it lags: a tenant that applies several S3 resources at once gets
// no more buckets than the bound, however its syncs fall within IAM's lag.
import t from 'tap';
import type { AwsApi } from '../../hooks/s3/api.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { bucketsOf, NamespaceResource } from '../fixtures/s3-namespace.js';

const LIMIT = 2;
const LAG_SECONDS = 5;
const settings = { bucketsPerNamespace: LIMIT };

/** IAM as it may be read: ListPolicies does not show yet the policies made in the last LAG_SECONDS. */
function lagging(aws: FakeAws): AwsApi {
  const wrap = (): AwsApi =>
    new Proxy(aws, {
      get(obj, prop, receiver) {
        const value = Reflect.get(obj, prop, receiver);
        if (prop === 'withDeadline') return () => wrap();
        if (prop === 'listPolicies')
          return async (pathPrefix: string, max: number) => {
            const { policies } = await obj.listPolicies(pathPrefix, 10_000);
            const seen = policies.filter((p) => p.created.getTime() <= obj.now.getTime() - LAG_SECONDS * 1000);
            return { policies: seen.slice(0, max), truncated: seen.length > max };
          };
        return typeof value === 'function' ? value.bind(obj) : value;
      },
    }) as unknown as AwsApi;
  return wrap();
}

/** S3 resource `name` of tenant-a, its bucket tenant-a-<name>, synced on IAM as `aws` lists it. */
const resource = (aws: AwsApi, fake: FakeAws, name: string) =>
  new NamespaceResource(fake, 'tenant-a', name, { bucketName: `tenant-a-${name}` }, settings, aws);

t.test('several S3 resources applied at once, IAM listing a few seconds late: at most the bound', async (t) => {
  const fake = new FakeAws();
  const aws = lagging(fake);
  const first = resource(aws, fake, 'first');
  await first.sync();
  // A minute later, the listing has caught up with the first bucket's entry.
  fake.now = new Date(fake.now.getTime() + 60_000);
  // The tenant applies five more at once: Metacontroller syncs them one after the other within a second.
  const more = ['b', 'c', 'd', 'e', 'f'].map((n) => resource(aws, fake, n));
  for (const r of more) {
    await r.sync();
    fake.now = new Date(fake.now.getTime() + 200);
  }
  // Their syncs go on later, the listing caught up.
  fake.now = new Date(fake.now.getTime() + 60_000);
  for (const r of more) await r.sync();
  const buckets = bucketsOf(fake, 'tenant-a');
  t.ok(
    buckets.length <= LIMIT,
    `the namespace holds at most ${LIMIT} buckets (holds ${buckets.length}: ${buckets.join(', ')})`,
  );
  t.ok(fake.buckets.size <= LIMIT, `no bucket of the namespace beyond the bound (${fake.buckets.size} in the account)`);
});
