// The quotas of IAM that moto enforces, met by the S3 hook for real (moto, IAM enforced): five versions of a managed
// policy (moto: LimitExceeded on the sixth, checked first below) and two access keys per user. A policy changed seven
// times in a row and a key rotated four times in a row keep every sync green. IAM's 50 tags per user are not
// enforced by moto (its TagUser adds tags without counting them), nor are short pages (moto answers whole lists):
// both are met in the fast suite only, against the model of test/fixtures/aws-model.ts (test/s3/aws-adapter.test.ts).
import {
  CreateAccessKeyCommand,
  CreatePolicyCommand,
  CreatePolicyVersionCommand,
  CreateUserCommand,
  IAMClient,
  ListAccessKeysCommand,
  ListPolicyVersionsCommand,
  TagUserCommand,
  GetUserCommand,
} from '@aws-sdk/client-iam';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import t from 'tap';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import { policyName, userName } from '../../hooks/s3/policy.js';
import { KEY_GRACE_SECONDS } from '../../hooks/s3/plan.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
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

const OWNER = { name: 'quotas', namespace: 'team-q', uid: 'uid-quotas' };
const USER = userName(OWNER.namespace, OWNER.name, OWNER.uid);

class Resource {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  later = 0;
  constructor(public spec: Record<string, unknown>) {}
  request() {
    return s3Request(OWNER, this.spec, { status: this.status, children: this.children });
  }
  async run(hook: 'sync' | 'finalize'): Promise<CompositeSyncResponse> {
    const res = await (hook === 'sync' ? sync : finalize)(
      this.request(),
      aws.withDeadline(7000),
      new Date(Date.now() + this.later * 1000),
    );
    this.status = res.status ?? undefined;
    if (hook === 'sync') this.children = res.children;
    return res;
  }
}
const ready = (res: CompositeSyncResponse) =>
  ((res.status as any)?.conditions ?? []).find((c: any) => c.type === 'Ready') ?? {};

const DOCUMENT = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::probe' }],
});

t.test('moto enforces five versions of a policy and two keys of a user; not 50 tags of a user', async (t) => {
  const arn = (await admin.iam.send(new CreatePolicyCommand({ PolicyName: 'probe', PolicyDocument: DOCUMENT }))).Policy!
    .Arn!;
  const version = () => admin.iam.send(new CreatePolicyVersionCommand({ PolicyArn: arn, PolicyDocument: DOCUMENT }));
  for (let i = 2; i <= 5; i++) await version();
  await t.rejects(version(), { name: 'LimitExceededException' }, 'the sixth version refused');
  await admin.iam.send(new CreateUserCommand({ UserName: 'key-probe' }));
  for (let i = 0; i < 2; i++) await admin.iam.send(new CreateAccessKeyCommand({ UserName: 'key-probe' }));
  await t.rejects(
    admin.iam.send(new CreateAccessKeyCommand({ UserName: 'key-probe' })),
    { name: 'LimitExceededException' },
    'the third key refused',
  );
  // No TagUser quota in moto: 60 tags on one user are accepted (AWS refuses the 51st).
  await admin.iam.send(new CreateUserCommand({ UserName: 'tag-probe' }));
  for (let i = 0; i < 3; i++)
    await admin.iam.send(
      new TagUserCommand({
        UserName: 'tag-probe',
        Tags: Array.from({ length: 20 }, (_, j) => ({ Key: `k${i}-${j}`, Value: 'v' })),
      }),
    );
  const tags = (await admin.iam.send(new GetUserCommand({ UserName: 'tag-probe' }))).User?.Tags ?? [];
  t.equal(tags.length, 60, 'moto does not count a user’s tags: that quota is tested in the fast suite only');
});

t.test('a policy changed seven times in a row: every sync green, never more than five versions', async (t) => {
  const r = new Resource({ bucketName: 'metaops-quota-0', deletionPolicy: 'Delete' });
  t.match(ready(await r.run('sync')), { status: 'True' });
  const account = (await admin.iam.send(new GetUserCommand({ UserName: USER }))).User!.Arn!.split(':')[4];
  const policyArn = `arn:aws:iam::${account}:policy/${policyName(OWNER.namespace, OWNER.name, OWNER.uid)}`;
  for (let i = 1; i <= 7; i++) {
    r.spec = { bucketName: `metaops-quota-${i}`, deletionPolicy: 'Delete' };
    const res = await r.run('sync');
    t.match(ready(res), { status: 'True' }, `change ${i}: ${JSON.stringify(ready(res))}`);
    const versions = (await admin.iam.send(new ListPolicyVersionsCommand({ PolicyArn: policyArn }))).Versions ?? [];
    t.ok(versions.length <= 5, `change ${i}: ${versions.length} versions`);
  }
  t.ok(
    await admin.s3.send(new HeadBucketCommand({ Bucket: 'metaops-quota-7' })).then(
      () => true,
      () => false,
    ),
  );

  // The key rotated four times (its Secret lost each time, the clock past the grace period): two keys at most.
  for (let i = 1; i <= 4; i++) {
    r.children = [];
    r.later += KEY_GRACE_SECONDS + 1;
    const res = await r.run('sync');
    t.match(ready(res), { status: 'True' }, `rotation ${i}: ${JSON.stringify(ready(res))}`);
    const keys = (await admin.iam.send(new ListAccessKeysCommand({ UserName: USER }))).AccessKeyMetadata ?? [];
    t.ok(keys.length <= 2, `rotation ${i}: ${keys.length} keys`);
  }

  let res = await r.run('finalize');
  for (let i = 0; i < 5 && !res.finalized; i++) res = await r.run('finalize');
  t.equal(res.finalized, true, JSON.stringify(res.status));
  await t.rejects(
    admin.iam.send(new ListPolicyVersionsCommand({ PolicyArn: policyArn })),
    { name: 'NoSuchEntityException' },
    'the policy is gone',
  );
});
