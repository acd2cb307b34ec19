// The S3 hook when AWS applies a call and then answers it with an error (a 5xx InternalError or ServiceUnavailable
// after the change was made, or an answer lost on the way back: the SDK's own retries end on the error). Such an
// answer says nothing of the outcome. test/s3/crash.test.ts kills the process after each call; this injects, for each
// call of a first sync in turn, "applied, then answered InternalError", lets the sync go on as it does on an error,
// and syncs again as Metacontroller does: the resource must converge to what a sync never disturbed leaves (Ready,
// one key, the one its Secret holds), never a resource wedged on its own half-made user, policy, claim or key
// (issue 31, S3 is crash-consistent). Only CreateBucket's ambiguity is handled today
// (test/s3/create-bucket-ambiguous.test.ts).
import t from 'tap';
import { AwsError, OWNER_UID_TAG, type AwsApi } from '../../hooks/s3/api.js';
import { userName } from '../../hooks/s3/policy.js';
import { KEY_GRACE_SECONDS } from '../../hooks/s3/sync.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { ready, Resource } from '../fixtures/s3-loop.js';

const USER = userName('ns', 'app', 'uid-app');
const READS = /^(get|list|find|policyDocument|ledgerEntries|document|attachedPolicies|userArn|keyIds)/;

/** The fake AWS whose `n`-th call is applied, then answered `code` (the calls before and after answer as usual). */
function appliedThenFails(fake: FakeAws, n: number, code: string): { aws: AwsApi; named: () => string | undefined } {
  let calls = 0;
  let named: string | undefined;
  const aws = new Proxy(fake, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'withDeadline') return () => aws;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const result = await (value as (...a: unknown[]) => unknown).apply(target, args);
        calls++;
        if (calls === n) {
          named = String(prop);
          throw new AwsError(code, 'We encountered an internal error. Please try again.', String(prop));
        }
        return result;
      };
    },
  }) as unknown as AwsApi;
  return { aws, named: () => named };
}

/** Syncs (as Metacontroller: each answer the next request's state) until Ready, the clock moved past the key grace. */
async function settle(r: Resource, max = 8): Promise<{ ok: boolean; last: string }> {
  let last = '';
  for (let i = 0; i < max; i++) {
    const res = await r.run('sync');
    const cond = ready(res);
    last = `${cond?.reason}: ${String(cond?.message ?? '').slice(0, 240)}`;
    if (cond?.status === 'True') return { ok: true, last };
    r.fake.now = new Date(r.fake.now.getTime() + (KEY_GRACE_SECONDS + 1) * 1000);
  }
  return { ok: false, last };
}

for (const code of ['InternalError', 'ServiceUnavailable']) {
  t.test(`a first sync whose n-th AWS call is applied and answered ${code}: the next syncs converge`, async (t) => {
    let n = 1;
    let mutating = 0;
    for (; n < 200; n++) {
      const r = new Resource(new FakeAws(), { bucketName: 'ambiguous-new' });
      const { aws, named } = appliedThenFails(r.fake, n, code);
      // The disturbed sync: its answer (an error condition) reaches Metacontroller.
      const first = await (async () => {
        try {
          return await r.run('sync', aws);
        } catch (e) {
          return e;
        }
      })();
      const call = named();
      if (call === undefined) break; // the sync made fewer than n calls: every call was tried
      if (READS.test(call)) continue;
      mutating++;
      const { ok, last } = await settle(r);
      t.ok(ok, `${call} (call ${n}) applied and answered ${code}: Ready within 8 syncs (last: ${last})`, {
        first: first instanceof Error ? String(first) : undefined,
      });
      if (!ok) continue;
      const secret = r.children.find((c) => c.kind === 'Secret')!;
      const keyId = Buffer.from((secret['data'] as Record<string, string>)['AWS_ACCESS_KEY_ID']!, 'base64').toString();
      t.same(r.fake.keyIds(USER), [keyId], `${call}: one key, the one in the Secret`);
      t.equal(
        r.fake.buckets.get('ambiguous-new')?.tags.get(OWNER_UID_TAG),
        'uid-app',
        `${call}: the bucket is its own`,
      );
    }
    t.ok(mutating >= 5, `${mutating} calls that change AWS were disturbed`);
  });
}

/** A resource that converged, as the finalize and rename cases start from. */
async function converged(spec: Record<string, unknown>): Promise<Resource> {
  const r = new Resource(new FakeAws(), spec);
  const { ok, last } = await settle(r);
  if (!ok) throw new Error(`the base resource did not converge: ${last}`);
  return r;
}

t.test(
  'finalize (Delete) whose n-th AWS call is applied and answered InternalError: the next finalizes remove everything',
  async (t) => {
    const spec = { bucketName: 'ambiguous-fin', deletionPolicy: 'Delete', forceDelete: true };
    for (let n = 1; n < 200; n++) {
      const r = await converged(spec);
      r.fake.buckets.get('ambiguous-fin')!.objects = 3;
      const { aws, named } = appliedThenFails(r.fake, n, 'InternalError');
      await r.run('finalize', aws).catch(() => undefined);
      const call = named();
      if (call === undefined) break;
      if (READS.test(call)) continue;
      let done = false;
      for (let i = 0; i < 6 && !done; i++) done = (await r.run('finalize')).finalized === true;
      t.ok(
        done,
        `${call} (call ${n}) applied and answered InternalError: finalized (${JSON.stringify(r.status?.['conditions'])?.slice(0, 300)})`,
      );
      t.same([...r.fake.buckets.keys()], [], `${call}: the bucket is gone`);
      t.same([...r.fake.users.keys()], [], `${call}: the user is gone`);
      t.equal(r.fake.policies.size, 0, `${call}: every policy is gone (${[...r.fake.policies.keys()].join(', ')})`);
    }
  },
);

t.test(
  'a rename (Delete) whose n-th AWS call is applied and answered InternalError: the next syncs converge',
  async (t) => {
    for (let n = 1; n < 200; n++) {
      const r = await converged({ bucketName: 'ambiguous-a', deletionPolicy: 'Delete' });
      r.spec = { ...r.spec, bucketName: 'ambiguous-b' };
      const { aws, named } = appliedThenFails(r.fake, n, 'InternalError');
      await r.run('sync', aws).catch(() => undefined);
      const call = named();
      if (call === undefined) break;
      if (READS.test(call)) continue;
      const { ok, last } = await settle(r);
      t.ok(ok, `${call} (call ${n}) applied and answered InternalError: Ready (last: ${last})`);
      // One more sync retires the old bucket once recorded.
      await r.run('sync');
      t.same([...r.fake.buckets.keys()].sort(), ['ambiguous-b'], `${call}: only the new bucket is left`);
    }
  },
);
