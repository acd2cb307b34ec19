// Attack (issue 29, tenant A against tenant B): every S3 resource's calls go to AWS under the operator's one identity,
// and IAM throttles an account's requests as a whole, so what one namespace's resources call every other namespace's
// S3 syncs share. A finalize that waits on a bucket only its tenant can empty backs off (10 s doubling to 300 s:
// test/s3/finalize-waiting-on-its-tenant-costs-what-rest-does.test.ts), because without it a deleted resource cost
// ~20 times what one at rest does, for as long as its tenant wanted. The same wait after a rename does not back off:
// with `deletionPolicy: Delete`, each `spec.bucketName` edit leaves the old bucket to be deleted once empty, and while
// the tenant keeps an object in it the resource is synced again every 30 s (RETRY_SECONDS.failure, plan.ts
// resyncAfter), for good, each sync trying every waiting bucket again. Tenant A renames each of its resources nine
// times (MAX_BUCKETS is 10 a resource) and leaves one object in each old bucket: within its bucket bound
// (METAOPS_S3_BUCKETS_PER_NAMESPACE, 100 by default: ten such resources) it keeps more than twice the calls docs/s3.md
// counts for the same buckets at rest (~2.3 a second for 100), on the identity tenant B's syncs share, for as long as
// it wants: measured, one such resource makes 120 syncs and 1,920 AWS calls an hour, 23 times one resource at rest
// (84) and 2.3 times the same ten buckets at rest (840).
//
// Must hold: a resource whose old buckets wait on what only its tenant can change backs off as the finalize does: an
// hour of waiting costs at most twice the calls of an hour at rest.
import t from 'tap';
import type { AwsApi } from '../../hooks/s3/api.js';
import { MAX_BUCKETS } from '../../hooks/s3/sync.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';

/** A view of the fake that counts every AwsApi method called. */
function counting(fake: FakeAws): { aws: AwsApi; sent: string[] } {
  const sent: string[] = [];
  const aws: AwsApi = new Proxy(fake, {
    get(target, prop, receiver) {
      if (prop === 'withDeadline') return () => aws;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        sent.push(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { aws, sent };
}

const HOUR = 3600;

/** An hour of syncs of `r` on a counting view of the fake, each asked again after the seconds its answer says. */
async function anHour(fake: FakeAws, r: NamespaceResource) {
  const { aws, sent } = counting(fake);
  const view = new NamespaceResource(fake, r.namespace, r.name, r.spec, r.settings, aws);
  view.status = r.status;
  view.children = r.children;
  let calls = 0;
  for (let elapsed = 0; elapsed < HOUR; calls++) {
    const res = await view.sync();
    const wait = res.resyncAfterSeconds ?? 300;
    elapsed += wait;
    fake.now = new Date(fake.now.getTime() + wait * 1000);
  }
  return { hookCalls: calls, awsCalls: sent.length, view };
}

/** Tenant A's resource `name`, made Ready on `bucket`. */
async function ready(fake: FakeAws, name: string, spec: Record<string, unknown>) {
  const r = new NamespaceResource(fake, 'tenant-a', name, spec, {});
  await r.sync();
  await r.sync();
  return r;
}

t.test('old buckets a rename left waiting on their tenant cost about what an hour at rest does', async (t) => {
  const fake = new FakeAws();
  const old = Array.from({ length: MAX_BUCKETS - 1 }, (_, i) => `tenant-a-old-${i}`);
  // The same ten buckets at rest: ten resources, each Ready on its own bucket.
  let rest = 0;
  for (const [i, bucket] of [...old, 'tenant-a-now'].entries()) {
    const r = await ready(fake, `rest-${i}`, { bucketName: `${bucket}-rest`, deletionPolicy: 'Delete' });
    rest += (await anHour(fake, r)).awsCalls;
  }
  // One resource renamed nine times, an object left in each bucket it leaves behind.
  let r = await ready(fake, 'renamed', { bucketName: old[0], deletionPolicy: 'Delete' });
  for (const bucket of [...old.slice(1), 'tenant-a-now']) {
    fake.buckets.get(r.spec['bucketName'] as string)!.objects = 1;
    const next = new NamespaceResource(fake, 'tenant-a', 'renamed', { ...r.spec, bucketName: bucket }, {});
    next.status = r.status;
    next.children = r.children;
    await next.sync();
    await next.sync();
    r = next;
  }
  t.equal(r.ready()['status'], 'True', 'the renamed resource is Ready on its current bucket');
  const waiting = await anHour(fake, r);
  t.comment(
    `ten buckets at rest for an hour: ${rest} AWS calls; one resource with nine old buckets waiting: ` +
      `${waiting.hookCalls} syncs, ${waiting.awsCalls} AWS calls`,
  );
  t.ok(
    old.every((b) => fake.buckets.has(b)),
    'the old buckets wait (not empty)',
  );
  t.ok(
    waiting.awsCalls <= 2 * rest,
    `waiting costs at most twice the calls of the same buckets at rest (${waiting.awsCalls} against ${rest})`,
  );
});
