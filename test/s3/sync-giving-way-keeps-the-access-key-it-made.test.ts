// An S3 sync whose body-budget turn is wanted by another namespace's request stops its AWS calls and answers as waiting
// for its share (hooks/s3/sync.ts givingWay); a sync whose work already returned is answered as it is. IAM shows an
// access key's secret once: a sync that made everything, CreateAccessKey included, and whose turn is wanted after that
// key came back, threw its answer away before, and the Secret that would have carried the secret was never answered;
// the next syncs found a young key no Secret holds (KeyPlan `pending`) and waited KEY_GRACE_SECONDS (120 s) before
// making another, which the same timing could throw away again (another namespace's waiting requests delaying this
// namespace's credentials each time).
import t from 'tap';
import { runHook } from '../../lib/operator.js';
import { s3 } from '../../hooks/s3/index.js';
import type { AwsApi } from '../../hooks/s3/api.js';
import { MAX_NAMESPACES, S3Tenants } from '../../hooks/s3/share.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

t.test("B's S3 sync whose turn is wanted once its access key is made answers the key's Secret", async (t) => {
  const fake = new FakeAws();
  const wanted = new AbortController();
  // AWS as it is; the turn is wanted (another namespace's request has waited half its wait) right after IAM
  // answered CreateAccessKey with the key's secret.
  const view = (): AwsApi =>
    new Proxy(fake, {
      get(target, prop, receiver) {
        if (prop === 'withDeadline') return () => view();
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const out = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (prop === 'createAccessKey') wanted.abort();
          return out;
        };
      },
    });
  const tenants = new S3Tenants(MAX_NAMESPACES, () => Number.MAX_SAFE_INTEGER);
  const request = s3Request(
    { name: 'r', namespace: 'tenant-b', uid: 'uid-tenant-b-r' },
    { ...S3_DEFAULTS, bucketName: 'tenant-b-r' },
  );
  const got = await runHook(s3, 'sync', request, {
    now: fake.now,
    clients: { aws: async () => view(), tenants },
    turnWanted: wanted.signal,
  });
  const keys = await fake.listAccessKeys(
    [...(fake as unknown as { users: Map<string, unknown> }).users.keys()][0] ?? '',
  );
  const secrets = (got.children ?? []).filter((c) => c.kind === 'Secret');
  const answered = secrets.some((s) =>
    keys.some((k) => JSON.stringify(s).includes(Buffer.from(k.id).toString('base64'))),
  );
  t.comment(`IAM holds ${keys.length} key(s); the answer carries ${secrets.length} Secret(s)`);
  t.ok(
    answered || keys.length === 0,
    'the key IAM made is in the answered Secret, or no key is left that no Secret can ever hold (its secret was shown once)',
  );

  // The next sync, its turn not wanted, a minute later (Metacontroller asks again soon): the young key no Secret
  // holds is taken for one in a Secret its cache does not show yet, and nothing is made for KEY_GRACE_SECONDS.
  const next = await runHook(
    s3,
    'sync',
    s3Request(
      { name: 'r', namespace: 'tenant-b', uid: 'uid-tenant-b-r' },
      { ...S3_DEFAULTS, bucketName: 'tenant-b-r' },
      { status: got.status as Record<string, unknown>, children: secrets },
    ),
    { now: new Date(fake.now.getTime() + 60_000), clients: { aws: async () => fake, tenants } },
  );
  const ready = (next.status as { conditions?: Array<Record<string, unknown>> }).conditions?.find(
    (c) => c['type'] === 'Ready',
  );
  t.comment(
    `the next sync: Ready ${String(ready?.['status'])} ${String(ready?.['reason'])}: ${String(ready?.['message']).slice(0, 200)}`,
  );
  t.equal(ready?.['status'], 'True', "B's resource is Ready at its next sync");
});
