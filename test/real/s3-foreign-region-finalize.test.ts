// An S3 resource whose spec.region is in another AWS partition than the operator's is refused at sync (its bucket
// can never be in the operator's account there; hooks/s3/api.ts foreignRegionProblem), but finalize runs whatever
// the spec says. Against moto: deleting such a resource, with deletionPolicy Delete and forceDelete, finishes
// (the finalizer is released) without any call in the foreign region, and a bucket of the same name that another
// resource owns in the operator's region keeps its tags and its objects.
import { GetBucketTaggingCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import t from 'tap';
import { OWNER_UID_TAG, type AwsApi } from '../../hooks/s3/api.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import { adminClients, operatorAws, startMoto, type Moto } from '../fixtures/moto.js';
import { s3Request } from '../fixtures/s3.js';

let moto: Moto;
t.before(async () => {
  moto = await startMoto();
});
t.teardown(async () => moto?.stop());

interface Call {
  method: string;
  args: unknown[];
}

/** The operator's AWS, every call recorded (and those of the clients withDeadline hands out). */
function recorded(aws: AwsApi, calls: Call[]): AwsApi {
  return new Proxy(aws, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        calls.push({ method: prop, args });
        const out = value.apply(target, args);
        return prop === 'withDeadline' ? recorded(out as AwsApi, calls) : out;
      };
    },
  });
}

const MUTATIONS = /^(create|delete|tag|untag|put|set|attach|detach)/;

t.test(
  "a resource refused for a region of another partition is finalized without a call there or to the operator's bucket of that name",
  async (t) => {
    const { s3 } = adminClients(moto);
    const bucket = 'same-name-other-partition';
    // Tenant B owns the bucket in the operator's region, with an object in it.
    const b = await sync(
      s3Request({ name: 'data', namespace: 'team-b', uid: 'uid-b' }, { bucketName: bucket }),
      operatorAws(moto),
      new Date(),
    );
    const readyB = (b.status?.['conditions'] as any[]).find((c) => c.type === 'Ready');
    t.equal(readyB?.status, 'True', `tenant B's bucket made (${readyB?.reason})`);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'precious', Body: 'data' }));
    const tagsBefore = (await s3.send(new GetBucketTaggingCommand({ Bucket: bucket }))).TagSet ?? [];

    // Tenant A names the same bucket in cn-north-1 (AWS China): refused at sync, before any call.
    const spec = { bucketName: bucket, region: 'cn-north-1', deletionPolicy: 'Delete', forceDelete: true };
    const calls: Call[] = [];
    const a = await sync(
      s3Request({ name: 'data', namespace: 'team-a', uid: 'uid-a' }, spec),
      recorded(operatorAws(moto), calls),
      new Date(),
    );
    const readyA = (a.status?.['conditions'] as any[]).find((c) => c.type === 'Ready');
    t.match(readyA, { status: 'False', reason: 'InvalidSpec' }, 'refused at sync');
    t.notOk(
      calls.some((c) => c.method === 'findBucket' || c.method === 'createBucket'),
      'the refused sync looks for no bucket (it reads only its own IAM user: sync.ts refused)',
    );

    // A is deleted: finalize, fed its own answers until it releases the finalizer (a bound of three calls).
    let status = a.status ?? undefined;
    let done = false;
    for (let i = 0; i < 3 && !done; i++) {
      const res = await finalize(
        s3Request({ name: 'data', namespace: 'team-a', uid: 'uid-a' }, spec, { status }),
        recorded(operatorAws(moto), calls),
        new Date(),
      );
      status = res.status ?? undefined;
      done = res.finalized === true;
    }
    t.ok(done, 'finalized: the finalizer is released');
    const shown = calls.map((c) => `${c.method}(${c.args.map((x) => JSON.stringify(x) ?? '').join(', ')})`);
    t.comment(`the sync's and finalize's calls: ${shown.join('; ')}`);
    t.same(
      shown.filter((s) => s.includes('cn-north-1')),
      [],
      'no call names the foreign region',
    );
    t.same(
      calls.filter((c) => MUTATIONS.test(c.method) && c.args.some((x) => typeof x === 'string' && x.includes(bucket))),
      [],
      'no call changes anything named after the bucket',
    );

    // Tenant B's bucket is as it was: its tags (its owner), its object.
    const tagsAfter = (await s3.send(new GetBucketTaggingCommand({ Bucket: bucket }))).TagSet ?? [];
    t.same(tagsAfter, tagsBefore, "tenant B's bucket keeps its tags");
    t.equal(tagsAfter.find((x) => x.Key === OWNER_UID_TAG)?.Value, 'uid-b', 'owned by tenant B');
    const body = await (
      await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'precious' }))
    ).Body!.transformToString();
    t.equal(body, 'data', "tenant B's object is still there");
  },
);
