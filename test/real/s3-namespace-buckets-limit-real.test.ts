// The bound on a namespace's buckets (METAOPS_S3_BUCKETS_PER_NAMESPACE, hooks/s3/ledger.ts) against moto: the ledger
// is IAM policies under the namespace's path, counted with ListPolicies (Scope Local, PathPrefix) as the SDK sends it.
// Tenant A, allowed 2, deletes and creates again with Retain: its third bucket is refused, tenant B's is made, and a
// bucket the operator deletes in AWS frees A's place.
import t from 'tap';
import { DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { IAMClient, ListPoliciesCommand } from '@aws-sdk/client-iam';
import { OWNER_TAG } from '../../hooks/s3/api.js';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import { ENTRY_SETTLE_SECONDS, ledgerPath } from '../../hooks/s3/ledger.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import { adminClients, startMoto, type Moto } from '../fixtures/moto.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

let moto: Moto;
let aws: SdkAwsApi;
let admin: { s3: S3Client; iam: IAMClient };

t.before(async () => {
  moto = await startMoto();
  aws = new SdkAwsApi({ endpoint: moto.endpoint, region: moto.region, credentials: moto.admin });
  admin = adminClients(moto);
});
t.teardown(() => moto?.stop());

/** The hook's clock: now, or later when a test moves it on. */
let later = 0;

class Resource {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly spec: Record<string, unknown>,
    readonly uid = `uid-${namespace}-${name}`,
  ) {}
  request() {
    return s3Request(
      { name: this.name, namespace: this.namespace, uid: this.uid },
      { ...S3_DEFAULTS, ...this.spec },
      { status: this.status, children: this.children },
    );
  }
  async run(hook: 'sync' | 'finalize'): Promise<CompositeSyncResponse> {
    const now = new Date(Date.now() + later * 1000);
    const res =
      hook === 'sync'
        ? await sync(this.request(), aws.withDeadline(7000), now, { bucketsPerNamespace: 2 })
        : await finalize(this.request(), aws.withDeadline(7000), now);
    this.status = res.status ?? undefined;
    if (hook === 'sync') this.children = res.children;
    return res;
  }
  ready(): Record<string, unknown> {
    return ((this.status?.['conditions'] as any[]) ?? []).find((c) => c.type === 'Ready') ?? {};
  }
}

/** The ledger entries of a namespace as IAM lists them to the operator. */
async function ledger(namespace: string): Promise<string[]> {
  const res = await admin.iam.send(new ListPoliciesCommand({ Scope: 'Local', PathPrefix: ledgerPath(namespace) }));
  return (res.Policies ?? []).map((p) => p.PolicyName!).sort();
}

t.test('a namespace deleting and creating again with Retain is held to its bound; another is not', async (t) => {
  for (const i of [1, 2]) {
    // A new object of the same name each time: a new UID.
    const spec = { bucketName: `tenant-a-real-${i}`, deletionPolicy: 'Retain' };
    const r = new Resource('tenant-a', 'data', spec, `uid-a-${i}`);
    await r.run('sync');
    t.equal(r.ready()['status'], 'True', `cycle ${i}: Ready`);
    t.equal((await r.run('finalize')).finalized, true, `cycle ${i}: deleted, its bucket retained`);
  }
  t.equal((await ledger('tenant-a')).length, 2, 'the ledger lists the two retained buckets');

  const third = new Resource('tenant-a', 'data3', { bucketName: 'tenant-a-real-3' });
  await third.run('sync');
  t.match(third.ready(), {
    status: 'False',
    reason: 'TooManyBuckets',
    message: /METAOPS_S3_BUCKETS_PER_NAMESPACE=2/,
  });
  t.notMatch(String(third.ready()['message']), /\d{12}/, "the operator's account is not said");
  const head = await aws.findBucket('tenant-a-real-3');
  t.equal(head, undefined, 'no bucket was created');

  // Tenant B, and a namespace whose name begins like A's: their own ledgers, their own places.
  for (const ns of ['tenant-b', 'tenant-a-b']) {
    const b = new Resource(ns, 'data', { bucketName: `${ns}-real` });
    await b.run('sync');
    t.equal(b.ready()['status'], 'True', `${ns}: Ready`);
    t.equal((await aws.findBucket(`${ns}-real`))?.tags.get(OWNER_TAG), `${ns}/data`, `${ns}: its bucket is made`);
    t.equal((await ledger(ns)).length, 1, `${ns}: one entry in its own ledger`);
  }
  t.equal((await ledger('tenant-a')).length, 2, "IAM's PathPrefix keeps tenant A's ledger apart from the others");

  // The operator deletes a retained bucket in AWS; once its entry is past the settling time, A has a place again.
  await admin.s3.send(new DeleteBucketCommand({ Bucket: 'tenant-a-real-1' }));
  later = ENTRY_SETTLE_SECONDS + 60;
  await third.run('sync');
  t.equal(third.ready()['status'], 'True', 'the freed place is taken');
  t.ok(await aws.findBucket('tenant-a-real-3'), 'the bucket is made');
  t.equal((await ledger('tenant-a')).length, 2, 'two entries: the retained bucket left, and the new one');
  // With Delete, the place goes with the resource.
  third.spec['deletionPolicy'] = 'Delete';
  t.equal((await third.run('finalize')).finalized, true);
  t.equal((await ledger('tenant-a')).length, 1, 'its entry went with its bucket');
});
