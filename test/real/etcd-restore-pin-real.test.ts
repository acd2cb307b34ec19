// What a restore's check verified is what its members restore (issue 30.5), on real S3 semantics (moto, IAM
// enforced): the check pins the bytes it verified (hooks/etcdcommon/snapshot.ts). In a bucket that keeps versions the
// members fetch the version checked, and no copy is made; with credentials that may only read, no copy can be made:
// each member then refuses bytes other than those checked (the key written again since), and leaves no file, rather
// than start one cluster from two snapshots.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import {
  CreateBucketCommand,
  HeadObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { startMoto, type Moto } from '../fixtures/moto.js';
import { motoS3, motoUser, sha, snapshot } from '../fixtures/snapshot-s3.js';
import { checkSnapshot, fetchChecked, pinPath } from '../../hooks/etcdcommon/snapshot.js';

/** A user that may only read the bucket (a restore's least privilege): no copy can be made. */
const reader = (moto: Moto, bucket: string) =>
  motoUser(moto, 'restore-reader', 'read', [
    { Effect: 'Allow', Action: ['s3:GetObject', 's3:GetObjectVersion'], Resource: `arn:aws:s3:::${bucket}/*` },
  ]);

t.test('the check pins what it verified; each member fetches those bytes or refuses', async (t) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  const admin = motoS3(moto, moto.admin);
  const dir = mkdtempSync(join(tmpdir(), 'f-etcd5-pin-'));
  const checked = snapshot('the data the restore asked for\n', 64);
  const later = snapshot('data written an hour later\n', 64);

  t.test('a bucket that keeps versions: the version checked, no copy', async (t) => {
    await admin.send(new CreateBucketCommand({ Bucket: 'versioned' }));
    await admin.send(
      new PutBucketVersioningCommand({ Bucket: 'versioned', VersioningConfiguration: { Status: 'Enabled' } }),
    );
    await admin.send(new PutObjectCommand({ Bucket: 'versioned', Key: 'ns/snap.db', Body: checked }));
    const pin = pinPath('versioned/ns/snap.db', 'uid-v');
    const result = await checkSnapshot(admin, 'versioned/ns/snap.db', { pinPath: pin, env: {} });
    t.match(result, { succeeded: true, sha256: sha(checked) });
    t.type(result.versionId, 'string', 'the version checked is reported');
    await t.rejects(
      admin.send(new HeadObjectCommand({ Bucket: 'versioned', Key: 'ns/snap.db.restore-uid-v' })),
      'no copy is made where the bucket keeps the version',
    );
    await admin.send(new PutObjectCommand({ Bucket: 'versioned', Key: 'ns/snap.db', Body: later }));
    const file = join(dir, 'versioned.db');
    await fetchChecked(admin, 'versioned/ns/snap.db', file, { sha256: result.sha256!, versionId: result.versionId! });
    t.ok(readFileSync(file).equals(checked), 'the member restores the version checked, not the newer one');
  });

  t.test('credentials that may only read: no copy; the key written again is refused', async (t) => {
    await admin.send(new CreateBucketCommand({ Bucket: 'plain' }));
    await admin.send(new PutObjectCommand({ Bucket: 'plain', Key: 'ns/snap.db', Body: checked }));
    const read = await reader(moto, 'plain');
    const result = await checkSnapshot(read, 'plain/ns/snap.db', {
      pinPath: pinPath('plain/ns/snap.db', 'u'),
      env: {},
    });
    t.match(result, { succeeded: true, sha256: sha(checked), pinned: false, pinReason: /AccessDenied|denied/i });
    const first = join(dir, 'first.db');
    await fetchChecked(read, 'plain/ns/snap.db', first, { sha256: result.sha256! });
    t.ok(readFileSync(first).equals(checked), 'fetched before the key changes: the bytes checked');
    await admin.send(new PutObjectCommand({ Bucket: 'plain', Key: 'ns/snap.db', Body: later }));
    const second = join(dir, 'second.db');
    await t.rejects(
      fetchChecked(read, 'plain/ns/snap.db', second, { sha256: result.sha256! }),
      { name: 'SnapshotChanged', message: /not the snapshot its restore checked/ },
      'other bytes at the key are refused',
    );
    t.notOk(existsSync(second), 'and no file of them is left for the restore step');
  });

  t.test('a copy the check made is the one the members fetch', async (t) => {
    await admin.send(new CreateBucketCommand({ Bucket: 'copied' }));
    await admin.send(new PutObjectCommand({ Bucket: 'copied', Key: 'ns/snap.db', Body: checked }));
    const pin = pinPath('copied/ns/snap.db', 'uid-c');
    const result = await checkSnapshot(admin, 'copied/ns/snap.db', { pinPath: pin, env: {} });
    t.match(result, { succeeded: true, pinned: true, sha256: sha(checked) });
    t.notOk(result.versionId);
    await admin.send(new PutObjectCommand({ Bucket: 'copied', Key: 'ns/snap.db', Body: later }));
    const file = join(dir, 'copied.db');
    await fetchChecked(admin, 'copied/ns/snap.db', file, { sha256: result.sha256!, pinnedPath: pin });
    t.ok(readFileSync(file).equals(checked), 'the copy holds the bytes checked');
    const head = await admin.send(new HeadObjectCommand({ Bucket: 'copied', Key: 'ns/snap.db.restore-uid-c' }));
    t.equal(head.Metadata?.['metaops-restore-of'], 'copied/ns/snap.db', 'the copy says what it is a copy of');
    t.notOk(head.Metadata?.['metaops-backup-uid'], 'and carries no backup lineage (never pruned as a backup)');
  });
});
