// Two tenants' S3 resources naming the same bucket at about the same time (issue 29). Tenant A's sync looks for
// the bucket (absent), tenant B's sync creates and tags it, then A's CreateBucket runs: in us-east-1 S3 (and moto)
// answers 200 to CreateBucket of a bucket the same account already owns, so A's sync takes it as created, puts A's
// owner tags over B's, and grants A's IAM user B's bucket. Expected: A's sync refuses (the bucket is B's); B keeps it.
import { GetBucketTaggingCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import t from 'tap';
import { OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { s3Sync } from '../fixtures/hooks.js';
import { startMoto, type Moto } from '../fixtures/moto.js';
import { asObserved, objectMap } from '../fixtures/requests.js';

let moto: Moto;
t.before(async () => {
  moto = await startMoto();
});
t.teardown(() => moto?.stop());

class Tenant {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly spec: Record<string, unknown>,
  ) {}
  async sync(aws: SdkAwsApi): Promise<CompositeSyncResponse> {
    const parent: any = {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name: this.name, namespace: this.namespace, uid: `uid-${this.namespace}`, generation: 1 },
      spec: this.spec,
      ...(this.status ? { status: this.status } : {}),
    };
    const children = objectMap(
      this.children.map((c) => asObserved(c)),
      'v1',
      ['Secret.v1'],
    );
    const res = await s3Sync({ controller: {}, parent, children } as any, aws.withDeadline(7000) as any, new Date());
    this.status = res.status ?? undefined;
    this.children = res.children;
    return res;
  }
  client(): S3Client {
    const s = this.children.find((c) => c.kind === 'Secret') as any;
    const v = (k: string) => Buffer.from(String(s.data[k]), 'base64').toString();
    return new S3Client({
      endpoint: moto.endpoint,
      region: moto.region,
      forcePathStyle: true,
      credentials: { accessKeyId: v('AWS_ACCESS_KEY_ID'), secretAccessKey: v('AWS_SECRET_ACCESS_KEY') },
    });
  }
}

t.test(
  "a CreateBucket answered 200 for a bucket another tenant's resource just made takes nothing: that tenant keeps it",
  async (t) => {
    const aws = new SdkAwsApi({ endpoint: moto.endpoint, region: moto.region, credentials: moto.admin });
    const b = new Tenant('b', 'data', { bucketName: 'tenant-b-data' });
    const a = new Tenant('a', 'steal', { bucketName: 'tenant-b-data' });
    // The interleaving: B's whole sync runs just before A's CreateBucket (after A found no bucket).
    const proto = SdkAwsApi.prototype as any;
    const original = proto.createBucket;
    let raced = false;
    proto.createBucket = async function (this: unknown, ...args: unknown[]) {
      if (!raced) {
        raced = true;
        const rb = await b.sync(aws);
        t.equal((rb.status as any).conditions.find((c: any) => c.type === 'Ready').status, 'True', 'B made its bucket');
      }
      return original.apply(this, args);
    };
    t.teardown(() => void (proto.createBucket = original));
    const ra = await a.sync(aws);
    t.ok(raced, 'the interleaving happened');
    await b.client().send(new PutObjectCommand({ Bucket: 'tenant-b-data', Key: 'secret.txt', Body: 'B private' }));
    t.notOk(
      a.children.some((c) => c.kind === 'Secret'),
      'A has no Secret (no key was made for a bucket it does not hold)',
    );
    const readByA = a.children.some((c) => c.kind === 'Secret')
      ? await a
          .client()
          .send(new GetObjectCommand({ Bucket: 'tenant-b-data', Key: 'secret.txt' }))
          .then(
            (r) => r.Body!.transformToString(),
            (e: Error) => `refused: ${e.name}`,
          )
      : 'no key';
    t.not(readByA, 'B private', "A's key does not read B's object");
    const readyA = (ra.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.not(readyA.status, 'True', "A's sync does not report B's bucket as its own");
    t.match(readyA, { reason: 'BucketAlreadyExists', message: /belongs to another S3 resource/ }, 'A is told why');
    t.notMatch(readyA.message, /\bb\/data\b/, "A is not told B's namespace and name");
    const tags = await new S3Client({
      endpoint: moto.endpoint,
      region: moto.region,
      forcePathStyle: true,
      credentials: moto.admin,
    }).send(new GetBucketTaggingCommand({ Bucket: 'tenant-b-data' }));
    t.equal(tags.TagSet?.find((x) => x.Key === OWNER_UID_TAG)?.Value, 'uid-b', "the bucket keeps B's owner tags");
    const rb = await b.sync(aws);
    t.equal(
      (rb.status as any).conditions.find((c: any) => c.type === 'Ready').status,
      'True',
      'B still owns its bucket',
    );
  },
);
