// Who owns a bucket when two S3 resources want one (hooks/s3/sync.ts, claimName): the resource holding the bucket's
// claim, an IAM policy that only one CreatePolicy can make. On the in-memory AWS (test/fixtures/fake-aws.ts), whose
// CreateBucket answers as us-east-1 does (a bucket of this account that exists is answered as created); the same
// races against moto: test/real/s3-bucket-create-race.test.ts, test/real/s3-two-namespaces-one-bucket.test.ts.
import t from 'tap';
import { AwsError, BUCKET_INTENT_TAG, OWNER_TAG, OWNER_UID_TAG, type AwsApi } from '../../hooks/s3/api.js';
import { bucketPolicy, userName } from '../../hooks/s3/policy.js';
import { claimName } from '../../hooks/s3/sync.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import { s3Request, withCreateBucket } from '../fixtures/s3.js';

const ACCOUNT = 'arn:aws:iam::123456789012';
const claimArn = (bucket: string) => `${ACCOUNT}:policy/${claimName(bucket)}`;

class Resource {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  constructor(
    public aws: AwsApi,
    readonly namespace: string,
    public spec: Record<string, unknown>,
    readonly uid = `uid-${namespace}`,
  ) {}
  get user(): string {
    return userName(this.namespace, 'data', this.uid);
  }
  request() {
    return s3Request(
      { name: 'data', namespace: this.namespace, uid: this.uid },
      { deletionPolicy: 'Retain', ...this.spec },
      { status: this.status, children: this.children },
    );
  }
  async sync(now = new Date('2026-01-02T03:04:05Z')): Promise<CompositeSyncResponse> {
    const res = await sync(this.request(), this.aws, now);
    this.status = res.status ?? undefined;
    this.children = res.children;
    return res;
  }
  async finalize(): Promise<CompositeSyncResponse> {
    const res = await finalize(this.request(), this.aws, new Date('2026-01-02T03:04:05Z'));
    this.status = res.status ?? undefined;
    return res;
  }
  ready(): Record<string, unknown> {
    return (this.status!['conditions'] as Array<Record<string, unknown>>).find((c) => c['type'] === 'Ready')!;
  }
  secret(): boolean {
    return this.children.some((c) => c.kind === 'Secret');
  }
}

/** The fake, with `before` run once right before the first CreateBucket reaches it (another sync's moment). */
function racing(fake: FakeAws, before: () => Promise<unknown>): AwsApi {
  let raced = false;
  return withCreateBucket(fake, async (bucket, region) => {
    if (!raced) {
      raced = true;
      await before();
    }
    return fake.createBucket(bucket, region);
  });
}

/** The users whose attached policies grant `bucket`. */
function granted(fake: FakeAws, bucket: string): string[] {
  return [...fake.users]
    .filter(([, u]) => u.policies.some((arn) => JSON.stringify(fake.document(arn)).includes(`:s3:::${bucket}"`)))
    .map(([name]) => name);
}

t.test('the other resource syncs whole between our lookup and our CreateBucket: it keeps the bucket', async (t) => {
  const fake = new FakeAws();
  const b = new Resource(fake, 'team-b', { bucketName: 'shared' });
  const a = new Resource(
    racing(fake, () => b.sync()),
    'team-a',
    { bucketName: 'shared' },
  );
  await a.sync();
  t.match(b.ready(), { status: 'True' }, 'B made the bucket');
  t.match(a.ready(), {
    status: 'False',
    reason: 'BucketAlreadyExists',
    message: 'bucket: CreateBucket: BucketAlreadyExists: bucket shared belongs to another S3 resource',
  });
  t.equal(fake.buckets.get('shared')!.tags.get(OWNER_UID_TAG), 'uid-team-b', "the bucket keeps B's tags");
  t.equal(fake.policies.get(claimArn('shared'))!.tags.get(OWNER_UID_TAG), 'uid-team-b', 'B holds the claim');
  t.notOk(a.secret(), 'A has no Secret');
  t.same(fake.keyIds(a.user), [], 'A has no key');
  t.same(granted(fake, 'shared'), [b.user], "only B's user is granted the bucket");
  t.notOk(fake.users.has(a.user), "A's user, made for the bucket it lost and holding nothing, is deleted at once");
  t.notOk(fake.users.get(a.user)?.tags.has(BUCKET_INTENT_TAG), "A's record of intent is gone: it never takes it back");
  // The next syncs: A is refused before any CreateBucket, B stays Ready.
  const calls = fake.calls.length;
  await a.sync();
  t.match(a.ready(), { status: 'False', reason: 'BucketAlreadyExists' });
  t.notOk(
    fake.calls.slice(calls).some((c) => c.startsWith('createBucket')),
    'refused by the claim before CreateBucket',
  );
  await b.sync();
  t.match(b.ready(), { status: 'True' });
  t.ok(b.secret(), 'B keeps its Secret');
});

t.test('our CreateBucket makes the bucket, the other claims it first: we tag nothing and grant nothing', async (t) => {
  const fake = new FakeAws();
  const b = new Resource(fake, 'team-b', { bucketName: 'shared' });
  // B's sync starts after our lookup (it sees no bucket), and runs whole after our CreateBucket (answered 200).
  let aDone = false;
  const a = new Resource(fake, 'team-a', { bucketName: 'shared' });
  const aws: AwsApi = new Proxy(fake, {
    get(target, prop, receiver) {
      if (prop === 'withDeadline') return () => aws;
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'tagBucket' && !aDone)
        return async (...args: [string, string, Map<string, string>]) => target.tagBucket(...args);
      if (prop === 'createPolicy' && !aDone) {
        return async (name: string, doc: string, tags: Map<string, string>, path?: string) => {
          // The namespace's ledger entry, before CreateBucket: written as it is.
          if (name !== claimName('shared')) return target.createPolicy(name, doc, tags, path);
          aDone = true;
          // B got there in between: its sync made the claim (and found the bucket ours-less: it is B's now).
          await target.createPolicy(name, '{}', new Map([[OWNER_UID_TAG, 'uid-team-b']]));
          return target.createPolicy(name, doc, tags);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  a.aws = aws;
  await a.sync();
  t.match(a.ready(), { status: 'False', reason: 'BucketAlreadyExists' });
  t.same([...fake.buckets.get('shared')!.tags], [], 'A wrote no tag on the bucket');
  t.same(granted(fake, 'shared'), [], 'A is granted nothing');
  t.notOk(fake.users.has(a.user), 'its user, holding nothing, deleted: no record of intent left');
  // A is deleted with Delete and forceDelete: the bucket is not A's to delete.
  a.spec = { ...a.spec, deletionPolicy: 'Delete', forceDelete: true };
  t.equal((await a.finalize()).finalized, true);
  t.ok(fake.buckets.has('shared'), "the bucket survives A's finalize");
  t.ok(fake.policies.has(claimArn('shared')), "B's claim survives A's finalize");
  void b;
});

t.test('a claim another resource holds refuses the bucket though it does not exist (yet, or any more)', async (t) => {
  const fake = new FakeAws();
  fake.policies.set(claimArn('held'), {
    tags: new Map([
      [OWNER_TAG, 'team-b/secret-project'],
      [OWNER_UID_TAG, 'uid-b'],
    ]),
    versions: ['{}'],
  });
  const a = new Resource(fake, 'team-a', { bucketName: 'held' });
  await a.sync();
  t.match(a.ready(), {
    status: 'False',
    reason: 'BucketAlreadyExists',
    message: 'bucket: CreateBucket: BucketAlreadyExists: bucket held belongs to another S3 resource',
  });
  t.notMatch(JSON.stringify(a.status), /team-b|secret-project/, "the other tenant's names are not told");
  t.notOk(fake.buckets.has('held'), 'no CreateBucket');
  t.notOk(fake.users.get(a.user)?.tags.has(BUCKET_INTENT_TAG), 'no record of intent');
});

t.test(
  'a resource that lost the bucket after it was granted (two older syncs both tagged it) loses grant, keys and Secret',
  async (t) => {
    const fake = new FakeAws();
    const a = new Resource(fake, 'team-a', { bucketName: 'shared' });
    await a.sync();
    t.match(a.ready(), { status: 'True' });
    t.ok(a.secret());
    // An older metaops let B tag the bucket over A's tags; B holds it now (by its tags, and its claim).
    fake.buckets.get('shared')!.tags = new Map([
      [OWNER_TAG, 'team-b/data'],
      [OWNER_UID_TAG, 'uid-team-b'],
    ]);
    fake.policies.get(claimArn('shared'))!.tags = new Map([[OWNER_UID_TAG, 'uid-team-b']]);
    const res = await a.sync();
    t.match(a.ready(), {
      status: 'False',
      reason: 'BucketAlreadyExists',
      message: /belongs to another S3 resource; this resource's grant to it and its access keys were revoked$/,
    });
    t.notMatch(JSON.stringify(res.status), /team-b/, "B's names are not told");
    t.same(res.children, [], 'the Secret with the revoked key is not answered (deleted)');
    t.same(granted(fake, 'shared'), [], "A's policy is detached");
    t.same(fake.keyIds(a.user), [], "A's keys are deleted");
    t.equal(fake.buckets.get('shared')!.tags.get(OWNER_UID_TAG), 'uid-team-b', "B's bucket is untouched");
    // Pointed at a free bucket, A works again: its policy granting the new bucket, attached, a new key.
    a.spec = { bucketName: 'a-own' };
    await a.sync();
    t.match(a.ready(), { status: 'True' });
    t.same(granted(fake, 'a-own'), [a.user]);
    t.same(granted(fake, 'shared'), []);
  },
);

t.test('a refused bucket the policy does not grant (a typo of a taken name) revokes nothing', async (t) => {
  const fake = new FakeAws();
  const a = new Resource(fake, 'team-a', { bucketName: 'mine' });
  await a.sync();
  fake.buckets.set('theirs', { region: 'us-east-1', tags: new Map([[OWNER_UID_TAG, 'uid-x']]), objects: 0 });
  a.spec = { bucketName: 'theirs' };
  const res = await a.sync();
  t.match(a.ready(), { status: 'False', reason: 'BucketAlreadyExists' });
  t.equal(res.children.length, 1, 'the Secret is kept as observed');
  t.equal(fake.keyIds(a.user).length, 1, 'the key stays');
  t.same(granted(fake, 'mine'), [a.user], 'the grant of its own bucket stays');
  t.ok(bucketPolicy('mine').includes(':s3:::mine"'), 'the grant check reads the bucket ARN as the policy writes it');
});

t.test('CreateBucket refused by AWS: the record of intent goes; without an answer it stays', async (t) => {
  for (const [err, kept] of [
    [new AwsError('IllegalLocationConstraintException', 'opt-in region', 'CreateBucket'), false],
    [new AwsError('AccessDenied', 'no', 'CreateBucket'), false],
    [new AwsError('TimeoutError', 'no answer', 'CreateBucket'), true],
  ] as const) {
    const fake = new FakeAws();
    const a = new Resource(fake, 'team-a', { bucketName: 'x-bucket' });
    fake.createBucket = async () => {
      throw err;
    };
    await a.sync();
    t.match(a.ready(), { status: 'False' });
    t.equal(fake.users.get(a.user)!.tags.has(BUCKET_INTENT_TAG), kept, `${err.code}: record kept ${kept}`);
    // Someone makes the bucket by hand, untagged: taken back only when the record says it may be ours.
    delete (fake as Partial<FakeAws>).createBucket;
    fake.buckets.set('x-bucket', { region: 'us-east-1', tags: new Map(), objects: 1 });
    await a.sync();
    t.equal(a.ready()['status'], kept ? 'True' : 'False', `${err.code}: adopted ${kept}`);
    if (!kept) t.same([...fake.buckets.get('x-bucket')!.tags], [], 'left untagged');
  }
});

t.test('an untagged bucket our record names is taken back only under our claim', async (t) => {
  const fake = new FakeAws();
  const a = new Resource(fake, 'team-a', { bucketName: 'half' });
  await a.sync();
  // A sync killed after CreateBucket and before its claim left the record; another resource claimed since.
  fake.buckets.get('half')!.tags = new Map();
  fake.users.get(a.user)!.tags.set(BUCKET_INTENT_TAG, 'half');
  fake.policies.get(claimArn('half'))!.tags = new Map([[OWNER_UID_TAG, 'uid-other']]);
  await a.sync();
  t.match(a.ready(), { status: 'False', reason: 'BucketAlreadyExists' });
  t.same([...fake.buckets.get('half')!.tags], [], 'not tagged');
  // Finalize with Delete + forceDelete does not delete it on the strength of the record either.
  a.spec = { ...a.spec, deletionPolicy: 'Delete', forceDelete: true };
  fake.users.get(a.user)!.tags.set(BUCKET_INTENT_TAG, 'half');
  a.status = {};
  await a.finalize();
  t.ok(fake.buckets.has('half'), 'the bucket survives');
  t.same([...fake.buckets.get('half')!.tags], [], 'and is not tagged');
});

t.test('the claim is released when the bucket is deleted or retained, by finalize and by a rename', async (t) => {
  for (const deletionPolicy of ['Delete', 'Retain'] as const) {
    const fake = new FakeAws();
    const a = new Resource(fake, 'team-a', { bucketName: 'first', deletionPolicy });
    await a.sync();
    t.ok(fake.policies.has(claimArn('first')), 'claimed');
    a.spec = { ...a.spec, bucketName: 'second' };
    await a.sync();
    await a.sync();
    t.notOk(fake.policies.has(claimArn('first')), `${deletionPolicy}: the renamed-away bucket's claim is released`);
    if (deletionPolicy === 'Delete') {
      // A renamed-away bucket that waits (not empty) keeps its claim until it is gone.
      const cf = new FakeAws();
      const c = new Resource(cf, 'team-c', { bucketName: 'c-first', deletionPolicy });
      await c.sync();
      cf.buckets.get('c-first')!.objects = 2;
      c.spec = { ...c.spec, bucketName: 'c-second' };
      await c.sync();
      await c.sync();
      t.ok(cf.buckets.has('c-first'), 'the non-empty bucket waits');
      t.ok(cf.policies.has(claimArn('c-first')), 'and keeps its claim');
    }
    t.ok(fake.policies.has(claimArn('second')));
    t.equal((await a.finalize()).finalized, true);
    const ledger = fake.ledgerEntries();
    t.same(
      [...fake.policies.keys()].filter((p) => !ledger.includes(p)),
      [],
      `${deletionPolicy}: finalize leaves no claim and no policy`,
    );
    // The namespace's ledger counts the buckets that are left, and only those.
    t.equal(ledger.length, deletionPolicy === 'Retain' ? 2 : 0, `${deletionPolicy}: the ledger counts what is left`);
    // A retained bucket is guarded by its tags: another resource is refused, a new one of the same name told how
    // to take it over.
    const b = new Resource(fake, 'team-b', { bucketName: 'second' });
    await b.sync();
    t.equal(b.ready()['status'], deletionPolicy === 'Retain' ? 'False' : 'True', `${deletionPolicy}: another resource`);
  }
});

t.test('a resource re-created under the same name does not take the claim its predecessor left', async (t) => {
  const fake = new FakeAws();
  fake.policies.set(claimArn('kept'), {
    tags: new Map([
      [OWNER_TAG, 'team-a/data'],
      [OWNER_UID_TAG, 'uid-old'],
    ]),
    versions: ['{}'],
  });
  const a = new Resource(fake, 'team-a', { bucketName: 'kept' }, 'uid-new');
  await a.sync();
  t.match(a.ready(), {
    status: 'False',
    reason: 'BucketAlreadyExists',
    message:
      'bucket: CreateBucket: BucketAlreadyExists: bucket kept was made by an earlier S3 resource named team-a/data (uid uid-old), not this one; to hand it over, set its tag metaops.dev/owner-uid to uid-new (on its claim, IAM policy metaops.bucket.kept)',
  });
  t.notOk(fake.buckets.has('kept'));
  // Handed over (the tag set as the message says): the resource creates and holds its bucket.
  fake.policies.get(claimArn('kept'))!.tags.set(OWNER_UID_TAG, 'uid-new');
  await a.sync();
  t.match(a.ready(), { status: 'True' });
});

t.test(
  'the revocation of a lost grant fails: the refusal stands, said with the failure, and is tried again',
  async (t) => {
    const fake = new FakeAws();
    const a = new Resource(fake, 'team-a', { bucketName: 'shared' });
    await a.sync();
    fake.buckets.get('shared')!.tags = new Map([[OWNER_UID_TAG, 'uid-team-b']]);
    const detach = fake.detachPolicy.bind(fake);
    fake.detachPolicy = async () => {
      throw new AwsError('Throttling', 'slow down', 'DetachUserPolicy');
    };
    const res = await a.sync();
    t.match(a.ready(), {
      status: 'False',
      reason: 'Throttled',
      message: /belongs to another S3 resource; revoking this resource's grant to it: DetachUserPolicy: Throttling/,
    });
    t.equal(res.resyncAfterSeconds, 60);
    t.equal(res.children.length, 1, 'the Secret is kept until the keys are gone');
    fake.detachPolicy = detach;
    const again = await a.sync();
    t.match(a.ready(), { status: 'False', reason: 'BucketAlreadyExists', message: /revoked$/ });
    t.same(again.children, []);
    t.same(fake.keyIds(a.user), []);
  },
);

t.test('the claim: a policy granting nothing, tagged with its owner; made once, read back after that', async (t) => {
  const fake = new FakeAws();
  const a = new Resource(fake, 'team-a', { bucketName: 'doc' });
  await a.sync();
  t.same(fake.document(claimArn('doc')), {
    Version: '2012-10-17',
    Statement: [{ Sid: 'MetaopsBucketClaim', Effect: 'Deny', Action: 's3:*', Resource: 'arn:aws:s3:::doc' }],
  });
  t.same(
    [...fake.policies.get(claimArn('doc'))!.tags],
    [
      [OWNER_TAG, 'team-a/data'],
      [OWNER_UID_TAG, 'uid-team-a'],
    ],
  );
  t.same(
    [...fake.users].flatMap(([, u]) => u.policies),
    [`${ACCOUNT}:policy/${a.user}`],
    'the claim is attached to no one',
  );
  // The bucket deleted by hand: made again under the claim it holds, which is not made twice.
  fake.buckets.delete('doc');
  const before = fake.calls.length;
  await a.sync();
  t.match(a.ready(), { status: 'True' });
  t.same(
    fake.calls.slice(before).filter((c) => c.startsWith('createPolicy') || c.startsWith('createBucket')),
    ['createBucket doc'],
  );
});

t.test(
  'CreatePolicy of the claim refused: said, nothing tagged, the record kept; allowed again, the bucket is ours',
  async (t) => {
    const fake = new FakeAws();
    const create = fake.createPolicy.bind(fake);
    fake.createPolicy = async (name, doc, tags, path) => {
      if (name.startsWith('metaops.bucket.')) throw new AwsError('AccessDenied', 'not allowed', 'CreatePolicy');
      return create(name, doc, tags, path);
    };
    const a = new Resource(fake, 'team-a', { bucketName: 'denied' });
    await a.sync();
    t.match(a.ready(), { status: 'False', reason: 'AccessDenied', message: /^bucket: CreatePolicy: AccessDenied/ });
    t.same([...fake.buckets.get('denied')!.tags], [], 'the bucket is not tagged');
    t.equal(fake.users.get(a.user)!.tags.get(BUCKET_INTENT_TAG), 'denied', 'the record stays: the bucket may be ours');
    fake.createPolicy = create;
    await a.sync();
    t.match(a.ready(), { status: 'True' });
    t.equal(fake.buckets.get('denied')!.tags.get(OWNER_UID_TAG), 'uid-team-a');
  },
);

t.test(
  'the claim made by another between our read and our CreatePolicy, or gone again by our second read',
  async (t) => {
    const cases: Array<[Map<string, string> | undefined, string]> = [
      [
        new Map([
          [OWNER_TAG, 'team-b/data'],
          [OWNER_UID_TAG, 'uid-team-b'],
        ]),
        'bucket: CreateBucket: BucketAlreadyExists: bucket raced belongs to another S3 resource',
      ],
      [
        new Map([
          [OWNER_TAG, 'team-a/data'],
          [OWNER_UID_TAG, 'uid-older'],
        ]),
        'bucket: CreateBucket: BucketAlreadyExists: bucket raced was made by an earlier S3 resource named team-a/data (uid uid-older), not this one; to hand it over, set its tag metaops.dev/owner-uid to uid-team-a (on its claim, IAM policy metaops.bucket.raced)',
      ],
    ];
    for (const [tags, message] of cases) {
      const fake = new FakeAws();
      const create = fake.createPolicy.bind(fake);
      fake.createPolicy = async (name, doc, own, path) => {
        if (!name.startsWith('metaops.bucket.')) return create(name, doc, own, path);
        if (tags) fake.policies.set(claimArn('raced'), { tags: new Map(tags), versions: ['{}'] });
        throw new AwsError('EntityAlreadyExists', 'exists', 'CreatePolicy');
      };
      const a = new Resource(fake, 'team-a', { bucketName: 'raced' });
      await a.sync();
      t.match(a.ready(), { status: 'False', reason: 'BucketAlreadyExists', message });
      t.same([...fake.buckets.get('raced')!.tags], [], 'nothing tagged');
    }
  },
);

t.test(
  'IAM says the claim exists (EntityAlreadyExists) but shows it on neither read: no refusal, the record stays',
  async (t) => {
    const fake = new FakeAws();
    const create = fake.createPolicy.bind(fake);
    fake.createPolicy = async (name, doc, own, path) => {
      if (!name.startsWith('metaops.bucket.')) return create(name, doc, own, path);
      throw new AwsError('EntityAlreadyExists', 'exists', 'CreatePolicy');
    };
    const a = new Resource(fake, 'team-a', { bucketName: 'raced' });
    await a.sync();
    t.match(a.ready(), {
      status: 'False',
      reason: 'OwnershipUnconfirmed',
      message:
        'bucket: GetPolicy: OwnershipUnconfirmed: the claim of bucket raced (IAM policy metaops.bucket.raced) exists but IAM does not show it yet; nothing is given up, the next sync reads it again',
    });
    t.same([...fake.buckets.get('raced')!.tags], [], 'nothing tagged');
    t.equal(fake.users.get(a.user)!.tags.get(BUCKET_INTENT_TAG), 'raced', 'the record of intent stays');
    // IAM shows this resource's claim now: the bucket it made is taken back.
    fake.createPolicy = create;
    await a.sync();
    t.match(a.ready(), { status: 'True' });
    t.equal(fake.buckets.get('raced')!.tags.get(OWNER_UID_TAG), 'uid-team-a');
  },
);

t.test(
  'another failure of the bucket step (RegionMismatch) revokes nothing, though the policy grants the bucket',
  async (t) => {
    const fake = new FakeAws();
    const a = new Resource(fake, 'team-a', { bucketName: 'mine' });
    await a.sync();
    a.spec = { bucketName: 'mine', region: 'eu-west-1' };
    const res = await a.sync();
    t.match(a.ready(), { status: 'False', reason: 'RegionMismatch' });
    t.equal(res.children.length, 1, 'the Secret is kept');
    t.equal(fake.keyIds(a.user).length, 1, 'the key stays');
    t.same(granted(fake, 'mine'), [a.user], 'the grant stays');
  },
);

t.test('a lost grant is revoked once: the next refusals change nothing in IAM', async (t) => {
  const fake = new FakeAws();
  const a = new Resource(fake, 'team-a', { bucketName: 'shared' });
  await a.sync();
  fake.buckets.get('shared')!.tags = new Map([[OWNER_UID_TAG, 'uid-team-b']]);
  await a.sync();
  const before = fake.calls.length;
  const res = await a.sync();
  t.same(res.children, []);
  t.same(fake.calls.slice(before), [], 'no detach, no key deleted again');
  // A policy of this resource's name that another owner tagged is not this resource's grant: nothing revoked.
  const b = new Resource(fake, 'team-b', { bucketName: 'b-own' });
  await b.sync();
  fake.policies.get(`${ACCOUNT}:policy/${b.user}`)!.tags = new Map([[OWNER_UID_TAG, 'uid-someone']]);
  fake.buckets.get('b-own')!.tags = new Map([[OWNER_UID_TAG, 'uid-someone']]);
  const refused = await b.sync();
  t.match(b.ready(), { status: 'False', reason: 'BucketAlreadyExists' });
  t.equal(refused.children.length, 1, 'the Secret is kept');
  t.equal(fake.keyIds(b.user).length, 1, 'the key stays');
});
