// A namespace's place in the bucket ledger (hooks/s3/ledger.ts) is its own bucket's, not its bucket's name's: once a
// retained bucket is deleted in AWS (what the TooManyBuckets refusal tells the tenant to ask for), its place is free,
// even when another namespace's resource has made a bucket of the same name since. Otherwise tenant B, by making a
// bucket under a name tenant A used to hold, keeps A's place taken for as long as B's bucket exists (and B's bucket
// counts in both namespaces).
import t from 'tap';
import { ENTRY_SETTLE_SECONDS } from '../../hooks/s3/ledger.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { bucketsOf, NamespaceResource } from '../fixtures/s3-namespace.js';

const settings = { bucketsPerNamespace: 1 };
const resource = (aws: FakeAws, namespace: string, name: string, spec: Record<string, unknown>) =>
  new NamespaceResource(aws, namespace, name, spec, settings);

t.test("tenant B remaking tenant A's deleted bucket under its name does not keep A's place taken", async (t) => {
  const aws = new FakeAws();
  // Tenant A (bound 1) makes a bucket and keeps it (deletionPolicy Retain) when its resource goes.
  const old = resource(aws, 'tenant-a', 'old', { bucketName: 'shared-name-data', deletionPolicy: 'Retain' });
  await old.sync();
  t.equal(old.ready()['status'], 'True');
  t.equal((await old.finalize()).finalized, true, "A's resource deleted, its bucket retained");

  // A's namespace is full; the operator deletes A's retained bucket in AWS to free the place.
  aws.buckets.delete('shared-name-data');
  // Before A needs the place, tenant B makes a bucket of that (now free) name in its own namespace.
  const b = resource(aws, 'tenant-b', 'grab', { bucketName: 'shared-name-data', deletionPolicy: 'Retain' });
  await b.sync();
  t.equal(b.ready()['status'], 'True', "B's bucket is made");
  t.same(bucketsOf(aws, 'tenant-b'), ['shared-name-data'], "the bucket is B's");
  t.same(bucketsOf(aws, 'tenant-a'), [], 'A holds no bucket at all');

  // Later, A wants a bucket: its one place is free (A holds nothing).
  aws.now = new Date(aws.now.getTime() + (ENTRY_SETTLE_SECONDS + 1) * 1000);
  const next = resource(aws, 'tenant-a', 'next', { bucketName: 'tenant-a-next' });
  await next.sync();
  await next.sync();
  t.equal(next.ready()['status'], 'True', `A's next bucket is made (Ready: ${JSON.stringify(next.ready())})`);
  t.ok(aws.buckets.has('tenant-a-next'), "A's next bucket exists");
  const entries = aws.ledgerEntries('tenant-a');
  t.equal(entries.length, 1, "A's ledger counts one bucket");
  t.notOk(
    entries.some((arn) => arn.endsWith('.shared-name-data')),
    "A's ledger does not count B's bucket of the old name",
  );
});
