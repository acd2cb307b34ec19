// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { examples, secs, condition, type Scenario } from './common.js';

export const s3: Scenario = {
  name: "S3 (systek.no/v1, the seed's API): kubectl apply -f s3.yaml makes the bucket and Secret; the finalizer holds the resource until cleanup is done",
  async run(k) {
    const notes: string[] = [];
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 's3.yaml')]);
    const ready = await waitFor('Ready=True', async () => {
      const r = await k.json(['get', 's3', 's3-bucket-v1']);
      return condition(r, 'Ready')?.status === 'True' ? r : undefined;
    });
    assert.equal(ready.apiVersion, 'systek.no/v1', "`kubectl get s3` is the seed's S3");
    assert.equal(ready.status.bucketName, 'systek-s3-bucket-v1');
    assert.match(ready.status.iamUser, /^metaops-default-s3-bucket-v1-[0-9a-f]{12}$/);
    assert.deepEqual(ready.status.createdBuckets, ['systek-s3-bucket-v1']);
    const kinds = (await k.kubectl(['api-resources', '--no-headers', '-o', 'name']))
      .split('\n')
      .filter((n) => /^s3s?\./.test(n));
    assert.deepEqual(kinds, ['s3s.systek.no'], '`kubectl get s3` is unambiguous');
    const secret = await waitFor('credentials Secret', () => k.getOrUndefined(['secret', 's3-bucket-v1-credentials']));
    const data = (key: string) => Buffer.from(secret.data[key], 'base64').toString();
    assert.equal(data('BUCKET_NAME'), 'systek-s3-bucket-v1');
    assert.match(data('AWS_ACCESS_KEY_ID'), /^[A-Z0-9]{16,}$/);
    const table = await k.kubectl(['get', 's3']);
    assert.deepEqual(table.split('\n')[0]!.split(/\s+/), ['NAME', 'BUCKET', 'READY', 'AGE']);
    notes.push(
      `bucket, IAM user, policy, key and Secret in ${secs(t0)}; kubectl get s3: ${table.split('\n')[1]!.replace(/\s+/g, ' ')}`,
    );
    notes.push(await k.assertQuiet({ parents: ['s3s/s3-bucket-v1'], hooks: ['s3/sync'] }));

    // An object in the bucket and deletionPolicy Delete without forceDelete: deletion must wait.
    const { S3Client, PutObjectCommand, HeadBucketCommand } = await import('@aws-sdk/client-s3');
    const client = new S3Client({
      endpoint: k.moto!.endpoint,
      region: k.moto!.region,
      forcePathStyle: true,
      credentials: { accessKeyId: data('AWS_ACCESS_KEY_ID'), secretAccessKey: data('AWS_SECRET_ACCESS_KEY') },
    });
    await client.send(new PutObjectCommand({ Bucket: 'systek-s3-bucket-v1', Key: 'report.csv', Body: 'a,b' }));
    await k.kubectl(['patch', 's3', 's3-bucket-v1', '--type=merge', '-p', '{"spec":{"deletionPolicy":"Delete"}}']);
    t0 = Date.now();
    await k.kubectl(['delete', 's3', 's3-bucket-v1', '--wait=false']);
    const held = await waitFor('the finalizer to hold the resource with BucketNotEmpty', async () => {
      const r = await k.getOrUndefined(['s3', 's3-bucket-v1']);
      return r?.metadata.deletionTimestamp && condition(r, 'Finalized')?.reason === 'BucketNotEmpty' ? r : undefined;
    });
    assert.ok(held.metadata.finalizers.length > 0);
    notes.push(`delete held by the finalizer: ${condition(held, 'Finalized').message}`);

    await k.kubectl(['patch', 's3', 's3-bucket-v1', '--type=merge', '-p', '{"spec":{"forceDelete":true}}']);
    await waitFor(
      'the S3 resource to disappear',
      async () => !(await k.getOrUndefined(['s3', 's3-bucket-v1'])),
      90_000,
    );
    const admin = new S3Client({
      endpoint: k.moto!.endpoint,
      region: k.moto!.region,
      forcePathStyle: true,
      credentials: k.moto!.admin,
    });
    await assert.rejects(admin.send(new HeadBucketCommand({ Bucket: 'systek-s3-bucket-v1' })), 'the bucket is gone');
    notes.push(`forceDelete -> bucket emptied and deleted, user and policy removed, resource gone in ${secs(t0)}`);
    return notes;
  },
};
