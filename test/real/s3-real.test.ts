// The S3 controller against a real S3/IAM-compatible server (moto, IAM enforced), driven as Metacontroller
// would: the Secret the hook answers with is what the next sync observes.
import {
  GetBucketEncryptionCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  GetPublicAccessBlockCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { GetUserCommand, IAMClient, ListAccessKeysCommand, ListAttachedUserPoliciesCommand } from '@aws-sdk/client-iam';
import t from 'tap';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import { userName } from '../../hooks/s3/policy.js';
import { KEY_GRACE_SECONDS } from '../../hooks/s3/sync.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { adminClients, startMoto, type Moto } from '../fixtures/moto.js';
import { s3Request } from '../fixtures/s3.js';

let moto: Moto;
let aws: SdkAwsApi;
let admin: { s3: S3Client; iam: IAMClient };

t.before(async () => {
  moto = await startMoto();
  aws = new SdkAwsApi({ endpoint: moto.endpoint, region: moto.region, credentials: moto.admin });
  admin = adminClients(moto);
});
t.teardown(() => moto?.stop());

/** An S3 resource and the Metacontroller loop around it. */
class Resource {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  generation = 1;
  constructor(
    readonly name: string,
    public spec: Record<string, unknown>,
    readonly namespace = 'team-a',
  ) {}
  request(): CompositeSyncRequest {
    return s3Request(
      { name: this.name, namespace: this.namespace, uid: `uid-${this.name}`, generation: this.generation },
      this.spec,
      { status: this.status, children: this.children },
    );
  }
  /** Seconds added to the clock the hook is given (a sync that runs later). */
  later = 0;
  async sync(): Promise<CompositeSyncResponse> {
    const res = await sync(this.request(), aws.withDeadline(7000), new Date(Date.now() + this.later * 1000));
    this.status = res.status ?? undefined;
    this.children = res.children;
    return res;
  }
  async finalize(): Promise<CompositeSyncResponse> {
    const res = await finalize(this.request(), aws.withDeadline(7000), new Date());
    this.status = res.status ?? undefined;
    this.children = res.children;
    return res;
  }
  secret(): Record<string, string> {
    const s = this.children.find((c) => c.kind === 'Secret') as any;
    return Object.fromEntries(
      Object.entries(s?.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()]),
    );
  }
  clientOf(): S3Client {
    const s = this.secret();
    return new S3Client({
      endpoint: s['AWS_ENDPOINT_URL'],
      region: s['AWS_REGION'],
      forcePathStyle: true,
      credentials: { accessKeyId: s['AWS_ACCESS_KEY_ID']!, secretAccessKey: s['AWS_SECRET_ACCESS_KEY']! },
    });
  }
}

const cond = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);
const keysOf = async (user: string) =>
  ((await admin.iam.send(new ListAccessKeysCommand({ UserName: user }))).AccessKeyMetadata ?? []).map(
    (k) => k.AccessKeyId,
  );
const bucketExists = (b: string) =>
  admin.s3.send(new HeadBucketCommand({ Bucket: b })).then(
    () => true,
    () => false,
  );

t.test('create: bucket, user, policy, key and Secret; the key works on its bucket only', async (t) => {
  await admin.s3.send(new (await import('@aws-sdk/client-s3')).CreateBucketCommand({ Bucket: 'someone-elses-bucket' }));
  const r = new Resource('photos', { bucketName: 'metaops-photos', tags: { team: 'a' }, versioning: true });
  const res = await r.sync();
  t.match(cond(res, 'Ready'), { status: 'True', reason: 'Available' });
  const s = res.status as any;
  t.equal(s.bucketName, 'metaops-photos');
  t.equal(s.arn, 'arn:aws:s3:::metaops-photos');
  const photosUser = userName('team-a', 'photos', 'uid-photos');
  t.match(s.iamUser, /^metaops-team-a-photos-[0-9a-f]{12}$/);
  t.equal(s.iamUser, photosUser);
  t.equal(s.policyArn, `arn:aws:iam::<account>:policy/${photosUser}`, "the operator's account is not shown");
  const secret = r.secret();
  t.same(Object.keys(secret).sort(), [
    'AWS_ACCESS_KEY_ID',
    'AWS_ENDPOINT_URL',
    'AWS_REGION',
    'AWS_SECRET_ACCESS_KEY',
    'BUCKET_NAME',
  ]);
  t.equal(secret['BUCKET_NAME'], 'metaops-photos');
  t.equal((res.children[0] as any).metadata.name, 'photos-credentials');
  const attached = await admin.iam.send(new ListAttachedUserPoliciesCommand({ UserName: photosUser }));
  t.same(
    attached.AttachedPolicies?.map((p) => p.PolicyArn),
    [`arn:aws:iam::123456789012:policy/${photosUser}`],
  );

  // The settings.
  t.equal((await admin.s3.send(new GetBucketVersioningCommand({ Bucket: 'metaops-photos' }))).Status, 'Enabled');
  const tags = (await admin.s3.send(new GetBucketTaggingCommand({ Bucket: 'metaops-photos' }))).TagSet ?? [];
  t.same(Object.fromEntries(tags.map((x) => [x.Key, x.Value])), {
    team: 'a',
    'metaops.dev/owner': 'team-a/photos',
    'metaops.dev/owner-uid': 'uid-photos',
  });
  const pab = (await admin.s3.send(new GetPublicAccessBlockCommand({ Bucket: 'metaops-photos' })))
    .PublicAccessBlockConfiguration;
  t.match(pab, { BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true });
  const enc = await admin.s3.send(new GetBucketEncryptionCommand({ Bucket: 'metaops-photos' }));
  t.equal(
    enc.ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault?.SSEAlgorithm,
    'AES256',
  );

  // Least privilege, for real: objects in its bucket work, another bucket is denied.
  const client = r.clientOf();
  await client.send(new PutObjectCommand({ Bucket: 'metaops-photos', Key: 'cat.jpg', Body: 'meow' }));
  const got = await client.send(new GetObjectCommand({ Bucket: 'metaops-photos', Key: 'cat.jpg' }));
  t.equal(await got.Body!.transformToString(), 'meow');
  await t.rejects(client.send(new PutObjectCommand({ Bucket: 'someone-elses-bucket', Key: 'x', Body: 'y' })), {
    name: 'AccessDenied',
  });
  await t.rejects(client.send(new GetObjectCommand({ Bucket: 'someone-elses-bucket', Key: 'x' })), {
    name: 'AccessDenied',
  });

  // Resync: the same key, the same Secret, no new key.
  const before = r.children;
  for (let i = 0; i < 3; i++) await r.sync();
  t.same(r.children, before, 'resync: same Secret');
  t.same(await keysOf(photosUser), [secret['AWS_ACCESS_KEY_ID']], 'one key');

  // Secret lost: a new key, the old one deleted, once the key is older than the grace period (before, the
  // Secret may only be missing from Metacontroller's cache: s3-keys.test.ts).
  r.children = [];
  r.later = KEY_GRACE_SECONDS + 1;
  const rotated = await r.sync();
  const newId = r.secret()['AWS_ACCESS_KEY_ID'];
  t.not(newId, secret['AWS_ACCESS_KEY_ID']);
  t.same(await keysOf(photosUser), [newId], 'the old key is gone');
  t.match(cond(rotated, 'Ready'), { status: 'True' });
  const reader = r.clientOf();
  const again = await reader.send(new GetObjectCommand({ Bucket: 'metaops-photos', Key: 'cat.jpg' }));
  t.equal(await again.Body!.transformToString(), 'meow', 'the new key works');
});

t.test('rename: the new bucket is created; Retain keeps the old one and says so', async (t) => {
  const r = new Resource('docs', { bucketName: 'metaops-docs-v1' });
  await r.sync();
  r.spec = { bucketName: 'metaops-docs-v2' };
  r.generation++;
  const res = await r.sync();
  t.equal((res.status as any).bucketName, 'metaops-docs-v2');
  t.ok(await bucketExists('metaops-docs-v2'));
  t.ok(await bucketExists('metaops-docs-v1'), 'Retain keeps the old bucket');
  t.same((res.status as any).retainedBuckets, ['metaops-docs-v1']);
  t.equal(r.secret()['BUCKET_NAME'], 'metaops-docs-v2');
  const client = r.clientOf();
  await client.send(new PutObjectCommand({ Bucket: 'metaops-docs-v2', Key: 'a', Body: 'b' }));
  await t.rejects(
    client.send(new PutObjectCommand({ Bucket: 'metaops-docs-v1', Key: 'a', Body: 'b' })),
    { name: 'AccessDenied' },
    'the policy moved with the name',
  );
});

t.test('rename with Delete removes the old bucket', async (t) => {
  const r = new Resource('tmp', { bucketName: 'metaops-tmp-v1', deletionPolicy: 'Delete' });
  await r.sync();
  r.spec = { bucketName: 'metaops-tmp-v2', deletionPolicy: 'Delete' };
  await r.sync();
  t.notOk(await bucketExists('metaops-tmp-v1'));
  t.ok(await bucketExists('metaops-tmp-v2'));
});

t.test('delete with Retain: keys, policy and user go, the bucket stays', async (t) => {
  const r = new Resource('keep', { bucketName: 'metaops-keep' });
  await r.sync();
  const res = await r.finalize();
  t.equal(res.finalized, true);
  t.match((res.status as any).conditions[0], { reason: 'BucketRetained', message: /retained/ });
  t.ok(await bucketExists('metaops-keep'));
  await t.rejects(admin.iam.send(new GetUserCommand({ UserName: userName('team-a', 'keep', 'uid-keep') })), {
    name: 'NoSuchEntity',
  });
  t.same(res.children, [], 'the Secret goes too');
});

t.test('delete with Delete: a non-empty bucket needs forceDelete', async (t) => {
  const r = new Resource('gone', { bucketName: 'metaops-gone', deletionPolicy: 'Delete' });
  await r.sync();
  await r.clientOf().send(new PutObjectCommand({ Bucket: 'metaops-gone', Key: 'data', Body: 'precious' }));
  const refused = await r.finalize();
  t.equal(refused.finalized, false);
  t.match((refused.status as any).conditions[0], { reason: 'BucketNotEmpty' });
  t.ok(await bucketExists('metaops-gone'), 'data is never lost without forceDelete');
  r.spec = { ...r.spec, forceDelete: true };
  const res = await r.finalize();
  t.equal(res.finalized, true);
  t.notOk(await bucketExists('metaops-gone'));
});

t.test('a bucket another resource owns: BucketAlreadyExists, nothing touched', async (t) => {
  const a = new Resource('first', { bucketName: 'metaops-shared' }, 'team-a');
  await a.sync();
  const b = new Resource('second', { bucketName: 'metaops-shared' }, 'team-b');
  const res = await b.sync();
  t.match(cond(res, 'Ready'), {
    status: 'False',
    reason: 'BucketAlreadyExists',
    message: /bucket metaops-shared belongs to another S3 resource/,
  });
  t.notMatch(cond(res, 'Ready')['message'], /team-a|first/, "the owner's namespace and name are not told");
  t.equal(res.resyncAfterSeconds, 30);
  t.same(res.children, []);
  await t.rejects(admin.iam.send(new GetUserCommand({ UserName: userName('team-b', 'second', 'uid-second') })), {
    name: 'NoSuchEntity',
  });
});

t.test('an invalid name: InvalidSpec, nothing created', async (t) => {
  const r = new Resource('bad', { bucketName: 'Bad_Name' });
  const res = await r.sync();
  t.match(cond(res, 'Ready'), { status: 'False', reason: 'InvalidSpec', message: /bucketName/ });
  await t.rejects(admin.iam.send(new GetUserCommand({ UserName: userName('team-a', 'bad', 'uid-bad') })), {
    name: 'NoSuchEntity',
  });
  const ip = new Resource('ip', { bucketName: '192.168.1.1' });
  t.match(cond(await ip.sync(), 'Ready'), { reason: 'InvalidSpec', message: /IP address/ });
});

t.test('AWS refusing the operator: AccessDenied condition, the Secret kept, a backoff', async (t) => {
  const r = new Resource('denied', { bucketName: 'metaops-denied' });
  await r.sync();
  const secretBefore = r.children;
  const weak = new SdkAwsApi({
    endpoint: moto.endpoint,
    region: moto.region,
    credentials: { accessKeyId: 'AKIDNOTREAL', secretAccessKey: 'nope' },
  });
  const res = await sync(r.request(), weak, new Date());
  t.match(cond(res, 'Ready'), { status: 'False', reason: 'AccessDenied' });
  t.equal(res.resyncAfterSeconds, 30);
  t.same(
    res.children.map((c) => c.metadata.name),
    secretBefore.map((c) => c.metadata.name),
    'nothing already created is deleted',
  );
});

t.test('a server that stops answering: the hook answers within its deadline', async (t) => {
  const r = new Resource('slow', { bucketName: 'metaops-slow' });
  await r.sync();
  moto.pause();
  const started = Date.now();
  try {
    const res = await r.sync();
    const took = Date.now() - started;
    t.ok(took < 9000, `answered in ${took} ms, below the 10 s webhook timeout`);
    t.match(cond(res, 'Ready'), { status: 'False', reason: 'Unreachable' });
    t.equal(res.children.length, 1, 'the Secret is kept');
  } finally {
    moto.resume();
  }
});
