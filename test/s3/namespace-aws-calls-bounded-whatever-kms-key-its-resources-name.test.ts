// A namespace's S3 resources cost the operator's one AWS identity (whose IAM throttle every tenant shares) no more than
// the namespace's share of calls (hooks/s3/share.ts), whatever KMS key their specs name. The one exception to the
// budget, a sync that withdraws a KMS grant the server no longer allows (hooks/s3/sync.ts `sync`: `withdraws`), is taken
// only by a resource that may hold such a grant (its status records something made for it in AWS: a bucket, its user,
// policy or key) and whose refusal this generation has not been answered yet; and, however many of them the namespace
// edits, only while the namespace owes less than one period's budget.
//
// Before 2026-11-30 the exception was decided from the spec alone: a resource naming a key the server does not allow
// (nothing ever made for it, nothing to withdraw) skipped the budget at every sync, each sync asking IAM for its user:
// 200 such resources of tenant A, synced once each in one period, made 200 IAM calls against a share of 45, and IAM's
// account-wide throttle answered tenant B `Throttled`.
import t from 'tap';
import { AwsError, type AwsApi } from '../../hooks/s3/api.js';
import { AT_REST_CALLS, WAITING_FOR_SHARE } from '../../hooks/s3/share.js';
import { FakeAws, viewOf } from '../fixtures/fake-aws.js';
import { budgeted, s3TenantsOf } from '../fixtures/hooks.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

/** The namespace's bucket bound (METAOPS_S3_BUCKETS_PER_NAMESPACE): its budget is max(45, 9 x 5) = 45 calls. */
const LIMIT = 5;
const BUDGET = Math.max(45, 9 * LIMIT);
/** No key allowed for any namespace (METAOPS_KMS_KEY_ALLOWLIST unset). */
const settings = { bucketsPerNamespace: LIMIT, kms: [] };
const RESOURCES = 200;

/** A key ARN of the operator's account that no allowlist here gives, the i-th. */
const keyOf = (i: number) =>
  `arn:aws:kms:us-east-1:123456789012:key/${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`;

/** The server's settings while it allowed tenant-a the first key. */
/** Tenant A's S3 resource `k<i>`, naming key `keyOf(i)` (none allowed under `settings`). */
const keyNamer = (fake: FakeAws, i: number, aws: AwsApi) =>
  new NamespaceResource(
    fake,
    'tenant-a',
    `k${i}`,
    { bucketName: `tenant-a-k${i}`, encryption: { type: 'SSE-KMS', kmsKeyId: keyOf(i) } },
    settings,
    aws,
  );
const allowing = { ...settings, kms: [{ arn: keyOf(0), namespace: 'tenant-a' }] };

/** A view of the fake that counts every AwsApi call. */
function account(fake: FakeAws): { aws: AwsApi; calls: () => number; methods: string[] } {
  const methods: string[] = [];
  const aws = viewOf(fake, async (method, _args, call) => {
    methods.push(method);
    return call();
  });
  return { aws, calls: () => methods.length, methods };
}

/** An S3 resource naming a KMS key, whose spec its tenant edits (each edit a new generation). */
class Edited extends NamespaceResource {
  generation = 1;
  key = keyOf(0);
  override request() {
    return s3Request(
      {
        name: this.name,
        namespace: this.namespace,
        uid: `uid-${this.namespace}-${this.name}`,
        generation: this.generation,
      },
      { ...S3_DEFAULTS, ...this.spec, encryption: { type: 'SSE-KMS', kmsKeyId: this.key } },
      { status: this.status, children: this.children },
    );
  }
  synced(): Record<string, unknown> {
    return ((this.status?.['conditions'] as any[]) ?? []).find((c) => c.type === 'Synced') ?? {};
  }
}

/** The KMS statements of every policy of the fake (the tenants' users' grants). */
const kmsGrants = (fake: FakeAws) =>
  [...fake.policies.keys()].flatMap((arn) =>
    (fake.document(arn).Statement as Array<{ Sid?: string }>).filter((s) => s.Sid === 'Kms'),
  ).length;

t.test(
  "a namespace's S3 resources naming a key the server does not allow cost no more than its share of AWS calls",
  async (t) => {
    const fake = new FakeAws();
    budgeted(fake);
    const { aws, calls, methods } = account(fake);
    const a: NamespaceResource[] = [];
    for (let i = 0; i < RESOURCES; i++) {
      a.push(keyNamer(fake, i, aws));
    }
    // One budget period (the fake's clock does not move): every resource synced once, as an edit of each would.
    for (const r of a) await r.sync().catch(() => undefined);
    t.equal(
      a.filter((r) => r.ready()['reason'] === 'InvalidSpec').length,
      RESOURCES,
      'every one is refused InvalidSpec (the key is not allowed), those past the budget too',
    );
    t.match(
      a[RESOURCES - 1]!.ready()['message'],
      /allows no customer managed KMS key.*waiting for this namespace's share of AWS calls/,
      'one past the budget says its refusal, and that nothing was checked in AWS yet',
    );
    t.equal(fake.users.size, 0, 'nothing was ever made for them: no user, so no grant to withdraw');
    const counts: Record<string, number> = {};
    for (const m of methods) counts[m] = (counts[m] ?? 0) + 1;
    t.ok(
      calls() <= BUDGET + 2 * AT_REST_CALLS,
      `tenant A's ${RESOURCES} refused resources made ${calls()} AWS calls (${JSON.stringify(counts)}) in one period; its share is ${BUDGET} (and what 2 syncs overdraw)`,
    );
  },
);

t.test("tenant B's sync is served beside tenant A's resources naming a key the server does not allow", async (t) => {
  const fake = new FakeAws();
  budgeted(fake);
  // IAM as it throttles the account as a whole: past room for both namespaces' shares (and slack) in one window.
  const ROOM = 3 * BUDGET;
  let calls = 0;
  const aws = viewOf(fake, async (method, _args, call) => {
    calls++;
    if (calls > ROOM) throw new AwsError('Throttling', 'Rate exceeded', method);
    return call();
  });
  for (let i = 0; i < RESOURCES; i++) {
    const r = keyNamer(fake, i, aws);
    await r.sync().catch(() => undefined);
  }
  const b = new NamespaceResource(fake, 'tenant-b', 'data', { bucketName: 'tenant-b-data' }, settings, aws);
  await b.sync().catch(() => undefined);
  t.equal(
    b.ready()['status'],
    'True',
    `B's first S3 resource is Ready after A's ${RESOURCES} syncs (${calls} calls against IAM's room of ${ROOM}; B: ${JSON.stringify(b.ready()['message'])})`,
  );
});

t.test(
  'a grant of a key the server stops allowing is withdrawn at once past the budget, and only once for the spec',
  async (t) => {
    const fake = new FakeAws();
    const r = new Edited(fake, 'tenant-a', 'app', { bucketName: 'tenant-a-app' }, allowing);
    await r.sync();
    t.equal(r.ready()['status'], 'True', 'Ready with its key allowed');
    t.equal(kmsGrants(fake), 1, 'its policy grants the key');
    // From now on the namespace's budget counts, and it is spent.
    budgeted(fake);
    await s3TenantsOf(fake).run(
      { namespace: 'tenant-a', bucketsPerNamespace: LIMIT, now: fake.now },
      fake,
      async (aws) => {
        for (let i = 0; i < BUDGET; i++) await aws.getUser('spent');
      },
    );
    const { aws, calls } = account(fake);
    const refused = new Edited(fake, 'tenant-a', 'app', r.spec, settings, aws);
    refused.status = r.status;
    refused.children = r.children;
    await refused.sync();
    t.equal(refused.ready()['reason'], 'InvalidSpec', 'refused: the server no longer allows the key');
    t.equal(kmsGrants(fake), 0, 'its grant withdrawn at once, the budget spent');
    t.ok(calls() > 0 && calls() <= AT_REST_CALLS, `what the withdrawal took (${calls()} calls)`);
    const before = calls();
    await refused.sync();
    t.equal(calls(), before, 'synced again with the same spec: nothing left to withdraw, nothing sent past the budget');
    t.equal(refused.synced()['reason'], WAITING_FOR_SHARE, 'it waits for its share like any sync');
    t.equal(refused.ready()['reason'], 'InvalidSpec', 'still refused');
  },
);

t.test(
  'a namespace editing resources that hold grants to keys it is not allowed makes at most twice its share',
  async (t) => {
    const fake = new FakeAws();
    const held: Edited[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const r = new Edited(fake, 'tenant-a', `app${i}`, { bucketName: `tenant-a-app${i}` }, allowing);
      await r.sync();
      held.push(r);
    }
    t.equal(held.filter((r) => r.ready()['status'] === 'True').length, LIMIT, 'each Ready with a grant of the key');
    budgeted(fake);
    const { aws, calls } = account(fake);
    const edited = held.map((r) => {
      const e = new Edited(fake, 'tenant-a', r.name, r.spec, settings, aws);
      e.status = r.status;
      e.children = r.children;
      return e;
    });
    // One period (the clock stands still): 200 edits, each naming another key the namespace is not allowed.
    for (let i = 1; i <= RESOURCES; i++) {
      const e = edited[i % LIMIT]!;
      e.generation += 1;
      e.key = keyOf(i);
      await e.sync().catch(() => undefined);
    }
    t.equal(kmsGrants(fake), 0, 'every grant withdrawn');
    t.ok(
      calls() <= 2 * BUDGET + 2 * AT_REST_CALLS,
      `${RESOURCES} edits made ${calls()} AWS calls in one period: at most twice the share of ${BUDGET} (and what 2 syncs overdraw)`,
    );
  },
);
