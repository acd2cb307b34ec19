// The S3 hook's ownership and key rotation (hooks/s3/sync.ts) on an in-memory AWS (test/fixtures/fake-aws.ts),
// each answer (the Secret and the status) fed back as the next observed state, as Metacontroller does. What is
// ours comes from the AWS objects' tags: a bucket someone else made, tagged or not, is refused and never touched.
import t from 'tap';
import { OWNER_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { userName } from '../../hooks/s3/policy.js';
import { KEY_GRACE_SECONDS, reasonOf, s3Clients } from '../../hooks/s3/sync.js';
import { RETRY_SECONDS } from '../../lib/errors.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import { AwsError } from '../../hooks/s3/api.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

const OURS = new Map([
  [OWNER_TAG, 'ns/app'],
  [OWNER_UID_TAG, 'uid-app'],
]);
const USER = userName('ns', 'app', 'uid-app');
/** The policies beside the namespaces' ledger entries (a retained bucket's entry stays: it still counts). */
const resourcePolicies = (aws: FakeAws) => [...aws.policies.keys()].filter((a) => !aws.ledgerEntries().includes(a));

class Resource {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  last!: CompositeSyncResponse;
  now: Date;
  constructor(
    readonly aws: FakeAws,
    public spec: Record<string, unknown>,
    readonly name = 'app',
    readonly uid = 'uid-app',
  ) {
    this.now = aws.now;
  }
  request() {
    return s3Request(
      { name: this.name, namespace: 'ns', uid: this.uid },
      { ...S3_DEFAULTS, ...this.spec },
      { status: this.status, children: this.children, apiVersion: 'metaops.dev/v1alpha1' },
    );
  }
  async sync(): Promise<CompositeSyncResponse> {
    this.last = await sync(this.request(), this.aws, this.now);
    this.status = this.last.status as Record<string, unknown>;
    this.children = this.last.children;
    return this.last;
  }
  async finalize(): Promise<CompositeSyncResponse> {
    this.last = await finalize(this.request(), this.aws, this.now);
    this.status = this.last.status as Record<string, unknown>;
    return this.last;
  }
  secret(name = `${this.name}-credentials`): Record<string, string> | undefined {
    const s = this.children.find((c) => c.kind === 'Secret' && c.metadata.name === name);
    if (!s) return undefined;
    return Object.fromEntries(
      Object.entries(s['data'] as Record<string, string>).map(([k, v]) => [
        k,
        Buffer.from(v, 'base64').toString('utf8'),
      ]),
    );
  }
  s(): any {
    return this.status;
  }
}
const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');

t.test('a bucket that exists without metaops tags is refused, never tagged, configured or deleted', async (t) => {
  for (const [label, tags] of [
    ['untagged', new Map<string, string>()],
    [
      'tagged by another resource',
      new Map([
        [OWNER_TAG, 'other/x'],
        [OWNER_UID_TAG, 'uid-x'],
      ]),
    ],
    [
      'tagged with another UID under this name (a resource deleted and re-created)',
      new Map([
        [OWNER_TAG, 'ns/app'],
        [OWNER_UID_TAG, 'uid-old'],
      ]),
    ],
    ['tagged by name only (an older metaops), not named by the status', new Map([[OWNER_TAG, 'ns/app']])],
  ] as const) {
    const aws = new FakeAws();
    aws.buckets.set('theirs', { region: 'us-east-1', tags: new Map(tags), objects: 3 });
    const r = new Resource(aws, { bucketName: 'theirs', deletionPolicy: 'Delete', forceDelete: true });
    for (let i = 0; i < 2; i++) {
      const res = await r.sync();
      t.match(ready(res), { status: 'False', reason: 'BucketAlreadyExists' }, `${label}: refused (sync ${i})`);
      t.notOk(r.s().bucketName, `${label}: not recorded as this resource's`);
      t.notOk(r.s().createdBuckets, `${label}: nor as created by it`);
    }
    t.same(aws.calls, [], `${label}: nothing written to AWS, no IAM user made`);
    t.same(aws.buckets.get('theirs')!.tags, tags, `${label}: the tags are untouched`);
    const done = await r.finalize();
    t.equal(done.finalized, true, `${label}: the resource can go`);
    t.ok(aws.buckets.has('theirs'), `${label}: the bucket survives finalize with Delete and forceDelete`);
  }
});

t.test(
  "the refusal says the bucket is taken, names the earlier resource of the same name, never another tenant's",
  async (t) => {
    const cases: Array<[Map<string, string>, RegExp]> = [
      [new Map(), /bucket theirs already exists and is not managed by metaops/],
      [
        new Map([
          [OWNER_TAG, 'other/x'],
          [OWNER_UID_TAG, 'u'],
        ]),
        /^bucket: CreateBucket: BucketAlreadyExists: bucket theirs belongs to another S3 resource$/,
      ],
      [
        new Map([
          [OWNER_TAG, 'ns/app'],
          [OWNER_UID_TAG, 'uid-old'],
        ]),
        /made by an earlier S3 resource named ns\/app \(uid uid-old\), not this one; to hand it over, set its tag metaops.dev\/owner-uid to uid-app/,
      ],
    ];
    for (const [tags, message] of cases) {
      const aws = new FakeAws();
      aws.buckets.set('theirs', { region: 'us-east-1', tags, objects: 0 });
      t.match(ready(await new Resource(aws, { bucketName: 'theirs' }).sync()), { message });
    }
  },
);

t.test('a bucket tagged by name only is taken when the status names it, and then gets the UID tag', async (t) => {
  const aws = new FakeAws();
  aws.buckets.set('legacy', { region: 'eu-west-1', tags: new Map([[OWNER_TAG, 'ns/app']]), objects: 1 });
  const r = new Resource(aws, { bucketName: 'legacy' });
  r.status = { bucketName: 'legacy', region: 'eu-west-1' };
  const res = await r.sync();
  t.match(ready(res), { status: 'True' });
  t.equal(r.s().region, 'eu-west-1', 'the region the bucket is in');
  t.equal(aws.buckets.get('legacy')!.tags.get(OWNER_UID_TAG), 'uid-app', "tagged with this resource's UID now");
});

t.test('a bucket tagged by name only is never deleted on the strength of the status (finalize, rename)', async (t) => {
  const aws = new FakeAws();
  aws.buckets.set('legacy', { region: 'us-east-1', tags: new Map([[OWNER_TAG, 'ns/app']]), objects: 0 });
  const r = new Resource(aws, { bucketName: 'new-one', deletionPolicy: 'Delete', forceDelete: true });
  r.status = { bucketName: 'legacy', createdBuckets: ['legacy'] };
  await r.sync();
  t.ok(aws.buckets.has('legacy'), 'a rename does not delete it');
  t.same(r.s().retainedBuckets, ['legacy'], 'it is listed as retained');
  t.same(r.s().createdBuckets, ['new-one']);
  r.status = { ...r.s(), createdBuckets: ['legacy', 'new-one'] };
  const done = await r.finalize();
  t.ok(aws.buckets.has('legacy'), 'nor finalize');
  t.notOk(aws.buckets.has('new-one'), 'its own bucket goes');
  t.match(done.status, {
    conditions: [{ type: 'Finalized', status: 'True', message: /legacy left alone: its tags name another owner/ }],
  });
});

t.test('an IAM user or policy of the same name that is not ours is refused, never used or deleted', async (t) => {
  const aws = new FakeAws();
  aws.users.set(USER, { tags: new Map([[OWNER_UID_TAG, 'uid-other']]), keys: [], policies: [] });
  const r = new Resource(aws, { bucketName: 'mine', deletionPolicy: 'Delete' });
  const res = await r.sync();
  t.match(ready(res), { status: 'False', reason: 'IAMNameTaken', message: /IAM user/ });
  t.same(aws.keyIds(USER), [], "no key made for someone else's user");
  await r.finalize();
  t.ok(aws.users.has(USER), 'finalize leaves their user');

  const aws2 = new FakeAws();
  const r2 = new Resource(aws2, { bucketName: 'mine' });
  const policyArn = `arn:aws:iam::123456789012:policy/${USER}`;
  aws2.policies.set(policyArn, { tags: new Map(), versions: ['{"Statement":[]}'] });
  t.match(ready(await r2.sync()), { reason: 'IAMNameTaken', message: /IAM policy/ });
  t.same(aws2.policies.get(policyArn)!.versions, ['{"Statement":[]}'], 'their policy is not rewritten');
  t.same(await aws2.attachedPolicies(USER), [], 'nor attached');
  r2.status = { ...r2.s(), policyArn };
  await r2.finalize();
  t.ok(aws2.policies.has(policyArn), 'nor deleted');
});

t.test('finalize deletes only what its tags say is ours', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine', deletionPolicy: 'Delete' });
  await r.sync();
  t.ok(aws.users.has(USER));
  const done = await r.finalize();
  t.equal(done.finalized, true);
  t.notOk(aws.users.has(USER), 'the user goes');
  t.equal(aws.policies.size, 0, 'the policy goes');
  t.notOk(aws.buckets.has('mine'), 'the bucket goes (Delete)');
  // Retain keeps the bucket.
  const aws2 = new FakeAws();
  const kept = new Resource(aws2, { bucketName: 'kept' });
  await kept.sync();
  const k = await kept.finalize();
  t.equal(k.finalized, true);
  t.ok(aws2.buckets.has('kept'));
  t.match(k.status, { retainedBuckets: ['kept'], conditions: [{ reason: 'BucketRetained' }] });
  // A non-empty bucket without forceDelete: not finalized, asked again.
  const aws3 = new FakeAws();
  const full = new Resource(aws3, { bucketName: 'full', deletionPolicy: 'Delete' });
  await full.sync();
  aws3.buckets.get('full')!.objects = 2;
  const f = await full.finalize();
  t.equal(f.finalized, false);
  t.ok(aws3.buckets.has('full'));
  t.match(f.status, { conditions: [{ type: 'Finalized', status: 'False', reason: 'BucketNotEmpty' }] });
});

t.test('the access key: kept in the Secret named by spec.secretName, sync after sync, never rotated', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine', secretName: 'custom-creds' });
  await r.sync();
  const first = r.secret('custom-creds')!;
  t.ok(first, 'the Secret has the name spec.secretName gives');
  t.notOk(r.secret(), 'and no other');
  t.equal(r.s().secretName, 'custom-creds');
  t.same(Object.keys(first).sort(), ['AWS_ACCESS_KEY_ID', 'AWS_REGION', 'AWS_SECRET_ACCESS_KEY', 'BUCKET_NAME']);
  t.equal(first['BUCKET_NAME'], 'mine');
  // Well past the grace period, the key in the Secret is the one kept.
  r.now = new Date(aws.now.getTime() + 3600_000);
  for (let i = 0; i < 3; i++) {
    await r.sync();
    t.same(r.secret('custom-creds'), first, `sync ${i}: the same key`);
  }
  t.same(aws.keyIds(USER), [first['AWS_ACCESS_KEY_ID']], 'one key in IAM');
  t.same(
    (r.s().conditions as any[]).map((c) => c.type),
    ['Ready', 'Synced'],
    'Ready and Synced, and no other condition',
  );
  t.equal(aws.calls.filter((c) => c.startsWith('createAccessKey')).length, 1, 'made once');
});

t.test('a Secret under another name is not answered for spec.secretName: its key moves to the one named', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  await r.sync();
  r.now = new Date(aws.now.getTime() + 3600_000);
  // The spec now names another Secret; the default-named one still holds the key its readers use.
  r.spec = { ...r.spec, secretName: 'moved' };
  const old = r.secret()!;
  await r.sync();
  const moved = r.secret('moved')!;
  t.ok(moved, 'the Secret spec.secretName names');
  t.notOk(r.secret(), 'and not the old one (Metacontroller deletes it)');
  t.equal(
    moved['AWS_ACCESS_KEY_ID'],
    old['AWS_ACCESS_KEY_ID'],
    'with the key in use: a rename moves the credentials, it does not rotate them',
  );
  t.equal(moved['AWS_SECRET_ACCESS_KEY'], old['AWS_SECRET_ACCESS_KEY']);
  t.same(aws.keyIds(USER), [old['AWS_ACCESS_KEY_ID']], 'and only that key is in IAM');
});

t.test('IAM allows two keys per user: room is made before a new key, the old ones go after', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  await r.sync();
  const [k1] = aws.keyIds(USER);
  const k2 = aws.addKey(USER, KEY_GRACE_SECONDS + 10);
  // The Secret is lost: two keys in IAM, both older than the grace period.
  r.children = [];
  r.now = new Date(aws.now.getTime() + 3600_000);
  aws.now = r.now;
  aws.calls = [];
  const res = await r.sync();
  t.match(ready(res), { status: 'True' }, 'a new key despite the limit');
  const secret = r.secret()!;
  t.same(aws.keyIds(USER), [secret['AWS_ACCESS_KEY_ID']], 'only the new key is left');
  t.same(
    aws.calls.filter((c) => c.includes('AccessKey')),
    [`deleteAccessKey ${USER} ${k1}`, `createAccessKey ${USER}`, `deleteAccessKey ${USER} ${k2.id}`],
    'the oldest goes first, the newest old one after the new key exists',
  );
  // One key in IAM and no Secret: the new key is made before the old one goes.
  r.children = [];
  r.now = new Date(r.now.getTime() + 3600_000);
  aws.now = r.now;
  aws.calls = [];
  const before = aws.keyIds(USER)[0];
  await r.sync();
  t.same(
    aws.calls.filter((c) => c.includes('AccessKey')),
    [`createAccessKey ${USER}`, `deleteAccessKey ${USER} ${before}`],
  );
});

t.test('keys beside the kept one: old ones deleted, a young one kept until the grace period ends', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  await r.sync();
  const kept = r.secret()!['AWS_ACCESS_KEY_ID'];
  const young = aws.addKey(USER, 10);
  const res = await r.sync();
  t.ok(aws.keyIds(USER).includes(young.id), 'a key made 10 s ago may be in a Secret not observed yet');
  t.equal(res.resyncAfterSeconds, KEY_GRACE_SECONDS - 10 + 1, 'looked at again when its grace ends');
  r.now = new Date(aws.now.getTime() + (KEY_GRACE_SECONDS + 1) * 1000);
  const later = await r.sync();
  t.same(aws.keyIds(USER), [kept], 'then it goes');
  t.equal(later.resyncAfterSeconds, undefined, 'and nothing is pending');
});

t.test('no rotation in the race with the Secret: a young key without its Secret is waited for', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  await r.sync();
  const id = aws.keyIds(USER)[0]!;
  r.children = [];
  const res = await r.sync();
  t.match(ready(res), {
    status: 'False',
    reason: 'SecretPending',
    message: `waiting for Secret app-credentials with access key ${id} to be observed`,
  });
  t.match(
    r.s(),
    { bucketName: 'mine', region: 'us-east-1', accessKeyId: id, createdBuckets: ['mine'], iamUser: USER },
    'the bucket, its region and the key waited for; the rest of the status kept',
  );
  t.same(aws.keyIds(USER), [id], 'not rotated');
  t.equal(res.resyncAfterSeconds, KEY_GRACE_SECONDS + 1);
  t.equal(r.s().accessKeyId, id);
  r.now = new Date(aws.now.getTime() + (KEY_GRACE_SECONDS - 2) * 1000);
  t.equal((await r.sync()).resyncAfterSeconds, 5, 'at least 5 s');
});

t.test('the IAM user of an older metaops is deleted only when its tags name this resource', async (t) => {
  for (const [tags, gone] of [
    [new Map([[OWNER_TAG, 'ns/app']]), true],
    [
      new Map([
        [OWNER_TAG, 'ns/app'],
        [OWNER_UID_TAG, 'uid-app'],
      ]),
      true,
    ],
    [
      new Map([
        [OWNER_TAG, 'ns/app'],
        [OWNER_UID_TAG, 'uid-other'],
      ]),
      false,
    ],
    [new Map([[OWNER_TAG, 'other/app']]), false],
    [
      new Map([
        [OWNER_TAG, 'other/app'],
        [OWNER_UID_TAG, 'uid-app'],
      ]),
      false,
    ],
    [new Map<string, string>(), false],
  ] as const) {
    const aws = new FakeAws();
    aws.users.set('metaops-ns-app', { tags: new Map(tags), keys: [], policies: [] });
    const r = new Resource(aws, { bucketName: 'mine' });
    r.status = { iamUser: 'metaops-ns-app' };
    await r.sync();
    t.equal(!aws.users.has('metaops-ns-app'), gone, `tags ${JSON.stringify([...tags])}: ${gone ? 'deleted' : 'kept'}`);
  }
});

t.test('AWS errors: nothing deleted, the Secret kept, asked again later', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  await r.sync();
  const secret = r.secret();
  aws.listAccessKeys = async () => {
    throw new AwsError('Throttling', 'Rate exceeded', 'ListAccessKeys');
  };
  const res = await r.sync();
  t.match(ready(res), { status: 'False', reason: 'Throttled', message: /access key: ListAccessKeys: Throttling/ });
  t.match(
    ((res.status as any).conditions as any[]).find((c) => c.type === 'Synced'),
    { status: 'False', reason: 'Throttled', message: /access key: ListAccessKeys: Throttling/ },
    'Synced says it too',
  );
  t.same(r.s().createdBuckets, ['mine'], 'the bucket still recorded as created');
  t.equal(res.resyncAfterSeconds, 60);
  t.same(r.secret(), secret, 'the Secret is kept as observed');
  t.equal(reasonOf(new AwsError('AccessDenied', 'no', 'GetUser')), 'AccessDenied');
  t.equal(reasonOf(new AwsError('InternalError', 'no', 'GetUser')), 'AWSError');
  t.equal(reasonOf(new AwsError('TimeoutError', 'no', 'GetUser')), 'Unreachable');
  t.equal(reasonOf(new Error('x')), 'AWSError');
});

const synced = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === 'Synced');

t.test('an untagged bucket is not adopted on the strength of a status that names it (a forged status)', async (t) => {
  const aws = new FakeAws();
  aws.buckets.set('victim', { region: 'us-east-1', tags: new Map(), objects: 1 });
  const r = new Resource(aws, { bucketName: 'victim', deletionPolicy: 'Delete', forceDelete: true });
  r.status = { bucketName: 'victim', createdBuckets: ['victim'] };
  t.match(ready(await r.sync()), {
    reason: 'BucketAlreadyExists',
    message: /^bucket: CreateBucket: BucketAlreadyExists: bucket victim already exists and is not managed by metaops/,
  });
  t.same(aws.buckets.get('victim')!.tags, new Map(), 'not tagged');
  r.status = { bucketName: 'victim', createdBuckets: ['victim'] };
  await r.finalize();
  t.ok(aws.buckets.has('victim'), 'not deleted');
});

t.test(
  'the bucket region: spec.region, else the region the status recorded for this bucket, as the hint; a bucket elsewhere is refused',
  async (t) => {
    const aws = new FakeAws();
    const r = new Resource(aws, { bucketName: 'mine' });
    await r.sync();
    r.status = { ...r.s(), region: 'eu-west-1' };
    aws.buckets.get('mine')!.region = 'eu-west-1';
    await r.sync();
    r.spec = { ...r.spec, bucketName: 'other' };
    r.status = { ...r.s(), bucketName: 'mine', region: 'eu-west-1' };
    await r.sync();
    t.same(aws.hints, [undefined, 'eu-west-1', undefined], 'no hint, the recorded region, none for another bucket');
    const pinned = new FakeAws();
    pinned.buckets.set('mine', { region: 'eu-west-1', tags: new Map(OURS), objects: 0 });
    const p = new Resource(pinned, { bucketName: 'mine', region: 'us-west-2' });
    t.match(ready(await p.sync()), {
      reason: 'RegionMismatch',
      message:
        /^bucket: GetBucketLocation: RegionMismatch: bucket mine is in eu-west-1, spec.region says us-west-2; a bucket cannot move/,
    });
    t.same(pinned.hints, ['us-west-2']);
    t.same(pinned.calls, [], 'nothing written');
    const same = new Resource(pinned, { bucketName: 'mine', region: 'eu-west-1' });
    t.match(ready(await same.sync()), { status: 'True' });
    t.equal(same.s().region, 'eu-west-1');
  },
);

t.test(
  'a rename: Retain keeps the old bucket listed; Delete deletes it once empty (never empties it), leaves a foreign one',
  async (t) => {
    const setup = (policy: string, objects = 0) => {
      const aws = new FakeAws();
      const r = new Resource(aws, { bucketName: 'b-old', deletionPolicy: policy });
      return { aws, r, objects };
    };
    {
      const { aws, r } = setup('Retain');
      await r.sync();
      r.spec = { ...r.spec, bucketName: 'b-new' };
      await r.sync();
      t.ok(aws.buckets.has('b-old'));
      t.same([r.s().createdBuckets, r.s().retainedBuckets], [['b-new'], ['b-old']]);
    }
    {
      const { aws, r } = setup('Delete');
      await r.sync();
      aws.buckets.get('b-old')!.objects = 2;
      r.spec = { ...r.spec, bucketName: 'b-new' };
      const res = await r.sync();
      t.ok(aws.buckets.has('b-old'), 'not empty: kept');
      t.same(r.s().createdBuckets, ['b-new', 'b-old'], 'still listed as ours');
      t.equal(res.resyncAfterSeconds, 10, "the first look of the tenant wait's backoff (10 s, doubling to 300 s)");
      t.match(
        ((res.status as any).conditions as any[]).find((c) => c.type === 'OldBucketDeleted'),
        {
          status: 'False',
          reason: 'BucketNotEmpty',
          message:
            'old bucket b-old is not empty and is kept with its objects (spec.bucketName was changed to b-new; a rename never empties a bucket): ' +
            'set spec.bucketName back to use it again, empty it yourself to have it deleted, or set deletionPolicy: Retain to keep it',
        },
      );
      r.spec = { ...r.spec, forceDelete: true };
      aws.buckets.get('b-old')!.objects = 0;
      const done = await r.sync();
      t.notOk(aws.buckets.has('b-old'), 'deleted once empty');
      t.same(r.s().createdBuckets, ['b-new']);
      t.notOk(r.s().retainedBuckets, 'and not listed as retained');
      t.notOk(((done.status as any).conditions as any[]).some((c) => c.type === 'OldBucketDeleted'));
      t.equal(done.resyncAfterSeconds, undefined);
    }
    {
      const aws = new FakeAws();
      const r = new Resource(aws, { bucketName: 'b-new', deletionPolicy: 'Delete', forceDelete: true });
      aws.buckets.set('a-full', { region: 'us-east-1', tags: new Map(OURS), objects: 1 });
      aws.buckets.set('c-gone', { region: 'us-east-1', tags: new Map(OURS), objects: 0 });
      r.status = { createdBuckets: ['c-gone', 'a-full'] };
      const res = await r.sync();
      t.same(
        aws.calls.filter((c) => c.startsWith('deleteBucket')),
        ['deleteBucket c-gone'],
        "the empty one deleted; forceDelete empties none on a rename (it is the deletion's)",
      );
      t.equal(aws.buckets.get('a-full')?.objects, 1, 'a-full kept with its object');
      t.same(r.s().createdBuckets, ['a-full', 'b-new'], 'and still recorded as ours');
      t.equal(res.resyncAfterSeconds, 10, "the first look of the tenant wait's backoff");
    }
  },
);

t.test('IAM refusals and an unusable ARN say where they stopped', async (t) => {
  const aws = new FakeAws();
  aws.users.set(USER, {
    tags: new Map([
      [OWNER_TAG, 'other/x'],
      [OWNER_UID_TAG, 'u'],
    ]),
    keys: [],
    policies: [],
  });
  t.match(ready(await new Resource(aws, { bucketName: 'mine' }).sync()), {
    message: `IAM user: CreateUser: IAMNameTaken: IAM user ${USER} belongs to another S3 resource`,
  });
  const aws2 = new FakeAws();
  aws2.policies.set(`arn:aws:iam::123456789012:policy/${USER}`, {
    tags: new Map([[OWNER_TAG, 'other/x']]),
    versions: ['{}'],
  });
  t.match(ready(await new Resource(aws2, { bucketName: 'mine' }).sync()), {
    message: `IAM policy: CreatePolicy: IAMNameTaken: IAM policy ${USER} belongs to another S3 resource`,
  });
  const aws3 = new FakeAws();
  aws3.userArn = () => 'not-an-arn';
  const r3 = new Resource(aws3, { bucketName: 'mine' });
  t.match(ready(await r3.sync()), {
    reason: 'AWSError',
    message: 'bucket: GetUser: InvalidResponse: the IAM user has no usable ARN',
  });
  t.equal(aws3.policies.size, 0, 'no policy made for a user without an account');
  t.equal(aws3.buckets.size, 0, 'no bucket made that could not be claimed');
  const aws4 = new FakeAws();
  const r4 = new Resource(aws4, { bucketName: 'mine' });
  await r4.sync();
  r4.status = { ...r4.s(), iamUser: 'metaops-ns-app' };
  aws4.getUser = async (u: string) => {
    if (u === 'metaops-ns-app') throw new AwsError('ServiceFailure', 'down', 'GetUser');
    return FakeAws.prototype.getUser.call(aws4, u);
  };
  t.match(ready(await r4.sync()), { message: /^old IAM user: GetUser: ServiceFailure/ });
  const aws5 = new FakeAws();
  const r5 = new Resource(aws5, { bucketName: 'mine' });
  await r5.sync();
  aws5.attachedPolicies = async () => {
    throw new AwsError('ServiceFailure', 'down', 'ListAttachedUserPolicies');
  };
  t.match(ready(await r5.sync()), { message: /^IAM policy: ListAttachedUserPolicies/ });
  const aws6 = new FakeAws();
  const r6 = new Resource(aws6, { bucketName: 'bk1', deletionPolicy: 'Delete' });
  await r6.sync();
  r6.spec = { ...r6.spec, bucketName: 'bk2' };
  aws6.deleteBucket = async () => {
    throw new AwsError('ServiceFailure', 'down', 'DeleteBucket');
  };
  t.match(ready(await r6.sync()), { message: /^old buckets: DeleteBucket/ });
});

t.test('a legacy user named in the status that no longer exists changes nothing', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  r.status = { iamUser: 'metaops-ns-app' };
  t.match(ready(await r.sync()), { status: 'True' });
  r.status = { ...r.s(), iamUser: 'metaops-ns-app' };
  t.equal((await r.finalize()).finalized, true);
});

t.test('the Secret is used only with both its key ID and its secret, and only while IAM has that key', async (t) => {
  for (const [label, edit] of [
    ['no secret', (d: Record<string, string>) => delete d['AWS_SECRET_ACCESS_KEY']],
    ['no key ID', (d: Record<string, string>) => delete d['AWS_ACCESS_KEY_ID']],
    [
      'a key IAM no longer has',
      (d: Record<string, string>) => (d['AWS_ACCESS_KEY_ID'] = Buffer.from('AKIAGONE').toString('base64')),
    ],
  ] as const) {
    const aws = new FakeAws();
    const r = new Resource(aws, { bucketName: 'mine' });
    await r.sync();
    const before = r.secret()!;
    const s = r.children.find((c) => c.kind === 'Secret')!;
    edit(s['data'] as Record<string, string>);
    r.now = new Date(aws.now.getTime() + 3600_000);
    aws.now = r.now;
    await r.sync();
    const after = r.secret()!;
    t.not(after['AWS_ACCESS_KEY_ID'], before['AWS_ACCESS_KEY_ID'], `${label}: a new key`);
    t.same(aws.keyIds(USER), [after['AWS_ACCESS_KEY_ID']], `${label}: the only one in IAM`);
    t.equal(after['AWS_SECRET_ACCESS_KEY'], `secret-${after['AWS_ACCESS_KEY_ID']}`);
  }
});

t.test('the grace period ends at exactly KEY_GRACE_SECONDS', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  await r.sync();
  const kept = aws.keyIds(USER)[0]!;
  const other = aws.addKey(USER, KEY_GRACE_SECONDS);
  await r.sync();
  t.same(aws.keyIds(USER), [kept], `a key ${KEY_GRACE_SECONDS} s old beside the kept one is deleted`);
  // Without the Secret, a newest key exactly at the limit is rotated, not waited for.
  const aws2 = new FakeAws();
  const r2 = new Resource(aws2, { bucketName: 'mine' });
  await r2.sync();
  const first = aws2.keyIds(USER)[0]!;
  r2.children = [];
  r2.now = new Date(aws2.now.getTime() + KEY_GRACE_SECONDS * 1000);
  const res = await r2.sync();
  t.match(ready(res), { status: 'True' });
  t.notOk(aws2.keyIds(USER).includes(first));
  t.ok(other.id);
});

t.test("while a young key's Secret is pending, Synced says when it would be rotated", async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  await r.sync();
  r.children = [];
  const res = await r.sync();
  t.match(synced(res), {
    status: 'False',
    reason: 'SecretPending',
    message: `access key ${aws.keyIds(USER)[0]} is new; it is rotated only if its Secret is still missing after ${KEY_GRACE_SECONDS} s`,
  });
});

t.test(
  'finalize: answered only once the user and policy are confirmed gone; the policy from the status when the user is gone',
  async (t) => {
    const aws = new FakeAws();
    const r = new Resource(aws, { bucketName: 'mine' });
    await r.sync();
    aws.deletesUsers = false;
    const waiting = await r.finalize();
    t.equal(waiting.finalized, false, 'the user is still listed');
    t.equal(waiting.resyncAfterSeconds, 10);
    t.match(waiting.status, { conditions: [{ type: 'Finalized', status: 'False', reason: 'Deleting' }] });
    // The user went another way; the policy is found by the ARN a status from before the account was hidden
    // recorded (a status written now shows <account>, which names no policy: see below).
    const aws2 = new FakeAws();
    const r2 = new Resource(aws2, { bucketName: 'mine' });
    await r2.sync();
    const policyArn = (r2.s().policyArn as string).replace('<account>', '123456789012');
    r2.status = { ...r2.s(), policyArn };
    aws2.users.delete(USER);
    const done = await r2.finalize();
    t.equal(done.finalized, true);
    t.notOk(aws2.policies.has(policyArn), 'the policy named by the status is deleted');
    t.match(done.status, {
      conditions: [{ reason: 'BucketRetained', message: 'access keys, policy and user deleted; bucket mine retained' }],
    });
    // The user gone and the status's ARN without its account: no call names a policy with <account>, and the
    // resource can still go (the policy, tagged with its owner, is left: docs/s3.md).
    const aws7 = new FakeAws();
    const r7 = new Resource(aws7, { bucketName: 'mine' });
    await r7.sync();
    aws7.users.delete(USER);
    const asked: string[] = [];
    const getPolicy = aws7.getPolicy.bind(aws7);
    aws7.getPolicy = async (arn: string) => {
      asked.push(arn);
      return getPolicy(arn);
    };
    t.equal((await r7.finalize()).finalized, true);
    t.same(
      asked.filter((a) => a.includes('<account>')),
      [],
      'no AWS call with a masked ARN',
    );
    // A status without the policy's ARN: found from the user's account.
    const aws6 = new FakeAws();
    const r6 = new Resource(aws6, { bucketName: 'mine' });
    await r6.sync();
    r6.status = {};
    t.equal((await r6.finalize()).finalized, true);
    t.same(resourcePolicies(aws6), [], 'the policy is deleted (the retained bucket stays in its namespace ledger)');
    // A policy the status names that is not ours: left, and the resource can still go.
    const aws3 = new FakeAws();
    const foreign = 'arn:aws:iam::123456789012:policy/theirs';
    aws3.policies.set(foreign, { tags: new Map([[OWNER_UID_TAG, 'u-other']]), versions: ['{}'] });
    const r3 = new Resource(aws3, { bucketName: 'mine' });
    r3.status = { policyArn: foreign };
    t.equal((await r3.finalize()).finalized, true);
    t.ok(aws3.policies.has(foreign));
    // Our policy that IAM still lists after the delete: not finalized.
    const aws4 = new FakeAws();
    const r4 = new Resource(aws4, { bucketName: 'mine' });
    await r4.sync();
    aws4.deletePolicy = async () => {};
    t.equal((await r4.finalize()).finalized, false);
    // A user whose ARN is unusable: deleted, and the policy still found from a status with its account (from
    // before the account was hidden).
    const aws5 = new FakeAws();
    const r5 = new Resource(aws5, { bucketName: 'mine' });
    await r5.sync();
    r5.status = { ...r5.s(), policyArn: (r5.s().policyArn as string).replace('<account>', '123456789012') };
    aws5.userArn = () => 'nonsense';
    t.equal((await r5.finalize()).finalized, true);
    t.same(resourcePolicies(aws5), []);
  },
);

t.test(
  'finalize with Delete: buckets in name order, emptied only with forceDelete, the message says what was done',
  async (t) => {
    const aws = new FakeAws();
    const r = new Resource(aws, { bucketName: 'bk2', deletionPolicy: 'Delete', forceDelete: true });
    await r.sync();
    aws.buckets.set('bk1', { region: 'us-east-1', tags: new Map(OURS), objects: 5 });
    aws.buckets.get('bk2')!.objects = 5;
    r.status = { ...r.s(), createdBuckets: ['bk2', 'bk1'] };
    const done = await r.finalize();
    t.equal(done.finalized, true);
    t.same(
      aws.calls.filter((c) => c.startsWith('deleteBucket')),
      ['deleteBucket bk1', 'deleteBucket bk2'],
    );
    t.equal(
      (done.status as any).conditions[0].message,
      'access keys, policy and user deleted and the buckets this resource created',
    );
    t.equal((done.status as any).conditions[0].reason, 'Deleted');
    // A spec that no longer parses: Retain, nothing emptied.
    const aws2 = new FakeAws();
    const r2 = new Resource(aws2, { bucketName: 'kept', deletionPolicy: 'Delete', forceDelete: true });
    await r2.sync();
    aws2.buckets.get('kept')!.objects = 1;
    r2.spec = { ...r2.spec, bucketName: 'NOT VALID' };
    const d2 = await r2.finalize();
    t.equal(d2.finalized, true);
    t.ok(aws2.buckets.has('kept'));
    // Not empty, forceDelete false: waits, with the way out in the message.
    const aws3 = new FakeAws();
    const r3 = new Resource(aws3, { bucketName: 'full', deletionPolicy: 'Delete' });
    await r3.sync();
    aws3.buckets.get('full')!.objects = 1;
    t.match((await r3.finalize()).status, {
      conditions: [
        {
          message:
            'bucket full is not empty and forceDelete is false: empty it, set forceDelete: true, or set deletionPolicy: Retain ' +
            '(looked at again less and less often, at least every 5 minutes: an emptied bucket is deleted within 5 minutes)',
        },
      ],
    });
  },
);

const finalized = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === 'Finalized');

t.test('finalize says what it did, in each ending', async (t) => {
  // Delete: everything this resource made goes.
  const deleted = new Resource(new FakeAws(), { bucketName: 'mine', deletionPolicy: 'Delete' });
  await deleted.sync();
  const d = await deleted.finalize();
  t.same(d.children, []);
  t.equal(d.finalized, true);
  t.equal(d.resyncAfterSeconds, undefined);
  t.match(finalized(d), {
    status: 'True',
    reason: 'Deleted',
    message: 'access keys, policy and user deleted and the buckets this resource created',
  });
  // Retain, with buckets retained before (in no order): each named, sorted; malformed entries of the status left out.
  const retain = new Resource(new FakeAws(), { bucketName: 'mine' });
  await retain.sync();
  retain.status = { ...retain.status, retainedBuckets: ['zeta', 7, 'alpha', null] };
  const r = await retain.finalize();
  t.equal(r.finalized, true);
  t.match(finalized(r), {
    reason: 'BucketRetained',
    message: 'access keys, policy and user deleted; bucket alpha, mine, zeta retained',
  });
  t.same(r.children, []);
  t.same((r.status as any).retainedBuckets, ['alpha', 'mine', 'zeta']);
  // Delete, with a bucket retained by an earlier Retain: that one stays, and is said.
  const mixed = new Resource(new FakeAws(), { bucketName: 'mine', deletionPolicy: 'Delete' });
  await mixed.sync();
  mixed.status = { ...mixed.status, retainedBuckets: ['old'] };
  t.match(finalized(await mixed.finalize()), {
    reason: 'BucketRetained',
    message: 'access keys, policy and user deleted; bucket old retained',
  });
  // A bucket whose tags now name another owner is left alone, and said.
  const aws = new FakeAws();
  const taken = new Resource(aws, { bucketName: 'mine', deletionPolicy: 'Delete' });
  await taken.sync();
  aws.buckets.get('mine')!.tags = new Map([[OWNER_UID_TAG, 'someone-else']]);
  const tk = await taken.finalize();
  t.ok(aws.buckets.has('mine'));
  t.match(finalized(tk), {
    message:
      'access keys, policy and user deleted and the buckets this resource created; mine left alone: its tags name another owner',
  });
});

t.test('finalize that must wait: a bucket not empty, deletions not yet confirmed', async (t) => {
  const aws = new FakeAws();
  const full = new Resource(aws, { bucketName: 'full', deletionPolicy: 'Delete' });
  await full.sync();
  aws.buckets.get('full')!.objects = 2;
  const f = await full.finalize();
  t.same(f.children, []);
  t.equal(f.finalized, false);
  t.equal(f.resyncAfterSeconds, RETRY_SECONDS.soon);
  t.match(finalized(f), {
    status: 'False',
    reason: 'BucketNotEmpty',
    message:
      'bucket full is not empty and forceDelete is false: empty it, set forceDelete: true, or set deletionPolicy: Retain ' +
      '(looked at again less and less often, at least every 5 minutes: an emptied bucket is deleted within 5 minutes)',
  });
  // With forceDelete, a bucket AWS has not emptied yet.
  const aws2 = new FakeAws();
  const forced = new Resource(aws2, { bucketName: 'full', deletionPolicy: 'Delete', forceDelete: true });
  await forced.sync();
  aws2.deleteBucket = async () => 'notEmpty';
  t.match(finalized(await forced.finalize()), { reason: 'BucketNotEmpty', message: 'emptying bucket full' });
  // IAM has not let the user go yet.
  const aws3 = new FakeAws();
  const slow = new Resource(aws3, { bucketName: 'bkt-b' });
  await slow.sync();
  aws3.deletesUsers = false;
  const w = await slow.finalize();
  t.equal(w.finalized, false);
  t.same(w.children, []);
  t.match(finalized(w), { status: 'False', reason: 'Deleting', message: 'waiting for AWS to confirm the deletions' });
});

t.test('finalize when AWS fails: nothing claimed, asked again, later when throttled', async (t) => {
  for (const [code, reason, retry] of [
    ['Throttling', 'Throttled', RETRY_SECONDS.throttled],
    ['InternalError', 'AWSError', RETRY_SECONDS.failure],
  ] as const) {
    const aws = new FakeAws();
    const r = new Resource(aws, { bucketName: 'bkt-b', deletionPolicy: 'Delete' });
    await r.sync();
    aws.getUser = async () => {
      throw new AwsError(code, 'no', 'GetUser');
    };
    const res = await r.finalize();
    t.equal(res.finalized, false, code);
    t.equal(res.resyncAfterSeconds, retry, code);
    t.match(finalized(res), { status: 'False', reason, message: `GetUser: ${code}: no` });
    t.ok(aws.buckets.has('bkt-b'), 'the bucket is kept');
  }
});

t.test('a sync that fails: throttling waits longer than other failures; each failure said plainly', async (t) => {
  const failing = async (err: unknown) => {
    const aws = new FakeAws();
    const r = new Resource(aws, { bucketName: 'bkt-b' });
    aws.findBucket = async () => {
      throw err;
    };
    return r.sync();
  };
  const throttled = await failing(new AwsError('SlowDown', 'slow', 'HeadBucket'));
  t.equal(throttled.resyncAfterSeconds, RETRY_SECONDS.throttled);
  const other = await failing(new AwsError('InternalError', 'oops', 'HeadBucket'));
  t.equal(other.resyncAfterSeconds, RETRY_SECONDS.failure);
  t.match(ready(other), { reason: 'AWSError', message: /HeadBucket: InternalError: oops/ });
  const aborted = await failing(new AwsError('AbortError', 'aborted', 'HeadBucket'));
  t.match(ready(aborted), { reason: 'Unreachable', message: /HeadBucket: no answer within the deadline/ });
  t.notMatch(ready(aborted).message, /aborted/);
  const plain = await failing(new Error('connect ECONNREFUSED 127.0.0.1:443'));
  t.match(ready(plain), { reason: 'Unreachable', message: /connect ECONNREFUSED/ });
  const thrown = await failing('a string thrown');
  t.match(ready(thrown), { reason: 'AWSError', message: /a string thrown/ });
  t.equal(reasonOf(new AwsError('ResponseTooLarge', 'big', 'ListBuckets')), 'ResponseTooLarge');
  t.equal(reasonOf(undefined), 'AWSError');
  t.equal(reasonOf(null), 'AWSError');
});

t.test(
  'the spec: a bucket name AWS refuses, a KMS key without SSE-KMS, a tag that is not a string, whatever its key',
  async (t) => {
    const invalid = async (spec: Record<string, unknown>) => {
      const aws = new FakeAws();
      const res = await new Resource(aws, spec).sync();
      t.same(aws.calls, [], 'nothing done in AWS');
      return ready(res);
    };
    t.match(await invalid({ bucketName: 'my..bucket' }), {
      reason: 'InvalidSpec',
      message: /^spec.bucketName "my..bucket" /,
    });
    const key = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    t.match(await invalid({ bucketName: 'good-name', encryption: { type: 'SSE-S3', kmsKeyId: key } }), {
      reason: 'InvalidSpec',
      message: 'spec.encryption.kmsKeyId is only used with type SSE-KMS',
    });
    t.match(await invalid({ bucketName: 'good-name', tags: JSON.parse('{"team": "a", "__proto__": 5}') }), {
      reason: 'InvalidSpec',
      message: 'spec.tags.__proto__ is 5: expected string',
    });
    // Tags that are strings go to the bucket with the owner's.
    const aws = new FakeAws();
    await new Resource(aws, { bucketName: 'tagged', tags: { team: 'a' } }).sync();
    t.same(Object.fromEntries(aws.buckets.get('tagged')!.tags), {
      team: 'a',
      [OWNER_TAG]: 'ns/app',
      [OWNER_UID_TAG]: 'uid-app',
    });
  },
);

t.test('a bucket made by an earlier resource of this name, without a UID tag, is refused and said so', async (t) => {
  const aws = new FakeAws();
  aws.buckets.set('old', { region: 'us-east-1', tags: new Map([[OWNER_TAG, 'ns/app']]), objects: 0 });
  const res = await new Resource(aws, { bucketName: 'old' }).sync();
  t.match(ready(res), {
    status: 'False',
    message:
      /bucket old was made by an earlier S3 resource named ns\/app \(uid unknown\), not this one; to hand it over, set its tag/,
  });
});

t.test('the AWS client is made once per server, on first use', async (t) => {
  const clients = s3Clients();
  const first = clients.aws();
  t.equal(clients.aws(), first, 'the same client');
  t.ok(typeof (await first).withDeadline === 'function');
  t.not(s3Clients().aws(), first, 'another server, another client');
});

t.test('finalize: several buckets waiting or left alone are each named; a resource that made nothing', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine', deletionPolicy: 'Delete' });
  await r.sync();
  // A bucket this resource made before a rename, recorded in its status, and as full as the current one.
  aws.buckets.set('older', { region: 'us-east-1', tags: new Map(OURS), objects: 1 });
  aws.buckets.get('mine')!.objects = 1;
  r.status = { ...r.status, createdBuckets: ['mine', 'older'] };
  t.match(finalized(await r.finalize()), { message: /^bucket mine, older is not empty and forceDelete is false/ });
  // With forceDelete, while AWS empties them.
  const deleteBucket = aws.deleteBucket.bind(aws);
  aws.deleteBucket = async () => 'notEmpty';
  r.spec = { ...r.spec, forceDelete: true };
  t.match(finalized(await r.finalize()), { message: 'emptying bucket mine, older' });
  aws.deleteBucket = deleteBucket;
  r.spec = { ...r.spec, forceDelete: false };
  const other = new Map([[OWNER_UID_TAG, 'someone-else']]);
  aws.buckets.get('mine')!.tags = other;
  aws.buckets.get('older')!.tags = other;
  t.match(finalized(await r.finalize()), { message: /; mine, older left alone: its tags name another owner$/ });

  // Retain, and no bucket was ever made (the first sync failed before it): retained, with nothing to name.
  const nothing = new Resource(new FakeAws(), { bucketName: 'never-made' });
  const n = await nothing.finalize();
  t.equal(n.finalized, true);
  t.same(finalized(n), {
    type: 'Finalized',
    status: 'True',
    reason: 'BucketRetained',
    message: 'access keys, policy and user deleted',
    lastTransitionTime: finalized(n).lastTransitionTime,
    observedGeneration: 1,
  });
});

t.test('finalize with a spec that no longer validates keeps every bucket (Retain, no forceDelete)', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine', deletionPolicy: 'Delete', forceDelete: true });
  await r.sync();
  aws.buckets.get('mine')!.objects = 3;
  r.spec = { ...r.spec, bucketName: 'NOT VALID' };
  const res = await r.finalize();
  t.equal(res.finalized, true);
  t.ok(aws.buckets.has('mine'));
  t.match(finalized(res), { reason: 'BucketRetained', message: /bucket mine retained/ });
});

t.test('the status is read for what it holds: strings where strings are expected, at most 100 buckets', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  await r.sync();
  const many = Array.from({ length: 150 }, (_, i) => `kept-${String(i).padStart(3, '0')}`);
  r.status = { ...r.status, retainedBuckets: many, region: 5, bucketName: 'mine', createdBuckets: ['mine'] };
  aws.hints.length = 0;
  await r.sync();
  t.same(aws.hints, [undefined], 'a region that is not a string is no hint');
  const done = await r.finalize();
  t.equal((done.status as any).retainedBuckets.length, 101, 'the first 100 of the status, and this one');
});

t.test('a policy document AWS answers that is not JSON is written again', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  await r.sync();
  aws.policyDocument = async () => 'not json {';
  aws.calls.length = 0;
  await r.sync();
  t.ok(
    aws.calls.some((c) => c.startsWith('setPolicyDocument ')),
    'the policy is set again',
  );
});

t.test('an AWS failure that is not even an error value is said, not a crash', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  aws.findBucket = async () => {
    throw undefined;
  };
  const res = await r.sync();
  t.match(ready(res), { status: 'False', reason: 'AWSError', message: /undefined/ });
});

t.test('finalize asks IAM for a policy only when it knows its ARN', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  await r.sync();
  aws.users.clear();
  r.status = { ...r.status, policyArn: undefined };
  // As IAM does: GetPolicy without an ARN is a validation error.
  aws.getPolicy = async (arn: string) => {
    if (typeof arn !== 'string') throw new AwsError('ValidationError', 'PolicyArn is required', 'GetPolicy');
    return undefined;
  };
  const res = await r.finalize();
  t.equal(res.finalized, true);
});

t.test('a parent without a UID or namespace (a hand-made request) is owned as default/<name>', async (t) => {
  const aws = new FakeAws();
  const r = new Resource(aws, { bucketName: 'mine' });
  const request = r.request();
  delete (request.parent.metadata as any).uid;
  delete (request.parent.metadata as any).namespace;
  await sync(request, aws, aws.now);
  t.same(Object.fromEntries(aws.buckets.get('mine')!.tags), {
    [OWNER_TAG]: 'default/app',
    [OWNER_UID_TAG]: 'default/app',
  });
});
