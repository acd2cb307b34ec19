// A tenant trying to pre-claim a bucket name (issue 29). Tenant A's S3 resource names bucket X in a region where
// CreateBucket fails (stand-in here: an opt-in region the account has not enabled answers
// IllegalLocationConstraintException). The failed sync leaves A's record of intent (metaops.dev/creating-bucket = X)
// on A's IAM user. When a bucket X later appears without tags (made by hand by team B, by other tooling, or by B's own
// metaops sync that died between CreateBucket and PutBucketTagging), A's next sync takes it as its own: A's owner tags
// go on it and A's key reads it. Expected: a bucket this resource did not create is never adopted.
import {
  CreateBucketCommand,
  GetBucketTaggingCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import t from 'tap';
import { AwsError } from '../../hooks/s3/api.js';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import { PENDING_ANNOTATION } from '../../hooks/s3/plan.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { s3Sync } from '../fixtures/hooks.js';
import { startMoto, type Moto } from '../fixtures/moto.js';
import { asObserved, objectMap } from '../fixtures/requests.js';

let moto: Moto;
t.before(async () => {
  moto = await startMoto();
});
t.teardown(() => moto?.stop());

t.test(
  'a CreateBucket that AWS refused leaves no record: an untagged bucket of that name made later by someone else is not adopted',
  async (t) => {
    const aws = new SdkAwsApi({ endpoint: moto.endpoint, region: moto.region, credentials: moto.admin });
    const proto = SdkAwsApi.prototype as any;
    const original = proto.createBucket;
    proto.createBucket = async function (this: unknown, bucket: string, region: string, ...rest: unknown[]) {
      if (region === 'ap-east-1')
        throw new AwsError('IllegalLocationConstraintException', 'opt-in region not enabled', 'CreateBucket');
      return original.call(this, bucket, region, ...rest);
    };
    t.teardown(() => void (proto.createBucket = original));
    let status: Record<string, unknown> | undefined;
    let children: KubeObject[] = [];
    const sync = async (spec: Record<string, unknown>) => {
      const parent: any = {
        apiVersion: 'systek.no/v1',
        kind: 'S3',
        metadata: { name: 'pre', namespace: 'a', uid: 'uid-a-pre', generation: 1 },
        spec,
        ...(status ? { status } : {}),
      };
      const request: any = {
        controller: {},
        parent,
        children: objectMap(
          children.map((c) => asObserved(c)),
          'v1',
          ['Secret.v1'],
        ),
      };
      const res = await s3Sync(request, aws.withDeadline(7000) as any, new Date());
      status = res.status ?? undefined;
      children = res.children;
      return res;
    };
    const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
    t.equal(
      ready(await sync({ bucketName: 'team-b-archive', region: 'ap-east-1' })).status,
      'False',
      'A cannot create',
    );
    // Team B makes its bucket by hand, without tags, and keeps data in it.
    const admin = new S3Client({
      endpoint: moto.endpoint,
      region: moto.region,
      forcePathStyle: true,
      credentials: moto.admin,
    });
    await admin.send(new CreateBucketCommand({ Bucket: 'team-b-archive' }));
    await admin.send(new PutObjectCommand({ Bucket: 'team-b-archive', Key: 'b.txt', Body: 'B data' }));
    const res = await sync({ bucketName: 'team-b-archive' });
    t.not(ready(res).status, 'True', "A's resource does not report B's bucket as its own");
    t.match(ready(res), { reason: 'BucketAlreadyExists', message: /not managed by metaops/ }, 'refused, and why');
    const tagged = await admin.send(new GetBucketTaggingCommand({ Bucket: 'team-b-archive' })).then(
      (r) => r.TagSet ?? [],
      () => [],
    );
    t.same(tagged, [], "B's bucket is left untagged");
    // The Secret name A claimed at its first answer (a pending Secret, docs/s3.md) is kept, without keys: A holds no
    // credentials.
    const secrets = children.filter((c) => c.kind === 'Secret') as any[];
    t.same(
      secrets.map((c) => [c.data ?? {}, typeof c.metadata?.annotations?.[PENDING_ANNOTATION]]),
      secrets.length === 0 ? [] : [[{}, 'string']],
      'A has no Secret with keys: at most its pending claim',
    );
    const secret = secrets[0];
    if (secret?.data) {
      const v = (k: string) => Buffer.from(String(secret.data[k]), 'base64').toString();
      const a = new S3Client({
        endpoint: moto.endpoint,
        region: moto.region,
        forcePathStyle: true,
        credentials: { accessKeyId: v('AWS_ACCESS_KEY_ID'), secretAccessKey: v('AWS_SECRET_ACCESS_KEY') },
      });
      const read = await a.send(new GetObjectCommand({ Bucket: 'team-b-archive', Key: 'b.txt' })).then(
        (r) => r.Body!.transformToString(),
        (e: Error) => `refused: ${e.name}`,
      );
      t.not(read, 'B data', "A's key does not read the bucket it did not create");
    }
  },
);
