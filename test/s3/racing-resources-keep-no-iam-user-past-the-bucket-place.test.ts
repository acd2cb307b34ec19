// Two new S3 resources of a namespace racing for its last bucket place (METAOPS_S3_BUCKETS_PER_NAMESPACE), or for one
// new bucket name, each make their IAM user before the place (the namespace's ledger, hooks/s3/ledger.ts) or the
// bucket's claim decides between them; the one refused (TooManyBuckets, BucketAlreadyExists) deletes its user at once
// when it holds nothing (hooks/s3/sync.ts dropIdleUser). A namespace's users stay within its bucket bound, beside the
// users of its syncs under way: the account's IAM users are a hard quota every tenant shares (5,000).
//
// Before 2026-11-30 the loser kept its user for as long as its tenant kept the refused resource, one more per race,
// and the tenant decides how many races it runs: with the bound at 1, it deleted its holder (deletionPolicy Delete:
// the place freed) and created two resources at once, again and again, and every cycle left one more user (10 users
// for one bucket here, the account's quota in this test); pairs naming one new bucket did the same without the bound's
// timing. Tenant B's first S3 resource then failed at CreateUser (LimitExceeded).
import t from 'tap';
import { AwsError, OWNER_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { userName } from '../../hooks/s3/policy.js';
import { FakeAws, viewOf, usersOf, withUserQuota } from '../fixtures/fake-aws.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';

const settings = { bucketsPerNamespace: 1 };
const ACCOUNT_USERS = 10;

t.test("tenant A's racing S3 resources at its bucket bound do not use up the IAM users tenant B needs", async (t) => {
  const fake = new FakeAws();
  const aws = withUserQuota(fake, ACCOUNT_USERS);
  const resource = (ns: string, name: string) =>
    new NamespaceResource(fake, ns, name, { bucketName: `${ns}-${name}`, deletionPolicy: 'Delete' }, settings, aws);
  let holder = resource('a', 'h0');
  await holder.sync();
  t.equal(holder.ready()['status'], 'True', "A's first resource holds the namespace's one place");
  for (let i = 1; i <= ACCOUNT_USERS - 1; i++) {
    t.equal((await holder.finalize()).finalized, true, `cycle ${i}: A deletes its holder, the place is freed`);
    fake.now = new Date(fake.now.getTime() + 60_000);
    const x = resource('a', `x${i}`);
    const y = resource('a', `y${i}`);
    // Created together: Metacontroller runs both syncs at once (a namespace may run 2 S3 syncs at once).
    await Promise.all([x.sync().catch(() => undefined), y.sync().catch(() => undefined)]);
    for (let k = 0; k < 3; k++) {
      fake.now = new Date(fake.now.getTime() + 31_000);
      await x.sync().catch(() => undefined);
      await y.sync().catch(() => undefined);
    }
    const winner = [x, y].find((r) => r.ready()['status'] === 'True');
    if (!winner) break;
    holder = winner;
  }
  const aUsers = usersOf(fake, 'a').length;
  t.comment(`A holds ${aUsers} IAM users for its 1 bucket; the account holds ${fake.policies.size} managed policies`);
  const b = resource('b', 'data');
  await b.sync().catch(() => undefined);
  t.equal(
    b.ready()['status'],
    'True',
    `B's first S3 resource is Ready (A holds ${aUsers} of the account's ${ACCOUNT_USERS} users; B: ${JSON.stringify(b.ready()['message'])})`,
  );
  t.ok(aUsers <= 3, `A's users stay within its bucket bound and a bounded few (${aUsers})`);
});

t.test(
  "tenant A's pairs of S3 resources racing for one new bucket do not use up the IAM users tenant B needs",
  async (t) => {
    // The same without the bound's timing: two of A's new resources name one new bucket at once; both make their user
    // before the claim decides, the loser is refused BucketAlreadyExists and keeps its user. A keeps the losers.
    const fake = new FakeAws();
    const aws = withUserQuota(fake, ACCOUNT_USERS);
    const resource = (ns: string, name: string, bucket: string) =>
      new NamespaceResource(fake, ns, name, { bucketName: bucket }, { bucketsPerNamespace: 100 }, aws);
    for (let i = 0; i < ACCOUNT_USERS / 2; i++) {
      const x = resource('a', `x${i}`, `a-race-${i}`);
      const y = resource('a', `y${i}`, `a-race-${i}`);
      await Promise.all([x.sync().catch(() => undefined), y.sync().catch(() => undefined)]);
    }
    const aUsers = usersOf(fake, 'a').length;
    const buckets = [...fake.buckets.keys()].filter((b) => b.startsWith('a-race-')).length;
    t.comment(`A holds ${aUsers} IAM users for its ${buckets} buckets`);
    t.equal(aUsers, buckets, "A holds one user per bucket it holds: the losers' users are gone");
    const b = resource('b', 'data', 'b-data');
    await b.sync().catch(() => undefined);
    t.equal(
      b.ready()['status'],
      'True',
      `B's first S3 resource is Ready (A holds ${aUsers} of the account's ${ACCOUNT_USERS} users for ${buckets} buckets; B: ${JSON.stringify(b.ready()['message'])})`,
    );
  },
);

t.test('a user found holding nothing is deleted at its resource refusal; one holding a key is kept', async (t) => {
  const fake = new FakeAws();
  const resource = (name: string) => new NamespaceResource(fake, 'a', name, { bucketName: `a-${name}` }, settings);
  const holder = resource('holder');
  await holder.sync();
  t.equal(holder.ready()['status'], 'True', "the holder takes the namespace's one place");
  const ownerTags = (name: string) =>
    new Map([
      [OWNER_TAG, `a/${name}`],
      [OWNER_UID_TAG, `uid-a-${name}`],
    ]);
  // A user a sync made and could not use (killed right after CreateUser, or refused under an earlier metaops).
  const left = userName('a', 'left', 'uid-a-left');
  await fake.createUser(left, ownerTags('left'));
  // A user with an access key and no record of a bucket (made by a metaops from before the records).
  const keyed = userName('a', 'keyed', 'uid-a-keyed');
  await fake.createUser(keyed, ownerTags('keyed'));
  await fake.createAccessKey(keyed);
  for (const name of ['left', 'keyed']) {
    const r = resource(name);
    await r.sync();
    t.equal(r.ready()['reason'], 'TooManyBuckets', `${name} is refused: the namespace is at its bound`);
  }
  t.notOk(fake.users.has(left), 'the user holding nothing is deleted');
  t.ok(fake.users.has(keyed), 'the user holding a key is kept, its key too');
  t.equal(fake.keyIds(keyed).length, 1);
  t.ok(fake.users.has(holder.status!['iamUser'] as string), "the holder's user is kept");
});

t.test('a refused resource whose user cannot be deleted yet stays refused, and its next sync deletes it', async (t) => {
  const fake = new FakeAws();
  const holder = new NamespaceResource(fake, 'a', 'holder', { bucketName: 'a-holder' }, settings);
  await holder.sync();
  let throttled = true;
  const aws = viewOf(fake, async (method, _args, call) => {
    if (method === 'deleteUser' && throttled) throw new AwsError('Throttling', 'Rate exceeded', 'DeleteUser');
    return call();
  });
  const late = new NamespaceResource(fake, 'a', 'late', { bucketName: 'a-late' }, settings, aws);
  const user = userName('a', 'late', 'uid-a-late');
  // Its user made by a sync that saw a free place (before the holder's entry was listed).
  await fake.createUser(
    user,
    new Map([
      [OWNER_TAG, 'a/late'],
      [OWNER_UID_TAG, 'uid-a-late'],
    ]),
  );
  await late.sync();
  t.equal(late.ready()['reason'], 'TooManyBuckets', 'refused as before, though its user could not be deleted');
  t.ok(fake.users.has(user), 'the user is left for now');
  throttled = false;
  await late.sync();
  t.equal(late.ready()['reason'], 'TooManyBuckets');
  t.notOk(fake.users.has(user), 'deleted by the next sync refused so');
});
