// Bucket names are global: once a namespace's retained bucket is deleted in AWS (what the TooManyBuckets refusal
// tells the tenant to ask for), anyone with an AWS account of their own may make a bucket of that name. S3 then
// answers this account's reads of it with 403 AccessDenied. The namespace's ledger (hooks/s3/ledger.ts) must still
// free that place and let the namespace's next bucket be made: a bucket of another account is not this namespace's,
// and one name taken elsewhere must not stop every new bucket of the namespace.
import t from 'tap';
import { AwsError, type AwsApi } from '../../hooks/s3/api.js';
import { ENTRY_SETTLE_SECONDS } from '../../hooks/s3/ledger.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';

const settings = { bucketsPerNamespace: 1 };

/** S3 as this account sees it: a bucket of another account reads as 403 AccessDenied (GetBucketLocation). */
function withForeignBuckets(aws: FakeAws, foreign: Set<string>): AwsApi {
  const wrap = (target: FakeAws): AwsApi =>
    new Proxy(target, {
      get(obj, prop, receiver) {
        const value = Reflect.get(obj, prop, receiver);
        if (prop === 'withDeadline') return () => wrap(target);
        if (prop === 'findBucket')
          return async (bucket: string, hint?: string) => {
            if (foreign.has(bucket)) throw new AwsError('AccessDenied', 'Access Denied', 'GetBucketLocation');
            return target.findBucket(bucket, hint);
          };
        if (prop === 'createBucket')
          return async (bucket: string, region: string) => {
            if (foreign.has(bucket)) throw new AwsError('BucketAlreadyExists', 'not yours', 'CreateBucket');
            return target.createBucket(bucket, region);
          };
        return typeof value === 'function' ? value.bind(obj) : value;
      },
    }) as unknown as AwsApi;
  return wrap(aws);
}

const resource = (aws: AwsApi, fake: FakeAws, namespace: string, name: string, spec: Record<string, unknown>) =>
  new NamespaceResource(fake, namespace, name, spec, settings, aws);

t.test("a retained bucket's name taken by another AWS account: the namespace's place is free again", async (t) => {
  const fake = new FakeAws();
  const foreign = new Set<string>();
  const aws = withForeignBuckets(fake, foreign);
  const old = resource(aws, fake, 'tenant-a', 'old', { bucketName: 'tenant-a-archive', deletionPolicy: 'Retain' });
  await old.sync();
  t.equal(old.ready()['status'], 'True');
  t.equal((await old.finalize()).finalized, true, 'deleted, its bucket retained');

  // The operator deletes the retained bucket to free the place; someone else's account makes one of that name.
  fake.buckets.delete('tenant-a-archive');
  foreign.add('tenant-a-archive');
  fake.now = new Date(fake.now.getTime() + (ENTRY_SETTLE_SECONDS + 1) * 1000);

  const next = resource(aws, fake, 'tenant-a', 'next', { bucketName: 'tenant-a-next' });
  for (let i = 0; i < 3; i++) await next.sync().catch(() => undefined);
  t.equal(next.ready()['status'], 'True', `the next bucket is made (Ready: ${JSON.stringify(next.ready())})`);
  t.ok(fake.buckets.has('tenant-a-next'), 'it exists');
});
