// The S3 hook killed twice in a row, at any two points (hooks/s3/sync.ts): a sync killed after its n-th AWS call, the
// next one killed after its m-th, then syncs left to run. Issue 31 promises that "a process killed between any two
// AWS calls of a sync or finalize leaves nothing that the next sync cannot finish or undo": the next sync may itself
// be killed, so every state a killed sync leaves must also be one a killed sync can leave for another sync to finish.
// Also: killed in a sync, then deleted (finalize killed at any point), then finalized to the end.
import t, { type Test } from 'tap';
import { BUCKET_INTENT_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { ledgerArn } from '../../hooks/s3/ledger.js';
import { userName } from '../../hooks/s3/policy.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { converge, Resource } from '../fixtures/s3-loop.js';

const USER = userName('ns', 'app', 'uid-app');

function settledOne(t: Test, r: Resource, bucket: string, label: string): string[] {
  const problems: string[] = [];
  const fake = r.fake;
  if ([...fake.buckets.keys()].join() !== bucket) problems.push(`buckets ${[...fake.buckets.keys()].join()}`);
  if (fake.buckets.get(bucket)?.tags.get(OWNER_UID_TAG) !== 'uid-app') problems.push('bucket not tagged as ours');
  const user = fake.users.get(USER);
  if (!user) problems.push('no user');
  else {
    if (user.tags.has(BUCKET_INTENT_TAG)) problems.push('record of intent left');
    const secret = r.children.find((c) => c.kind === 'Secret');
    const keyId = secret
      ? Buffer.from((secret['data'] as Record<string, string>)['AWS_ACCESS_KEY_ID']!, 'base64').toString()
      : undefined;
    if (fake.keyIds(USER).join() !== String(keyId))
      problems.push(`keys ${fake.keyIds(USER).join()} vs Secret ${keyId}`);
    if (user.policies.length !== 1) problems.push(`${user.policies.length} policies attached`);
  }
  if (problems.length) t.fail(`${label}: ${problems.join('; ')}`);
  return problems;
}

t.test(
  'a new resource: its first sync and the next one both killed, at any two calls, the syncs after converge',
  async (t) => {
    const total = await new Resource(new FakeAws(), { bucketName: 'twice-new' }).killed('sync', 1000);
    let bad = 0;
    let cases = 0;
    for (let n = 0; n < total; n++) {
      for (let m = 0; m <= total; m++) {
        const r = new Resource(new FakeAws(), { bucketName: 'twice-new' });
        await r.killed('sync', n);
        await r.killed('sync', m);
        cases++;
        try {
          await converge(r, 8);
        } catch (err) {
          bad++;
          t.fail(`killed after call ${n}, then after call ${m}: ${String(err)}`);
          continue;
        }
        if (settledOne(t, r, 'twice-new', `killed after ${n}, then ${m}`).length) bad++;
      }
    }
    t.equal(bad, 0, `${cases} pairs of kills, each converged to what a sync never killed leaves`);
  },
);

t.test(
  'killed in its first sync, then deleted and its finalize killed at any call: the finalizes after remove everything',
  async (t) => {
    const total = await new Resource(new FakeAws(), { bucketName: 'twice-fin' }).killed('sync', 1000);
    let bad = 0;
    let cases = 0;
    for (const deletionPolicy of ['Delete', 'Retain'] as const) {
      for (let n = 0; n < total; n++) {
        const probe = new Resource(new FakeAws(), { bucketName: 'twice-fin', deletionPolicy });
        await probe.killed('sync', n);
        const fin = await probe.killed('finalize', 1000);
        for (let m = 0; m <= fin; m++) {
          const r = new Resource(new FakeAws(), { bucketName: 'twice-fin', deletionPolicy });
          await r.killed('sync', n);
          await r.killed('finalize', m);
          cases++;
          let done = false;
          let last = '';
          for (let i = 0; i < 5 && !done; i++) {
            const res = await r.run('finalize');
            done = res.finalized === true;
            last = JSON.stringify((res.status as any)?.conditions?.[0] ?? {});
            r.fake.now = new Date(r.fake.now.getTime() + 200_000);
          }
          const left: string[] = [];
          if (!done) left.push(`not finalized: ${last}`);
          if (r.fake.users.size) left.push(`users ${[...r.fake.users.keys()].join()}`);
          const buckets = [...r.fake.buckets.keys()];
          // What stays: the namespace's ledger entry of each bucket left (it still counts), and nothing else.
          const entries = buckets.map((b) => ledgerArn(r.fake.userArn('u'), 'ns', b)!);
          for (const e of entries) if (!r.fake.policies.has(e)) left.push(`bucket left uncounted: ${e}`);
          const policies = [...r.fake.policies.keys()].filter((p) => !entries.includes(p));
          if (policies.length) left.push(`policies ${policies.join()}`);
          if (deletionPolicy === 'Delete' && buckets.length) left.push(`buckets ${buckets.join()}`);
          if (deletionPolicy === 'Retain')
            for (const b of buckets)
              if (r.fake.buckets.get(b)!.tags.get(OWNER_UID_TAG) !== 'uid-app')
                left.push(`bucket ${b} retained untagged`);
          if (left.length) {
            bad++;
            t.fail(`${deletionPolicy}: sync killed after ${n}, finalize after ${m}: ${left.join('; ')}`);
          }
        }
      }
    }
    t.equal(bad, 0, `${cases} cases, each finalized with nothing of the resource left behind`);
  },
);
