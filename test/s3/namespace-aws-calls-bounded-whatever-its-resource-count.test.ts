// What one namespace's S3 resources cost the operator's one AWS identity (which IAM and S3 throttle as a whole, for
// every namespace) is bounded by its share (hooks/s3/share.ts): METAOPS_S3_BUCKETS_PER_NAMESPACE × 9 calls (its bucket
// bound's resources at rest, each synced once) in each 5 minutes, however many S3 resources it holds (refused ones
// past its bucket bound made 3 reads a sync) and however often it edits them (each edit a sync). A sync past the
// budget makes no call: the resource keeps what it has (a Ready one stays Ready) and is asked again later. Another
// namespace's sync is served beside it.
import t from 'tap';
import { AwsError, type AwsApi } from '../../hooks/s3/api.js';
import { CALLS_PERIOD_SECONDS, WAITING_FOR_SHARE } from '../../hooks/s3/share.js';
import { FakeAws, viewOf } from '../fixtures/fake-aws.js';
import { budgeted } from '../fixtures/hooks.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';

/** The namespace's bucket bound (METAOPS_S3_BUCKETS_PER_NAMESPACE), small so the test stays fast; the ratios hold. */
const LIMIT = 5;
const settings = { bucketsPerNamespace: LIMIT };
/** The resource's Synced condition. */
const synced = (r: NamespaceResource): Record<string, unknown> =>
  ((r.status?.['conditions'] as Array<Record<string, unknown>>) ?? []).find((c) => c['type'] === 'Synced') ?? {};
/** Reads of a converged resource at each resync (docs/s3.md "Cost at rest"). */
const AT_REST = 9;
/** The documented worst of one namespace in one resync period: its bucket bound's resources at rest. */
const NAMESPACE_WORST = LIMIT * AT_REST;
/** Tenant A's resources beyond its bound (each refused TooManyBuckets): nothing limits how many it creates. */
const EXTRA = 60;

/** A view of the fake that counts every AwsApi call, and throttles (as IAM does) past `limit` calls of the window. */
function account(fake: FakeAws, limit = Infinity): { aws: AwsApi; calls: () => number; reset: () => void } {
  let calls = 0;
  const aws = viewOf(fake, async (method, _args, call) => {
    calls++;
    if (calls > limit) throw new AwsError('Throttling', 'Rate exceeded', method);
    return call();
  });
  return { aws, calls: () => calls, reset: () => (calls = 0) };
}

/** A budget period later by the fake's clock: the namespace's budget is full again. */
const later = (fake: FakeAws) => (fake.now = new Date(fake.now.getTime() + CALLS_PERIOD_SECONDS * 1000));

/** Tenant A: LIMIT resources made and Ready, and EXTRA more refused at the bound (each in a period of its own). */
async function tenantA(fake: FakeAws): Promise<NamespaceResource[]> {
  const all: NamespaceResource[] = [];
  for (let i = 0; i < LIMIT + EXTRA; i++) {
    const r = new NamespaceResource(fake, 'tenant-a', `r${i}`, { bucketName: `tenant-a-r${i}` }, settings);
    await r.sync();
    if (i < LIMIT) await r.sync();
    later(fake);
    all.push(r);
  }
  return all;
}

t.test("one resync of a namespace's S3 resources costs at most what its bucket bound at rest does", async (t) => {
  const fake = new FakeAws();
  budgeted(fake);
  const a = await tenantA(fake);
  t.equal(a.filter((r) => r.ready()['reason'] === 'TooManyBuckets').length, EXTRA, 'the extra resources are refused');
  const { aws, calls } = account(fake);
  for (const r of a) await r.sync(aws); // Metacontroller's resync period: every resource once
  t.ok(
    a.slice(0, LIMIT).every((r) => r.ready()['status'] === 'True'),
    'every Ready resource is still Ready, synced or waiting for its share',
  );
  t.ok(
    a.some((r) => r.ready()['reason'] === 'TooManyBuckets' && synced(r)['reason'] === WAITING_FOR_SHARE),
    'a refused resource past the budget waits for its share, its refusal kept',
  );
  t.ok(
    calls() <= NAMESPACE_WORST,
    `tenant A's ${LIMIT + EXTRA} resources (bound ${LIMIT}) cost ${calls()} AWS calls in one resync period; ` +
      `its bound at rest costs ${NAMESPACE_WORST}`,
  );
});

t.test(
  "edits of a namespace's resources within one resync period cost at most twice what its bound at rest does",
  async (t) => {
    const fake = new FakeAws();
    budgeted(fake);
    const a: NamespaceResource[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const r = new NamespaceResource(fake, 'tenant-a', `r${i}`, { bucketName: `tenant-a-r${i}` }, settings);
      await r.sync();
      await r.sync();
      later(fake);
      a.push(r);
    }
    t.ok(
      a.every((r) => r.ready()['status'] === 'True'),
      'the namespace holds its bound of buckets, every resource Ready',
    );
    const { aws, calls } = account(fake);
    // Twenty label edits of each resource within one resync period: Metacontroller syncs each edit.
    for (let edit = 0; edit < 20; edit++) for (const r of a) await r.sync(aws);
    t.ok(
      a.every((r) => r.ready()['status'] === 'True'),
      'every resource is still Ready (an edit past the budget keeps what the resource has)',
    );
    t.ok(
      a.some((r) => synced(r)['reason'] === WAITING_FOR_SHARE),
      'an edit past the budget is told as waiting for the namespace share',
    );
    t.ok(
      calls() <= 2 * NAMESPACE_WORST,
      `${20 * LIMIT} edits of tenant A's ${LIMIT} resources cost ${calls()} AWS calls in one resync period; ` +
        `its bound at rest costs ${NAMESPACE_WORST}`,
    );
  },
);

t.test("another namespace's new bucket is made while tenant A edits its resources", async (t) => {
  const fake = new FakeAws();
  budgeted(fake);
  const a = await tenantA(fake);
  // The account's throttle, as a stand-in for IAM's: room for four namespaces at the documented worst in the window.
  const { aws, calls, reset } = account(fake, 4 * NAMESPACE_WORST);
  reset();
  // Within one window, tenant A touches each of its resources once more (a label edit each: one sync each).
  for (const r of a) await r.sync(aws);
  const used = calls();
  const b = new NamespaceResource(fake, 'tenant-b', 'data', { bucketName: 'tenant-b-data' }, settings, aws);
  await b.sync();
  t.equal(
    b.ready()['status'],
    'True',
    `tenant B's resource is Ready (tenant A's syncs took ${used} of the window's ${4 * NAMESPACE_WORST} calls first)`,
    { ready: b.ready() },
  );
  t.ok(fake.buckets.has('tenant-b-data'), "tenant B's bucket is made");
});
