// The bound on the buckets one namespace's S3 resources hold in the operator's account (METAOPS_S3_BUCKETS_PER_NAMESPACE,
// hooks/s3/ledger.ts): refused past it with a reason the tenant can act on, counted per namespace, counted only before
// a CreateBucket, and never exceeded by a sync killed between counting and creating nor by two syncs at once.
import t from 'tap';
import { ENTRY_SETTLE_SECONDS } from '../../hooks/s3/ledger.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { bucketsOf, NamespaceResource } from '../fixtures/s3-namespace.js';
import { killable } from '../fixtures/s3-loop.js';

const LIMIT = 2;
const settings = { bucketsPerNamespace: LIMIT };

/** One S3 resource of `namespace` under the bound, in Metacontroller's loop. */
const tenant = (aws: FakeAws, namespace: string, name: string, spec: Record<string, unknown>) =>
  new NamespaceResource(aws, namespace, name, spec, settings);

t.test('a namespace at its bound: the next bucket is refused, with the bound and how to free a place', async (t) => {
  const aws = new FakeAws();
  for (const i of [1, 2]) {
    const r = tenant(aws, 'tenant-a', `kept-${i}`, { bucketName: `tenant-a-kept-${i}`, deletionPolicy: 'Retain' });
    await r.sync();
    t.equal(r.ready()['status'], 'True', `resource ${i} is Ready`);
    t.equal((await r.finalize()).finalized, true, `resource ${i} deleted, its bucket retained`);
  }
  const next = tenant(aws, 'tenant-a', 'next', { bucketName: 'tenant-a-next' });
  const res = await next.sync();
  t.match(next.ready(), {
    status: 'False',
    reason: 'TooManyBuckets',
    message:
      /namespace tenant-a already holds 2 buckets .*METAOPS_S3_BUCKETS_PER_NAMESPACE=2.*delete buckets .* in AWS.*deletionPolicy: Delete/,
  });
  t.notMatch(next.ready()['message'], /123456789012/, "the operator's account is not said");
  t.notOk(aws.buckets.has('tenant-a-next'), 'no bucket was created');
  t.same(res.children, [], 'no Secret: no credentials were made for it');
  t.notOk(
    aws.calls.some((c) => c.startsWith('createBucket tenant-a-next')),
    'CreateBucket was never asked',
  );
  // Refused again while nothing changes, with no new entry left behind.
  await next.sync();
  t.equal(next.ready()['reason'], 'TooManyBuckets');
  t.equal(aws.ledgerEntries('tenant-a').length, 2, 'the ledger holds the two retained buckets only');

  // The operator deletes a retained bucket in AWS: once its entry is old enough, the next sync finds the place.
  aws.buckets.delete('tenant-a-kept-1');
  aws.now = new Date(aws.now.getTime() + (ENTRY_SETTLE_SECONDS + 1) * 1000);
  await next.sync();
  t.equal(next.ready()['status'], 'True', 'a place is free again: the bucket is made');
  t.same(bucketsOf(aws, 'tenant-a').sort(), ['tenant-a-kept-2', 'tenant-a-next']);
  t.equal(aws.ledgerEntries('tenant-a').length, 2);
});

t.test('deletionPolicy Delete frees the place when the resource goes; a rename with Delete too', async (t) => {
  const aws = new FakeAws();
  for (let i = 0; i < 6; i++) {
    const r = tenant(aws, 'tenant-a', 'data', { bucketName: `tenant-a-d-${i}`, deletionPolicy: 'Delete' });
    await r.sync();
    t.equal(r.ready()['status'], 'True', `cycle ${i}: Ready`);
    r.spec['bucketName'] = `tenant-a-d-${i}-renamed`;
    await r.sync();
    await r.sync();
    t.equal(r.ready()['status'], 'True', `cycle ${i}: renamed, the old bucket deleted`);
    t.equal((await r.finalize()).finalized, true);
  }
  t.same(bucketsOf(aws, 'tenant-a'), []);
  t.same(aws.ledgerEntries('tenant-a'), [], 'no entry left: every place is free');
});

t.test("the bound is per namespace: tenant A at its bound does not refuse tenant B's bucket", async (t) => {
  const aws = new FakeAws();
  for (const i of [1, 2, 3]) {
    const r = tenant(aws, 'tenant-a', `a-${i}`, { bucketName: `tenant-a-${i}`, deletionPolicy: 'Retain' });
    await r.sync();
    await r.finalize();
  }
  t.equal(bucketsOf(aws, 'tenant-a').length, LIMIT, 'tenant A holds its bound, and no more');
  // A namespace whose name begins like A's is another namespace.
  for (const ns of ['tenant-b', 'tenant-a-b']) {
    const b = tenant(aws, ns, 'data', { bucketName: `${ns}-data` });
    await b.sync();
    t.equal(b.ready()['status'], 'True', `${ns}: Ready`);
    t.ok(aws.buckets.has(`${ns}-data`), `${ns}: its bucket is made`);
  }
  t.equal(aws.ledgerEntries('tenant-a').length, LIMIT);
});

t.test('quiet at rest: a Ready resource resynced counts nothing', async (t) => {
  const aws = new FakeAws();
  const r = tenant(aws, 'tenant-a', 'data', { bucketName: 'tenant-a-rest' });
  await r.sync();
  t.equal(r.ready()['status'], 'True');
  t.ok(aws.listed.length > 0, 'counted before its CreateBucket');
  aws.listed = [];
  for (let i = 0; i < 3; i++) await r.sync();
  t.same(aws.listed, [], 'no ListPolicies once the bucket exists');
});

t.test(
  'killed after each AWS call while taking the last place: the bound holds and the killed resource is not wedged',
  async (t) => {
    // How many calls a whole first sync makes.
    const probe = new FakeAws();
    const whole = killable(probe, 1000);
    await tenant(probe, 'tenant-a', 'x', { bucketName: 'tenant-a-x' })
      .sync(whole.aws)
      .catch(() => undefined);
    const total = whole.calls();
    for (let n = 0; n <= total; n++) {
      const aws = new FakeAws();
      const first = tenant(aws, 'tenant-a', 'first', { bucketName: 'tenant-a-first' });
      await first.sync();
      const x = tenant(aws, 'tenant-a', 'x', { bucketName: 'tenant-a-x' });
      const y = tenant(aws, 'tenant-a', 'y', { bucketName: 'tenant-a-y' });
      // X is killed after its n-th call; Y, then X, sync on.
      await x.sync(killable(aws, n).aws).catch(() => undefined);
      for (let i = 0; i < 3; i++) {
        await y.sync();
        await x.sync();
        t.ok(bucketsOf(aws, 'tenant-a').length <= LIMIT, `killed after ${n}, round ${i}: at most ${LIMIT} buckets`);
        t.ok([...aws.buckets.keys()].length <= LIMIT, `killed after ${n}: no untagged bucket beyond the bound`);
      }
      const states = [x.ready(), y.ready()];
      t.equal(
        states.filter((c) => c['status'] === 'True').length,
        1,
        `killed after ${n}: one of the two took the last place`,
      );
      t.equal(
        states.filter((c) => c['reason'] === 'TooManyBuckets').length,
        1,
        `killed after ${n}: the other is refused`,
      );
      // The first resource goes with Delete: the refused one takes the place at its next sync (not wedged).
      first.spec['deletionPolicy'] = 'Delete';
      t.equal((await first.finalize()).finalized, true);
      aws.now = new Date(aws.now.getTime() + (ENTRY_SETTLE_SECONDS + 1) * 1000);
      await x.sync();
      await y.sync();
      await x.sync();
      t.equal(x.ready()['status'], 'True', `killed after ${n}: X Ready in the end`);
      t.equal(y.ready()['status'], 'True', `killed after ${n}: Y Ready in the end`);
      t.same(bucketsOf(aws, 'tenant-a').sort(), ['tenant-a-x', 'tenant-a-y']);
      t.equal(aws.ledgerEntries('tenant-a').length, 2, `killed after ${n}: the ledger counts exactly the two`);
    }
  },
);

t.test('two syncs that count at once: never both on the one free place', async (t) => {
  for (const order of ['x-verifies-last', 'both-write-then-verify'] as const) {
    const aws = new FakeAws();
    const first = tenant(aws, 'tenant-a', 'first', { bucketName: 'tenant-a-first' });
    await first.sync();
    const x = tenant(aws, 'tenant-a', 'x', { bucketName: 'tenant-a-x' });
    const y = tenant(aws, 'tenant-a', 'y', { bucketName: 'tenant-a-y' });
    // X pauses after its first count (one place free), until Y has done as `order` says.
    let release!: () => void;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let xLists = 0;
    let yLists = 0;
    const gate = (who: 'x' | 'y') =>
      new Proxy(aws, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver);
          if (prop === 'withDeadline') return () => gate(who);
          if (prop === 'listPolicies') {
            return async (...args: [string, number]) => {
              const got = await target.listPolicies(...args);
              if (who === 'x' && ++xLists === 1) await paused;
              if (who === 'y' && ++yLists === 2 && order === 'both-write-then-verify') {
                // Y wrote its entry and counted again: X writes its own, and Y's verdict reads both.
                release();
                await new Promise((r) => setTimeout(r, 10));
                return target.listPolicies(...args);
              }
              return got;
            };
          }
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }) as unknown as FakeAws;
    const xDone = x.sync(gate('x'));
    if (order === 'x-verifies-last') {
      await y.sync(gate('y'));
      release();
    } else await y.sync(gate('y'));
    await xDone;
    t.ok(bucketsOf(aws, 'tenant-a').length <= LIMIT, `${order}: at most ${LIMIT} buckets`);
    t.ok(aws.buckets.size <= LIMIT, `${order}: no bucket beyond the bound`);
    const ready = [x.ready(), y.ready()].filter((c) => c['status'] === 'True').length;
    t.ok(ready <= 1, `${order}: at most one took the place (${ready})`);
    // Each tries again: exactly one takes the place, the other is refused.
    for (let i = 0; i < 2; i++) {
      await x.sync();
      await y.sync();
    }
    t.equal([x.ready(), y.ready()].filter((c) => c['status'] === 'True').length, 1, `${order}: one in the end`);
    t.equal(aws.buckets.size, LIMIT);
    t.equal(aws.ledgerEntries('tenant-a').length, LIMIT, `${order}: no stray entry`);
  }
});

t.test('METAOPS_S3_BUCKETS_PER_NAMESPACE: read by the server, a bad value refuses the start', async (t) => {
  const { s3 } = await import('../../hooks/s3/index.js');
  t.equal(s3.settings!({ env: {} }).bucketsPerNamespace, 100, 'a hundred by default');
  t.equal(s3.settings!({ env: { METAOPS_S3_BUCKETS_PER_NAMESPACE: '25' } }).bucketsPerNamespace, 25);
  t.same(s3.configProblems!({ METAOPS_S3_BUCKETS_PER_NAMESPACE: '25' }), []);
  for (const bad of ['0', '-1', 'many', '1e3', '901', ''])
    t.match(s3.configProblems!({ METAOPS_S3_BUCKETS_PER_NAMESPACE: bad }), [/METAOPS_S3_BUCKETS_PER_NAMESPACE/], bad);
});
