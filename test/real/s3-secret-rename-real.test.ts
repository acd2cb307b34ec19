// A changed spec.secretName against moto (IAM enforced): the new Secret carries the key in use, the old Secret's
// readers keep reaching the bucket, and IAM keeps that one key through the rename and after the old Secret is gone.
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ListAccessKeysCommand } from '@aws-sdk/client-iam';
import t from 'tap';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import { userName } from '../../hooks/s3/policy.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { adminClients, startMoto, type Moto } from '../fixtures/moto.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

let moto: Moto;
let aws: SdkAwsApi;
t.before(async () => {
  moto = await startMoto();
  aws = new SdkAwsApi({ endpoint: moto.endpoint, region: moto.region, credentials: moto.admin });
});
t.teardown(() => moto?.stop());

const META = { name: 'app', namespace: 'team-a', uid: 'uid-app' };
const BUCKET = 'metaops-rename-secret';
const data = (s: KubeObject) =>
  Object.fromEntries(
    Object.entries((s as any).data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()]),
  ) as Record<string, string>;
const clientOf = (s: KubeObject) => {
  const d = data(s);
  return new S3Client({
    endpoint: d['AWS_ENDPOINT_URL'],
    region: d['AWS_REGION'],
    forcePathStyle: true,
    credentials: { accessKeyId: d['AWS_ACCESS_KEY_ID']!, secretAccessKey: d['AWS_SECRET_ACCESS_KEY']! },
  });
};

t.test("a renamed Secret carries the key in use; the old Secret's readers keep working", async (t) => {
  const iam = adminClients(moto).iam;
  const keys = async () =>
    (
      (await iam.send(new ListAccessKeysCommand({ UserName: userName(META.namespace, META.name, META.uid) })))
        .AccessKeyMetadata ?? []
    ).map((k) => k.AccessKeyId);
  const spec = { ...S3_DEFAULTS, bucketName: BUCKET };
  const first = await sync(s3Request(META, spec), aws.withDeadline(7000), new Date());
  const ready = (r: any) => r.status.conditions.find((c: any) => c.type === 'Ready');
  t.match(ready(first), { status: 'True' });
  const oldSecret = first.children[0]!;
  const inUse = data(oldSecret)['AWS_ACCESS_KEY_ID'];
  t.same(await keys(), [inUse]);

  // A day later: spec.secretName changed; the old Secret is still observed.
  const day = new Date(Date.now() + 86_400_000);
  const renamed = await sync(
    s3Request(META, { ...spec, secretName: 'app-creds' }, { status: first.status as never, children: [oldSecret] }),
    aws.withDeadline(7000),
    day,
  );
  t.match(ready(renamed), { status: 'True' });
  t.equal(renamed.children[0]!.metadata.name, 'app-creds');
  t.equal(data(renamed.children[0]!)['AWS_ACCESS_KEY_ID'], inUse, 'the new Secret carries the key in use');
  t.same(await keys(), [inUse], 'IAM keeps that key, and makes no other');
  await clientOf(oldSecret).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'still.txt', Body: 'works' }));
  t.pass("the old Secret's key still writes to the bucket");

  // Metacontroller deleted the old Secret; the next sync sees the new one only.
  const next = await sync(
    s3Request(
      META,
      { ...spec, secretName: 'app-creds' },
      { status: renamed.status as never, children: [renamed.children[0]!] },
    ),
    aws.withDeadline(7000),
    new Date(day.getTime() + 60_000),
  );
  t.match(ready(next), { status: 'True' });
  t.same(await keys(), [inUse], 'still that one key');
  await clientOf(next.children[0]!).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'new.txt', Body: 'works' }));
});
