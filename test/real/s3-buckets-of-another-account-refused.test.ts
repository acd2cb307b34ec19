// Tenant A (namespace team-a, allowed to write S3 resources only) fills the operator account's IAM quotas, which
// every tenant shares (5,000 users an account, a hard limit; 1,500 customer managed policies by default, claims and
// the namespaces' ledgers included), past the bound the server sets on a namespace (METAOPS_S3_BUCKETS_PER_NAMESPACE),
// with buckets of an AWS account of its own.
//
// The bound is counted in the ledger before each CreateBucket (hooks/s3/ledger.ts), and a resource refused there
// makes no IAM user (docs/s3.md, "A refused resource makes nothing"). A bucket that already exists with the
// resource's owner tags is taken as the resource's own: no CreateBucket, so no count; the sync then makes the
// resource's IAM user, its managed policy and an access key. Nothing checks that the bucket is in the operator's
// account (no ExpectedBucketOwner, no account check of the bucket): A creates buckets in its own AWS account, tags each
// with one of its S3 resources (`metaops.dev/owner: team-a/<name>`, `metaops.dev/owner-uid: <its uid>`, which A reads
// from its own objects) and lets anyone read and write their settings by bucket policy; every S3 resource naming one
// is Ready, and each costs the operator's account a user, a policy and a key, without bound. Here on moto, whose
// buckets of another account answer the operator as AWS does under such a bucket policy (moto does not evaluate
// bucket policies; it serves another account's bucket to any caller; it keeps a bucket's tags per calling account,
// so the tags A writes are written here with the operator's key, as AWS would show A's own tags to the operator):
// with a bound of 2, five resources.
//
// Must hold: a namespace's S3 resources hold no more IAM users than its bound allows, whatever buckets exist; a bucket
// outside the operator's account is never taken as a resource's. Every call of the operator's about a bucket expects
// the operator's account as its owner (ExpectedBucketOwner, the account STS names); AWS refuses it with a 403 for a
// bucket of another account, and moto ignores it: the operator's calls go through a proxy that answers it as AWS does
// (expectedBucketOwnerProxy, from moto's own record of each bucket's account). Each resource is refused
// BucketAlreadyExists ("owned by another AWS account"), with no user, claim or ledger entry made.
import { spawn } from 'node:child_process';
import { ListPoliciesCommand } from '@aws-sdk/client-iam';
import { CreateBucketCommand, DeleteBucketCommand, PutBucketTaggingCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateAccessKeyCommand,
  CreateUserCommand,
  IAMClient,
  ListAttachedUserPoliciesCommand,
  ListUsersCommand,
  PutUserPolicyCommand,
} from '@aws-sdk/client-iam';
import t from 'tap';
import { OWNER_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import type { CompositeSyncRequest } from '../../lib/metacontroller.js';
import { s3Sync } from '../fixtures/hooks.js';
import { expectedBucketOwnerProxy, motoServer } from '../fixtures/moto.js';
import { freePort } from '../fixtures/net.js';

const OPERATOR_ACCOUNT = '123456789012';
const TENANT_ACCOUNT = '111111111111';
const BOUND = 2;
const RESOURCES = 5;

/** moto on loopback whose first six calls (unauthenticated) make the operator's key and tenant A's own account's. */
async function start(t: { teardown(fn: () => void): void }) {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const proc = spawn(motoServer(), ['-H', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, INITIAL_NO_AUTH_ACTION_COUNT: '6' },
    stdio: 'ignore',
  });
  t.teardown(() => void proc.kill('SIGTERM'));
  for (let i = 0; i < 150; i++) {
    if (
      await fetch(`${endpoint}/moto-api/`)
        .then((r) => r.status < 500)
        .catch(() => false)
    )
      break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const key = async (account: string, user: string) => {
    const iam = new IAMClient({
      region: 'us-east-1',
      endpoint,
      credentials: { accessKeyId: 'AKIDBOOTSTRAP', secretAccessKey: 'x' },
    });
    iam.middlewareStack.add(
      (next) => async (args: any) => {
        args.request.headers['x-moto-account-id'] = account;
        return next(args);
      },
      { step: 'build' },
    );
    await iam.send(new CreateUserCommand({ UserName: user }));
    await iam.send(
      new PutUserPolicyCommand({
        UserName: user,
        PolicyName: 'all',
        PolicyDocument: JSON.stringify({
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: ['s3:*', 'iam:*'], Resource: '*' }],
        }),
      }),
    );
    const k = (await iam.send(new CreateAccessKeyCommand({ UserName: user }))).AccessKey!;
    return { accessKeyId: k.AccessKeyId!, secretAccessKey: k.SecretAccessKey! };
  };
  const operator = await key(OPERATOR_ACCOUNT, 'metaops-operator');
  const tenant = await key(TENANT_ACCOUNT, 'tenant-a');
  return { endpoint, operator, tenant };
}

/**
 * The operator's AWS API on `endpoint` with `operator`'s key, through a proxy that answers ExpectedBucketOwner as AWS
 * does (moto ignores it): the proxy, and the API with a call deadline.
 */
async function operatorThroughProxy(
  t: { teardown(fn: () => void): void },
  endpoint: string,
  operator: { accessKeyId: string; secretAccessKey: string },
) {
  const proxy = await expectedBucketOwnerProxy({ endpoint });
  t.teardown(() => proxy.close());
  const operatorApi = new SdkAwsApi({
    endpoint: proxy.endpoint,
    region: 'us-east-1',
    credentials: operator,
    requestTimeoutMs: 4000,
  });
  return { proxy, aws: () => operatorApi.withDeadline(7000) };
}

const resource = (name: string, bucket: string): CompositeSyncRequest =>
  ({
    controller: {},
    parent: {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name, namespace: 'team-a', uid: `uid-team-a-${name}`, generation: 1 },
      spec: { bucketName: bucket },
    },
    children: { 'Secret.v1': {} },
  }) as any;

t.test(
  "buckets of the tenant's own AWS account, tagged as its resources', are refused: no IAM user made",
  async (t) => {
    const { endpoint, operator, tenant } = await start(t);
    // Tenant A, in its own AWS account: one bucket per S3 resource, tagged as that resource's.
    const own = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: tenant });
    const tags = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: operator });
    for (let i = 0; i < RESOURCES; i++) {
      const bucket = `team-a-own-account-${i}`;
      await own.send(new CreateBucketCommand({ Bucket: bucket }));
      await tags.send(
        new PutBucketTaggingCommand({
          Bucket: bucket,
          Tagging: {
            TagSet: [
              { Key: OWNER_TAG, Value: `team-a/r${i}` },
              { Key: OWNER_UID_TAG, Value: `uid-team-a-r${i}` },
            ],
          },
        }),
      );
    }
    // The operator's calls, through a proxy that answers ExpectedBucketOwner as AWS does (moto ignores it).
    const { proxy, aws } = await operatorThroughProxy(t, endpoint, operator);
    const ready: string[] = [];
    for (let i = 0; i < RESOURCES; i++) {
      const res: any = await s3Sync(resource(`r${i}`, `team-a-own-account-${i}`), aws(), new Date(), {
        bucketsPerNamespace: BOUND,
      });
      const r = (res.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
      if (r?.status === 'True') ready.push(`r${i}`);
      t.comment(`r${i}: Ready=${r?.status} ${r?.reason ?? ''} ${(r?.message ?? '').slice(0, 120)}`);
      t.equal(r?.reason, 'BucketAlreadyExists', `r${i} is refused as another's bucket`);
      t.match(r?.message, /owned by another AWS account, not the operator's/, `r${i}: the message says why`);
      t.notMatch(r?.message, new RegExp(`${OPERATOR_ACCOUNT}|${TENANT_ACCOUNT}`), `r${i}: it names neither account`);
      t.same(res.children, [], `r${i}: no Secret`);
    }
    t.ok(proxy.refused.length >= RESOURCES, "S3 refused the operator's calls that expected its own account");
    const iam = new IAMClient({ endpoint, region: 'us-east-1', credentials: operator });
    const users = ((await iam.send(new ListUsersCommand({}))).Users ?? [])
      .map((u) => u.UserName!)
      .filter((n) => n.includes('team-a'));
    t.ok(
      users.length <= BOUND,
      `team-a holds at most ${BOUND} IAM users in the operator's account (it holds ${users.length}: ${users.join(', ')})`,
    );
    t.same(ready, [], `no resource is Ready on a bucket of another account (Ready: ${ready.join(', ')})`);
    const policies = (await iam.send(new ListPoliciesCommand({ Scope: 'Local' }))).Policies ?? [];
    t.same(
      policies.map((p) => p.PolicyName),
      [],
      "no policy, claim or ledger entry made in the operator's account",
    );
    // The operator's own bucket, through the same proxy: its calls expect the account STS names, which owns it.
    const mine: any = await s3Sync(resource('own', 'team-a-operator-account'), aws(), new Date(), {
      bucketsPerNamespace: BOUND,
    });
    const ownReady = (mine.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
    t.equal(ownReady?.status, 'True', `a bucket made in the operator's account is Ready (${ownReady?.message ?? ''})`);
  },
);

// A resource's bucket deleted outside metaops, its name then made in the tenant's own account, and the resource's spec
// refused before the sync (a tag AWS refuses): hooks/s3/sync.ts `refused` revokes the grant on the bucket's name (a
// bucket of another account is never the resource's), and the InvalidSpec message says so. Before, the refusal read
// that bucket as gone and left the tenant user's policy attached (test/s3/refused-spec-revokes-its-grant-on-a-bucket-
// of-another-account.test.ts on the model).
t.test(
  "a refused spec whose bucket another account took since revokes the tenant user's grant on that name",
  async (t) => {
    const { endpoint, operator, tenant } = await start(t);
    const { aws } = await operatorThroughProxy(t, endpoint, operator);
    const bucket = 'team-a-data-moved';
    const request = (spec: Record<string, unknown>, status?: unknown, children: unknown[] = []) => {
      const r: any = resource('data', bucket);
      r.parent.spec = { bucketName: bucket, ...spec };
      if (status) r.parent.status = status;
      r.children = { 'Secret.v1': Object.fromEntries(children.map((c: any) => [c.metadata.name, c])) };
      return r as CompositeSyncRequest;
    };
    const first: any = await s3Sync(request({}), aws(), new Date(), { bucketsPerNamespace: BOUND });
    const made = (first.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
    t.equal(made?.status, 'True', `Ready on its own bucket (${made?.message ?? ''})`);
    const iam = new IAMClient({ endpoint, region: 'us-east-1', credentials: operator });
    const userName = ((await iam.send(new ListUsersCommand({}))).Users ?? [])
      .map((u) => u.UserName!)
      .find((n) => n.includes('team-a'))!;
    const attached = async () =>
      ((await iam.send(new ListAttachedUserPoliciesCommand({ UserName: userName }))).AttachedPolicies ?? []).map(
        (p) => p.PolicyName,
      );
    t.equal((await attached()).length, 1, "the tenant user's policy attached");
    // Deleted outside metaops (the operator's account), then made again in the tenant's own account, tagged as the
    // resource's.
    const operatorS3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: operator });
    await operatorS3.send(new DeleteBucketCommand({ Bucket: bucket }));
    const own = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: tenant });
    await own.send(new CreateBucketCommand({ Bucket: bucket }));
    await operatorS3.send(
      new PutBucketTaggingCommand({
        Bucket: bucket,
        Tagging: {
          TagSet: [
            { Key: OWNER_TAG, Value: 'team-a/data' },
            { Key: OWNER_UID_TAG, Value: 'uid-team-a-data' },
          ],
        },
      }),
    );
    const res: any = await s3Sync(
      request({ tags: { 'aws:owner': 'team-a' } }, first.status, first.children),
      aws(),
      new Date(),
      {
        bucketsPerNamespace: BOUND,
      },
    );
    const r = (res.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
    t.comment(`Ready=${r?.status} ${r?.reason} ${(r?.message ?? '').slice(0, 300)}`);
    t.equal(r?.reason, 'InvalidSpec', 'refused before the sync');
    t.match(
      r?.message,
      /owned by another AWS account now, not the operator's: this resource's grant to it was revoked/,
    );
    t.notMatch(r?.message, new RegExp(`${OPERATOR_ACCOUNT}|${TENANT_ACCOUNT}`), 'naming neither account');
    t.same(await attached(), [], "the tenant user's policy is detached: no grant on the other account's bucket");
  },
);
