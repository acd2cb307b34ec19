// Bucket names are global: once a namespace's retained bucket is deleted in AWS (what the TooManyBuckets refusal
// tells the tenant to ask for), anyone with an AWS account of their own may make a bucket of that name. S3 then
// answers this account's reads of it with 403 AccessDenied. The namespace's ledger (hooks/s3/ledger.ts) must still
// free that place and let the namespace's next bucket be made: a bucket of another account is not this namespace's,
// and one name taken elsewhere must not stop every new bucket of the namespace.
import t from 'tap';
import { AwsError, type AwsApi } from '../../hooks/s3/api.js';
import { ENTRY_SETTLE_SECONDS } from '../../hooks/s3/ledger.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

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

class Resource {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  constructor(
    readonly aws: AwsApi,
    readonly fake: FakeAws,
    readonly namespace: string,
    readonly name: string,
    readonly spec: Record<string, unknown>,
  ) {}
  request() {
    return s3Request(
      { name: this.name, namespace: this.namespace, uid: `uid-${this.namespace}-${this.name}` },
      { ...S3_DEFAULTS, ...this.spec },
      { status: this.status, children: this.children },
    );
  }
  async sync(): Promise<CompositeSyncResponse> {
    const res = await sync(this.request(), this.aws, this.fake.now, settings);
    this.status = res.status ?? undefined;
    this.children = res.children;
    return res;
  }
  async finalize(): Promise<CompositeSyncResponse> {
    const res = await finalize(this.request(), this.aws, this.fake.now);
    this.status = res.status ?? undefined;
    return res;
  }
  ready(): Record<string, unknown> {
    return ((this.status?.['conditions'] as any[]) ?? []).find((c) => c.type === 'Ready') ?? {};
  }
}

t.test("a retained bucket's name taken by another AWS account: the namespace's place is free again", async (t) => {
  const fake = new FakeAws();
  const foreign = new Set<string>();
  const aws = withForeignBuckets(fake, foreign);
  const old = new Resource(aws, fake, 'tenant-a', 'old', { bucketName: 'tenant-a-archive', deletionPolicy: 'Retain' });
  await old.sync();
  t.equal(old.ready()['status'], 'True');
  t.equal((await old.finalize()).finalized, true, 'deleted, its bucket retained');

  // The operator deletes the retained bucket to free the place; someone else's account makes one of that name.
  fake.buckets.delete('tenant-a-archive');
  foreign.add('tenant-a-archive');
  fake.now = new Date(fake.now.getTime() + (ENTRY_SETTLE_SECONDS + 1) * 1000);

  const next = new Resource(aws, fake, 'tenant-a', 'next', { bucketName: 'tenant-a-next' });
  for (let i = 0; i < 3; i++) await next.sync().catch(() => undefined);
  t.equal(next.ready()['status'], 'True', `the next bucket is made (Ready: ${JSON.stringify(next.ready())})`);
  t.ok(fake.buckets.has('tenant-a-next'), 'it exists');
});
