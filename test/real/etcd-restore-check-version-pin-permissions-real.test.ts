// A restore checks before it acts (issue 30.5), on real S3 semantics (moto, IAM enforced), in a bucket that keeps
// versions: the pin the check leaves is one the restored members can fetch with the same credentials. With
// s3:GetObjectVersion the version checked is the pin (no copy made); with read-only credentials that have neither
// s3:GetObjectVersion nor s3:PutObject the check refuses before anything is dropped, naming s3:GetObjectVersion.
// (The documented policy, s3:PutObject without s3:GetObjectVersion: a copy,
// etcd-restore-check-read-without-version-permission-real.test.ts.)
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { motoUser, motoWithSnapshot } from '../fixtures/snapshot-s3.js';
import { checkSnapshot, fetchChecked, pinPath } from '../../hooks/etcdcommon/snapshot.js';

t.test('a versioned bucket: the version with s3:GetObjectVersion, refused with neither it nor a copy', async (t) => {
  const { moto, admin, data } = await motoWithSnapshot(t, 'versioned', { versioned: true });
  const user = (name: string, actions: string[]) =>
    motoUser(moto, name, 'backups', [{ Effect: 'Allow', Action: actions, Resource: 'arn:aws:s3:::versioned/ns/*' }]);

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
