// hooks/s3/aws.ts (SdkAwsApi, the AWS SDK adapter of the S3 hook) against IAM and S3 as AWS documents them
// (test/fixtures/aws-model.ts: the SDK's own clients, their commands answered after the SDK's retry): the service's
// quotas (five versions of a managed policy, two access keys, 50 tags), pages shorter than asked, throttling, the
// errors that mean "not there" and those that do not, and answers with fields missing; method by method, and through
// the S3 hook's sync loop, where a quota met is a resource that stops syncing. test/real/s3-quotas-real.test.ts meets
// the quotas moto enforces for real.
import t from 'tap';
import { AwsError } from '../hooks/s3/api.js';
import { KEY_GRACE_SECONDS } from '../hooks/s3/plan.js';
import { policyName, userName } from '../hooks/s3/policy.js';
import type { CompositeSyncResponse, KubeObject } from '../lib/metacontroller.js';
import { AwsModel, LIMITS, awsError } from './fixtures/aws-model.js';
import { s3Finalize, s3Sync } from './fixtures/hooks.js';
import { S3_DEFAULTS, s3Request } from './fixtures/s3.js';

const OWNER = { name: 'app', namespace: 'ns', uid: 'uid-app' };
const USER = userName(OWNER.namespace, OWNER.name, OWNER.uid);
const POLICY_ARN = (m: AwsModel) =>
  `arn:aws:iam::${m.account}:policy/${policyName(OWNER.namespace, OWNER.name, OWNER.uid)}`;

/** An S3 resource in Metacontroller's loop, its hook given an SdkAwsApi on the model. */
class Loop {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  readonly api;
  constructor(
    readonly model: AwsModel,
    public spec: Record<string, unknown>,
  ) {
    this.api = model.api();
  }
  request() {
    return s3Request(OWNER, { ...S3_DEFAULTS, ...this.spec }, { status: this.status, children: this.children });
  }
  async run(hook: 'sync' | 'finalize'): Promise<CompositeSyncResponse> {
    const aws = this.api.withDeadline(60_000);
    const res = await (hook === 'sync' ? s3Sync : s3Finalize)(this.request(), aws, this.model.now);
    this.status = res.status as Record<string, unknown>;
    if (hook === 'sync') this.children = res.children;
    return res;
  }
  ready(res: CompositeSyncResponse) {
    return ((res.status as any)?.conditions ?? []).find((c: any) => c.type === 'Ready') ?? {};
  }
}

t.test('through the sync loop', async (t) => {
  t.test(
    'a policy changed 12 times in a row keeps syncing: IAM keeps five versions, the oldest goes first',
    async (t) => {
      const m = new AwsModel();
      // deletionPolicy Delete: each old bucket goes (one resource keeps at most ten), each rename a new policy document.
      const r = new Loop(m, { bucketName: 'data-0', deletionPolicy: 'Delete' });
      t.match(r.ready(await r.run('sync')), { status: 'True' });
      for (let i = 1; i <= 12; i++) {
        r.spec = { bucketName: `data-${i}`, deletionPolicy: 'Delete' };
        const res = await r.run('sync');
        t.match(r.ready(res), { status: 'True' }, `change ${i}: ${JSON.stringify(r.ready(res))}`);
        const p = m.policies.get(POLICY_ARN(m))!;
        t.ok(p.versions.length <= LIMITS.policyVersions, `change ${i}: ${p.versions.length} versions`);
        const current = p.versions.find((v) => v.id === p.defaultVersion)!;
        t.match(current.document, `arn:aws:s3:::data-${i}`, `change ${i}: the default version names the new bucket`);
      }
      t.equal(m.peak.policyVersions, LIMITS.policyVersions);
      t.equal(m.calls.filter((c) => c === 'CreatePolicyVersion').length, 12);
      t.same([...m.buckets.keys()], ['data-12']);
    },
  );
});

t.test('through the sync loop, more', async (t) => {
  t.test('keys rotated many times (the Secret lost each time) never exceed IAM’s two per user', async (t) => {
    const m = new AwsModel();
    const r = new Loop(m, { bucketName: 'keys' });
    t.match(r.ready(await r.run('sync')), { status: 'True' });
    const seen = new Set<string>();
    for (let i = 1; i <= 8; i++) {
      r.children = [];
      m.now = new Date(m.now.getTime() + (KEY_GRACE_SECONDS + 1) * 1000);
      const res = await r.run('sync');
      t.match(r.ready(res), { status: 'True' }, `rotation ${i}`);
      seen.add((res.status as any).accessKeyId);
      t.ok(m.users.get(USER)!.keys.length <= LIMITS.accessKeys, `rotation ${i}`);
    }
    t.equal(seen.size, 8, 'a new key each time');
    t.equal(m.peak.keys, LIMITS.accessKeys);
  });

  t.test('IAM answering one item a page: the whole life of a resource, rotations and deletion included', async (t) => {
    const m = new AwsModel();
    m.iamPageSize = 1;
    const r = new Loop(m, { bucketName: 'paged-0', deletionPolicy: 'Delete' });
    t.match(r.ready(await r.run('sync')), { status: 'True' });
    for (let i = 1; i <= 7; i++) {
      r.spec = { bucketName: `paged-${i}`, deletionPolicy: 'Delete' };
      r.children = [];
      m.now = new Date(m.now.getTime() + (KEY_GRACE_SECONDS + 1) * 1000);
      t.match(r.ready(await r.run('sync')), { status: 'True' }, `change ${i}`);
    }
    t.ok(m.peak.policyVersions <= LIMITS.policyVersions);
    t.ok(m.peak.keys <= LIMITS.accessKeys);
    // Someone else's policy attached to our user too: the first page may not name ours.
    m.policies.set('arn:aws:iam::123456789012:policy/AAA-other', {
      name: 'AAA-other',
      tags: [],
      versions: [{ id: 'v1', document: '{}', created: m.now }],
      defaultVersion: 'v1',
      nextVersion: 2,
    });
    m.users.get(USER)!.attached.unshift('arn:aws:iam::123456789012:policy/AAA-other');
    t.match(r.ready(await r.run('sync')), { status: 'True' }, 'ours found on the second page');
    t.equal(m.users.get(USER)!.attached.length, 2);
    let res = await r.run('finalize');
    for (let i = 0; i < 5 && !res.finalized; i++) res = await r.run('finalize');
    t.equal(res.finalized, true, JSON.stringify(res.status));
    t.equal(m.policies.has(POLICY_ARN(m)), false, 'our policy deleted, every version of it');
    t.same([...m.buckets.keys()], []);
  });

  t.test('a user carrying 50 tags is refused more by IAM: the sync says so and creates no bucket', async (t) => {
    const m = new AwsModel();
    const r = new Loop(m, { bucketName: 'tagged' });
    t.match(r.ready(await r.run('sync')), { status: 'True' });
    // Someone tags our user up to IAM's quota.
    const u = m.users.get(USER)!;
    for (let i = 0; u.tags.length < LIMITS.tags; i++) u.tags.push({ Key: `theirs-${i}`, Value: 'x' });
    t.match(r.ready(await r.run('sync')), { status: 'True' }, 'nothing to record: nothing to tag');
    r.spec = { bucketName: 'tagged-2' };
    const res = await r.run('sync');
    t.match(r.ready(res), { status: 'False', message: /TagUser: LimitExceeded/ });
    t.equal(m.buckets.has('tagged-2'), false, 'no bucket made without its record of intent');
    t.equal(u.tags.length, LIMITS.tags);
    // Room made: the next sync goes through.
    u.tags = u.tags.filter((tag) => !tag.Key.startsWith('theirs-'));
    t.match(r.ready(await r.run('sync')), { status: 'True' });
    t.equal(m.buckets.has('tagged-2'), true);
  });

  t.test('a bucket with 48 tags of the spec and our two: S3’s 50, accepted', async (t) => {
    const m = new AwsModel();
    const tags = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`k${i}`, `v${i}`]));
    const r = new Loop(m, { bucketName: 'many-tags', tags });
    t.match(r.ready(await r.run('sync')), { status: 'True' });
    t.equal(m.buckets.get('many-tags')!.tags!.length, LIMITS.tags);
  });

  t.test('throttled beyond the SDK’s retry: the sync says Throttled, the next one is green', async (t) => {
    const m = new AwsModel();
    const r = new Loop(m, { bucketName: 'busy' });
    m.fail('CreateAccessKey', () => awsError('Throttling', 400, 'Rate exceeded', 'ThrottlingException'), 2);
    let res = await r.run('sync');
    t.match(r.ready(res), {
      status: 'False',
      reason: 'Throttled',
      message: /CreateAccessKey: Throttling: Rate exceeded/,
    });
    res = await r.run('sync');
    t.match(r.ready(res), { status: 'True' });
    m.fail('PutPublicAccessBlock', () => awsError('SlowDown', 503, 'Please reduce your request rate.'), 2);
    r.spec = { bucketName: 'busy', publicAccessBlock: { blockPublicAcls: false } };
    t.match(r.ready(await r.run('sync')), { status: 'False', reason: 'Throttled' });
    t.match(r.ready(await r.run('sync')), { status: 'True' });
  });
});
