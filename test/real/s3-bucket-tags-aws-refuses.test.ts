// S3 spec.tags with a key AWS reserves (`aws:`), on moto (which refuses it as AWS does: InvalidTag, "System tags
// cannot be added/updated by requester"). The CRD accepts the key. Expected: InvalidSpec naming spec.tags before any
// AWS call that creates something, and no bucket left behind that every later sync fails to configure.
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import t from 'tap';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { adminClients, operatorAws, startMoto, type Moto } from '../fixtures/moto.js';

let moto: Moto;
t.before(async () => {
  moto = await startMoto();
});
t.teardown(() => moto?.stop());

t.test('spec.tags with an aws: key: InvalidSpec naming spec.tags, no bucket made', async (t) => {
  const { s3 } = adminClients(moto);
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
  const res: any = await sync(request, operatorAws(moto), new Date());
  const ready = res.status.conditions.find((c: any) => c.type === 'Ready');
  t.comment(`Ready=${ready.status} ${ready.reason}: ${ready.message}`);
  t.match(ready, { status: 'False', reason: 'InvalidSpec', message: /spec\.tags/ });
  const exists = await s3.send(new HeadBucketCommand({ Bucket: bucket })).then(
    () => true,
    () => false,
  );
  t.notOk(exists, 'no bucket made for a tag set AWS refuses');
});
