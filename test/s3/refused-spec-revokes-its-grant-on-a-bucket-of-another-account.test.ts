// An S3 resource's bucket is deleted outside metaops and another AWS account (the tenant's own) takes its name; the
// resource's spec is then refused before the sync (a tag AWS refuses, `aws:owner`), so no sync runs and only
// hooks/s3/sync.ts `refused` (narrowGrant) holds what the resource was granted to today's rules. Before, it read the
// bucket with findOwnBucket, which takes another account's bucket for a gone one ("no answer"), and revoked nothing:
// the tenant IAM user's policy kept granting that bucket name, now another account's bucket, which that account's
// bucket policy may open to it (a way out of the operator's account). A bucket of another account is never this
// resource's: a definite answer, as the sync's (refuseOfAnotherAccount, lostBucket). Must hold: the grant is revoked
// (the policy detached from the user), the InvalidSpec message says so, nothing is written to the other account's
// bucket, and a refused spec whose bucket is its own keeps its grant. On the SDK adapter over the AWS model; the same
// against moto: test/real/s3-buckets-of-another-account-refused.test.ts.
import t from 'tap';
import { OWNER_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { policyName, userName } from '../../hooks/s3/policy.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { AwsModel } from '../fixtures/aws-model.js';
import { s3Sync } from '../fixtures/hooks.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

const TENANT_ACCOUNT = '111111111111';

const ready = (res: CompositeSyncResponse) =>
  ((res.status?.['conditions'] as any[]) ?? []).find((c) => c.type === 'Ready') ?? {};

/** S3 resource `data` of team-a on the model, its status and children carried from one answer to the next. */
function resource(m: AwsModel) {
  let status: Record<string, unknown> | undefined;
  let children: any[] = [];
  const api = m.api();
  return {
    async sync(spec: Record<string, unknown>) {
      const res = await s3Sync(
        s3Request(
          { name: 'data', namespace: 'team-a', uid: 'uid-team-a-data' },
          { ...S3_DEFAULTS, bucketName: 'team-a-data', ...spec },
          { status, children },
        ),
        api,
        m.now,
      );
      status = res.status ?? undefined;
      children = res.children;
      return res;
    },
  };
}

const user = userName('team-a', 'data', 'uid-team-a-data');

t.test(
  "a refused spec whose bucket another account took since revokes the grant on the bucket's name, and says so",
  async (t) => {
    const m = new AwsModel();
    const r = resource(m);
    t.equal(ready(await r.sync({})).status, 'True', 'Ready on its own bucket');
    const policy = `arn:aws:iam::${m.account}:policy/${policyName('team-a', 'data', 'uid-team-a-data')}`;
    t.same(m.users.get(user)!.attached, [policy], 'its policy attached');
    // Deleted outside metaops; the tenant makes the name again in its own account, tagged as the resource's, open.
    m.buckets.set('team-a-data', {
      region: 'us-east-1',
      tags: [
        { Key: OWNER_TAG, Value: 'team-a/data' },
        { Key: OWNER_UID_TAG, Value: 'uid-team-a-data' },
      ],
      objects: [{ Key: 'theirs', VersionId: 'v1' }],
      owner: TENANT_ACCOUNT,
      open: true,
    });
    m.calls.length = 0;
    const res = await r.sync({ tags: { 'aws:owner': 'team-a' } });
    t.match(ready(res), { status: 'False', reason: 'InvalidSpec' }, 'refused before the sync');
    t.match(ready(res).message, /aws:/, 'for the tag');
    t.match(
      ready(res).message,
      /bucket team-a-data is owned by another AWS account now, not the operator's: this resource's grant to it was revoked/,
      'the revocation said',
    );
    t.notMatch(ready(res).message, /\d{12}/, 'naming neither account');
    t.same(m.users.get(user)!.attached, [], "the policy granting the other account's bucket detached");
    t.notOk(
      m.calls.some((c) => /^(CreateBucket|PutBucket|PutObject|Delete)/.test(c)),
      "nothing written to the other account's bucket",
    );
    t.same(m.buckets.get('team-a-data')!.objects, [{ Key: 'theirs', VersionId: 'v1' }], 'its objects untouched');
    // Refused again: nothing more to revoke, still said.
    const again = await r.sync({ tags: { 'aws:owner': 'team-a' } });
    t.match(ready(again).message, /this resource holds no grant to it/, 'said while it stays refused');
    t.same(m.users.get(user)!.attached, [], 'still detached');
  },
);

t.test('a refused spec whose bucket is its own keeps its grant', async (t) => {
  const m = new AwsModel();
  const r = resource(m);
  t.equal(ready(await r.sync({})).status, 'True', 'Ready on its own bucket');
  const res = await r.sync({ tags: { 'aws:owner': 'team-a' } });
  t.match(ready(res), { status: 'False', reason: 'InvalidSpec' }, 'refused');
  t.notMatch(ready(res).message, /another AWS account/, 'no revocation said');
  t.equal(m.users.get(user)!.attached.length, 1, 'the policy still attached');
});
