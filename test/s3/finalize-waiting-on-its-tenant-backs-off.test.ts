// A resource deleted with `deletionPolicy: Delete` whose bucket is not empty (no `forceDelete`) waits at finalize for
// its tenant, who alone can empty the bucket or set Retain. The finalize looks again less and less often (as long as it
// has waited, 10 s to TENANT_WAIT_MAX_SECONDS), its status stays the same while it waits, and a bucket emptied at any
// moment of the wait is deleted, and the resource finalized, within TENANT_WAIT_MAX_SECONDS.
import t from 'tap';
import { RETRY_SECONDS } from '../../lib/index.js';
import { TENANT_WAIT_MAX_SECONDS, tenantWaitSeconds } from '../../hooks/s3/sync.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';

/** A Ready resource whose bucket its tenant filled, then deleted with Delete. */
async function deletedFull(forceDelete = false) {
  const fake = new FakeAws();
  const r = new NamespaceResource(
    fake,
    'tenant-a',
    'data',
    {
      bucketName: 'tenant-a-data',
      deletionPolicy: 'Delete',
      forceDelete,
    },
    {},
  );
  await r.sync();
  await r.sync();
  fake.buckets.get('tenant-a-data')!.objects = 1;
  return { fake, r };
}

const finalizedOf = (status: Record<string, unknown> | undefined) =>
  ((status?.['conditions'] as any[]) ?? []).find((c) => c.type === 'Finalized');

t.test('a finalize waiting on its tenant looks again less and less often, its status unchanged', async (t) => {
  const { fake, r } = await deletedFull();
  const waits: number[] = [];
  const statuses: string[] = [];
  for (let elapsed = 0; elapsed < 3600;) {
    const res = await r.finalize();
    t.equal(res.finalized, false);
    const wait = res.resyncAfterSeconds!;
    waits.push(wait);
    statuses.push(JSON.stringify(res.status));
    elapsed += wait;
    fake.now = new Date(fake.now.getTime() + wait * 1000);
  }
  t.same(waits.slice(0, 8), [10, 10, 20, 40, 80, 160, 300, 300], 'from 10 s, doubling, to 5 minutes');
  t.ok(
    waits.every((w) => w >= RETRY_SECONDS.soon && w <= TENANT_WAIT_MAX_SECONDS),
    'every wait within bounds',
  );
  t.equal(new Set(statuses).size, 1, 'the status stays the same while it waits');
  t.match(finalizedOf(r.status), {
    status: 'False',
    reason: 'BucketNotEmpty',
    message: /empty it, .*at least every 5 minutes: an emptied bucket is deleted within 5 minutes/,
  });
});

t.test('a bucket its tenant empties during the wait is deleted within the back-off', async (t) => {
  // Emptied at several moments of the wait: early, within a doubling, and long into the 5-minute period.
  for (const emptiedAt of [5, 35, 170, 1234, 3599]) {
    const { fake, r } = await deletedFull();
    const start = fake.now.getTime();
    const at = (s: number) => new Date(start + s * 1000);
    let emptied = false;
    let finalizedAfter: number | undefined;
    for (let i = 0; i < 100 && finalizedAfter === undefined; i++) {
      const elapsed = (fake.now.getTime() - start) / 1000;
      const res = await r.finalize();
      if (res.finalized) {
        finalizedAfter = elapsed - emptiedAt;
        break;
      }
      const next = elapsed + res.resyncAfterSeconds!;
      if (!emptied && next >= emptiedAt) {
        fake.now = at(emptiedAt);
        fake.buckets.get('tenant-a-data')!.objects = 0;
        emptied = true;
      }
      fake.now = at(next);
    }
    t.ok(
      finalizedAfter !== undefined && finalizedAfter <= TENANT_WAIT_MAX_SECONDS,
      `emptied ${emptiedAt} s into the wait: finalized ${finalizedAfter} s later`,
    );
    t.notOk(fake.buckets.has('tenant-a-data'), 'the bucket is deleted');
    t.equal(fake.users.size, 0, 'the user is deleted');
  }
});

t.test('a finalize emptying the bucket itself (forceDelete) looks again soon', async (t) => {
  const { fake, r } = await deletedFull(true);
  fake.deleteBucket = async () => 'notEmpty';
  for (let i = 0; i < 5; i++) {
    const res = await r.finalize();
    t.equal(res.resyncAfterSeconds, RETRY_SECONDS.soon);
    t.match(finalizedOf(res.status ?? undefined), {
      reason: 'BucketNotEmpty',
      message: 'emptying bucket tenant-a-data',
    });
    fake.now = new Date(fake.now.getTime() + 60_000);
  }
});

t.test('the wait is read from the stored condition by type, bounded both ways', async (t) => {
  const now = new Date('2026-11-29T06:00:00Z');
  const parent = (lastTransitionTime: unknown, status = 'False') =>
    ({
      metadata: { name: 'data', namespace: 'tenant-a' },
      status: { conditions: [{ type: 'Finalized', status, reason: 'BucketNotEmpty', lastTransitionTime }] },
    }) as any;
  t.equal(tenantWaitSeconds(parent('2026-11-29T05:59:30Z'), now), 30, 'as long as it has waited');
  t.equal(tenantWaitSeconds(parent('2026-11-28T00:00:00Z'), now), TENANT_WAIT_MAX_SECONDS, 'at most 5 minutes');
  t.equal(tenantWaitSeconds(parent('2026-11-29T06:00:05Z'), now), RETRY_SECONDS.soon, 'a time ahead: 10 s');
  t.equal(tenantWaitSeconds(parent('2026-11-29T05:00:00Z', 'True'), now), RETRY_SECONDS.soon, 'not waiting: 10 s');
  t.equal(tenantWaitSeconds(parent({ toString: 1 }), now), RETRY_SECONDS.soon, 'not a string: 10 s');
  t.equal(tenantWaitSeconds(parent('yesterday'), now), RETRY_SECONDS.soon, 'not a time: 10 s');
  t.equal(tenantWaitSeconds({ metadata: {}, status: 'x' } as any, now), RETRY_SECONDS.soon, 'no conditions: 10 s');
});

t.test('a finalize waiting on AWS after a long wait on its tenant looks again soon', async (t) => {
  const { fake, r } = await deletedFull();
  for (let i = 0; i < 8; i++) {
    const res = await r.finalize();
    fake.now = new Date(fake.now.getTime() + res.resyncAfterSeconds! * 1000);
  }
  t.equal((await r.finalize()).resyncAfterSeconds, TENANT_WAIT_MAX_SECONDS, 'waiting on the tenant: 5 minutes');
  // The tenant empties the bucket; IAM has not let the user go yet.
  fake.buckets.get('tenant-a-data')!.objects = 0;
  fake.deleteUser = async () => {};
  const res = await r.finalize();
  t.equal(res.finalized, false);
  t.match(finalizedOf(res.status ?? undefined), { status: 'False', reason: 'Deleting' });
  t.equal(res.resyncAfterSeconds, RETRY_SECONDS.soon, 'waiting on AWS: 10 s');
});
