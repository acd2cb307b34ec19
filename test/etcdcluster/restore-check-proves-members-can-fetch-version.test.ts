// A restore checks before it acts (issue 30.5): a check that passes must mean the restored members can fetch what
// it checked, since the live members are dropped on its word. In a bucket that keeps versions the check pins the
// version it read (hooks/etcdcommon/snapshot.ts checkSnapshot) with a plain GetObject, while each restored member
// fetches that version by its VersionId (fetchChecked). On AWS the two are separate permissions: GetObject of a
// version needs s3:GetObjectVersion, which a read-only policy granting s3:GetObject (the common least privilege for
// "read the backups") does not give; S3 answers 403 AccessDenied. The check passes, the members are dropped, and
// every restored member's fetch step fails until RESTORE_SECONDS ends the restore failed, the cluster gone.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { checkSnapshot, fetchChecked } from '../../hooks/etcdcommon/snapshot.js';

const snapshot = (text: string) => {
  const body = Buffer.from(text.repeat(20));
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
};
async function* chunks(data: Buffer) {
  for (let i = 0; i < data.length; i += 50) yield data.subarray(i, i + 50);
}

/**
 * A bucket that keeps versions, read with credentials allowed s3:GetObject and s3:PutObject on the prefix but not
 * s3:GetObjectVersion: as AWS answers, a GET or HEAD naming a VersionId is 403 AccessDenied; everything else is served.
 */
function versionedReadOnlyLatest(objects: Record<string, Buffer>) {
  const send = async (cmd: { constructor: { name: string }; input: Record<string, unknown> }) => {
    const name = cmd.constructor.name;
    if ((name === 'GetObjectCommand' || name === 'HeadObjectCommand') && cmd.input['VersionId'] !== undefined)
      throw Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    if (name === 'CopyObjectCommand') {
      const [bucket, ...key] = String(cmd.input['CopySource']).split('/');
      objects[`${cmd.input['Bucket']}/${cmd.input['Key']}`] =
        objects[`${bucket}/${decodeURIComponent(key.join('/'))}`]!;
      return { VersionId: 'v-copy' };
    }
    const body = objects[`${cmd.input['Bucket']}/${cmd.input['Key']}`];
    if (!body) throw Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' });
    if (name === 'HeadObjectCommand') return { ContentLength: body.length, ETag: '"etag-1"', VersionId: 'v1' };
    return { Body: chunks(body), ETag: '"etag-1"', VersionId: 'v1' };
  };
  return { send } as any;
}

t.test('a restore check that passes in a versioned bucket leaves a pin the restored members can fetch', async (t) => {
  const SNAP = snapshot('the data\n');
  const s3 = versionedReadOnlyLatest({ 'b/ns/snap.db': SNAP });
  const check = await checkSnapshot(s3, 'b/ns/snap.db', { pinPath: 'b/ns/snap.db.restore-u', env: {} });
  if (!check.succeeded) {
    t.pass(`the check refused before anything was dropped: ${check.reason}`);
    return;
  }
  // The check passed: the plan drops the live members and each restored member fetches with this pin.
  const file = join(mkdtempSync(join(tmpdir(), 'restore-pin-')), 'snapshot.db');
  const pin = {
    sha256: check.sha256!,
    ...(check.versionId ? { versionId: check.versionId } : {}),
    ...(check.pinned ? { pinnedPath: 'b/ns/snap.db.restore-u' } : {}),
  };
  let fetched: unknown;
  try {
    await fetchChecked(s3, 'b/ns/snap.db', file, pin);
    fetched = 'ok';
  } catch (err) {
    fetched = `${(err as Error).name}: ${(err as Error).message}`;
  }
  t.equal(fetched, 'ok', `the restored members fetch what the check passed (pin ${JSON.stringify(pin)})`);
  if (fetched === 'ok') t.ok(readFileSync(file).equals(SNAP));
});
