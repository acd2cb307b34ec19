// An S3 hook call waiting on AWS gives its turn of the body budget way to another namespace (issue 29, "bounded
// always"): every namespace's requests share the server's budget of request bodies in hand (lib/body-budget.ts), and
// once another namespace's request has waited half its wait, the turns in hand are asked to give way (turnWanted).
// Only EtcdCluster's membership change did; an S3 sync whose region the egress drops (the tenant picks spec.region)
// waited on its silent AWS calls until the sync's deadline (7 s, HOOK_BUDGET_MS), holding its turn past the other
// namespace's wait. Now its calls stop when its turn is wanted, and it answers at once as waiting for its share: the
// status and every child kept, Synced False saying it gave way, asked again soon.
//
// Stand-in: AWS whose calls about a bucket in the dropped region answer only when their deadline's signal aborts,
// or after a long stand-in deadline (counted apart: the call was not stopped).
import t from 'tap';
import { runHook } from '../../lib/operator.js';
import { s3 } from '../../hooks/s3/index.js';
import { AwsError, type AwsApi } from '../../hooks/s3/api.js';
import { MAX_NAMESPACES, S3Tenants, WAITING_FOR_SHARE } from '../../hooks/s3/share.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

const DROPPED = 'ap-south-2';
/** The stand-in's deadline for a silent call that nothing stops (longer than the test waits for anything). */
const STAND_IN_DEADLINE_MS = 20_000;

/** AWS whose calls about DROPPED are silent until their signal aborts; how each ended. */
function silentRegion() {
  const fake = new FakeAws();
  const ended: Array<'stopped' | 'deadline'> = [];
  let pending = 0;
  const view = (signal?: AbortSignal): AwsApi =>
    new Proxy(fake, {
      get(target, prop, receiver) {
        if (prop === 'withDeadline') return (_ms: number, s?: AbortSignal) => view(s);
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (prop === 'findBucket' && args[1] === DROPPED) {
            pending++;
            const how = await new Promise<'stopped' | 'deadline'>((resolve) => {
              const timer = setTimeout(() => resolve('deadline'), STAND_IN_DEADLINE_MS);
              signal?.addEventListener('abort', () => (clearTimeout(timer), resolve('stopped')), { once: true });
            });
            pending--;
            ended.push(how);
            throw new AwsError('TimeoutError', 'no answer', 'GetBucketTagging');
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return { aws: view(), fake, ended, pending: () => pending };
}

t.test("an S3 sync waiting on silent AWS calls gives its turn way to another namespace's request", async (t) => {
  const { aws, fake, ended, pending } = silentRegion();
  const wanted = new AbortController();
  const request = s3Request(
    { name: 'r', namespace: 'tenant-a', uid: 'uid-tenant-a-r' },
    { ...S3_DEFAULTS, bucketName: 'tenant-a-r', region: DROPPED },
  );
  const tenants = new S3Tenants(MAX_NAMESPACES, () => Number.MAX_SAFE_INTEGER);
  const answer = runHook(s3, 'sync', request, {
    now: fake.now,
    clients: { aws: async () => aws, tenants },
    turnWanted: wanted.signal,
  });
  for (let i = 0; i < 50 && pending() === 0; i++) await new Promise((r) => setImmediate(r));
  t.equal(pending(), 1, 'the sync waits on a silent AWS call');
  // Another namespace's request has waited half its wait: this call's turn is asked to give way.
  wanted.abort();
  const got = await answer;
  t.same(ended, ['stopped'], 'the silent call was stopped when the turn was wanted, not left to its deadline');
  t.equal(tenants.inFlight('tenant-a'), 0, "the namespace's place is given back");
  const synced = (got.status as { conditions?: Array<Record<string, unknown>> }).conditions?.find(
    (c) => c['type'] === 'Synced',
  );
  t.match(synced, { status: 'False', reason: WAITING_FOR_SHARE, message: /gave way to another namespace/ });
  t.ok((got.resyncAfterSeconds ?? 0) > 0, 'asked again soon');
});

t.test('a sync whose turn is not wanted goes on as before', async (t) => {
  const fake = new FakeAws();
  const request = s3Request(
    { name: 'r', namespace: 'tenant-a', uid: 'uid-tenant-a-r' },
    { ...S3_DEFAULTS, bucketName: 'tenant-a-r' },
  );
  const got = await runHook(s3, 'sync', request, {
    now: fake.now,
    clients: { aws: async () => fake, tenants: new S3Tenants(MAX_NAMESPACES, () => Number.MAX_SAFE_INTEGER) },
    turnWanted: new AbortController().signal,
  });
  t.match((got.status as { conditions?: unknown[] }).conditions, [{ type: 'Ready', status: 'True' }], 'made and Ready');
});
