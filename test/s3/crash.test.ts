// The S3 hook killed between any two AWS calls (hooks/s3/sync.ts), on the in-memory AWS: a sync or finalize that
// stops after its n-th call answers nothing (its process is gone), so the next one starts from the state before it.
// Each n in turn, for a new resource, a bucket rename and a deletion: the next syncs must converge (Ready, or
// finalized), leaving exactly what a sync that was never killed leaves, never an untagged bucket nor a wedge.
// test/real/s3-crash.test.ts does the same against moto, one HTTP call at a time.
import t, { type Test } from 'tap';
import { BUCKET_INTENT_TAG, OWNER_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { ledgerArn } from '../../hooks/s3/ledger.js';
import { userName } from '../../hooks/s3/policy.js';
import { claimName } from '../../hooks/s3/sync.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { converge, ready, Resource } from '../fixtures/s3-loop.js';

const USER = userName('ns', 'app', 'uid-app');

/** What a resource that converged leaves in AWS: its buckets tagged as its own, one key (the Secret's), no record. */
function settled(t: Test, r: Resource, buckets: string[]): void {
  const fake = r.fake;
  t.same([...fake.buckets.keys()].sort(), buckets.sort(), 'exactly the buckets a sync never killed leaves');
  for (const [name, b] of fake.buckets) t.equal(b.tags.get(OWNER_UID_TAG), 'uid-app', `${name} carries the owner tags`);
  const user = fake.users.get(USER)!;
  t.notOk(user.tags.has(BUCKET_INTENT_TAG), 'no record of intent left on the user');
  t.equal(user.tags.get(OWNER_UID_TAG), 'uid-app');
  const secret = r.children.find((c) => c.kind === 'Secret')!;
  const keyId = Buffer.from((secret['data'] as Record<string, string>)['AWS_ACCESS_KEY_ID']!, 'base64').toString();
  t.same(fake.keyIds(USER), [keyId], 'one key, the one in the Secret');
  t.equal(user.policies.length, 1, 'the policy attached');
  // A retained bucket's claim is released (its tags guard it); every bucket still held keeps its claim.
  const held = buckets.filter((b) => !((r.status?.['retainedBuckets'] as string[] | undefined) ?? []).includes(b));
  t.same(
    [...fake.policies.keys()].sort(),
    [
      ...held.map((b) => `arn:aws:iam::123456789012:policy/${claimName(b)}`),
      ...buckets.map((b) => ledgerArn(fake.userArn(USER), 'ns', b)!),
      `arn:aws:iam::123456789012:policy/${USER}`,
    ].sort(),
    "the policy, one claim per bucket held, and one entry per bucket in the namespace's ledger",
  );
  for (const b of held)
    t.equal(fake.policies.get(`arn:aws:iam::123456789012:policy/${claimName(b)}`)?.tags.get(OWNER_UID_TAG), 'uid-app');
}

t.test('a new resource: killed after each AWS call of its first sync, the next syncs converge', async (t) => {
  // How many calls a whole first sync makes.
  const whole = new Resource(new FakeAws(), { bucketName: 'crash-new' });
  const total = await whole.killed('sync', 1000);
  t.ok(total >= 10, `a first sync makes ${total} calls`);
  let waits = 0;
  for (let n = 0; n <= total; n++) {
    const r = new Resource(new FakeAws(), { bucketName: 'crash-new' });
    t.equal(await r.killed('sync', n), n, `killed after call ${n}`);
    const { syncs, waited } = await converge(r);
    if (waited) waits++;
    t.ok(syncs <= 3, `killed after call ${n}: Ready after ${syncs} syncs`);
    settled(t, r, ['crash-new']);
    t.same(r.status!['createdBuckets'], ['crash-new'], 'recorded as created: finalize may delete it');
  }
  t.ok(waits > 0 && waits <= 3, `only a kill after CreateAccessKey waits for the key grace period (${waits} cases)`);
});

t.test(
  'killed between CreateBucket and PutBucketTagging: the untagged bucket is taken back by the record of intent',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'crash-untagged' });
    // Find the call count at which the bucket exists without tags.
    let n = 0;
    for (; n < 50; n++) {
      const probe = new Resource(new FakeAws(), { bucketName: 'crash-untagged' });
      await probe.killed('sync', n);
      const b = probe.fake.buckets.get('crash-untagged');
      if (b && b.tags.size === 0) break;
    }
    await r.killed('sync', n);
    t.same(r.fake.buckets.get('crash-untagged')!.tags.size, 0, 'the bucket exists, untagged');
    t.equal(r.fake.users.get(USER)!.tags.get(BUCKET_INTENT_TAG), 'crash-untagged', 'the user records the intent');
    const { syncs } = await converge(r);
    t.equal(syncs, 1, 'the next sync takes it back and is Ready');
    settled(t, r, ['crash-untagged']);
  },
);

t.test('an untagged bucket without a record of intent is never adopted', async (t) => {
  const fake = new FakeAws();
  fake.buckets.set('crash-foreign', { region: 'us-east-1', tags: new Map(), objects: 0 });
  const r = new Resource(fake, { bucketName: 'crash-foreign' });
  const res = await r.run('sync');
  t.match(ready(res), { status: 'False', reason: 'BucketAlreadyExists' });
  t.equal(fake.buckets.get('crash-foreign')!.tags.size, 0, 'left untagged, untouched');
  // A record naming another bucket does not make this one ours either.
  fake.users.set(USER, {
    tags: new Map([
      [OWNER_TAG, 'ns/app'],
      [OWNER_UID_TAG, 'uid-app'],
      [BUCKET_INTENT_TAG, 'crash-other'],
    ]),
    keys: [],
    policies: [],
  });
  t.match(ready(await r.run('sync')), { status: 'False', reason: 'BucketAlreadyExists' });
  t.equal(fake.buckets.get('crash-foreign')!.tags.size, 0);
  // Nor does a record on a user that is not this resource's.
  fake.users.get(USER)!.tags.set(OWNER_UID_TAG, 'uid-someone-else');
  fake.users.get(USER)!.tags.set(BUCKET_INTENT_TAG, 'crash-foreign');
  t.match(ready(await r.run('sync')), { status: 'False', reason: 'IAMNameTaken' });
  t.equal(fake.buckets.get('crash-foreign')!.tags.size, 0);
});

t.test('a rename: killed after each AWS call, the next syncs converge on the new bucket', async (t) => {
  const base = async () => {
    const r = new Resource(new FakeAws(), { bucketName: 'crash-a', deletionPolicy: 'Delete' });
    await converge(r);
    r.spec = { ...r.spec, bucketName: 'crash-b' };
    return r;
  };
  const total = await (await base()).killed('sync', 1000);
  for (let n = 0; n <= total; n++) {
    const r = await base();
    await r.killed('sync', n);
    const { syncs } = await converge(r);
    t.ok(syncs <= 3, `killed after call ${n}: Ready after ${syncs} syncs`);
    settled(t, r, ['crash-b']);
  }
});

t.test(
  'the spec renamed after a sync died leaving an untagged bucket: that bucket is tagged and follows deletionPolicy',
  async (t) => {
    for (const policy of ['Retain', 'Delete'] as const) {
      const r = new Resource(new FakeAws(), { bucketName: 'crash-first', deletionPolicy: policy });
      let n = 0;
      for (; n < 50; n++) {
        const probe = new Resource(new FakeAws(), { bucketName: 'crash-first' });
        await probe.killed('sync', n);
        const b = probe.fake.buckets.get('crash-first');
        if (b && b.tags.size === 0) break;
      }
      await r.killed('sync', n);
      r.spec = { ...r.spec, bucketName: 'crash-second' };
      await converge(r);
      // One more sync: the rename's old bucket is retired (retained or deleted) once it is recorded.
      await r.run('sync');
      if (policy === 'Retain') {
        settled(t, r, ['crash-first', 'crash-second']);
        t.same(r.status!['retainedBuckets'], ['crash-first'], 'Retain: listed as retained');
      } else {
        settled(t, r, ['crash-second']);
      }
    }
  },
);

t.test('finalize killed after each AWS call: the next finalizes remove everything', async (t) => {
  const base = async () => {
    const r = new Resource(new FakeAws(), { bucketName: 'crash-fin', deletionPolicy: 'Delete', forceDelete: true });
    await converge(r);
    r.fake.buckets.get('crash-fin')!.objects = 3;
    return r;
  };
  const total = await (await base()).killed('finalize', 1000);
  t.ok(total >= 6, `a finalize makes ${total} calls`);
  for (let n = 0; n <= total; n++) {
    const r = await base();
    await r.killed('finalize', n);
    let done = false;
    for (let i = 0; i < 4 && !done; i++) done = (await r.run('finalize')).finalized === true;
    t.ok(done, `killed after call ${n}: finalized`);
    t.same([...r.fake.buckets.keys()], [], 'the bucket is gone');
    t.same([...r.fake.users.keys()], [], 'the user is gone');
    t.equal(r.fake.policies.size, 0, 'the policy is gone');
  }
});

t.test(
  'deleted after a sync died leaving an untagged bucket: finalize finds it by the record and deletes it',
  async (t) => {
    for (const [policy, left] of [
      ['Delete', []],
      ['Retain', ['crash-gone']],
    ] as const) {
      const r = new Resource(new FakeAws(), { bucketName: 'crash-gone', deletionPolicy: policy });
      let n = 0;
      for (; n < 50; n++) {
        const probe = new Resource(new FakeAws(), { bucketName: 'crash-gone' });
        await probe.killed('sync', n);
        const b = probe.fake.buckets.get('crash-gone');
        if (b && b.tags.size === 0) break;
      }
      await r.killed('sync', n);
      const res = await r.run('finalize');
      t.equal(res.finalized, true, `${policy}: finalized`);
      t.same([...r.fake.buckets.keys()], left, `${policy}: the bucket ${left.length ? 'stays' : 'is deleted'}`);
      if (left.length) {
        t.equal(r.fake.buckets.get('crash-gone')!.tags.get(OWNER_UID_TAG), 'uid-app', 'retained with its owner tags');
        t.same(r.status!['retainedBuckets'], ['crash-gone']);
      }
      t.same([...r.fake.users.keys()], []);
    }
  },
);

/** The call count at which a first sync of `bucket` leaves the bucket created and untagged. */
async function untaggedAt(bucket: string): Promise<number> {
  for (let n = 0; n < 50; n++) {
    const probe = new Resource(new FakeAws(), { bucketName: bucket });
    await probe.killed('sync', n);
    const b = probe.fake.buckets.get(bucket);
    if (b && b.tags.size === 0) return n;
  }
  throw new Error('never untagged');
}

t.test(
  'the record of intent adopts only an untagged bucket it names, and costs no write it does not need',
  async (t) => {
    const n = await untaggedAt('intent-a');
    // The bucket the record names was tagged by someone else meanwhile: refused, left as it is.
    const r = new Resource(new FakeAws(), { bucketName: 'intent-a' });
    await r.killed('sync', n);
    r.fake.buckets.get('intent-a')!.tags = new Map([[OWNER_UID_TAG, 'uid-other']]);
    t.match(ready(await r.run('sync')), { status: 'False', reason: 'BucketAlreadyExists' });
    t.same([...r.fake.buckets.get('intent-a')!.tags], [[OWNER_UID_TAG, 'uid-other']], 'not retagged');
    // Taken back: no tagBucket before the settings, no second record.
    const back = new Resource(new FakeAws(), { bucketName: 'intent-a' });
    await back.killed('sync', n);
    back.fake.calls = [];
    await back.run('sync');
    t.notOk(
      back.fake.calls.some((c) => c.startsWith('tagBucket') || c.startsWith('tagUser')),
      back.fake.calls.join('; '),
    );
    t.ok(back.fake.calls.includes(`untagUser ${USER} ${BUCKET_INTENT_TAG}`), 'the record removed');
    // Killed right after the record, before CreateBucket: the next sync creates the bucket without recording again.
    const early = new Resource(new FakeAws(), { bucketName: 'intent-b' });
    const recordAt = n - 1;
    await early.killed('sync', recordAt);
    t.equal(early.fake.users.get(USER)!.tags.get(BUCKET_INTENT_TAG), 'intent-b');
    t.notOk(early.fake.buckets.has('intent-b'));
    early.fake.calls = [];
    await early.run('sync');
    t.same(
      early.fake.calls.filter((c) => c.startsWith('tagUser')),
      [],
      'the record stands: not written twice',
    );
    t.ok(early.fake.buckets.has('intent-b'));
    // A record naming another bucket that someone else tagged meanwhile: not taken, not recorded.
    const moved = new Resource(new FakeAws(), { bucketName: 'intent-c' });
    await moved.killed('sync', await untaggedAt('intent-c'));
    moved.fake.buckets.get('intent-c')!.tags = new Map([[OWNER_UID_TAG, 'uid-other']]);
    moved.spec = { ...moved.spec, bucketName: 'intent-d' };
    await converge(moved);
    t.same([...moved.fake.buckets.get('intent-c')!.tags], [[OWNER_UID_TAG, 'uid-other']]);
    t.same(moved.status!['createdBuckets'], ['intent-d'], 'only its own bucket recorded');
  },
);

t.test(
  'finalize: a record naming a bucket someone else tagged, or one already recorded; a user that is not ours',
  async (t) => {
    const n = await untaggedAt('fin-a');
    const r = new Resource(new FakeAws(), { bucketName: 'fin-a', deletionPolicy: 'Retain' });
    await r.killed('sync', n);
    r.fake.buckets.get('fin-a')!.tags = new Map([[OWNER_UID_TAG, 'uid-other']]);
    const res = await r.run('finalize');
    t.equal(res.finalized, true);
    t.same([...r.fake.buckets.get('fin-a')!.tags], [[OWNER_UID_TAG, 'uid-other']], 'not tagged');
    t.notOk(r.status!['retainedBuckets'], 'not listed as this resource\u2019s');
    // A record naming a bucket the status already records: no second look-up of it.
    const ok = new Resource(new FakeAws(), { bucketName: 'fin-b', deletionPolicy: 'Delete' });
    await converge(ok);
    ok.fake.users.get(USER)!.tags.set(BUCKET_INTENT_TAG, 'fin-b');
    ok.fake.hints = [];
    t.equal((await ok.run('finalize')).finalized, true);
    t.equal(ok.fake.hints.length, 0, 'the recorded bucket is not looked up again for the record');
    // The user of that name is someone else's (and the status names a policy): nothing is detached or deleted.
    const fake = new FakeAws();
    fake.users.set(USER, { tags: new Map([[OWNER_UID_TAG, 'uid-other']]), keys: [], policies: ['arn:p'] });
    fake.policies.set('arn:p', { tags: new Map([[OWNER_UID_TAG, 'uid-other']]), versions: ['{}'] });
    const stranger = new Resource(fake, { bucketName: 'fin-c' });
    stranger.status = { policyArn: 'arn:p' };
    t.equal((await stranger.run('finalize')).finalized, true, 'nothing of ours to wait for');
    t.same(fake.calls, [], 'no call that changes anything');
    t.ok(fake.users.has(USER) && fake.policies.has('arn:p'));
  },
);

t.test(
  'finalize while a bucket is not empty: keys revoked at once; the user, which holds the record, and its policy wait',
  async (t) => {
    const r = new Resource(new FakeAws(), { bucketName: 'fin-full', deletionPolicy: 'Delete' });
    await converge(r);
    r.fake.buckets.get('fin-full')!.objects = 2;
    const res = await r.run('finalize');
    t.equal(res.finalized, false);
    t.match((res.status as any).conditions[0], { reason: 'BucketNotEmpty' });
    t.same(r.fake.keyIds(USER), [], 'the credentials no longer work');
    t.ok(r.fake.users.has(USER), 'the user stays');
    t.equal(r.fake.policies.size, 3, "and its policy, the claim of the bucket that waits and its namespace's entry");
    r.fake.buckets.get('fin-full')!.objects = 0;
    t.equal((await r.run('finalize')).finalized, true);
    t.same([...r.fake.users.keys()], []);
    t.equal(r.fake.policies.size, 0);
  },
);

t.test(
  'a rename with Delete and forceDelete, then reverted: killed after each AWS call, the old bucket keeps its objects',
  async (t) => {
    const renamed = async () => {
      const r = new Resource(new FakeAws(), { bucketName: 'crash-a', deletionPolicy: 'Delete', forceDelete: true });
      await converge(r);
      r.fake.buckets.get('crash-a')!.objects = 7;
      r.spec = { ...r.spec, bucketName: 'crash-b' };
      return r;
    };
    const total = await (await renamed()).killed('sync', 1000);
    for (let n = 0; n <= total; n++) {
      const r = await renamed();
      await r.killed('sync', n);
      const { syncs } = await converge(r);
      t.ok(syncs <= 3, `rename killed after call ${n}: Ready after ${syncs} syncs`);
      // The old bucket is kept, owned and recorded (never emptied by the rename), and said in status.
      settled(t, r, ['crash-a', 'crash-b']);
      t.equal(r.fake.buckets.get('crash-a')!.objects, 7, `rename killed after call ${n}: crash-a keeps its objects`);
      t.same(r.status!['createdBuckets'], ['crash-a', 'crash-b'], 'both recorded as created');
      t.match(
        (r.status!['conditions'] as any[]).find((c) => c.type === 'OldBucketDeleted'),
        { status: 'False', reason: 'BucketNotEmpty', message: /crash-a is not empty and is kept with its objects/ },
      );
    }
    // The revert, killed after each call in turn: crash-a is taken back with its objects, crash-b (empty) goes.
    const reverting = async () => {
      const r = await renamed();
      await converge(r);
      r.spec = { ...r.spec, bucketName: 'crash-a' };
      return r;
    };
    const back = await (await reverting()).killed('sync', 1000);
    for (let n = 0; n <= back; n++) {
      const r = await reverting();
      await r.killed('sync', n);
      const { syncs } = await converge(r);
      t.ok(syncs <= 3, `revert killed after call ${n}: Ready after ${syncs} syncs`);
      await r.run('sync');
      settled(t, r, ['crash-a']);
      t.equal(r.fake.buckets.get('crash-a')!.objects, 7, `revert killed after call ${n}: crash-a holds its objects`);
      t.same(r.status!['createdBuckets'], ['crash-a']);
    }
  },
);
