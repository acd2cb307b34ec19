// A restore checks before it acts (issue 30.5), on real S3 semantics (moto, IAM enforced): a check that passes must
// mean the restored members can fetch what it checked, since the live members are dropped on its word. In a bucket
// that keeps versions the check reads the key with a plain GetObject and pins the version it read; each restored
// member then fetches that version by VersionId, which needs s3:GetObjectVersion. The credentials policy
// docs/etcdbackup.md gives (s3:PutObject, s3:GetObject, s3:DeleteObject on the prefix) passes the check and fails
// every member's fetch.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CreateBucketCommand, PutBucketVersioningCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
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

t.test('a check that passes in a versioned bucket: the members fetch with the same credentials', async (t) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  const admin = client(moto, moto.admin);
  await admin.send(new CreateBucketCommand({ Bucket: 'versioned' }));
  await admin.send(
    new PutBucketVersioningCommand({ Bucket: 'versioned', VersioningConfiguration: { Status: 'Enabled' } }),
  );
  const data = snapshot('the data the restore asked for\n');
  await admin.send(new PutObjectCommand({ Bucket: 'versioned', Key: 'ns/snap.db', Body: data }));
  // The restore's credentials: the policy docs/etcdbackup.md gives for a namespace's prefix of a shared bucket.
  const iam = new IAMClient({ region: moto.region, endpoint: moto.endpoint, credentials: moto.admin });
  await iam.send(new CreateUserCommand({ UserName: 'restore' }));
  await iam.send(
    new PutUserPolicyCommand({
      UserName: 'restore',
      PolicyName: 'backups',
      PolicyDocument: JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
            Resource: 'arn:aws:s3:::versioned/ns/*',
          },
          {
            Effect: 'Allow',
            Action: 's3:ListBucket',
            Resource: 'arn:aws:s3:::versioned',
            Condition: { StringLike: { 's3:prefix': 'ns/*' } },
          },
        ],
      }),
    }),
  );
  const key = (await iam.send(new CreateAccessKeyCommand({ UserName: 'restore' }))).AccessKey!;
  const restore = client(moto, { accessKeyId: key.AccessKeyId!, secretAccessKey: key.SecretAccessKey! });

  const pin = pinPath('versioned/ns/snap.db', 'uid-r');
  const check = await checkSnapshot(restore, 'versioned/ns/snap.db', { pinPath: pin, env: {} });
  if (!check.succeeded) {
    t.pass(`refused before anything was dropped: ${check.reason}`);
    return;
  }
  const file = join(mkdtempSync(join(tmpdir(), 'restore-version-')), 'snapshot.db');
  let fetched = 'ok';
  try {
    await fetchChecked(restore, 'versioned/ns/snap.db', file, {
      sha256: check.sha256!,
      ...(check.versionId ? { versionId: check.versionId } : {}),
      ...(check.pinned ? { pinnedPath: pin } : {}),
    });
  } catch (err) {
    fetched = `${(err as Error).name}: ${(err as Error).message}`;
  }
  t.equal(fetched, 'ok', `the check passed (version ${check.versionId ?? 'none'}), so the members can fetch it`);
  if (fetched === 'ok') t.ok(readFileSync(file).equals(data));
});
