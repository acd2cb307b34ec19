// Issue 31, "two resources that want one external thing", against moto: two S3 resources of two namespaces
// name the same bucket and sync at the same time (both applied together; Metacontroller runs several workers).
// Both see no bucket, both record their intent and call CreateBucket; in us-east-1 S3 answers 200 to a CreateBucket
// of a bucket the account already owns (moto does the same), so the second "creates" the first's bucket, and both
// tag it as their own. Expected: exactly one of them is Ready with that bucket; the other is Ready=False
// BucketAlreadyExists and its IAM policy grants nothing on the bucket.
import { GetBucketTaggingCommand } from '@aws-sdk/client-s3';
import {
  GetPolicyCommand,
  GetPolicyVersionCommand,
  ListAccessKeysCommand,
  ListAttachedUserPoliciesCommand,
} from '@aws-sdk/client-iam';
import t from 'tap';
import { OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { userName } from '../../hooks/s3/policy.js';
import type { CompositeSyncRequest } from '../../lib/metacontroller.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { adminClients, operatorAws, startMoto, type Moto } from '../fixtures/moto.js';

let moto: Moto;
t.before(async () => {
  moto = await startMoto();
});
t.teardown(async () => moto?.stop());

const parent = (ns: string, name: string, bucket: string): CompositeSyncRequest =>
  ({
    controller: {},
    parent: {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name, namespace: ns, uid: `uid-${ns}-${name}`, generation: 1 },
      spec: { bucketName: bucket },
    },
    children: { 'Secret.v1': {} },
  }) as any;

t.test('two namespaces, one bucket name, synced at once: one owner, the other refused', async (t) => {
  const { s3, iam } = adminClients(moto);
  const bucket = 'shared-race-b';
  const [a, b] = await Promise.all([
    sync(parent('team-a', 'data', bucket), operatorAws(moto), new Date()),
    sync(parent('team-b', 'data', bucket), operatorAws(moto), new Date()),
  ]);
  const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
  const tags = (await s3.send(new GetBucketTaggingCommand({ Bucket: bucket }))).TagSet ?? [];
  const owner = tags.find((x) => x.Key === OWNER_UID_TAG)?.Value;
  // Which IAM users may use the bucket: the policy documents attached to each resource's user.
  const granted = async () => {
    const grants: string[] = [];
    for (const ns of ['team-a', 'team-b']) {
      const user = userName(ns, 'data', `uid-${ns}-data`);
      const attached = await iam.send(new ListAttachedUserPoliciesCommand({ UserName: user })).catch(() => undefined);
      for (const p of attached?.AttachedPolicies ?? []) {
        const pol = (await iam.send(new GetPolicyCommand({ PolicyArn: p.PolicyArn! }))).Policy!;
        const doc = (
          await iam.send(new GetPolicyVersionCommand({ PolicyArn: p.PolicyArn!, VersionId: pol.DefaultVersionId! }))
        ).PolicyVersion!.Document!;
        if (decodeURIComponent(doc).includes(`arn:aws:s3:::${bucket}`)) grants.push(ns);
      }
    }
    return grants;
  };
  const grants = await granted();
  t.comment(
    `team-a: ${ready(a).status} ${ready(a).reason}; team-b: ${ready(b).status} ${ready(b).reason}; bucket owner tag: ${owner}; policies granting the bucket: ${grants.join(', ')}`,
  );
  const readyCount = [a, b].filter((r) => ready(r).status === 'True').length;
  t.equal(readyCount, 1, 'exactly one resource is Ready with the bucket');
  t.equal(grants.length, 1, 'exactly one IAM user may use the bucket');
  // Metacontroller's next syncs, each answer fed back (status and the Secret as observed).
  const again = async (ns: string, res: any) => {
    const req: any = parent(ns, 'data', bucket);
    req.parent.status = res.status;
    const secret = res.children.find((c: any) => c.kind === 'Secret');
    if (secret)
      req.children['Secret.v1'] = {
        [secret.metadata.name]: { ...secret, metadata: { ...secret.metadata, uid: 'u', resourceVersion: '1' } },
      };
    return sync(req, operatorAws(moto), new Date());
  };
  let [a2, b2] = [a, b];
  for (let i = 0; i < 2; i++) [a2, b2] = [await again('team-a', a2), await again('team-b', b2)];
  t.comment(
    `after 2 more syncs: team-a: ${ready(a2).status} ${ready(a2).reason}: ${ready(a2).message}; team-a Secret kept: ${a2.children.some((c: any) => c.kind === 'Secret')}; team-b: ${ready(b2).status} ${ready(b2).reason}; team-b Secret kept: ${b2.children.some((c: any) => c.kind === 'Secret')}; policies granting the bucket now: ${(await granted()).join(', ')}`,
  );
  const [winner, loser, loserNs] = ready(a2).status === 'True' ? [a2, b2, 'team-b'] : [b2, a2, 'team-a'];
  t.match(ready(loser), { status: 'False', reason: 'BucketAlreadyExists' }, 'the other says why');
  t.notOk(
    loser.children.some((c: any) => c.kind === 'Secret'),
    'the other has no Secret',
  );
  t.ok(
    winner.children.some((c: any) => c.kind === 'Secret'),
    'the owner keeps its Secret',
  );
  const loserKeys = await iam
    .send(new ListAccessKeysCommand({ UserName: userName(loserNs, 'data', `uid-${loserNs}-data`) }))
    .then(
      (r) => r.AccessKeyMetadata ?? [],
      () => [],
    );
  t.same(loserKeys, [], 'the other has no access key');
  t.same(
    await granted(),
    [(a2.status as any).conditions.find((c: any) => c.type === 'Ready').status === 'True' ? 'team-a' : 'team-b'],
    "after the next syncs, only the Ready resource's user may use the bucket",
  );
});
