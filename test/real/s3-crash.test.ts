// The S3 hook killed between two AWS calls, against moto (S3 and IAM, IAM enforced): a proxy in front of moto
// passes the first n HTTP requests of a sync (or a finalize) and then drops every one after, as if the hook's process
// had died there: its answer never reaches Metacontroller, so the next sync starts from the state before it. A second
// pass also lets the (n+1)-th request reach moto and drops only its answer (the call was done, the hook died before
// hearing of it). For each n in turn, the next syncs must converge: Ready, with exactly the bucket (tagged as its
// own), IAM user, attached policy and one access key (the Secret's) a sync never killed leaves, no record of intent
// left, nothing wedged; the next finalizes remove everything. The in-memory version: test/s3/crash.test.ts.
import {
  GetBucketTaggingCommand,
  HeadBucketCommand,
  ListBucketsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  GetUserCommand,
  IAMClient,
  ListAccessKeysCommand,
  ListAttachedUserPoliciesCommand,
  ListPoliciesCommand,
} from '@aws-sdk/client-iam';
import t, { type Test } from 'tap';
import { BUCKET_INTENT_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import { userName } from '../../hooks/s3/policy.js';
import { claimName, KEY_GRACE_SECONDS } from '../../hooks/s3/sync.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import { adminClients, motoProxy, startMoto, type Moto, type MotoProxy } from '../fixtures/moto.js';
import { s3Request } from '../fixtures/s3.js';

/** pass: every request; count: every request, counted; kill: the first `pass` requests, then none (or its answer). */
type Mode = { kind: 'pass' } | { kind: 'kill'; pass: number; answerLost: boolean; seen: number };

let moto: Moto;
let proxy: MotoProxy;
let mode: Mode = { kind: 'pass' };
let aws: SdkAwsApi;
let admin: { s3: S3Client; iam: IAMClient };

t.before(async () => {
  moto = await startMoto();
  proxy = await motoProxy(moto, (req, _res, _body, forward) => {
    let dropAnswer = false;
    if (mode.kind === 'kill') {
      const n = ++mode.seen;
      if (n > mode.pass + (mode.answerLost ? 1 : 0)) {
        req.socket.destroy();
        return;
      }
      dropAnswer = n === mode.pass + 1;
    }
    forward(dropAnswer);
  });
  aws = new SdkAwsApi({
    endpoint: proxy.endpoint,
    region: moto.region,
    credentials: moto.admin,
    requestTimeoutMs: 2000,
  });
  admin = adminClients(moto);
});
t.teardown(async () => {
  proxy?.close();
  await moto?.stop();
});

/** An S3 resource and Metacontroller's loop around it: an answer is what the next request observes. */
class Resource {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  /** Seconds added to the hook's clock: IAM dates keys with its own. */
  later = 0;
  constructor(
    readonly name: string,
    public spec: Record<string, unknown>,
  ) {}
  get user(): string {
    return userName('crash', this.name, `uid-${this.name}`);
  }
  request(): CompositeSyncRequest {
    return s3Request({ name: this.name, namespace: 'crash', uid: `uid-${this.name}` }, this.spec, {
      status: this.status,
      children: this.children,
    });
  }
  private clock(): Date {
    return new Date(Date.now() + this.later * 1000);
  }
  async run(hook: 'sync' | 'finalize'): Promise<CompositeSyncResponse> {
    const res = await (hook === 'sync' ? sync : finalize)(this.request(), aws.withDeadline(7000), this.clock(), ROOMY);
    this.status = res.status as Record<string, unknown>;
    if (hook === 'sync') this.children = res.children;
    return res;
  }
  /** A call killed after `pass` HTTP requests (or during the next, its answer lost): its answer is lost too. */
  async killed(hook: 'sync' | 'finalize', pass: number, answerLost: boolean): Promise<void> {
    mode = { kind: 'kill', pass, answerLost, seen: 0 };
    const call = hook === 'sync' ? sync : finalize;
    await call(this.request(), aws.withDeadline(7000), this.clock(), ROOMY).catch(() => undefined);
    mode = { kind: 'pass' };
  }
  /** How many HTTP requests a whole call makes from the current state (its answer discarded). */
  async count(hook: 'sync' | 'finalize'): Promise<number> {
    const counting: Mode = { kind: 'kill', pass: 10_000, answerLost: false, seen: 0 };
    mode = counting;
    await (hook === 'sync' ? sync : finalize)(this.request(), aws.withDeadline(7000), this.clock(), ROOMY);
    mode = { kind: 'pass' };
    return counting.seen;
  }
}

/**
 * Every resource of this file is in one namespace, and many keep their buckets: the namespace's bound on buckets
 * (test/s3/namespace-buckets-limit.test.ts, test/real/s3-namespace-buckets-limit-real.test.ts) set past what it makes.
 */
const ROOMY = { bucketsPerNamespace: 900 };

const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');

/** Syncs until Ready=True, moving the clock past the key grace period when a young key waits for its Secret. */
async function converge(r: Resource): Promise<number> {
  for (let i = 1; i <= 5; i++) {
    const res = await r.run('sync');
    const cond = ready(res);
    if (cond?.status === 'True') return i;
    if (cond?.reason !== 'SecretPending') throw new Error(`sync ${i}: ${cond?.reason}: ${cond?.message}`);
    r.later += KEY_GRACE_SECONDS + 1;
  }
  throw new Error('not Ready after 5 syncs');
}

/** What a sync never killed leaves in AWS, read with the administrator's credentials. */
async function settled(t: Test, r: Resource, bucket: string): Promise<void> {
  const tags = (await admin.s3.send(new GetBucketTaggingCommand({ Bucket: bucket }))).TagSet ?? [];
  t.equal(tags.find((x) => x.Key === OWNER_UID_TAG)?.Value, `uid-${r.name}`, 'the bucket carries its owner tags');
  const user = (await admin.iam.send(new GetUserCommand({ UserName: r.user }))).User!;
  t.notOk(
    (user.Tags ?? []).some((x) => x.Key === BUCKET_INTENT_TAG),
    'no record of intent left on the user',
  );
  const keys = ((await admin.iam.send(new ListAccessKeysCommand({ UserName: r.user }))).AccessKeyMetadata ?? []).map(
    (k) => k.AccessKeyId,
  );
  const secret = r.children.find((c) => c.kind === 'Secret')!;
  const keyId = Buffer.from((secret['data'] as Record<string, string>)['AWS_ACCESS_KEY_ID']!, 'base64').toString();
  t.same(keys, [keyId], 'one key, the Secret\u2019s');
  const attached = await admin.iam.send(new ListAttachedUserPoliciesCommand({ UserName: r.user }));
  t.equal(attached.AttachedPolicies?.length, 1, 'its policy attached');
  const buckets = ((await admin.s3.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name ?? '');
  t.same(
    buckets.filter((b) => b.startsWith(`${r.name}-`)),
    [bucket],
    'no other bucket of this resource',
  );
}

t.test('a new resource: the sync killed after each AWS call in turn; the next syncs converge', async (t) => {
  const total = await new Resource('count-new', { bucketName: 'count-new-b' }).count('sync');
  t.ok(total >= 12, `a first sync makes ${total} AWS calls`);
  const figures: string[] = [];
  for (const answerLost of [false, true]) {
    for (let n = 0; n <= total; n++) {
      const r = new Resource(`n${n}${answerLost ? 'l' : 'k'}`, { bucketName: `n${n}${answerLost ? 'l' : 'k'}-bucket` });
      await r.killed('sync', n, answerLost);
      const syncs = await converge(r);
      figures.push(`${n}${answerLost ? '+' : ''}:${syncs}`);
      await settled(t, r, `n${n}${answerLost ? 'l' : 'k'}-bucket`);
    }
  }
  t.comment(`kill point: syncs to Ready (n+ = the (n+1)-th call done, its answer lost): ${figures.join(' ')}`);
});

t.test(
  'a rename: killed after each AWS call; the next syncs converge on the new bucket, the old one per policy',
  async (t) => {
    const base = async (name: string) => {
      const r = new Resource(name, { bucketName: `${name}-one`, deletionPolicy: 'Delete' });
      await converge(r);
      r.spec = { ...r.spec, bucketName: `${name}-two` };
      return r;
    };
    const total = await (await base('count-rename')).count('sync');
    for (let n = 0; n <= total; n++) {
      const r = await base(`rn${n}`);
      await r.killed('sync', n, false);
      await converge(r);
      await settled(t, r, `rn${n}-two`);
      t.notOk(
        await admin.s3.send(new HeadBucketCommand({ Bucket: `rn${n}-one` })).then(
          () => true,
          () => false,
        ),
        `killed after call ${n}: the old bucket is deleted (deletionPolicy Delete)`,
      );
    }
  },
);

t.test('finalize killed after each AWS call in turn: the next finalizes remove everything', async (t) => {
  const base = async (name: string) => {
    const r = new Resource(name, { bucketName: `${name}-fin`, deletionPolicy: 'Delete', forceDelete: true });
    await converge(r);
    await admin.s3.send(new PutObjectCommand({ Bucket: `${name}-fin`, Key: 'data.csv', Body: 'a,b' }));
    return r;
  };
  const total = await (await base('count-fin')).count('finalize');
  t.ok(total >= 8, `a finalize makes ${total} AWS calls`);
  for (const answerLost of [false, true]) {
    for (let n = 0; n <= total; n++) {
      const name = `f${n}${answerLost ? 'l' : 'k'}`;
      const r = await base(name);
      await r.killed('finalize', n, answerLost);
      let done = false;
      for (let i = 0; i < 4 && !done; i++) done = (await r.run('finalize')).finalized === true;
      t.ok(done, `killed after call ${n}${answerLost ? ' (its answer lost)' : ''}: finalized`);
      t.notOk(
        await admin.s3.send(new HeadBucketCommand({ Bucket: `${name}-fin` })).then(
          () => true,
          () => false,
        ),
        'the bucket is gone',
      );
      await t.rejects(admin.iam.send(new GetUserCommand({ UserName: r.user })), 'the user is gone');
      const policies = (await admin.iam.send(new ListPoliciesCommand({ Scope: 'Local' }))).Policies ?? [];
      t.notOk(
        policies.some((p) => p.PolicyName === r.user),
        'the policy is gone',
      );
    }
  }
});

/** Whether the claim of `bucket` (IAM policy metaops.bucket.<bucket>) exists in moto. */
async function claimHeld(bucket: string): Promise<boolean> {
  const policies = (await admin.iam.send(new ListPoliciesCommand({ Scope: 'Local' }))).Policies ?? [];
  return policies.some((p) => p.PolicyName === claimName(bucket));
}

const exists = (bucket: string) =>
  admin.s3.send(new HeadBucketCommand({ Bucket: bucket })).then(
    () => true,
    () => false,
  );

t.test(
  'a first sync killed after each AWS call, its status never written, then the resource deleted (Delete): finalize removes the bucket it made and its claim',
  async (t) => {
    const total = await new Resource('count-gone', { bucketName: 'count-gone-b' }).count('sync');
    const left: string[] = [];
    for (let n = 0; n <= total; n++) {
      const name = `g${n}`;
      const r = new Resource(name, { bucketName: `${name}-b`, deletionPolicy: 'Delete', forceDelete: true });
      await r.killed('sync', n, false);
      let done = false;
      for (let i = 0; i < 4 && !done; i++) done = (await r.run('finalize')).finalized === true;
      const user = await admin.iam.send(new GetUserCommand({ UserName: r.user })).then(
        () => true,
        () => false,
      );
      if (!done || (await exists(`${name}-b`)) || (await claimHeld(`${name}-b`)) || user)
        left.push(`killed after call ${n}: finalized ${done}, bucket, claim or user left`);
    }
    t.same(left, [], `for each of the ${total + 1} kill points, nothing is left behind`);
  },
);

t.test(
  'a rename killed after each AWS call, then renamed again (Retain): the bucket made in between is listed as retained, its claim released',
  async (t) => {
    const base = async (name: string) => {
      const r = new Resource(name, { bucketName: `${name}-one`, deletionPolicy: 'Retain' });
      await converge(r);
      r.spec = { ...r.spec, bucketName: `${name}-two` };
      return r;
    };
    const total = await (await base('count-again')).count('sync');
    const forgotten: string[] = [];
    let made = 0;
    for (let n = 0; n <= total; n++) {
      const name = `ra${n}`;
      const r = await base(name);
      await r.killed('sync', n, false);
      r.spec = { ...r.spec, bucketName: `${name}-three` };
      await converge(r);
      await r.run('sync');
      await r.run('sync');
      const retained = (r.status?.['retainedBuckets'] as string[] | undefined) ?? [];
      if (!(await exists(`${name}-two`))) continue;
      made++;
      if (!retained.includes(`${name}-two`) || (await claimHeld(`${name}-two`)))
        forgotten.push(`killed after call ${n}: retainedBuckets ${JSON.stringify(retained)}`);
    }
    t.ok(made > 0, `${made} kill points leave the bucket made`);
    t.same(forgotten, [], 'every bucket a killed rename made is listed as retained and released');
  },
);
