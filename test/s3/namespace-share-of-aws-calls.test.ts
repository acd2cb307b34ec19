// A namespace's share of the S3 hook (hooks/s3/share.ts), its rules one by one: its hook calls calling AWS at once
// (a place freed however the call ends), its budget of calls (a floor, a refill over the period, the wait it asks
// for), the namespaces it remembers (bounded), and the answer of a finalize that waits for it.
import t from 'tap';
import type { AwsApi } from '../../hooks/s3/api.js';
import {
  AT_REST_CALLS,
  CALLS_PERIOD_SECONDS,
  MIN_CALLS_PER_PERIOD,
  S3Tenants,
  S3_TENANT_MAX_SYNCS,
  ShareWait,
  WAITING_FOR_SHARE,
  callsPerPeriod,
  counted,
} from '../../hooks/s3/share.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { budgeted } from '../fixtures/hooks.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';

const T0 = new Date('2026-01-02T03:04:05Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

t.test('the budget: 9 calls per bucket of the bound each period, at least 45', async (t) => {
  t.equal(callsPerPeriod(100), 900);
  t.equal(callsPerPeriod(5), 45);
  t.equal(callsPerPeriod(1), MIN_CALLS_PER_PERIOD);
  t.equal(MIN_CALLS_PER_PERIOD, 45);
});

t.test("a namespace's third call at once waits; a place is freed however a call ends", async (t) => {
  const tenants = new S3Tenants();
  const aws = new FakeAws();
  const gates: Array<() => void> = [];
  const held = Array.from({ length: S3_TENANT_MAX_SYNCS }, (_, i) =>
    tenants.run(
      { namespace: 'a', bucketsPerNamespace: 100, now: T0 },
      aws,
      () =>
        new Promise<void>((resolve, reject) => gates.push(i === 0 ? () => reject(new Error('AWS said no')) : resolve)),
    ),
  );
  t.equal(tenants.inFlight('a'), S3_TENANT_MAX_SYNCS);
  const third = tenants.run({ namespace: 'a', bucketsPerNamespace: 100, now: T0 }, aws, async () => 'ran');
  t.match(
    await third.catch((err: unknown) => err),
    { reason: WAITING_FOR_SHARE, retryAfterSeconds: 10 },
    'the third waits, asked again in 10 s',
  );
  t.equal(
    await tenants.run({ namespace: 'b', bucketsPerNamespace: 100, now: T0 }, aws, async () => 'ran'),
    'ran',
    'another namespace is not held',
  );
  gates.forEach((g) => g());
  await t.rejects(held[0]!, /AWS said no/);
  await held[1];
  t.equal(tenants.inFlight('a'), 0, 'both places freed, the failed call too');
  t.equal(await tenants.run({ namespace: 'a', bucketsPerNamespace: 100, now: T0 }, aws, async () => 'ran'), 'ran');
});

t.test('past its budget a namespace makes no call until it refills', async (t) => {
  const tenants = new S3Tenants();
  const fake = new FakeAws();
  let calls = 0;
  const spend = (aws: AwsApi, n: number) => async () => {
    for (let i = 0; i < n; i++) await aws.getUser(`u${i}`);
  };
  // 45 calls: the whole budget of a namespace with a bound of 5.
  await tenants.run({ namespace: 'a', bucketsPerNamespace: 5, now: T0 }, fake, (aws) => spend(aws, 45)());
  t.equal(Math.round(tenants.callsLeft('a', 45, T0)), 0);
  const waiting = await tenants
    .run({ namespace: 'a', bucketsPerNamespace: 5, now: T0 }, fake, async () => void calls++)
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  t.ok(waiting instanceof ShareWait, 'the next call waits');
  t.equal(calls, 0, 'and makes no call');
  t.equal(
    (waiting as ShareWait).retryAfterSeconds,
    60,
    'asked again when the budget holds a sync at rest (9 of 45/300 s)',
  );
  t.match((waiting as ShareWait).message, /45 calls a namespace may make in 5 minutes/);
  t.equal(
    await tenants.run({ namespace: 'a', bucketsPerNamespace: 5, now: at(60) }, fake, async () => 'ran'),
    'ran',
    'a sync at rest fits 60 s later',
  );
  t.equal(Math.round(tenants.callsLeft('a', 45, at(CALLS_PERIOD_SECONDS * 10))), 45, 'refilled to its budget, no more');
  t.equal(Math.round(tenants.callsLeft('a', 45, T0)), 45, 'a clock gone back refills nothing and takes nothing');
  // A started call is never cut: it may take more than was left, and the namespace waits until that is paid back.
  await tenants.run({ namespace: 'a', bucketsPerNamespace: 5, now: at(CALLS_PERIOD_SECONDS * 10) }, fake, (aws) =>
    spend(aws, 60)(),
  );
  t.ok(tenants.callsLeft('a', 45, at(CALLS_PERIOD_SECONDS * 10)) < 0, 'overdrawn');
  const owed = await tenants
    .run({ namespace: 'a', bucketsPerNamespace: 5, now: at(CALLS_PERIOD_SECONDS * 10 + 60) }, fake, async () => 'ran')
    .catch((err: unknown) => err);
  t.ok(owed instanceof ShareWait, 'a minute later it still waits: what it took is paid back first');
  t.ok(AT_REST_CALLS <= 45);
});

t.test('the namespaces remembered are bounded, the least recently used forgotten first', async (t) => {
  const tenants = new S3Tenants(2);
  const fake = new FakeAws();
  const drain = (ns: string) =>
    tenants.run({ namespace: ns, bucketsPerNamespace: 5, now: T0 }, fake, async (aws) => void (await aws.getUser('x')));
  await drain('a');
  await drain('b');
  t.equal(Math.round(tenants.callsLeft('a', 45, T0)), 44, 'a remembered');
  await drain('c'); // b is now the least recently used
  t.equal(Math.round(tenants.callsLeft('a', 45, T0)), 44, 'a still remembered');
  t.equal(Math.round(tenants.callsLeft('b', 45, T0)), 45, 'b forgotten: a full budget again');
});

t.test('a view with a deadline is counted too', async (t) => {
  const fake = new FakeAws();
  let spent = 0;
  const view = counted(fake, () => spent++).withDeadline(1000);
  await view.getUser('x');
  await view.findBucket('none');
  t.equal(spent, 2);
  t.equal(view.region, fake.region, 'fields pass through uncounted');
});

t.test('a finalize waiting for its share keeps the resource and says why', async (t) => {
  const fake = new FakeAws();
  budgeted(fake);
  const settings = { bucketsPerNamespace: 1 };
  const r = new NamespaceResource(fake, 'tenant-a', 'data', { bucketName: 'tenant-a-data' }, settings);
  await r.sync();
  await r.sync();
  t.equal(r.ready()['status'], 'True');
  // Its namespace's budget spent by its other syncs (edits) at this moment.
  for (let i = 0; i < 10; i++) await r.sync();
  const before = JSON.stringify(r.status);
  const res = await r.finalize();
  t.equal(res.finalized, false, 'not released');
  const finalized = ((res.status?.['conditions'] as any[]) ?? []).find((c) => c.type === 'Finalized');
  t.equal(finalized?.reason, WAITING_FOR_SHARE);
  t.equal(r.ready()['status'], 'True', 'Ready kept');
  t.ok(fake.buckets.has('tenant-a-data'), 'nothing deleted');
  t.ok((res.resyncAfterSeconds ?? 0) > 0);
  t.not(JSON.stringify(res.status), before, 'the condition added');
  fake.now = new Date(fake.now.getTime() + CALLS_PERIOD_SECONDS * 1000);
  const later = await r.finalize();
  t.not(
    ((later.status?.['conditions'] as any[]) ?? []).find((c) => c.type === 'Finalized')?.reason,
    WAITING_FOR_SHARE,
    'a period later it runs',
  );
});

t.test('a sync withdrawing a KMS grant the server no longer allows is not held back by the budget', async (t) => {
  const tenants = new S3Tenants();
  const fake = new FakeAws();
  await tenants.run({ namespace: 'a', bucketsPerNamespace: 5, now: T0 }, fake, async (aws) => {
    for (let i = 0; i < 45; i++) await aws.getUser('x');
  });
  t.equal(
    await tenants.run(
      { namespace: 'a', bucketsPerNamespace: 5, now: T0, withdraws: true },
      fake,
      async () => 'withdrawn',
    ),
    'withdrawn',
  );
  const other = await tenants
    .run({ namespace: 'a', bucketsPerNamespace: 5, now: T0 }, fake, async () => 'ran')
    .catch((err: unknown) => err);
  t.ok(other instanceof ShareWait, 'another call of the namespace still waits');
});
