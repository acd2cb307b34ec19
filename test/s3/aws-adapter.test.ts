// hooks/s3/aws.ts (SdkAwsApi, the AWS SDK adapter of the S3 hook) against IAM and S3 as AWS documents them
// (test/fixtures/aws-model.ts: the SDK's own clients, their commands answered after the SDK's retry): the service's
// quotas (five versions of a managed policy, two access keys, 50 tags), pages shorter than asked, throttling, the
// errors that mean "not there" and those that do not, and answers with fields missing; method by method, and through
// the S3 hook's sync loop, where a quota met is a resource that stops syncing. test/real/s3-quotas-real.test.ts meets
// the quotas moto enforces for real.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { AwsError, type BucketSettings } from '../../hooks/s3/api.js';
import { MAX_PAGES, MAX_RESPONSE_BYTES, SdkAwsApi } from '../../hooks/s3/aws.js';
import { KEY_GRACE_SECONDS } from '../../hooks/s3/plan.js';
import { policyName, userName } from '../../hooks/s3/policy.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { AwsModel, LIMITS, awsError } from '../fixtures/aws-model.js';
import { s3Finalize, s3Sync } from '../fixtures/hooks.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

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

/** The AwsError `fn` throws (or a failure of the test when it does not throw one). */
async function awsErr(fn: () => Promise<unknown>): Promise<AwsError> {
  const err = await fn().then(
    () => new Error('no error'),
    (e: unknown) => e,
  );
  if (!(err instanceof AwsError)) throw new Error(`not an AwsError: ${String(err)}`);
  return err;
}

/** A model with our user (tags a=b) and a policy of one version. */
async function withUser() {
  const m = new AwsModel();
  const api = m.api({ recordCalls: true });
  await api.createUser('u', new Map([['a', 'b']]));
  const arn = await api.createPolicy('p', '{"v":0}', new Map([['owner', 'x']]));
  return { m, api, arn };
}

t.test('IAM users, method by method', async (t) => {
  const { m, api } = await withUser();
  t.same(await api.getUser('u'), { arn: m.userArn('u'), tags: new Map([['a', 'b']]) });
  t.equal(await api.getUser('nobody'), undefined, 'NoSuchEntity: no such user');
  t.same(api.sent!.slice(0, 2), ['CreateUser', 'CreatePolicy'], 'every operation sent is recorded');

  const created = await api.createUser('v', new Map([['k', 'w']]));
  t.same(created, { arn: m.userArn('v'), tags: new Map([['k', 'w']]) });
  t.match(await awsErr(() => api.createUser('v', new Map())), { code: 'EntityAlreadyExists', operation: 'CreateUser' });
  m.respond('CreateUser', { User: { UserName: 'w' } });
  t.match(await awsErr(() => api.createUser('w', new Map())), { code: 'InvalidResponse', operation: 'CreateUser' });

  await api.tagUser('u', new Map([['c', 'd']]));
  await api.untagUser('u', ['a']);
  t.same(m.users.get('u')!.tags, [{ Key: 'c', Value: 'd' }]);
  const fifty = new Map(Array.from({ length: 50 }, (_, i) => [`t${i}`, 'x'] as [string, string]));
  t.match(await awsErr(() => api.tagUser('u', fifty)), { code: 'LimitExceeded', operation: 'TagUser' });
  t.match(await awsErr(() => api.untagUser('nobody', ['a'])), { code: 'NoSuchEntity', operation: 'UntagUser' });

  m.respond('GetUser', {});
  t.match(await awsErr(() => api.getUser('u')), { code: 'InvalidResponse', operation: 'GetUser' });
  m.respond('GetUser', { User: { UserName: 'u' } });
  t.match(await awsErr(() => api.getUser('u')), { code: 'InvalidResponse' }, 'a user without its ARN');
  m.fail('GetUser', () => awsError('AccessDenied', 403, 'not allowed'));
  t.match(await awsErr(() => api.getUser('u')), { code: 'AccessDenied', operation: 'GetUser', message: 'not allowed' });
  // The SDK's class name when the body named no code.
  m.fail('GetUser', () => Object.assign(new Error('gone'), { name: 'NoSuchEntityException' }));
  t.equal(await api.getUser('u'), undefined);
  m.fail('GetUser', () => Object.assign(new Error(''), { name: undefined, code: 'ECONNREFUSED' }), 2); // retried once by the SDK
  t.match(await awsErr(() => api.getUser('u')), { code: 'ECONNREFUSED', message: 'ECONNREFUSED' });
  m.fail('GetUser', () => Object.assign(new Error('x'.repeat(500)), { name: 'Odd' }));
  t.equal((await awsErr(() => api.getUser('u'))).message.length, 200, 'AWS’s message cut short');
});

t.test('bodiless answers: only the HTTP status says what happened', async (t) => {
  const { m, api } = await withUser();
  const bodiless =
    (status: number, name = 'Unknown') =>
    () =>
      Object.assign(new Error(''), { name, $metadata: { httpStatusCode: status } });
  const cases: Array<[number, string, string]> = [
    [403, 'Unknown', 'AccessDenied'],
    [403, '403', 'AccessDenied'],
    [429, 'Unknown', 'SlowDown'],
    [400, 'Unknown', 'Unknown'],
    [400, '400', '400'],
  ];
  for (const [status, name, code] of cases) {
    // A 429 is throttling: the SDK tries it twice.
    m.fail('GetUser', bodiless(status, name), status === 429 ? 2 : 1);
    t.match(await awsErr(() => api.getUser('u')), { code, operation: 'GetUser' }, `${status} ${name}`);
  }
  const before = m.calls.length;
  m.fail('GetUser', bodiless(503), 2);
  t.match(await awsErr(() => api.getUser('u')), { code: 'SlowDown' }, '503, retried once by the SDK');
  t.equal(m.calls.length - before, 2);
  m.fail('GetUser', bodiless(404));
  t.equal(await api.getUser('u'), undefined, '404: not found');
  m.fail('GetUser', bodiless(301));
  t.match(await awsErr(() => api.getUser('u')), { code: 'PermanentRedirect' });
  m.fail('GetUser', () => Object.assign(new Error(''), { name: undefined, $metadata: { httpStatusCode: 500 } }), 2);
  t.match(await awsErr(() => api.getUser('u')), { code: 'Unknown', message: 'Unknown' }, 'no name, no code: Unknown');
});

t.test('throttling: the SDK tries twice, then the code reaches the hook', async (t) => {
  const { m, api } = await withUser();
  m.fail('ListAccessKeys', () => awsError('Throttling', 400, 'Rate exceeded', 'ThrottlingException'));
  t.same(await api.listAccessKeys('u'), [], 'one Throttling: retried');
  t.equal(m.calls.filter((c) => c === 'ListAccessKeys').length, 2);
  m.fail('ListAccessKeys', () => awsError('Throttling', 400, 'Rate exceeded', 'ThrottlingException'), 2);
  t.match(await awsErr(() => api.listAccessKeys('u')), { code: 'Throttling', operation: 'ListAccessKeys' });
});

t.test('managed policies: five versions at most, the oldest non-default deleted first', async (t) => {
  const { m, api, arn } = await withUser();
  t.same(await api.getPolicy(arn), { arn, defaultVersionId: 'v1', tags: new Map([['owner', 'x']]) });
  t.equal(await api.policyDocument(arn, 'v1'), '{"v":0}', 'IAM’s URL-encoded document, decoded');
  for (let i = 1; i <= 3; i++) await api.setPolicyDocument(arn, `{"v":${i}}`);
  t.equal(m.policies.get(arn)!.versions.length, 4);
  t.notOk(m.calls.includes('DeletePolicyVersion'), 'four versions: room for a fifth');
  await api.setPolicyDocument(arn, '{"v":4}');
  t.equal(m.policies.get(arn)!.versions.length, 5);
  t.notOk(m.calls.includes('DeletePolicyVersion'), 'five versions: none deleted yet');
  for (let i = 5; i <= 12; i++) {
    await api.setPolicyDocument(arn, `{"v":${i}}`);
    const p = m.policies.get(arn)!;
    t.same(
      p.versions.map((v) => v.document),
      [i - 4, i - 3, i - 2, i - 1, i].map((n) => `{"v":${n}}`),
      `change ${i}: the oldest went`,
    );
    t.equal(p.defaultVersion, p.versions[4]!.id);
  }
  t.equal((await api.getPolicy(arn))!.defaultVersionId, 'v13');
  t.equal(await api.policyDocument(arn, 'v13'), '{"v":12}');

  // A default version older than the others (set back by hand): never deleted, the oldest other one is.
  const p = m.policies.get(arn)!;
  p.defaultVersion = p.versions[0]!.id;
  await api.setPolicyDocument(arn, '{"v":13}');
  t.same(
    p.versions.map((v) => v.document),
    ['{"v":8}', '{"v":10}', '{"v":11}', '{"v":12}', '{"v":13}'],
  );
  // Versions IAM lists without dates: the first listed goes (IAM lists the newest first).
  m.respond('ListPolicyVersions', {
    Versions: [
      { VersionId: p.versions[4]!.id, IsDefaultVersion: true },
      { VersionId: p.versions[3]!.id, IsDefaultVersion: false },
      { VersionId: p.versions[2]!.id, IsDefaultVersion: false },
      { VersionId: p.versions[1]!.id, IsDefaultVersion: false },
      { VersionId: p.versions[0]!.id, IsDefaultVersion: false },
    ],
  });
  await api.setPolicyDocument(arn, '{"v":14}');
  t.equal(p.versions.length, 5);
  t.notOk(
    p.versions.some((v) => v.document === '{"v":12}'),
    'the first listed of the undated went',
  );

  m.respond('GetPolicyVersion', { PolicyVersion: {} });
  t.equal(await api.policyDocument(arn, 'v1'), '', 'no document: an empty one (the hook writes its own)');
  t.match(await awsErr(() => api.policyDocument(arn, 'v1')), { code: 'NoSuchEntity', operation: 'GetPolicyVersion' });
  t.match(await awsErr(() => api.setPolicyDocument('arn:aws:iam::1:policy/none', '{}')), {
    code: 'NoSuchEntity',
    operation: 'ListPolicyVersions',
  });
  m.fail('DeletePolicyVersion', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => api.setPolicyDocument(arn, '{"v":15}')), {
    code: 'AccessDenied',
    operation: 'DeletePolicyVersion',
  });
  t.equal(m.policies.get(arn)!.versions.length, 5, 'nothing created when the oldest could not go');
  await api.setPolicyDocument(arn, '{"v":15}');
  t.equal(await api.policyDocument(arn, m.policies.get(arn)!.defaultVersion), '{"v":15}');
});

t.test(
  'policy versions listed in any order: the oldest by date goes; a refused new version names its call',
  async (t) => {
    const { m, api, arn } = await withUser();
    for (let i = 1; i <= 4; i++) await api.setPolicyDocument(arn, `{"v":${i}}`);
    const p = m.policies.get(arn)!;
    const [v1, v2, v3, v4, v5] = p.versions;
    // IAM documents no order: the five, listed neither oldest nor newest first.
    m.respond('ListPolicyVersions', {
      Versions: [v3, v1, v5, v4, v2].map((v) => ({
        VersionId: v!.id,
        IsDefaultVersion: v!.id === p.defaultVersion,
        CreateDate: v!.created,
      })),
    });
    await api.setPolicyDocument(arn, '{"v":5}');
    t.same(
      p.versions.map((v) => v.document),
      ['{"v":1}', '{"v":2}', '{"v":3}', '{"v":4}', '{"v":5}'],
      `the oldest (${v1!.id}) went`,
    );
    t.notOk(
      p.versions.some((v) => v.id === v1!.id),
      'not the first listed',
    );
    m.fail('CreatePolicyVersion', () => awsError('AccessDenied', 403));
    t.match(await awsErr(() => api.setPolicyDocument(arn, '{"v":6}')), {
      code: 'AccessDenied',
      operation: 'CreatePolicyVersion',
    });
  },
);

t.test('a code AWS names is kept, whatever the status: only a bare status or Unknown is read from it', async (t) => {
  const { m, api } = await withUser();
  const named = (name: string, status: number) => () =>
    Object.assign(new Error('odd'), { name, $metadata: { httpStatusCode: status } });
  // A 404 read as NotFound would be "no such user": the hook would create one again.
  m.fail('GetUser', named('UnknownOperationException', 404));
  t.match(await awsErr(() => api.getUser('u')), { code: 'UnknownOperationException', operation: 'GetUser' });
  m.fail('GetUser', named('Status404', 404));
  t.match(await awsErr(() => api.getUser('u')), { code: 'Status404', operation: 'GetUser' });
  // Unknown with no HTTP status at all (the SDK never answered): Unknown.
  m.fail('GetUser', () => Object.assign(new Error(''), { name: 'Unknown' }));
  t.match(await awsErr(() => api.getUser('u')), { code: 'Unknown', operation: 'GetUser' });
});

t.test('listing policies: short pages followed up to the most asked, what is left said', async (t) => {
  const m = new AwsModel();
  const api = m.api();
  const asked: unknown[] = [];
  const answer = m.answer.bind(m);
  m.answer = (service, region, op, input) => {
    if (op === 'ListPolicies') asked.push(input['MaxItems']);
    return answer(service, region, op, input);
  };
  const arns: string[] = [];
  for (const n of ['a', 'b', 'c', 'd', 'e']) arns.push(await api.createPolicy(n, '{}', new Map(), '/ours/'));
  await api.createPolicy('z', '{}', new Map(), '/other/');
  const names = (r: { policies: Array<{ name: string }> }) => r.policies.map((p) => p.name);
  let r = await api.listPolicies('/ours/', 3);
  t.same(
    [names(r), r.truncated, asked.splice(0)],
    [['a', 'b', 'c'], true, [4]],
    'one more than asked tells what is left',
  );
  t.same(r.policies[0], { name: 'a', arn: arns[0], created: m.policies.get(arns[0]!)!.created });
  m.iamPageSize = 2;
  r = await api.listPolicies('/ours/', 4);
  t.same([names(r), r.truncated, asked.splice(0)], [['a', 'b', 'c', 'd'], true, [5, 3, 1]], 'pages of two');
  r = await api.listPolicies('/ours/', 5);
  t.same([names(r), r.truncated, asked.splice(0)], [['a', 'b', 'c', 'd', 'e'], false, [6, 4, 2]], 'all of them');
  r = await api.listPolicies('/ours/', 5000);
  t.same([names(r), r.truncated, asked.splice(0)[0]], [['a', 'b', 'c', 'd', 'e'], false, 1000], 'IAM’s most');
  m.respond('ListPolicies', {
    Policies: [{ PolicyName: 'x' }, { Arn: 'arn:aws:iam::1:policy/y' }, { PolicyName: 'w', Arn: 'arn:w' }],
  });
  t.same((await api.listPolicies('/ours/', 5)).policies, [{ name: 'w', arn: 'arn:w', created: new Date(0) }]);
  m.respond('ListPolicies', {});
  t.same(await api.listPolicies('/ours/', 5), { policies: [], truncated: false }, 'an answer without its list');
  const before = m.calls.length;
  m.respond('ListPolicies', { Policies: [], IsTruncated: true, Marker: 'again' }, MAX_PAGES);
  t.match(await awsErr(() => api.listPolicies('/ours/', 5)), {
    code: 'ResponseTooLarge',
    operation: 'ListPolicies',
    message: `more than ${MAX_PAGES} pages`,
  });
  t.equal(m.calls.length - before, MAX_PAGES, 'pages that never end: cut off');
});

t.test('deleting a policy: every other version first; gone already is done', async (t) => {
  const { m, api, arn } = await withUser();
  m.iamPageSize = 2;
  for (let i = 1; i <= 4; i++) await api.setPolicyDocument(arn, `{"v":${i}}`);
  const listed = m.calls.filter((c) => c === 'ListPolicyVersions').length;
  await api.deletePolicy(arn);
  t.equal(m.policies.has(arn), false);
  t.equal(m.calls.filter((c) => c === 'DeletePolicyVersion').length, 4);
  t.equal(m.calls.filter((c) => c === 'ListPolicyVersions').length - listed, 3, 'five versions in pages of two');
  m.respond('ListPolicyVersions', {});
  await api.deletePolicy(arn);
  t.equal(m.calls.at(-1), 'DeletePolicy', 'NoSuchEntity on DeletePolicy: deleted already');
  const other = await api.createPolicy('q', '{}', new Map());
  await api.attachPolicy('u', other);
  t.match(await awsErr(() => api.deletePolicy(other)), { code: 'DeleteConflict', operation: 'DeletePolicy' });
  m.respond('GetPolicy', { Policy: { Arn: other } });
  t.match(await awsErr(() => api.getPolicy(other)), { code: 'InvalidResponse', operation: 'GetPolicy' });
  m.respond('GetPolicy', { Policy: { DefaultVersionId: 'v1' } });
  t.match(await awsErr(() => api.getPolicy(other)), { code: 'InvalidResponse' });
  t.equal(await api.getPolicy('arn:aws:iam::1:policy/none'), undefined);
  m.fail('GetPolicy', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => api.getPolicy(other)), { code: 'AccessDenied', operation: 'GetPolicy' });
  m.respond('CreatePolicy', { Policy: {} });
  t.match(await awsErr(() => api.createPolicy('r', '{}', new Map())), {
    code: 'InvalidResponse',
    operation: 'CreatePolicy',
  });
  const tags = new Map(Array.from({ length: 51 }, (_, i) => [`t${i}`, 'x'] as [string, string]));
  t.match(await awsErr(() => api.createPolicy('r', '{}', tags)), { code: 'LimitExceeded', operation: 'CreatePolicy' });
});

t.test('attached policies and access keys, in pages of one', async (t) => {
  const { m, api, arn } = await withUser();
  m.iamPageSize = 1;
  const others = [];
  for (let i = 0; i < 3; i++) others.push(await api.createPolicy(`o${i}`, '{}', new Map()));
  for (const p of [...others, arn]) await api.attachPolicy('u', p);
  await api.attachPolicy('u', arn);
  t.same(await api.attachedPolicies('u'), [...others, arn], 'every page read; attaching twice is one attachment');
  m.respond('ListAttachedUserPolicies', { AttachedPolicies: [{ PolicyName: 'no-arn' }, { PolicyArn: arn }] });
  t.same(await api.attachedPolicies('u'), [arn], 'an entry without its ARN is skipped');
  m.respond('ListAttachedUserPolicies', {});
  t.same(await api.attachedPolicies('u'), [], 'an answer without its list: none');
  m.fail('ListAttachedUserPolicies', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => api.attachedPolicies('u')), {
    code: 'AccessDenied',
    operation: 'ListAttachedUserPolicies',
  });
  m.respond('ListPolicyVersions', {
    Versions: [
      { VersionId: 'v9', IsDefaultVersion: false },
      { VersionId: 'v1', IsDefaultVersion: true },
    ],
  });
  m.fail('DeletePolicyVersion', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => api.deletePolicy(arn)), { code: 'AccessDenied', operation: 'DeletePolicyVersion' });
  await api.detachPolicy('u', others[0]!);
  await api.detachPolicy('u', others[0]!);
  t.same(await api.attachedPolicies('u'), [others[1], others[2], arn], 'detached already: done');
  m.fail('DetachUserPolicy', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => api.detachPolicy('u', arn)), { code: 'AccessDenied', operation: 'DetachUserPolicy' });
  t.match(await awsErr(() => api.attachPolicy('u', 'arn:aws:iam::1:policy/none')), {
    code: 'NoSuchEntity',
    operation: 'AttachUserPolicy',
  });

  const k1 = await api.createAccessKey('u');
  const k2 = await api.createAccessKey('u');
  t.match(k1, { id: /^AKIA/, secret: /^secret-/ });
  t.match(await awsErr(() => api.createAccessKey('u')), { code: 'LimitExceeded', operation: 'CreateAccessKey' });
  t.same(
    (await api.listAccessKeys('u')).map((k) => k.id),
    [k1.id, k2.id],
    'both keys, over two pages, oldest first',
  );
  t.equal(m.calls.filter((c) => c === 'ListAccessKeys').length, 2);
  m.respond('ListAccessKeys', {});
  t.same(await api.listAccessKeys('u'), [], 'no AccessKeyMetadata: no keys');
  await api.deleteAccessKey('u', k1.id);
  await api.deleteAccessKey('u', k1.id);
  t.same(
    (await api.listAccessKeys('u')).map((k) => k.id),
    [k2.id],
    'deleted already: done',
  );
  m.fail('DeleteAccessKey', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => api.deleteAccessKey('u', k2.id)), { code: 'AccessDenied', operation: 'DeleteAccessKey' });
  m.respond('CreateAccessKey', { AccessKey: { AccessKeyId: 'AKIANOSECRET' } });
  t.match(await awsErr(() => api.createAccessKey('u')), { code: 'InvalidResponse', operation: 'CreateAccessKey' });
  m.respond('CreateAccessKey', { AccessKey: { SecretAccessKey: 's' } });
  t.match(await awsErr(() => api.createAccessKey('u')), { code: 'InvalidResponse' });
  m.respond('CreateAccessKey', {});
  t.match(await awsErr(() => api.createAccessKey('u')), { code: 'InvalidResponse' });

  const d = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  m.respond('ListAccessKeys', {
    AccessKeyMetadata: [
      { AccessKeyId: 'B', CreateDate: d(5) },
      { CreateDate: d(1) },
      { AccessKeyId: 'C', CreateDate: d(5) },
      { AccessKeyId: 'A', CreateDate: d(9) },
      { AccessKeyId: 'Z' },
    ],
  });
  t.same(await api.listAccessKeys('u'), [
    { id: 'Z', created: new Date(0) },
    { id: 'B', created: d(5) },
    { id: 'C', created: d(5) },
    { id: 'A', created: d(9) },
  ]);
  m.respond('ListAccessKeys', {
    AccessKeyMetadata: [
      { AccessKeyId: 'C', CreateDate: d(5) },
      { AccessKeyId: 'B', CreateDate: d(5) },
    ],
  });
  t.same(
    (await api.listAccessKeys('u')).map((k) => k.id),
    ['B', 'C'],
    'same date: by id',
  );

  // An endpoint whose pages never end is cut off.
  const asked = m.calls.length;
  m.respond('ListAccessKeys', { AccessKeyMetadata: [], IsTruncated: true, Marker: 'again' }, MAX_PAGES);
  t.match(await awsErr(() => api.listAccessKeys('u')), {
    code: 'ResponseTooLarge',
    operation: 'ListAccessKeys',
    message: `more than ${MAX_PAGES} pages`,
  });
  t.equal(m.calls.length - asked, MAX_PAGES, 'the 101st page never asked');
  m.respond('ListAccessKeys', { AccessKeyMetadata: [{ AccessKeyId: 'A' }], IsTruncated: true }, 1);
  t.same(
    (await api.listAccessKeys('u')).map((k) => k.id),
    ['A'],
    'truncated without a Marker: nothing more to ask',
  );
});

t.test('deleting a user: its keys and attachments first, over every page', async (t) => {
  const { m, api, arn } = await withUser();
  m.iamPageSize = 1;
  const other = await api.createPolicy('o', '{}', new Map());
  await api.attachPolicy('u', arn);
  await api.attachPolicy('u', other);
  await api.createAccessKey('u');
  await api.createAccessKey('u');
  await api.deleteUser('u');
  t.equal(m.users.has('u'), false);
  await api.deleteUser('u').catch(() => undefined);
  m.users.set('u', { tags: [], keys: [], attached: [] });
  m.fail('DeleteUser', () => awsError('NoSuchEntity', 404));
  await api.deleteUser('u');
  t.pass('NoSuchEntity on DeleteUser: deleted already');
  m.fail('DeleteUser', () => awsError('DeleteConflict', 409));
  t.match(await awsErr(() => api.deleteUser('u')), { code: 'DeleteConflict', operation: 'DeleteUser' });
});

const SETTINGS: BucketSettings = {
  versioning: false,
  encryption: { type: 'SSE-S3' },
  publicAccessBlock: {
    blockPublicAcls: true,
    ignorePublicAcls: true,
    blockPublicPolicy: true,
    restrictPublicBuckets: true,
  },
  tags: new Map([['owner', 'x']]),
};

t.test('buckets: each call in the bucket’s own region', async (t) => {
  const m = new AwsModel();
  const api = m.api();
  await api.createBucket('eu', 'eu-west-1');
  await api.createBucket('us', 'us-east-1');
  t.same(m.calls, ['CreateBucket@eu-west-1', 'CreateBucket']);
  await api.createBucket('us', 'us-east-1');
  await api.createBucket('eu', 'eu-west-1');
  t.pass('this account’s bucket again: 200 in us-east-1, BucketAlreadyOwnedByYou elsewhere, done either way');
  m.fail('CreateBucket', () => awsError('BucketAlreadyExists', 409));
  t.match(await awsErr(() => api.createBucket('theirs', 'us-east-1')), {
    code: 'BucketAlreadyExists',
    operation: 'CreateBucket',
  });

  // A fresh API: nothing remembered.
  const fresh = m.api();
  m.calls = [];
  t.same(await fresh.findBucket('eu'), { region: 'eu-west-1', tags: new Map() }, 'NoSuchTagSet: no tags');
  // The operator's account asked of STS once, at the first call about a bucket (every one expects it as the owner).
  t.same(m.calls, ['GetCallerIdentity', 'GetBucketLocation', 'GetBucketTagging@eu-west-1']);
  m.calls = [];
  await fresh.tagBucket(
    'eu',
    'eu-west-1',
    new Map([
      ['b', '2'],
      ['a', '1'],
    ]),
  );
  t.same(await fresh.findBucket('eu'), {
    region: 'eu-west-1',
    tags: new Map([
      ['a', '1'],
      ['b', '2'],
    ]),
  });
  t.same(m.calls, ['PutBucketTagging@eu-west-1', 'GetBucketTagging@eu-west-1'], 'the region remembered');
  t.same(m.buckets.get('eu')!.tags, [
    { Key: 'a', Value: '1' },
    { Key: 'b', Value: '2' },
  ]);

  // A wrong hint: one redirect, then the region GetBucketLocation names.
  const hinted = m.api();
  m.calls = [];
  t.same(await hinted.findBucket('eu', 'us-west-2'), {
    region: 'eu-west-1',
    tags: new Map([
      ['a', '1'],
      ['b', '2'],
    ]),
  });
  t.same(m.calls, [
    'GetCallerIdentity',
    'GetBucketTagging@us-west-2',
    'GetBucketLocation',
    'GetBucketTagging@eu-west-1',
  ]);
  m.calls = [];
  t.same((await hinted.findBucket('eu', 'us-west-2'))?.region, 'eu-west-1', 'the region found wins over a hint');
  t.same(m.calls, ['GetBucketTagging@eu-west-1']);

  for (const code of ['AuthorizationHeaderMalformed', 'IllegalLocationConstraintException']) {
    const api2 = m.api();
    m.fail('GetBucketTagging', () => awsError(code, 400));
    t.equal((await api2.findBucket('eu', 'us-west-2'))?.region, 'eu-west-1', `${code}: located again`);
  }
  // Redirected, but GetBucketLocation names the same region: the redirect is the answer.
  const api3 = m.api();
  m.fail('GetBucketTagging', () => awsError('PermanentRedirect', 301));
  t.match(await awsErr(() => api3.findBucket('eu', 'eu-west-1')), {
    code: 'PermanentRedirect',
    operation: 'GetBucketTagging',
  });
  // Redirected twice: the second one is the answer.
  const api4 = m.api();
  m.fail('GetBucketTagging', () => awsError('PermanentRedirect', 301), 2);
  t.match(await awsErr(() => api4.findBucket('eu', 'us-west-2')), { code: 'PermanentRedirect' });
  // Redirected, and the bucket is gone meanwhile.
  const api5 = m.api();
  m.fail('GetBucketTagging', () => awsError('PermanentRedirect', 301));
  m.fail('GetBucketLocation', () => awsError('NoSuchBucket', 404));
  t.equal(await api5.findBucket('eu', 'us-west-2'), undefined);
  // Another error: no second try in another region. A 403 (the operator may not read the bucket) is asked once more
  // without the operator's account expected as the owner, and stands when refused again.
  m.calls = [];
  m.fail('GetBucketTagging', () => awsError('AccessDenied', 403), 2);
  t.match(await awsErr(() => api5.findBucket('eu', 'us-west-2')), {
    code: 'AccessDenied',
    operation: 'GetBucketTagging',
  });
  t.same(m.calls, ['GetBucketTagging@us-west-2', 'GetBucketTagging@us-west-2']);

  // Gone since it was remembered: not found, and forgotten.
  m.buckets.delete('eu');
  m.calls = [];
  t.equal(await fresh.findBucket('eu'), undefined);
  t.equal(await fresh.findBucket('eu'), undefined);
  t.same(m.calls, ['GetBucketTagging@eu-west-1', 'GetBucketLocation'], 'located again the second time');
  t.equal(await fresh.findBucket('nowhere', 'eu-west-1'), undefined, 'a hint of a bucket that does not exist');

  m.fail('GetBucketLocation', () => awsError('AccessDenied', 403), 2);
  t.match(await awsErr(() => m.api().findBucket('us')), { code: 'AccessDenied', operation: 'GetBucketLocation' });
  for (const [constraint, region] of [
    ['EU', 'eu-west-1'],
    ['', 'us-east-1'],
    ['ap-south-1', 'ap-south-1'],
  ] as Array<[string, string]>) {
    m.respond('GetBucketLocation', { LocationConstraint: constraint });
    m.calls = [];
    await m
      .api()
      .findBucket('us')
      .catch(() => undefined);
    // After GetCallerIdentity and GetBucketLocation.
    t.same(m.calls[2], region === 'us-east-1' ? 'GetBucketTagging' : `GetBucketTagging@${region}`, constraint);
  }
  m.respond('GetBucketLocation', { LocationConstraint: 'Mars' });
  t.match(await awsErr(() => m.api().findBucket('us')), { code: 'InvalidRegion', operation: 'GetBucketLocation' });
  m.fail('GetBucketTagging', () => awsError('NoSuchBucket', 404));
  t.equal(await m.api().findBucket('us', 'us-east-1'), undefined, 'NoSuchBucket on GetBucketTagging');
  m.fail('GetBucketTagging', () => awsError('InternalError', 500), 2);
  t.match(await awsErr(() => m.api().findBucket('us', 'us-east-1')), { code: 'InternalError' });

  const many = new Map(Array.from({ length: 51 }, (_, i) => [`t${i}`, 'x'] as [string, string]));
  t.match(await awsErr(() => api.tagBucket('us', 'us-east-1', many)), {
    code: 'InvalidTag',
    operation: 'PutBucketTagging',
  });
});

t.test('bucket settings: read, compared, and only what differs written', async (t) => {
  const m = new AwsModel();
  const api = m.api();
  await api.createBucket('b', 'us-east-1');
  const apply = (settings: Partial<BucketSettings>, current = new Map<string, string>()) =>
    api.applyBucketSettings('b', 'us-east-1', { ...SETTINGS, ...settings }, current);
  t.same(await apply({}), ['tags', 'publicAccessBlock', 'encryption'], 'a new bucket: versioning is off already');
  t.same(m.buckets.get('b'), {
    region: 'us-east-1',
    tags: [{ Key: 'owner', Value: 'x' }],
    objects: [],
    publicAccessBlock: {
      BlockPublicAcls: true,
      IgnorePublicAcls: true,
      BlockPublicPolicy: true,
      RestrictPublicBuckets: true,
    },
    encryption: { SSEAlgorithm: 'AES256' },
  });
  t.same(await apply({}, SETTINGS.tags), [], 'nothing differs: nothing written');
  t.same(await apply({}, new Map([['owner', 'y']])), ['tags'], 'a value differs');
  t.same(
    await apply(
      {},
      new Map([
        ['owner', 'x'],
        ['extra', '1'],
      ]),
    ),
    ['tags'],
    'one tag more',
  );
  for (const field of ['blockPublicAcls', 'ignorePublicAcls', 'blockPublicPolicy', 'restrictPublicBuckets']) {
    t.same(
      await apply({ publicAccessBlock: { ...SETTINGS.publicAccessBlock, [field]: false } }, SETTINGS.tags),
      ['publicAccessBlock'],
      field,
    );
    t.equal(m.buckets.get('b')!.publicAccessBlock![field[0]!.toUpperCase() + field.slice(1)], false);
    await apply({}, SETTINGS.tags);
  }
  t.same(await apply({ versioning: true }, SETTINGS.tags), ['versioning']);
  t.equal(m.buckets.get('b')!.versioning, 'Enabled');
  t.same(await apply({ versioning: true }, SETTINGS.tags), []);
  t.same(await apply({ versioning: false }, SETTINGS.tags), ['versioning'], 'off: suspended');
  t.equal(m.buckets.get('b')!.versioning, 'Suspended');
  t.same(await apply({ versioning: false }, SETTINGS.tags), [], 'suspended is off');

  const kms = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd';
  t.same(await apply({ encryption: { type: 'SSE-KMS', kmsKeyId: kms } }, SETTINGS.tags), ['encryption']);
  t.same(m.buckets.get('b')!.encryption, { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: kms });
  t.same(await apply({ encryption: { type: 'SSE-KMS', kmsKeyId: kms } }, SETTINGS.tags), []);
  t.same(
    await apply({ encryption: { type: 'SSE-KMS', kmsKeyId: '1234abcd' } }, SETTINGS.tags),
    [],
    'the key by ARN is the key by id',
  );
  t.same(
    await apply({ encryption: { type: 'SSE-KMS', kmsKeyId: '234abcd' } }, SETTINGS.tags),
    ['encryption'],
    'a suffix is not the key',
  );
  t.same(await apply({ encryption: { type: 'SSE-KMS' } }, SETTINGS.tags), ['encryption'], 'the AWS managed key');
  t.same(m.buckets.get('b')!.encryption, { SSEAlgorithm: 'aws:kms' });
  t.same(await apply({ encryption: { type: 'SSE-KMS' } }, SETTINGS.tags), []);
  m.buckets.get('b')!.encryption = { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: 'x/' };
  t.same(await apply({ encryption: { type: 'SSE-KMS' } }, SETTINGS.tags), ['encryption'], 'a key where none is wanted');
  t.same(await apply({ encryption: { type: 'SSE-S3' } }, SETTINGS.tags), ['encryption']);
  m.respond('GetBucketEncryption', { ServerSideEncryptionConfiguration: { Rules: [] } });
  t.same(await apply({}, SETTINGS.tags), ['encryption'], 'no rule: not encrypted');

  m.fail('GetPublicAccessBlock', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => apply({}, SETTINGS.tags)), { code: 'AccessDenied', operation: 'GetBucketSettings' });
  m.fail('GetBucketEncryption', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => apply({}, SETTINGS.tags)), { code: 'AccessDenied', operation: 'GetBucketSettings' });
  for (const op of ['PutBucketTagging', 'PutPublicAccessBlock', 'PutBucketEncryption', 'PutBucketVersioning']) {
    m.buckets.set('b', { region: 'us-east-1', tags: undefined, objects: [] });
    m.fail(op, () => awsError('AccessDenied', 403));
    t.match(await awsErr(() => apply({ versioning: true })), { code: 'AccessDenied', operation: op });
  }
});

t.test('deleting a bucket: its tags re-read, emptied a page per call with force', async (t) => {
  const m = new AwsModel();
  const api = m.api();
  const ours = (tags: Map<string, string>) => tags.get('owner') === 'x';
  t.equal(await api.deleteBucket('none', true, ours), 'absent');
  await api.createBucket('b', 'eu-west-1');
  t.equal(await api.deleteBucket('b', true, ours), 'notOwned', 'no owner tag');
  t.notOk(m.calls.some((c) => c.startsWith('ListObjectVersions')));
  await api.tagBucket('b', 'eu-west-1', new Map([['owner', 'x']]));
  const b = m.buckets.get('b')!;
  b.objects = Array.from({ length: 2500 }, (_, i) => ({ Key: `k${i % 7}`, VersionId: `v${i}`, marker: i % 10 === 0 }));
  t.equal(await api.deleteBucket('b', false, ours), 'notEmpty');
  t.equal(b.objects.length, 2500, 'without force nothing is deleted');
  t.equal(await api.deleteBucket('b', true, ours, 'eu-west-1'), 'notEmpty');
  t.equal(b.objects.length, 1500, 'one page, versions and delete markers');
  t.equal(await api.deleteBucket('b', true, ours), 'notEmpty');
  t.equal(await api.deleteBucket('b', true, ours), 'deleted', 'the last page, then the bucket');
  t.equal(m.buckets.has('b'), false);
  t.equal(m.calls.filter((c) => c.startsWith('DeleteObjects')).length, 3);
  m.calls = [];
  t.equal(await api.deleteBucket('b', true, ours), 'absent');
  t.same(m.calls, ['GetBucketLocation'], 'its region forgotten');

  await api.createBucket('c', 'us-east-1');
  await api.tagBucket('c', 'us-east-1', new Map([['owner', 'x']]));
  m.respond('ListObjectVersions', { IsTruncated: true });
  t.equal(await api.deleteBucket('c', false, ours), 'notEmpty', 'an empty page that says more follow');
  m.respond('ListObjectVersions', { IsTruncated: true });
  m.calls = [];
  t.equal(await api.deleteBucket('c', true, ours), 'notEmpty');
  t.notOk(m.calls.includes('DeleteObjects'), 'nothing to delete in that page');
  m.respond('ListObjectVersions', { Versions: [{ Key: 'unversioned' }] });
  let sent: any;
  m.fail('DeleteObjects', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => api.deleteBucket('c', true, ours)), { code: 'AccessDenied', operation: 'DeleteObjects' });
  m.respond('ListObjectVersions', { Versions: [{ Key: 'unversioned' }] });
  const answer = m.answer.bind(m);
  m.answer = (service, region, op, input) => {
    if (op === 'DeleteObjects') sent = input;
    return answer(service, region, op, input);
  };
  t.equal(await api.deleteBucket('c', true, ours), 'deleted');
  t.same(sent.Delete, { Objects: [{ Key: 'unversioned' }], Quiet: true }, 'no VersionId when S3 named none');

  for (const [code, status, result] of [
    ['NoSuchBucket', 404, 'absent'],
    ['BucketNotEmpty', 409, 'notEmpty'],
  ] as const) {
    await api.createBucket('d', 'us-east-1');
    await api.tagBucket('d', 'us-east-1', new Map([['owner', 'x']]));
    m.fail('DeleteBucket', () => awsError(code, status));
    t.equal(await api.deleteBucket('d', true, ours), result, code);
  }
  m.fail('DeleteBucket', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => api.deleteBucket('d', true, ours)), { code: 'AccessDenied', operation: 'DeleteBucket' });
  m.fail('ListObjectVersions', () => awsError('AccessDenied', 403));
  t.match(await awsErr(() => api.deleteBucket('d', true, ours)), {
    code: 'AccessDenied',
    operation: 'ListObjectVersions',
  });
});

/** A local endpoint answering every request with `body` (chunked when `declare` is false). */
async function endpoint(t: Test, body: string, declare: boolean): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/xml',
      ...(declare ? { 'content-length': Buffer.byteLength(body) } : {}),
    });
    if (declare) res.end(body);
    else {
      // Streamed in pieces: the cap counts what arrives.
      res.write(body.slice(0, 10));
      setTimeout(() => res.end(body.slice(10)), 20);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('an answer above the size cap is refused, announced or streamed', async (t) => {
  const location = '<LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/">eu-west-1</LocationConstraint>';
  // The operator's account given: this server answers every request with the location.
  const options = {
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    account: '123456789012',
  };
  for (const declare of [true, false]) {
    const small = new SdkAwsApi({ ...options, endpoint: await endpoint(t, location, declare), maxResponseBytes: 200 });
    const err = await small.findBucket('b').then(
      () => undefined,
      (e: unknown) => e,
    );
    // Past GetBucketLocation (its answer read whole), on to the bucket's region.
    t.notMatch(String((err as AwsError | undefined)?.code), /ResponseTooLarge/, `under the cap (declared: ${declare})`);
    const tight = new SdkAwsApi({
      ...options,
      endpoint: await endpoint(t, location, declare),
      maxResponseBytes: location.length - 1,
      recordCalls: true,
    });
    t.match(
      await awsErr(() => tight.findBucket('b')),
      {
        code: 'ResponseTooLarge',
        operation: 'GetBucketLocation',
        message: `AWS answered more than ${location.length - 1} bytes`,
      },
      `one byte over (declared: ${declare})`,
    );
    t.same(tight.sent, ['GetBucketLocation'], 'recorded, and not tried again');
    const exact = new SdkAwsApi({
      ...options,
      endpoint: await endpoint(t, location, declare),
      maxResponseBytes: location.length,
    });
    const ok = await exact.findBucket('b').then(
      () => undefined,
      (e: unknown) => e,
    );
    t.notMatch(
      String((ok as AwsError | undefined)?.code),
      /ResponseTooLarge/,
      `exactly the cap (declared: ${declare})`,
    );
  }
  t.equal(new SdkAwsApi(options).sent, undefined, 'calls recorded only when asked');
  t.equal(MAX_RESPONSE_BYTES, 8 * 1024 * 1024);
});
