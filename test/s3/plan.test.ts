// The S3 sync's pure decisions (hooks/s3/plan.ts), each branch and boundary with its whole result: which key the
// Secret gets and which keys go (the grace period, IAM's two keys), the buckets a rename left behind, the
// conditions, Events, statuses and Secret the sync answers with. The effects around them are tested in
// s3/ownership.test.ts (in-memory AWS) and test/real (moto).
import t from 'tap';
import type { AccessKeyInfo } from '../../hooks/s3/api.js';
import {
  KEY_GRACE_SECONDS,
  SECRET_KEYS,
  bucketCreated,
  bucketLists,
  bucketRetained,
  credentialsSecret,
  grantedKmsKey,
  keptKey,
  keyCreated,
  oldBucketsCondition,
  pendingStatus,
  planKeys,
  planKeysOf,
  planOldBuckets,
  readyStatus,
  resyncAfter,
} from '../../hooks/s3/plan.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';

const NOW = new Date('2026-01-02T03:04:05Z');
const STAMP = '2026-01-02T03:04:05Z';
/** A key `age` seconds old at NOW. */
const key = (id: string, age: number): AccessKeyInfo => ({ id, created: new Date(NOW.getTime() - age * 1000) });
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const secretWith = (data: unknown): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'app-credentials' },
  data,
});
const kept = (id: string | undefined, secret: string | undefined = 'sss') => ({ id, secret });

t.test('the constants: the grace period and the Secret data keys', async (t) => {
  t.equal(KEY_GRACE_SECONDS, 120);
  t.strictSame(SECRET_KEYS, {
    id: 'AWS_ACCESS_KEY_ID',
    secret: 'AWS_SECRET_ACCESS_KEY',
    region: 'AWS_REGION',
    bucket: 'BUCKET_NAME',
    endpoint: 'AWS_ENDPOINT_URL',
  });
});

t.test('keptKey: the key ID and secret of the observed Secret, each from its own data key', async (t) => {
  t.strictSame(keptKey(undefined), { id: undefined, secret: undefined }, 'no Secret');
  t.strictSame(keptKey(secretWith(undefined)), { id: undefined, secret: undefined }, 'a Secret without data');
  t.strictSame(keptKey(secretWith(null)), { id: undefined, secret: undefined }, 'data null');
  t.strictSame(
    keptKey(secretWith({ AWS_ACCESS_KEY_ID: b64('AKIA1'), AWS_SECRET_ACCESS_KEY: b64('s3cr3t/é') })),
    { id: 'AKIA1', secret: 's3cr3t/é' },
    'both, decoded from base64 as UTF-8',
  );
  t.strictSame(
    keptKey(secretWith({ AWS_ACCESS_KEY_ID: b64('AKIA1') })),
    { id: 'AKIA1', secret: undefined },
    'the secret missing',
  );
  t.strictSame(
    keptKey(secretWith({ AWS_SECRET_ACCESS_KEY: b64('s') })),
    { id: undefined, secret: 's' },
    'the key ID missing',
  );
  t.strictSame(
    keptKey(secretWith({ AWS_ACCESS_KEY_ID: 42, AWS_SECRET_ACCESS_KEY: null })),
    { id: undefined, secret: undefined },
    'values that are not strings are no key',
  );
  t.strictSame(
    keptKey(secretWith({ AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' })),
    { id: '', secret: '' },
    'empty strings are read as empty',
  );
  const inherited = Object.create({ AWS_ACCESS_KEY_ID: b64('AKIAPROTO'), AWS_SECRET_ACCESS_KEY: b64('proto') });
  t.strictSame(
    keptKey(secretWith(inherited)),
    { id: undefined, secret: undefined },
    'a key inherited, not the data own, is not read',
  );
});

t.test('planKeys: the key in the Secret, while IAM has it, is kept', async (t) => {
  t.strictSame(
    planKeys([key('K1', 3600)], kept('K1'), NOW),
    { keep: { id: 'K1', secret: 'sss' }, deleteOld: [], recheckIn: undefined },
    'alone in IAM, however old',
  );
  t.strictSame(
    planKeys([key('K1', 0)], kept('K1'), NOW),
    { keep: { id: 'K1', secret: 'sss' }, deleteOld: [], recheckIn: undefined },
    'just made',
  );
  t.strictSame(
    planKeys([key('OLD', 3600), key('K1', 5000)], kept('K1'), NOW),
    { keep: { id: 'K1', secret: 'sss' }, deleteOld: ['OLD'], recheckIn: undefined },
    'another key past the grace period goes',
  );
  t.strictSame(
    planKeys([key('K1', 5000), key('EXACT', KEY_GRACE_SECONDS)], kept('K1'), NOW),
    { keep: { id: 'K1', secret: 'sss' }, deleteOld: ['EXACT'], recheckIn: undefined },
    `a key exactly ${KEY_GRACE_SECONDS} s old goes`,
  );
  t.strictSame(
    planKeys([key('K1', 5000), key('YOUNG', KEY_GRACE_SECONDS - 0.5)], kept('K1'), NOW),
    { keep: { id: 'K1', secret: 'sss' }, deleteOld: [], recheckIn: 2 },
    'half a second short of the grace period: kept, looked at again in ceil(0.5) + 1 s',
  );
  t.strictSame(
    planKeys([key('K1', 5000), key('YOUNG', 10)], kept('K1'), NOW),
    { keep: { id: 'K1', secret: 'sss' }, deleteOld: [], recheckIn: KEY_GRACE_SECONDS - 10 + 1 },
    'a young key is kept (it may be in a Secret not observed yet) until its grace ends',
  );
  t.strictSame(
    planKeys([key('K1', 5000), key('YOUNG', 10.5)], kept('K1'), NOW),
    { keep: { id: 'K1', secret: 'sss' }, deleteOld: [], recheckIn: 111 },
    'the wait rounded up: 109.5 s is 110, and one more',
  );
  t.strictSame(
    planKeys([key('A', 30), key('OLD', 500), key('K1', 5000), key('B', 100)], kept('K1'), NOW),
    { keep: { id: 'K1', secret: 'sss' }, deleteOld: ['OLD'], recheckIn: KEY_GRACE_SECONDS - 100 + 1 },
    'several others: the old ones go in IAM order, the soonest grace end is when to look again',
  );
  t.strictSame(
    planKeys([key('B', 100), key('A', 30)], kept('A'), NOW),
    { keep: { id: 'A', secret: 'sss' }, deleteOld: [], recheckIn: 21 },
    'the kept key itself is never counted, young as it may be',
  );
});

t.test('planKeys: a key an old Secret still holds (inUse) is never deleted', async (t) => {
  const inUse = new Set(['OLD']);
  t.strictSame(
    planKeys([key('OLD', 86_400), key('K1', 5000)], kept('K1'), NOW, inUse),
    { keep: { id: 'K1', secret: 'sss' }, deleteOld: [], recheckIn: undefined },
    'kept: the old Secret\u2019s key stays, whatever its age',
  );
  t.strictSame(
    planKeys([key('OLD', 86_400)], kept(undefined), NOW, inUse),
    { create: true, deleteBefore: [], deleteAfter: [], rotated: true, deferred: ['OLD'] },
    'a new key: the old one stays (deferred), and takes the one place IAM leaves',
  );
  t.strictSame(
    planKeys([key('OLD', 86_400), key('FREE', 5000)], kept(undefined), NOW, inUse),
    { create: true, deleteBefore: ['FREE'], deleteAfter: [], rotated: true, deferred: ['OLD'] },
    'room made with the key no Secret holds, before the new one',
  );
  t.strictSame(
    planKeys([key('OLD', 86_400), key('OLD2', 5000)], kept(undefined), NOW, new Set(['OLD', 'OLD2'])),
    { waitForSecrets: ['OLD', 'OLD2'] },
    'both of IAM\u2019s keys held by old Secrets: nothing made or deleted',
  );
});

t.test('planKeysOf: a renamed Secret gets the key its old Secret holds', async (t) => {
  t.strictSame(
    planKeysOf([key('K1', 86_400)], kept(undefined, undefined), [kept('K1')], NOW),
    {
      plan: { keep: { id: 'K1', secret: 'sss' }, deleteOld: [], recheckIn: undefined },
      kept: { id: 'K1', secret: 'sss' },
    },
    'the new name not made yet: the old Secret\u2019s key, copied',
  );
  t.strictSame(
    planKeysOf([key('K1', 86_400), key('K2', 5000)], kept('K2'), [kept('K1')], NOW).plan,
    { keep: { id: 'K2', secret: 'sss' }, deleteOld: [], recheckIn: undefined },
    'the new Secret stands: its key, and the old Secret\u2019s stays until that Secret is gone',
  );
  t.strictSame(
    planKeysOf([key('K1', 86_400)], kept(undefined, undefined), [{ id: 'K1', secret: undefined }], NOW).plan,
    { create: true, deleteBefore: [], deleteAfter: [], rotated: true, deferred: ['K1'] },
    'an old Secret whose key cannot stand: a new key, the old one kept while that Secret is there',
  );
  t.strictSame(
    planKeysOf([key('K1', 86_400)], kept(undefined, undefined), [kept('FOREIGN')], NOW).plan,
    { create: true, deleteBefore: [], deleteAfter: ['K1'], rotated: true },
    'a key IAM does not list for this user is never copied',
  );
});

t.test('keyCreated: a previous key an old Secret still holds is said to go later', async (t) => {
  t.match(keyCreated(true, 'AKIA2', 'user-1', 'creds', ['AKIA1']), {
    reason: 'KeyRotated',
    note: 'new access key AKIA2 for IAM user user-1 in Secret creds; the previous key AKIA1 is deleted once the Secret that holds it is gone',
  });
});

t.test('planKeys: a Secret that cannot stand for the key', async (t) => {
  t.strictSame(
    planKeys([key('K1', 3600)], { id: 'K1', secret: undefined }, NOW),
    { create: true, deleteBefore: [], deleteAfter: ['K1'], rotated: true },
    'the secret missing: a new key, the old one deleted after it',
  );
  t.strictSame(
    planKeys([key('K1', 3600)], kept(undefined), NOW),
    { create: true, deleteBefore: [], deleteAfter: ['K1'], rotated: true },
    'the key ID missing',
  );
  t.strictSame(
    planKeys([key('K1', 3600)], kept('', ''), NOW),
    { create: true, deleteBefore: [], deleteAfter: ['K1'], rotated: true },
    'empty strings',
  );
  t.strictSame(
    planKeys([key('', 3600)], kept('', 'sss'), NOW),
    { create: true, deleteBefore: [], deleteAfter: [''], rotated: true },
    'an empty key ID is no key, even where IAM lists one',
  );
  t.strictSame(
    planKeys([key('K1', 3600)], kept('K1', ''), NOW),
    { create: true, deleteBefore: [], deleteAfter: ['K1'], rotated: true },
    'an empty secret is no secret',
  );
  t.strictSame(
    planKeys([key('K1', 3600)], kept('GONE'), NOW),
    { create: true, deleteBefore: [], deleteAfter: ['K1'], rotated: true },
    'a key IAM no longer has',
  );
  t.strictSame(
    planKeys([], kept('GONE'), NOW),
    { create: true, deleteBefore: [], deleteAfter: [], rotated: true },
    'no key in IAM, the Secret names one: rotated',
  );
  t.strictSame(
    planKeys([], { id: undefined, secret: undefined }, NOW),
    { create: true, deleteBefore: [], deleteAfter: [], rotated: false },
    'no key anywhere: the first one',
  );
  t.strictSame(
    planKeys([], kept('', 'sss'), NOW),
    { create: true, deleteBefore: [], deleteAfter: [], rotated: false },
    'an empty key ID is no key',
  );
});

t.test('planKeys: a new key, room made first (IAM allows two), unless the newest is young', async (t) => {
  t.strictSame(
    planKeys([key('K1', 5000), key('K2', 3600)], kept(undefined), NOW),
    { create: true, deleteBefore: ['K1'], deleteAfter: ['K2'], rotated: true },
    'two old keys: the oldest before, the newest after',
  );
  t.strictSame(
    planKeys([key('K1', 5000), key('K2', 4000), key('K3', 3600)], kept(undefined), NOW),
    { create: true, deleteBefore: ['K1', 'K2'], deleteAfter: ['K3'], rotated: true },
    'every key but the newest before',
  );
  t.strictSame(
    planKeys([key('K1', KEY_GRACE_SECONDS)], kept(undefined), NOW),
    { create: true, deleteBefore: [], deleteAfter: ['K1'], rotated: true },
    `a newest key exactly ${KEY_GRACE_SECONDS} s old is rotated, not waited for`,
  );
  t.strictSame(
    planKeys([key('K1', 5000), key('K2', KEY_GRACE_SECONDS - 0.5)], kept('GONE'), NOW),
    { pending: key('K2', KEY_GRACE_SECONDS - 0.5), wait: 5 },
    'half a second short: waited for, at least 5 s',
  );
  t.strictSame(planKeys([key('K1', 0)], kept(undefined), NOW), { pending: key('K1', 0), wait: KEY_GRACE_SECONDS + 1 });
  t.strictSame(
    planKeys([key('K1', 10.5)], kept(undefined), NOW),
    { pending: key('K1', 10.5), wait: 111 },
    'rounded up, and one more',
  );
  t.strictSame(
    planKeys([key('K1', KEY_GRACE_SECONDS - 6)], kept(undefined), NOW),
    { pending: key('K1', KEY_GRACE_SECONDS - 6), wait: 7 },
    'above the floor of 5 s',
  );
  t.strictSame(
    planKeys([key('K1', KEY_GRACE_SECONDS - 2)], kept(undefined), NOW),
    { pending: key('K1', KEY_GRACE_SECONDS - 2), wait: 5 },
    '3 s is raised to 5',
  );
  t.strictSame(
    planKeys([key('YOUNG', 10), key('OLD', 5000)], kept(undefined), NOW),
    { create: true, deleteBefore: ['YOUNG'], deleteAfter: ['OLD'], rotated: true },
    'only the last key listed (IAM lists oldest first) is the newest',
  );
});

t.test('planOldBuckets: buckets a rename left behind, in name order', async (t) => {
  t.strictSame(planOldBuckets(new Set(['b']), 'b', 'Retain'), { retain: [], delete: [] }, 'none but the bucket');
  t.strictSame(planOldBuckets(new Set(['b']), 'b', 'Delete'), { retain: [], delete: [] });
  t.strictSame(planOldBuckets([], 'b', 'Delete'), { retain: [], delete: [] }, 'nothing created');
  t.strictSame(
    planOldBuckets(new Set(['c', 'b', 'a']), 'b', 'Retain'),
    { retain: ['a', 'c'], delete: [] },
    'Retain: every other bucket retained',
  );
  t.strictSame(
    planOldBuckets(new Set(['c', 'b', 'a']), 'b', 'Delete'),
    { retain: [], delete: ['a', 'c'] },
    'Delete: every other bucket deleted',
  );
  t.strictSame(
    planOldBuckets(['z', 'y'], 'new', 'Delete'),
    { retain: [], delete: ['y', 'z'] },
    'the bucket not among them',
  );
});

t.test('oldBucketsCondition: old buckets a rename left that are not empty, kept with their objects', async (t) => {
  t.equal(oldBucketsCondition([], 'b', false), undefined, 'none waiting');
  t.equal(oldBucketsCondition([], 'b', true), undefined);
  t.strictSame(oldBucketsCondition(['a'], 'b', false), {
    type: 'OldBucketDeleted',
    status: false,
    reason: 'BucketNotEmpty',
    message:
      'old bucket a is not empty and is kept with its objects (spec.bucketName was changed to b; a rename never empties a bucket): ' +
      'set spec.bucketName back to use it again, empty it yourself to have it deleted, or set deletionPolicy: Retain to keep it ' +
      '(looked at again less and less often, at least every 5 minutes: an emptied bucket is deleted within 5 minutes)',
  });
  t.strictSame(oldBucketsCondition(['a', 'c'], 'b', true), {
    type: 'OldBucketDeleted',
    status: false,
    reason: 'BucketNotEmpty',
    message:
      'old bucket a, c is not empty and is kept with its objects (spec.bucketName was changed to b; a rename never empties a bucket): ' +
      'set spec.bucketName back to use them again, empty them yourself to have them deleted, or set deletionPolicy: Retain to keep them ' +
      '(looked at again less and less often, at least every 5 minutes: an emptied bucket is deleted within 5 minutes); ' +
      'forceDelete empties them when this S3 resource is deleted',
  });
});

t.test('grantedKmsKey: the KMS key of SSE-KMS only', async (t) => {
  t.equal(grantedKmsKey({ type: 'SSE-KMS', kmsKeyId: 'alias/app' }), 'alias/app');
  t.equal(grantedKmsKey({ type: 'SSE-KMS' }), undefined, 'SSE-KMS with the AWS managed key: none');
  t.equal(grantedKmsKey({ type: 'SSE-S3' }), undefined);
  t.equal(grantedKmsKey({ type: 'SSE-S3', kmsKeyId: 'alias/app' }), undefined, 'a key beside SSE-S3 is not granted');
});

t.test('bucketLists: sorted, absent when empty', async (t) => {
  t.strictSame(bucketLists(new Set(), new Set()), { createdBuckets: undefined, retainedBuckets: undefined });
  t.strictSame(bucketLists(new Set(['b', 'a']), new Set()), {
    createdBuckets: ['a', 'b'],
    retainedBuckets: undefined,
  });
  t.strictSame(bucketLists(new Set(), new Set(['z', 'x'])), {
    createdBuckets: undefined,
    retainedBuckets: ['x', 'z'],
  });
  t.strictSame(bucketLists(new Set(['b', 'a']), new Set(['z', 'x'])), {
    createdBuckets: ['a', 'b'],
    retainedBuckets: ['x', 'z'],
  });
});

t.test('the Events of what the sync made', async (t) => {
  t.strictSame(bucketCreated('bk', 'eu-west-1'), {
    type: 'Normal',
    reason: 'BucketCreated',
    action: 'CreateBucket',
    note: 'created bucket bk in eu-west-1',
    subject: 'bk',
  });
  t.strictSame(bucketRetained('old'), {
    type: 'Normal',
    reason: 'BucketRetained',
    action: 'RetainBucket',
    note: 'old bucket old is retained (deletionPolicy Retain); it is no longer managed',
    subject: 'old',
  });
  t.strictSame(keyCreated(false, 'AKIA1', 'user-1', 'creds'), {
    type: 'Normal',
    reason: 'AccessKeyCreated',
    action: 'CreateAccessKey',
    note: 'access key AKIA1 for IAM user user-1 in Secret creds',
    subject: 'AKIA1',
  });
  t.strictSame(keyCreated(true, 'AKIA2', 'user-1', 'creds'), {
    type: 'Normal',
    reason: 'KeyRotated',
    action: 'CreateAccessKey',
    note: 'new access key AKIA2 for IAM user user-1 in Secret creds; the previous key is deleted',
    subject: 'AKIA2',
  });
});

const parentWith = (status?: Record<string, unknown>, generation: number | null = 3): ParentObject => ({
  apiVersion: 'metaops.dev/v1alpha1',
  kind: 'S3',
  metadata: {
    name: 'app',
    namespace: 'ns',
    uid: 'uid-app',
    ...(generation === null ? {} : { generation }),
  },
  spec: { bucketName: 'bk' },
  ...(status ? { status } : {}),
});
const synced = {
  bucket: 'bk',
  region: 'eu-west-1',
  secretName: 'creds',
  lists: { createdBuckets: ['bk'], retainedBuckets: ['old'] },
};

t.test('pendingStatus: the rest of the status kept, the key waited for said on Ready and Synced', async (t) => {
  const parent = parentWith({
    iamUser: 'user-1',
    accessKeyId: 'AKIAOLD',
    bucketName: 'was',
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        reason: 'SecretPending',
        message: 'x',
        lastTransitionTime: '2020-01-01T00:00:00Z',
      },
      { type: 'Synced', status: 'True', reason: 'Synced', message: 'y', lastTransitionTime: '2020-01-01T00:00:00Z' },
    ],
  });
  t.strictSame(pendingStatus(parent, synced, 'AKIA2', NOW), {
    iamUser: 'user-1',
    accessKeyId: 'AKIA2',
    bucketName: 'bk',
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        reason: 'SecretPending',
        message: 'waiting for Secret creds with access key AKIA2 to be observed',
        lastTransitionTime: '2020-01-01T00:00:00Z',
        observedGeneration: 3,
      },
      {
        type: 'Synced',
        status: 'False',
        reason: 'SecretPending',
        message: `access key AKIA2 is new; it is rotated only if its Secret is still missing after ${KEY_GRACE_SECONDS} s`,
        lastTransitionTime: STAMP,
        observedGeneration: 3,
      },
    ],
    region: 'eu-west-1',
    createdBuckets: ['bk'],
    retainedBuckets: ['old'],
  });
  t.strictSame(
    Object.keys(pendingStatus(parentWith(), synced, 'AKIA2', NOW)),
    ['bucketName', 'region', 'accessKeyId', 'createdBuckets', 'retainedBuckets', 'conditions'],
    'without a status before, in this order',
  );
});

t.test('readyStatus: what the sync made, Ready and Synced True, then the other conditions', async (t) => {
  const made = { ...synced, user: 'user-1', policyArn: 'arn:aws:iam::1:policy/p', keyId: 'AKIA1' };
  const note = { type: 'OldBucketDeleted', status: false, reason: 'BucketNotEmpty', message: 'm' };
  const status = readyStatus(parentWith({ other: 'dropped' }), made, [note], NOW);
  t.strictSame(status, {
    bucketName: 'bk',
    arn: 'arn:aws:s3:::bk',
    region: 'eu-west-1',
    iamUser: 'user-1',
    policyArn: 'arn:aws:iam::1:policy/p',
    accessKeyId: 'AKIA1',
    secretName: 'creds',
    createdBuckets: ['bk'],
    retainedBuckets: ['old'],
    observedGeneration: 3,
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Available',
        message: 'bucket bk and its credentials in Secret creds',
        lastTransitionTime: STAMP,
        observedGeneration: 3,
      },
      {
        type: 'Synced',
        status: 'True',
        reason: 'Synced',
        message: 'bucket, user, policy and access key are as specified',
        lastTransitionTime: STAMP,
        observedGeneration: 3,
      },
      {
        type: 'OldBucketDeleted',
        status: 'False',
        reason: 'BucketNotEmpty',
        message: 'm',
        lastTransitionTime: STAMP,
        observedGeneration: 3,
      },
    ],
  });
  t.same(
    Object.keys(status),
    [
      'bucketName',
      'arn',
      'region',
      'iamUser',
      'policyArn',
      'accessKeyId',
      'secretName',
      'createdBuckets',
      'retainedBuckets',
      'observedGeneration',
      'conditions',
    ],
    'in this order',
  );
  const first = readyStatus(parentWith(undefined, null), { ...made, lists: {} }, [], NOW);
  t.strictSame(
    first,
    {
      bucketName: 'bk',
      arn: 'arn:aws:s3:::bk',
      region: 'eu-west-1',
      iamUser: 'user-1',
      policyArn: 'arn:aws:iam::1:policy/p',
      accessKeyId: 'AKIA1',
      secretName: 'creds',
      observedGeneration: 0,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Available',
          message: 'bucket bk and its credentials in Secret creds',
          lastTransitionTime: STAMP,
        },
        {
          type: 'Synced',
          status: 'True',
          reason: 'Synced',
          message: 'bucket, user, policy and access key are as specified',
          lastTransitionTime: STAMP,
        },
      ],
    },
    'without a generation: 0, and no other condition',
  );
});

t.test('resyncAfter: soon while old buckets wait, else when a young key may go', async (t) => {
  const keysOf = (o: object) => Object.keys(o);
  t.strictSame(keysOf(resyncAfter([], undefined)), [], 'nothing pending: no resyncAfterSeconds at all');
  t.strictSame(resyncAfter([], 7), { resyncAfterSeconds: 7 });
  t.strictSame(resyncAfter(['a'], undefined), { resyncAfterSeconds: 30 });
  t.strictSame(resyncAfter(['a'], 7), { resyncAfterSeconds: 30 });
  t.strictSame(resyncAfter([], undefined, 40), { resyncAfterSeconds: 40 }, 'old buckets waiting on their tenant');
  t.strictSame(resyncAfter([], 7, 40), { resyncAfterSeconds: 7 }, 'a young key sooner');
  t.strictSame(resyncAfter([], 70, 40), { resyncAfterSeconds: 40 });
  t.strictSame(resyncAfter(['a'], undefined, 300), { resyncAfterSeconds: 30 }, 'waiting on AWS: soon');
});

t.test('credentialsSecret: the key, the region, the bucket, and the endpoint when there is one', async (t) => {
  const parent = parentWith();
  const KEY = { id: 'AKIA1', secret: 's3cr3t/é', created: new Date('2026-01-02T03:04:05Z') };
  const expected = (extra: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'creds',
      namespace: 'ns',
      labels: {
        'app.kubernetes.io/name': 's3',
        'app.kubernetes.io/instance': 'app',
        'app.kubernetes.io/component': 'credentials',
        'app.kubernetes.io/managed-by': 'metaops',
      },
      annotations: { 'metaops.dev/access-key-created': '2026-01-02T03:04:05.000Z' },
    },
    type: 'Opaque',
    data: {
      AWS_ACCESS_KEY_ID: b64('AKIA1'),
      AWS_SECRET_ACCESS_KEY: b64('s3cr3t/é'),
      AWS_REGION: b64('eu-west-1'),
      BUCKET_NAME: b64('bk'),
      ...extra,
    },
  });
  t.strictSame(credentialsSecret(parent, synced, KEY, undefined), expected({}), 'AWS itself: no endpoint');
  t.strictSame(credentialsSecret(parent, synced, KEY, ''), expected({}), 'empty');
  t.strictSame(
    credentialsSecret(parent, synced, KEY, 'http://moto:5000'),
    expected({ AWS_ENDPOINT_URL: b64('http://moto:5000') }),
  );
  t.strictSame(
    keptKey(credentialsSecret(parent, synced, KEY, undefined)),
    KEY,
    'read back as written (the key\u2019s creation date too)',
  );
});

t.test(
  'planKeys: a young Secret key IAM does not list yet is kept, unless IAM lists a key made after it',
  async (t) => {
    const young = { ...kept('K2'), created: new Date(NOW.getTime() - 10_000) };
    t.strictSame(
      planKeys([], young, NOW),
      { keep: { id: 'K2', secret: 'sss' }, deleteOld: [], recheckIn: KEY_GRACE_SECONDS - 10 + 1 },
      'a list that shows nothing yet: kept, nothing deleted, looked at again when the grace ends',
    );
    t.strictSame(
      planKeys([key('K1', 3600)], young, NOW),
      { keep: { id: 'K2', secret: 'sss' }, deleteOld: [], recheckIn: KEY_GRACE_SECONDS - 10 + 1 },
      'a list that shows only the key it replaced: kept, the older key not deleted on that list',
    );
    t.match(planKeys([key('K3', 5)], young, NOW), { pending: { id: 'K3' } }, 'a key made after it: that one waits');
    t.match(
      planKeys([], { ...young, created: new Date(NOW.getTime() - KEY_GRACE_SECONDS * 1000) }, NOW),
      { create: true },
      'past the grace period: a key IAM does not have is replaced',
    );
    t.match(
      planKeys([], { ...young, created: new Date(NOW.getTime() + 1000) }, NOW),
      { create: true },
      'a date to come is no date',
    );
    t.match(planKeys([], { ...young, secret: undefined }, NOW), { create: true }, 'no secret half: replaced');
  },
);
