// A restore checks before it acts (issue 30.5), on real S3 semantics (moto, IAM enforced), in a bucket that keeps
// versions: the pin the check leaves is one the restored members can fetch with the same credentials. With
// s3:GetObjectVersion the version checked is the pin (no copy made); with read-only credentials that have neither
// s3:GetObjectVersion nor s3:PutObject the check refuses before anything is dropped, naming s3:GetObjectVersion.
// (The documented policy, s3:PutObject without s3:GetObjectVersion: a copy,
// etcd-restore-check-read-without-version-permission-real.test.ts.)
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import {
  CreateBucketCommand,
  HeadObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { CreateAccessKeyCommand, CreateUserCommand, IAMClient, PutUserPolicyCommand } from '@aws-sdk/client-iam';
import { startMoto, type Moto } from '../fixtures/moto.js';
import { checkSnapshot, fetchChecked, pinPath } from '../../hooks/etcdcommon/snapshot.js';

const snapshot = (text: string) => {
  const body = Buffer.from(text.repeat(64));
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
};

function client(moto: Moto, credentials: { accessKeyId: string; secretAccessKey: string }): S3Client {
  return new S3Client({ region: moto.region, endpoint: moto.endpoint, forcePathStyle: true, credentials });
}

t.test('a versioned bucket: the version with s3:GetObjectVersion, refused with neither it nor a copy', async (t) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  const admin = client(moto, moto.admin);
  await admin.send(new CreateBucketCommand({ Bucket: 'versioned' }));
  await admin.send(
    new PutBucketVersioningCommand({ Bucket: 'versioned', VersioningConfiguration: { Status: 'Enabled' } }),
  );
  const data = snapshot('the data the restore asked for\n');
  await admin.send(new PutObjectCommand({ Bucket: 'versioned', Key: 'ns/snap.db', Body: data }));
  const iam = new IAMClient({ region: moto.region, endpoint: moto.endpoint, credentials: moto.admin });
  const user = async (name: string, actions: string[]) => {
    await iam.send(new CreateUserCommand({ UserName: name }));
    await iam.send(
      new PutUserPolicyCommand({
        UserName: name,
        PolicyName: 'backups',
        PolicyDocument: JSON.stringify({
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: actions, Resource: 'arn:aws:s3:::versioned/ns/*' }],
        }),
      }),
    );
    const key = (await iam.send(new CreateAccessKeyCommand({ UserName: name }))).AccessKey!;
    return client(moto, { accessKeyId: key.AccessKeyId!, secretAccessKey: key.SecretAccessKey! });
  };

  await t.test('s3:GetObject and s3:GetObjectVersion: the version, fetched by the members, no copy', async (t) => {
    const s3 = await user('versions', ['s3:GetObject', 's3:GetObjectVersion', 's3:PutObject']);
    const pin = pinPath('versioned/ns/snap.db', 'uid-v');
    const check = await checkSnapshot(s3, 'versioned/ns/snap.db', { pinPath: pin, env: {} });
    t.match(check, { succeeded: true, versionId: /./ });
    t.notOk(check.pinned, 'no copy made');
    await t.rejects(
      admin.send(new HeadObjectCommand({ Bucket: 'versioned', Key: 'ns/snap.db.restore-uid-v' })),
      { name: 'NotFound' },
      'nothing at the copy key',
    );
    const file = join(mkdtempSync(join(tmpdir(), 'restore-version-pin-')), 'snapshot.db');
    await fetchChecked(s3, 'versioned/ns/snap.db', file, { sha256: check.sha256!, versionId: check.versionId! });
    t.ok(readFileSync(file).equals(data));
  });

  await t.test('s3:GetObject only: refused, naming s3:GetObjectVersion', async (t) => {
    const s3 = await user('readonly', ['s3:GetObject']);
    const check = await checkSnapshot(s3, 'versioned/ns/snap.db', {
      pinPath: pinPath('versioned/ns/snap.db', 'u'),
      env: {},
    });
    t.match(check, { succeeded: false, reason: /s3:GetObjectVersion/ });
    t.notOk(check.sha256, 'no pin recorded');
  });
});
