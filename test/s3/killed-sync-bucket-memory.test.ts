// A bucket a killed sync made, tagged as this resource's, that the status never recorded (the answer died with the
// process), must still be finished or undone by the calls after (issue 31: "a process killed between any two AWS calls
// of a sync or finalize leaves nothing that the next sync cannot finish or undo"): it follows deletionPolicy (deleted,
// or listed as retained), and its claim is not left held. Cases: the sync that takes back an untagged bucket after a
// rename killed later on; a rename killed after its new bucket is made, then renamed again; a first sync killed after
// its bucket is tagged, then the resource deleted; and (no kill) a status lost before the deletion. On the in-memory
// AWS, with the harness of test/s3/crash.test.ts.
import t from 'tap';
import { OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { claimName } from '../../hooks/s3/sync.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { converge, Resource } from '../fixtures/s3-loop.js';

/** The AWS call after which the first sync leaves crash-first made and untagged. */
async function untaggedAfter(): Promise<number> {
  for (let n = 0; n < 50; n++) {
    const probe = new Resource(new FakeAws(), { bucketName: 'crash-first' });
    await probe.killed('sync', n);
    const b = probe.fake.buckets.get('crash-first');
    if (b && b.tags.size === 0) return n;
  }
  throw new Error('no kill point leaves an untagged bucket');
}

/** The resource after the first sync died at `n` and the spec was renamed to crash-second. */
async function renamedAfterCrash(n: number, policy: 'Retain' | 'Delete'): Promise<Resource> {
  const r = new Resource(new FakeAws(), { bucketName: 'crash-first', deletionPolicy: policy, forceDelete: true });
  await r.killed('sync', n);
  r.spec = { ...r.spec, bucketName: 'crash-second' };
  return r;
}

t.test(
  'a sync that took back an untagged bucket after a rename, killed after each later AWS call: the bucket still follows deletionPolicy',
  async (t) => {
    const n = await untaggedAfter();
    // How many calls the second sync makes, and the call after which crash-first carries our tags.
    const whole = await renamedAfterCrash(n, 'Delete');
    const total = await whole.killed('sync', 1000);
    let tagged = 0;
    for (; tagged <= total; tagged++) {
      const probe = await renamedAfterCrash(n, 'Delete');
      await probe.killed('sync', tagged);
      if (probe.fake.buckets.get('crash-first')?.tags.get(OWNER_UID_TAG) === 'uid-app') break;
    }
    t.ok(tagged < total, `the second sync tags crash-first at call ${tagged} of ${total}`);
    const leaked: string[] = [];
    for (const policy of ['Delete', 'Retain'] as const) {
      for (let m = tagged; m < total; m++) {
        const r = await renamedAfterCrash(n, policy);
        await r.killed('sync', m);
        await converge(r);
        // More syncs: a rename's old bucket is retired once it is recorded.
        await r.run('sync');
        await r.run('sync');
        const first = r.fake.buckets.get('crash-first');
        const retained = (r.status?.['retainedBuckets'] as string[] | undefined) ?? [];
        const claimHeld = r.fake.policies.has(`arn:aws:iam::123456789012:policy/${claimName('crash-first')}`);
        const ok =
          policy === 'Delete'
            ? first === undefined && !claimHeld
            : first !== undefined && retained.includes('crash-first') && !claimHeld;
        if (!ok)
          leaked.push(
            `${policy}, killed after call ${m}: crash-first ${first ? 'exists' : 'gone'}, retainedBuckets ${JSON.stringify(retained)}, createdBuckets ${JSON.stringify(r.status?.['createdBuckets'])}, its claim ${claimHeld ? 'still held' : 'released'}`,
          );
        // And once the resource is deleted: finalize removes (Delete) or leaves and lists (Retain) it, no claim left.
        for (let i = 0; i < 4; i++) if ((await r.run('finalize')).finalized) break;
        const after = r.fake.buckets.get('crash-first');
        const claimAfter = r.fake.policies.has(`arn:aws:iam::123456789012:policy/${claimName('crash-first')}`);
        if ((policy === 'Delete' && after) || claimAfter)
          leaked.push(
            `${policy}, killed after call ${m}, then deleted: crash-first ${after ? 'left behind' : 'gone'}, its claim ${claimAfter ? 'left in IAM' : 'released'}`,
          );
      }
    }
    t.same(leaked, [], 'crash-first is never forgotten by a killed sync');
  },
);

t.test(
  'a rename killed after its new bucket is made, then renamed again: the bucket made in between follows deletionPolicy',
  async (t) => {
    const renamed = async (policy: 'Retain' | 'Delete') => {
      const r = new Resource(new FakeAws(), { bucketName: 'one', deletionPolicy: policy, forceDelete: true });
      await converge(r);
      r.spec = { ...r.spec, bucketName: 'two' };
      return r;
    };
    const total = await (await renamed('Delete')).killed('sync', 1000);
    const forgotten: string[] = [];
    for (const policy of ['Delete', 'Retain'] as const) {
      for (let m = 0; m < total; m++) {
        const r = await renamed(policy);
        await r.killed('sync', m);
        if (!r.fake.buckets.has('two')) continue;
        // The user corrects the name again before a sync finishes.
        r.spec = { ...r.spec, bucketName: 'three' };
        await converge(r);
        await r.run('sync');
        await r.run('sync');
        const two = r.fake.buckets.get('two');
        const retained = (r.status?.['retainedBuckets'] as string[] | undefined) ?? [];
        const claim = r.fake.policies.has(`arn:aws:iam::123456789012:policy/${claimName('two')}`);
        const ok = policy === 'Delete' ? !two && !claim : !!two && retained.includes('two') && !claim;
        if (!ok)
          forgotten.push(
            `${policy}, killed after call ${m}: bucket two ${two ? 'exists' : 'gone'} (tags ${two ? JSON.stringify([...two.tags]) : '-'}), retainedBuckets ${JSON.stringify(retained)}, createdBuckets ${JSON.stringify(r.status?.['createdBuckets'])}, its claim ${claim ? 'held' : 'released'}`,
          );
      }
    }
    t.same(forgotten, [], 'a bucket a killed sync made is never forgotten by the syncs after a second rename');
  },
);

t.test(
  'deleted after its first sync died with the bucket made and tagged: finalize with Delete deletes that bucket',
  async (t) => {
    const total = await new Resource(new FakeAws(), { bucketName: 'made' }).killed('sync', 1000);
    const left: string[] = [];
    for (let m = 0; m < total; m++) {
      const r = new Resource(new FakeAws(), { bucketName: 'made', deletionPolicy: 'Delete', forceDelete: true });
      await r.killed('sync', m);
      const made = r.fake.buckets.get('made');
      // Only the kill points where the bucket exists carrying this resource's tags (untagged: the record's test).
      if (made?.tags.get(OWNER_UID_TAG) !== 'uid-app') continue;
      let finalized = false;
      for (let i = 0; i < 4 && !finalized; i++) finalized = (await r.run('finalize')).finalized === true;
      const after = r.fake.buckets.get('made');
      const claim = r.fake.policies.has(`arn:aws:iam::123456789012:policy/${claimName('made')}`);
      if (!finalized || after || claim)
        left.push(
          `killed after call ${m}: finalized ${finalized}, bucket ${after ? `left (tags ${JSON.stringify([...after.tags])})` : 'deleted'}, claim ${claim ? 'left' : 'released'}, status ${JSON.stringify((r.status as any)?.conditions?.[0]?.message)}`,
        );
    }
    t.same(left, [], 'deletionPolicy Delete deletes the bucket its killed first sync made');
  },
);

t.test('a status lost, then the resource deleted with deletionPolicy Delete: its own bucket is deleted', async (t) => {
  const r = new Resource(new FakeAws(), { bucketName: 'mine', deletionPolicy: 'Delete', forceDelete: true });
  await converge(r);
  t.equal(
    r.fake.buckets.get('mine')?.tags.get(OWNER_UID_TAG),
    'uid-app',
    'the bucket carries this resource\u2019s UID',
  );
  // The status is lost (a restore from a backup without status, a status written over), then the resource deleted.
  r.status = undefined;
  let finalized = false;
  for (let i = 0; i < 4 && !finalized; i++) finalized = (await r.run('finalize')).finalized === true;
  t.ok(finalized, 'finalized');
  t.notOk(r.fake.buckets.has('mine'), 'the bucket this resource made (its own UID tag, its spec) is deleted');
});
