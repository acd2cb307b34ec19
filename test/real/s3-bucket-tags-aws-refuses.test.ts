// S3 spec.tags with a key AWS reserves (`aws:`), on moto (which refuses it as AWS does: InvalidTag, "System tags
// cannot be added/updated by requester"). The CRD accepts the key. Expected: InvalidSpec naming spec.tags before any
// AWS call that creates something, and no bucket left behind that every later sync fails to configure.
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import t from 'tap';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { startMoto, type Moto } from '../fixtures/moto.js';

let moto: Moto;
t.before(async () => {
  moto = await startMoto();
});
t.teardown(() => moto?.stop());

t.test('spec.tags with an aws: key: InvalidSpec naming spec.tags, no bucket made', async (t) => {
  const aws = () =>
    new SdkAwsApi({
      endpoint: moto.endpoint,
      region: moto.region,
      credentials: moto.admin,
      requestTimeoutMs: 4000,
    }).withDeadline(7000);
  const s3 = new S3Client({
    endpoint: moto.endpoint,
    region: moto.region,
    credentials: moto.admin,
    forcePathStyle: true,
  });
  const bucket = 'tagged-aws-prefix';
  const request = {
    controller: {},
    parent: {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name: 'data', namespace: 'team-a', uid: 'uid-team-a-data', generation: 1 },
      spec: { bucketName: bucket, tags: { 'aws:cost-center': 'cc-1' } },
    },
    children: { 'Secret.v1': {} },
  } as any;
  const res: any = await sync(request, aws(), new Date());
  const ready = res.status.conditions.find((c: any) => c.type === 'Ready');
  t.comment(`Ready=${ready.status} ${ready.reason}: ${ready.message}`);
  t.match(ready, { status: 'False', reason: 'InvalidSpec', message: /spec\.tags/ });
  const exists = await s3.send(new HeadBucketCommand({ Bucket: bucket })).then(
    () => true,
    () => false,
  );
  t.notOk(exists, 'no bucket made for a tag set AWS refuses');
});
