// A restore checks before it acts (issue 30.5), on real S3 semantics (moto, IAM enforced): a check that passes must
// mean the restored members can fetch what it pinned, since the live members are dropped on its word. In a bucket
// that keeps no versions the check keeps a copy beside the key (`<key>.restore-<uid>`) and each restored member
// fetches that copy with a GetObject of its own. Credentials that may read the snapshots (s3:GetObject on `*.db`)
// and write under the prefix (s3:PutObject on `ns/*`) pass the check, which makes the copy and never reads it back,
// and every member's fetch of the copy is refused (AccessDenied) after the live members were dropped.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
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

t.test('a check that pins a copy: the members fetch it with the same credentials, or the check refuses', async (t) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  const admin = client(moto, moto.admin);
  await admin.send(new CreateBucketCommand({ Bucket: 'plain' }));
  const data = snapshot('the data the restore asked for\n');
  await admin.send(new PutObjectCommand({ Bucket: 'plain', Key: 'ns/snap.db', Body: data }));
  const iam = new IAMClient({ region: moto.region, endpoint: moto.endpoint, credentials: moto.admin });
  await iam.send(new CreateUserCommand({ UserName: 'restore' }));
  await iam.send(
    new PutUserPolicyCommand({
      UserName: 'restore',
      PolicyName: 'backups',
      PolicyDocument: JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          // Read the snapshots, write under the prefix: some requests allowed, others refused.
          { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::plain/ns/*.db' },
          { Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::plain/ns/*' },
        ],
      }),
    }),
  );
  const key = (await iam.send(new CreateAccessKeyCommand({ UserName: 'restore' }))).AccessKey!;
  const restore = client(moto, { accessKeyId: key.AccessKeyId!, secretAccessKey: key.SecretAccessKey! });

  const pin = pinPath('plain/ns/snap.db', 'uid-r');
  const check = await checkSnapshot(restore, 'plain/ns/snap.db', { pinPath: pin, env: {} });
  if (!check.succeeded) {
    t.pass(`refused before anything was dropped: ${check.reason}`);
    return;
  }
  const file = join(mkdtempSync(join(tmpdir(), 'restore-copy-')), 'snapshot.db');
  let fetched = 'ok';
  try {
    await fetchChecked(restore, 'plain/ns/snap.db', file, {
      sha256: check.sha256!,
      ...(check.versionId ? { versionId: check.versionId } : {}),
      ...(check.pinned ? { pinnedPath: pin } : {}),
    });
  } catch (err) {
    fetched = `${(err as Error).name}: ${(err as Error).message}`;
  }
  t.equal(fetched, 'ok', `the check passed (pinned: ${String(check.pinned)}), so the members can fetch what it pinned`);
  if (fetched === 'ok') t.ok(readFileSync(file).equals(data));
});
