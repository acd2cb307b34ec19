// The S3 controller's safety against moto, with a stand-in in front of it that behaves as S3 does about
// regions (a call sent to the wrong region is answered 301 PermanentRedirect; CreateBucket must be sent to the
// region it names) and that can answer hostile, huge bodies. Each test is one case of docs/s3-failures.md.
import {
  CreateBucketCommand,
  GetBucketLocationCommand,
  GetBucketTaggingCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutBucketTaggingCommand,
  PutObjectCommand,
  S3Client,
  DeleteObjectCommand,
} from '@aws-sdk/client-s3';
import {
  CreateUserCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetUserCommand,
  IAMClient,
  ListAccessKeysCommand,
} from '@aws-sdk/client-iam';
import t from 'tap';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import { userName, type KmsAllowlist } from '../../hooks/s3/policy.js';
import { KEY_GRACE_SECONDS } from '../../hooks/s3/sync.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { adminClients, motoProxy, startMoto, type Moto, type MotoProxy } from '../fixtures/moto.js';
import { s3Request } from '../fixtures/s3.js';

let moto: Moto;
let standIn: MotoProxy;
let admin: { s3: S3Client; iam: IAMClient };
/** What the stand-in does beyond S3's region rules: answer this many bytes to the next IAM call. */
let hostile: { bytes: number } | undefined;
/** When set, GetBucketLocation answers this instead of the truth. */
let wrongLocation: string | undefined;
const redirects: string[] = [];

/** The region a SigV4 request was signed for, and the service: Credential=<key>/<date>/<region>/<service>/aws4_request. */
function signed(auth: string | undefined): { region: string; service: string } | undefined {
  const m = /Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(auth ?? '');
  return m ? { region: m[1]!, service: m[2]! } : undefined;
}

t.before(async () => {
  moto = await startMoto();
  admin = adminClients(moto);
  standIn = await motoProxy(moto, async (req, res, body, forward) => {
    const sig = signed(req.headers.authorization);
    const url = new URL(req.url ?? '/', 'http://x');
    if (hostile && sig?.service === 'iam') {
      const bytes = hostile.bytes;
      hostile = undefined;
      res.writeHead(200, { 'content-type': 'text/xml' });
      // No content-length: the body streams, as a hostile server would send it.
      const chunk = Buffer.alloc(64 * 1024, 'a');
      for (let sent = 0; sent < bytes && !res.destroyed; sent += chunk.length) {
        if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      }
      res.end();
      return;
    }
    const bucket = url.pathname.split('/')[1];
    if (wrongLocation !== undefined && url.searchParams.has('location')) {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${wrongLocation}</LocationConstraint>`,
      );
      return;
    }
    if (sig?.service === 's3' && bucket) {
      const isCreate =
        req.method === 'PUT' && /^\/[^/]+\/?$/.test(url.pathname) && [...url.searchParams.keys()].length === 0;
      if (isCreate) {
        const location = /<LocationConstraint>([^<]*)<\/LocationConstraint>/.exec(body.toString())?.[1] || 'us-east-1';
        if (location !== sig.region) {
          res.writeHead(400, { 'content-type': 'application/xml' });
          res.end(
            `<Error><Code>IllegalLocationConstraintException</Code><Message>The ${location} location constraint is incompatible for the region specific endpoint this request was sent to.</Message></Error>`,
          );
          return;
        }
      } else if (!url.searchParams.has('location')) {
        const region = await admin.s3.send(new GetBucketLocationCommand({ Bucket: bucket })).then(
          (r) => r.LocationConstraint || 'us-east-1',
          () => undefined,
        );
        if (region && region !== sig.region) {
          redirects.push(`${req.method} ${bucket} ${sig.region}`);
          res.writeHead(301, { 'content-type': 'application/xml', 'x-amz-bucket-region': region });
          res.end(
            req.method === 'HEAD'
              ? undefined
              : `<Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.</Message><Bucket>${bucket}</Bucket></Error>`,
          );
          return;
        }
      }
    }
    forward();
  });
});
t.teardown(async () => {
  standIn?.close();
  await moto?.stop();
});

/** A new AWS client through the stand-in: nothing remembered (regions), every call recorded. */
const newAws = (options: { maxResponseBytes?: number } = {}) =>
  new SdkAwsApi({
    endpoint: standIn.endpoint,
    region: 'us-east-1',
    credentials: moto.admin,
    recordCalls: true,
    requestTimeoutMs: 3000,
    ...options,
  });

/** An S3 resource and the Metacontroller loop around it. */
class Resource {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  aws = newAws();
  later = 0;
  /** The server's KMS allowlist (METAOPS_KMS_KEY_ALLOWLIST). */
  kms: KmsAllowlist = [];
  constructor(
    readonly name: string,
    public spec: Record<string, unknown>,
    readonly namespace = 'default',
    readonly uid = `uid-${namespace}/${name}`,
  ) {}
  request(): CompositeSyncRequest {
    return s3Request({ name: this.name, namespace: this.namespace, uid: this.uid }, this.spec, {
      status: this.status,
      children: this.children,
    });
  }
  private now() {
    return new Date(Date.now() + this.later * 1000);
  }
  async sync(): Promise<CompositeSyncResponse> {
    const res = await sync(this.request(), this.aws.withDeadline(7000), this.now(), { kms: this.kms });
    this.status = res.status ?? undefined;
    this.children = res.children;
    return res;
  }
  async finalize(): Promise<CompositeSyncResponse> {
    const res = await finalize(this.request(), this.aws.withDeadline(7000), this.now());
    this.status = res.status ?? undefined;
    this.children = res.children;
    return res;
  }
  get user() {
    return userName(this.namespace, this.name, this.uid);
  }
  secret(): Record<string, string> {
    const s = this.children.find((c) => c.kind === 'Secret') as any;
    return Object.fromEntries(
      Object.entries(s?.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()]),
    );
  }
  client(): S3Client {
    const s = this.secret();
    return new S3Client({
      endpoint: moto.endpoint,
      region: s['AWS_REGION'],
      forcePathStyle: true,
      credentials: { accessKeyId: s['AWS_ACCESS_KEY_ID']!, secretAccessKey: s['AWS_SECRET_ACCESS_KEY']! },
    });
  }
}

const cond = (res: CompositeSyncResponse, type: string) =>
  (res.status as any)?.conditions?.find((c: any) => c.type === type);
const exists = (b: string) =>
  admin.s3.send(new HeadBucketCommand({ Bucket: b })).then(
    () => true,
    () => false,
  );
const objectExists = (b: string, k: string) =>
  admin.s3.send(new HeadObjectCommand({ Bucket: b, Key: k })).then(
    () => true,
    () => false,
  );
const tagsOf = async (b: string) =>
  Object.fromEntries(
    ((await admin.s3.send(new GetBucketTaggingCommand({ Bucket: b })).catch(() => ({ TagSet: [] }))).TagSet ?? []).map(
      (x) => [x.Key, x.Value],
    ),
  );
const keysOf = async (user: string) =>
  ((await admin.iam.send(new ListAccessKeysCommand({ UserName: user }))).AccessKeyMetadata ?? []).map(
    (k) => k.AccessKeyId,
  );
const userExists = (u: string) =>
  admin.iam.send(new GetUserCommand({ UserName: u })).then(
    () => true,
    () => false,
  );
async function foreignBucket(name: string, tags?: Record<string, string>) {
  await admin.s3.send(new CreateBucketCommand({ Bucket: name }));
  await admin.s3.send(new PutObjectCommand({ Bucket: name, Key: 'precious', Body: 'data' }));
  if (tags)
    await admin.s3.send(
      new PutBucketTaggingCommand({
        Bucket: name,
        Tagging: { TagSet: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) },
      }),
    );
}

t.test("another owner's bucket survives sync and finalize with Delete and forceDelete", async (t) => {
  await foreignBucket('their-tagged-bucket', {
    'metaops.dev/owner': 'other/app',
    'metaops.dev/owner-uid': 'uid-other',
  });
  await foreignBucket('their-untagged-bucket');
  for (const bucket of ['their-tagged-bucket', 'their-untagged-bucket']) {
    const r = new Resource(`grab-${bucket}`, { bucketName: bucket, deletionPolicy: 'Delete', forceDelete: true });
    const res = await r.sync();
    t.match(cond(res, 'Ready'), { status: 'False', reason: 'BucketAlreadyExists' }, `${bucket}: refused`);
    t.notOk((res.status as any).bucketName, 'not recorded as this resource’s');
    const done = await r.finalize();
    t.equal(done.finalized, true, 'the resource can go');
    t.ok(await objectExists(bucket, 'precious'), `${bucket}: the other owner's data survives finalize`);
    t.notOk(await userExists(r.user), 'no IAM user was made for a refused bucket');
  }
  t.same(await tagsOf('their-untagged-bucket'), {}, 'not even tagged');
});

t.test('a forged status adopts nothing and deletes nothing', async (t) => {
  await foreignBucket('victim-bucket');
  // status.bucketName pointed at an untagged bucket used to make the hook take it over.
  const thief = new Resource('thief', { bucketName: 'victim-bucket', deletionPolicy: 'Delete', forceDelete: true });
  thief.status = { bucketName: 'victim-bucket', createdBuckets: ['victim-bucket'] };
  t.match(cond(await thief.sync(), 'Ready'), { reason: 'BucketAlreadyExists' });
  t.same(await tagsOf('victim-bucket'), {}, 'not adopted');
  thief.status = { bucketName: 'victim-bucket', createdBuckets: ['victim-bucket'] };
  t.equal((await thief.finalize()).finalized, true);
  t.ok(await objectExists('victim-bucket', 'precious'), 'finalize re-checks the tag: not deleted');

  // A rename away from a forged "created" bucket, with Delete: the tag check keeps it.
  const renamer = new Resource('renamer', { bucketName: 'renamer-own', deletionPolicy: 'Delete', forceDelete: true });
  renamer.status = { bucketName: 'victim-bucket', createdBuckets: ['victim-bucket'] };
  const res = await renamer.sync();
  t.match(cond(res, 'Ready'), { status: 'True' });
  t.ok(await objectExists('victim-bucket', 'precious'), 'the rename path re-checks the tag: not deleted');
  t.notOk(((res.status as any).createdBuckets ?? []).includes('victim-bucket'), 'and forgets it as ours');
});

t.test('tenants whose names join alike do not collide', async (t) => {
  const a = new Resource('a-prod', { bucketName: 'tenant-team-a-prod', deletionPolicy: 'Delete' }, 'team');
  const b = new Resource('prod', { bucketName: 'tenant-team-a--prod', deletionPolicy: 'Delete' }, 'team-a');
  t.match(cond(await a.sync(), 'Ready'), { status: 'True' });
  const aKey = a.secret()['AWS_ACCESS_KEY_ID'];
  t.match(cond(await b.sync(), 'Ready'), { status: 'True' });
  t.not(a.user, b.user, 'different IAM users');
  t.not((a.status as any).policyArn, (b.status as any).policyArn, 'different policies');
  t.same(await keysOf(a.user), [aKey], "b's sync left a's key alone");
  await a.client().send(new PutObjectCommand({ Bucket: 'tenant-team-a-prod', Key: 'k', Body: 'v' }));
  t.equal((await b.finalize()).finalized, true);
  t.ok(await userExists(a.user), "b's delete left a's user alone");
  await t.resolves(
    a.client().send(new PutObjectCommand({ Bucket: 'tenant-team-a-prod', Key: 'k2', Body: 'v' })),
    "a's key still works",
  );

  // An IAM user that has the name but another owner's tags is refused, never changed or deleted.
  const c = new Resource('squat', { bucketName: 'tenant-squat' }, 'team-c');
  await admin.iam.send(
    new CreateUserCommand({ UserName: c.user, Tags: [{ Key: 'metaops.dev/owner-uid', Value: 'someone-else' }] }),
  );
  const res = await c.sync();
  t.match(cond(res, 'Ready'), { status: 'False', reason: 'IAMNameTaken' });
  t.same(await keysOf(c.user), [], 'no key made for it');
  t.equal((await c.finalize()).finalized, true);
  t.ok(await userExists(c.user), 'and finalize does not delete it');
});

t.test('a re-created resource does not take over the retained bucket', async (t) => {
  const first = new Resource('again', { bucketName: 'recreated-bucket' }, 'default', 'uid-first');
  await first.sync();
  await first.client().send(new PutObjectCommand({ Bucket: 'recreated-bucket', Key: 'precious', Body: 'data' }));
  t.equal((await first.finalize()).finalized, true);
  const second = new Resource(
    'again',
    { bucketName: 'recreated-bucket', deletionPolicy: 'Delete', forceDelete: true },
    'default',
    'uid-second',
  );
  const res = await second.sync();
  t.match(cond(res, 'Ready'), {
    status: 'False',
    reason: 'BucketAlreadyExists',
    message: /earlier S3 resource.*metaops.dev\/owner-uid to uid-second/,
  });
  t.equal((await second.finalize()).finalized, true);
  t.ok(await objectExists('recreated-bucket', 'precious'), 'the retained bucket survives');
});

t.test('status lost: the bucket is recognised by its tag, nothing re-created', async (t) => {
  const r = new Resource('amnesia', { bucketName: 'amnesia-bucket' });
  await r.sync();
  const before = r.status as any;
  r.status = undefined;
  r.aws = newAws();
  const res = await r.sync();
  t.match(cond(res, 'Ready'), { status: 'True' });
  t.same((res.status as any).createdBuckets, ['amnesia-bucket']);
  t.equal((res.status as any).accessKeyId, before.accessKeyId, 'the same key');
  t.notOk(
    r.aws.sent!.some((c) => /^Create/.test(c)),
    `nothing created: ${r.aws.sent!.join(' ')}`,
  );
});

t.test('a bucket from before the UID tag: taken when the status names it, refused otherwise', async (t) => {
  await foreignBucket('legacy-bucket', { 'metaops.dev/owner': 'default/legacy' });
  const stranger = new Resource('legacy', { bucketName: 'legacy-bucket' });
  t.match(cond(await stranger.sync(), 'Ready'), { reason: 'BucketAlreadyExists' }, 'no status: not taken');
  const r = new Resource('legacy', { bucketName: 'legacy-bucket' });
  r.status = { bucketName: 'legacy-bucket' };
  t.match(cond(await r.sync(), 'Ready'), { status: 'True' });
  t.equal((await tagsOf('legacy-bucket'))['metaops.dev/owner-uid'], r.uid, 'the UID tag is added');
});

t.test('a bucket tagged by name only (an older metaops) is never emptied or deleted on a forged status', async (t) => {
  await foreignBucket('retained-legacy', { 'metaops.dev/owner': 'default/reborn' });
  // A new resource of the same namespace/name, whose status claims it created the bucket, finalized with Delete.
  const reborn = new Resource('reborn', {
    bucketName: 'other-bucket-of-reborn',
    deletionPolicy: 'Delete',
    forceDelete: true,
  });
  reborn.status = { bucketName: 'retained-legacy', createdBuckets: ['retained-legacy'] };
  t.equal((await reborn.finalize()).finalized, true, 'the resource can go');
  t.ok(await objectExists('retained-legacy', 'precious'), 'finalize deletes only under its own UID tag');
});

t.test(
  'the IAM user of an older metaops (named without the UID) is deleted when the Secret gets the new key',
  async (t) => {
    const legacyName = 'metaops-default-oldiam';
    await admin.iam.send(
      new CreateUserCommand({ UserName: legacyName, Tags: [{ Key: 'metaops.dev/owner', Value: 'default/oldiam' }] }),
    );
    const foreign = 'someone-elses-user';
    await admin.iam.send(
      new CreateUserCommand({ UserName: foreign, Tags: [{ Key: 'metaops.dev/owner', Value: 'default/other' }] }),
    );
    const r = new Resource('oldiam', { bucketName: 'oldiam-bucket' });
    r.status = { iamUser: legacyName };
    t.match(cond(await r.sync(), 'Ready'), { status: 'True' });
    t.notOk(await userExists(legacyName), 'deleted as the Secret gets the new user’s key');
    r.status = { ...r.status, iamUser: foreign };
    await r.sync();
    t.ok(await userExists(foreign), "a status naming another resource's user deletes nothing");
  },
);

t.test('a bucket in a second region is created, resynced and deleted, each call in its region', async (t) => {
  const r = new Resource('europe', {
    bucketName: 'europe-bucket',
    region: 'eu-west-1',
    deletionPolicy: 'Delete',
    forceDelete: true,
  });
  t.match(cond(await r.sync(), 'Ready'), { status: 'True' });
  t.equal(
    (await admin.s3.send(new GetBucketLocationCommand({ Bucket: 'europe-bucket' }))).LocationConstraint,
    'eu-west-1',
  );
  t.equal(r.secret()['AWS_REGION'], 'eu-west-1');
  await r.client().send(new PutObjectCommand({ Bucket: 'europe-bucket', Key: 'data', Body: 'x' }));
  const before = redirects.length;
  t.match(cond(await r.sync(), 'Ready'), { status: 'True' }, 'resync');
  t.equal(redirects.length, before, 'no call sent to the wrong region');

  // A fresh process (nothing remembered) and no region in spec: the bucket is found where it is.
  r.spec = { ...r.spec, region: undefined };
  r.aws = newAws();
  t.match(cond(await r.sync(), 'Ready'), { status: 'True' }, 'resync from a new process');
  t.equal((r.status as any).region, 'eu-west-1');
  r.aws = newAws();
  r.status = { ...r.status, region: 'us-west-2' };
  t.match(cond(await r.sync(), 'Ready'), { status: 'True' }, 'a wrong region in status costs one redirect');
  r.aws = newAws();
  const done = await r.finalize();
  t.equal(done.finalized, true, 'finalize in the right region');
  t.notOk(await exists('europe-bucket'));

  const wrong = new Resource('moved', { bucketName: 'europe-bucket-2', region: 'eu-west-1' });
  await wrong.sync();
  wrong.spec = { ...wrong.spec, region: 'us-west-2' };
  const res = await wrong.sync();
  t.match(cond(res, 'Ready'), { status: 'False', reason: 'RegionMismatch' }, 'a bucket cannot move');
  t.ok(await exists('europe-bucket-2'));
});

t.test('a nonsense region from AWS is refused: an error, nothing deleted', async (t) => {
  const r = new Resource('nonsense', { bucketName: 'nonsense-bucket', deletionPolicy: 'Delete', forceDelete: true });
  await r.sync();
  const secret = r.children;
  r.aws = newAws();
  r.status = { ...r.status, region: undefined };
  wrongLocation = '../../etc/passwd';
  try {
    const res = await r.sync();
    t.match(cond(res, 'Ready'), { status: 'False', reason: 'AWSError', message: /InvalidRegion/ });
    t.same(
      res.children.map((c) => c.metadata.name),
      secret.map((c) => c.metadata.name),
      'the Secret kept',
    );
    const held = await r.finalize();
    t.equal(held.finalized, false, 'finalize waits: the bucket cannot be found where AWS says');
  } finally {
    wrongLocation = undefined;
  }
  t.ok(await exists('nonsense-bucket'));
  r.aws = newAws();
  t.equal((await r.finalize()).finalized, true, 'and finishes once AWS makes sense');
});

t.test('rename with Delete: a non-empty old bucket stays listed with a condition until it is gone', async (t) => {
  const r = new Resource('mover', { bucketName: 'mover-v1', deletionPolicy: 'Delete' });
  await r.sync();
  await r.client().send(new PutObjectCommand({ Bucket: 'mover-v1', Key: 'data', Body: 'x' }));
  r.spec = { ...r.spec, bucketName: 'mover-v2' };
  for (let i = 0; i < 3; i++) {
    const res = await r.sync();
    t.same((res.status as any).createdBuckets, ['mover-v1', 'mover-v2'], `sync ${i}: still listed`);
    t.match(cond(res, 'OldBucketDeleted'), { status: 'False', reason: 'BucketNotEmpty', message: /mover-v1/ });
    t.ok(await exists('mover-v1'));
  }
  await admin.s3.send(new DeleteObjectCommand({ Bucket: 'mover-v1', Key: 'data' }));
  const res = await r.sync();
  t.notOk(await exists('mover-v1'), 'deleted once empty');
  t.same((res.status as any).createdBuckets, ['mover-v2']);
  t.notOk(cond(res, 'OldBucketDeleted'), 'the condition goes with it');
});

t.test('a converged resource makes only a few reads per resync, and the same answer', async (t) => {
  const r = new Resource('steady', { bucketName: 'steady-bucket', versioning: true, tags: { team: 'x' } });
  await r.sync();
  await r.sync();
  const first = r.status;
  r.aws.sent!.length = 0;
  const res = await r.sync();
  const calls = r.aws.sent!;
  t.ok(calls.length <= 9, `${calls.length} calls: ${calls.join(' ')}`);
  t.notOk(
    calls.some((c) => !/^(Get|List|Head)/.test(c)),
    'reads only',
  );
  t.same(res.status, first, 'quiet at rest: the same status');
});

t.test('no rotation in the race with the Secret', async (t) => {
  const r = new Resource('racy', { bucketName: 'racy-bucket' });
  await r.sync();
  const id = r.secret()['AWS_ACCESS_KEY_ID'];
  const secret = r.children;
  // Metacontroller's cache does not show the new Secret yet.
  r.children = [];
  const raced = await r.sync();
  t.match(cond(raced, 'Ready'), { status: 'False', reason: 'SecretPending' });
  t.same(raced.children, [], 'nothing to delete: the Secret was not observed');
  t.ok(raced.resyncAfterSeconds! <= KEY_GRACE_SECONDS + 1);
  t.same(await keysOf(r.user), [id], 'no new key, the key kept');
  r.children = secret;
  t.match(cond(await r.sync(), 'Ready'), { status: 'True' });
  t.equal(r.secret()['AWS_ACCESS_KEY_ID'], id);

  // The cache shows an older Secret while IAM has a newer key: the newer one is not deleted in the grace period.
  const other = new Resource('racy2', { bucketName: 'racy2-bucket' });
  await other.sync();
  const old = other.children;
  other.children = [];
  other.later = KEY_GRACE_SECONDS + 1;
  await other.sync(); // the Secret really was lost: a new key
  const newer = other.secret()['AWS_ACCESS_KEY_ID'];
  other.later = 0;
  other.children = old; // a stale view, holding the deleted key
  const stale = await other.sync();
  t.match(cond(stale, 'Ready'), { reason: 'SecretPending' }, 'the newer key is not replaced');
  t.same(await keysOf(other.user), [newer]);
});

t.test('a young key the observed Secret does not hold is kept through the grace period, then deleted', async (t) => {
  const r = new Resource('extra', { bucketName: 'extra-bucket' });
  await r.sync();
  const kept = r.secret()['AWS_ACCESS_KEY_ID'];
  // A key a racing sync made, in a Secret the cache does not show.
  const { CreateAccessKeyCommand } = await import('@aws-sdk/client-iam');
  const young = (await admin.iam.send(new CreateAccessKeyCommand({ UserName: r.user }))).AccessKey!.AccessKeyId!;
  const res = await r.sync();
  t.match(cond(res, 'Ready'), { status: 'True' });
  t.same((await keysOf(r.user)).sort(), [kept, young].sort(), 'kept in the grace period');
  t.ok(
    res.resyncAfterSeconds! > 0 && res.resyncAfterSeconds! <= KEY_GRACE_SECONDS + 1,
    'and the hook comes back when it ends',
  );
  r.later = KEY_GRACE_SECONDS + 1;
  await r.sync();
  t.same(await keysOf(r.user), [kept], 'deleted once older');
});

t.test('SSE-KMS: tenant B’s own key is granted exactly; tenant A cannot name it, "*" or an alias', async (t) => {
  const keyB = 'arn:aws:kms:us-east-1:123456789012:key/bbbbbbbb-12ab-34cd-56ef-1234567890ab';
  const allowlist = [{ arn: keyB, namespace: 'team-b' }];
  /** The KMS resources the policy attached to a user grants, read back from IAM (none without a policy). */
  const granted = async (r: Resource): Promise<string[]> => {
    // The status shows the account as <account>; IAM is asked with moto's.
    const arn = ((r.status as any)?.policyArn as string | undefined)?.replace('<account>', '123456789012');
    if (!arn) return [];
    const doc = JSON.parse(
      decodeURIComponent(
        (await admin.iam.send(new GetPolicyVersionCommand({ PolicyArn: arn, VersionId: 'v1' }))).PolicyVersion!
          .Document!,
      ),
    );
    return doc.Statement.filter((s: any) => s.Action.some((a: string) => a.startsWith('kms:'))).flatMap(
      (s: any) => s.Resource,
    );
  };
  const b = new Resource(
    'kms',
    { bucketName: 'team-b-kms', encryption: { type: 'SSE-KMS', kmsKeyId: keyB } },
    'team-b',
  );
  b.kms = allowlist;
  t.match(cond(await b.sync(), 'Ready'), { status: 'True' });
  t.same(await granted(b), [keyB], 'B’s policy in IAM grants B’s key, nothing wider');
  const kmsStatement = JSON.parse(
    decodeURIComponent(
      (
        await admin.iam.send(
          new GetPolicyVersionCommand({
            PolicyArn: ((b.status as any).policyArn as string).replace('<account>', '123456789012'),
            VersionId: 'v1',
          }),
        )
      ).PolicyVersion!.Document!,
    ),
  ).Statement.find((s: any) => s.Sid === 'Kms');
  t.same(kmsStatement, {
    Sid: 'Kms',
    Effect: 'Allow',
    Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
    Resource: [keyB],
  });
  for (const [i, kmsKeyId] of [
    '*',
    'alias/aws/s3',
    'arn:aws:kms:us-east-1:123456789012:alias/team-b',
    keyB,
  ].entries()) {
    const a = new Resource(
      `kms${i}`,
      { bucketName: `team-a-kms-${i}`, encryption: { type: 'SSE-KMS', kmsKeyId } },
      'team-a',
    );
    a.kms = allowlist;
    t.match(cond(await a.sync(), 'Ready'), { status: 'False', reason: 'InvalidSpec' }, `${kmsKeyId}: InvalidSpec`);
    await t.rejects(
      admin.iam.send(new GetUserCommand({ UserName: a.user })),
      /NoSuchEntity|cannot be found/,
      `${kmsKeyId}: no IAM user`,
    );
    await t.rejects(admin.s3.send(new HeadBucketCommand({ Bucket: `team-a-kms-${i}` })), `${kmsKeyId}: no bucket`);
  }
  // A key of another account, even one the server lists: no policy grants it.
  const foreign = 'arn:aws:kms:us-east-1:210987654321:key/aaaaaaaa-12ab-34cd-56ef-1234567890ab';
  const f = new Resource(
    'kmsf',
    { bucketName: 'team-a-kms-f', encryption: { type: 'SSE-KMS', kmsKeyId: foreign } },
    'team-a',
  );
  f.kms = [{ arn: foreign }];
  const res = await f.sync();
  t.match(cond(res, 'Ready'), { status: 'False', reason: 'InvalidSpec', message: /not in the operator's AWS account/ });
  t.notMatch(cond(res, 'Ready').message, /123456789012/, "the operator's account is not in the status");
  t.same(await granted(f), []);
  const plain = new Resource('nokms', { bucketName: 'nokms-bucket', encryption: { type: 'SSE-KMS' } });
  t.match(cond(await plain.sync(), 'Ready'), { status: 'True' });
  t.same(await granted(plain), [], 'no KMS grant without a customer key');
  // The cluster admin takes B's key off the allowlist: B's next sync is refused and the grant is withdrawn from the
  // policy IAM holds (its default version), the bucket, the user, its access key and the Secret kept.
  const policyArn = ((b.status as any).policyArn as string).replace('<account>', '123456789012');
  const keysOf = async () =>
    ((await admin.iam.send(new ListAccessKeysCommand({ UserName: b.user }))).AccessKeyMetadata ?? []).map(
      (k) => k.AccessKeyId,
    );
  const keysBefore = await keysOf();
  b.kms = [];
  t.match(cond(await b.sync(), 'Ready'), {
    status: 'False',
    reason: 'InvalidSpec',
    message: /allows no customer managed KMS key/,
  });
  const version = (await admin.iam.send(new GetPolicyCommand({ PolicyArn: policyArn }))).Policy!.DefaultVersionId!;
  const withdrawn = JSON.parse(
    decodeURIComponent(
      (await admin.iam.send(new GetPolicyVersionCommand({ PolicyArn: policyArn, VersionId: version }))).PolicyVersion!
        .Document!,
    ),
  );
  t.same(
    withdrawn.Statement.map((s: any) => s.Sid),
    ['Bucket', 'Objects'],
    'the key withdrawn in IAM, the bucket statements kept',
  );
  await t.resolves(admin.s3.send(new HeadBucketCommand({ Bucket: 'team-b-kms' })), 'the bucket kept');
  t.same(await keysOf(), keysBefore, 'the user and its access key kept');
  t.same(
    b.children.map((c) => c.kind),
    ['Secret'],
    'the Secret kept',
  );
});

t.test('parents named like Object.prototype members and a tag key __proto__ work', async (t) => {
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    const r = new Resource(name, {
      bucketName: `proto-${name.replace(/_/g, '').toLowerCase()}-bucket`,
      tags: JSON.parse('{"__proto__": "yes", "team": "x"}'),
    });
    const res = await r.sync();
    if (name === 'constructor') {
      t.match(cond(res, 'Ready'), { status: 'True' }, name);
      t.equal((res.children[0] as any)?.metadata.name, `${name}-credentials`);
    } else {
      // Not a name the API server accepts for an object (upper case, '_'), nor for its Secret: refused, not a 500.
      t.match(cond(res, 'Ready'), { reason: 'InvalidSpec', message: /cannot name (Secret|label)/ }, name);
    }
  }
  t.equal((await tagsOf('proto-constructor-bucket'))['__proto__'], 'yes', 'the tag __proto__ is an ordinary tag');
  // A Secret named like an Object.prototype member, looked up in the observed map: not a 500.
  const r = new Resource('proto-secret', { bucketName: 'proto-secret-bucket', secretName: 'constructor' });
  const res = await r.sync();
  t.match(cond(res, 'Ready'), { status: 'True' }, 'secretName: constructor');
  t.equal((res.children[0] as any)?.metadata.name, 'constructor');
  t.match(cond(await r.sync(), 'Ready'), { status: 'True' }, 'and its resync, with the Secret observed');
});

t.test('a huge answer is cut off: the call fails, nothing is deleted', async (t) => {
  const r = new Resource('huge', { bucketName: 'huge-bucket' });
  await r.sync();
  const secret = r.children;
  r.aws = newAws({ maxResponseBytes: 1024 * 1024 });
  hostile = { bytes: 16 * 1024 * 1024 };
  const res = await r.sync();
  hostile = undefined;
  t.match(cond(res, 'Ready'), { status: 'False', reason: 'ResponseTooLarge' });
  t.same(
    res.children.map((c) => c.metadata.name),
    secret.map((c) => c.metadata.name),
    'the Secret is kept',
  );
  t.match(cond(await r.sync(), 'Ready'), { status: 'True' }, 'and the next answer is read again');
});
