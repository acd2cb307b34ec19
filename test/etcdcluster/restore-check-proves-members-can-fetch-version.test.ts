// A restore checks before it acts (issue 30.5): a check that passes must mean the restored members can fetch what
// it checked, since the live members are dropped on its word. In a bucket that keeps versions the check pins the
// version it read (hooks/etcdcommon/snapshot.ts checkSnapshot) with a plain GetObject, while each restored member
// fetches that version by its VersionId (fetchChecked). On AWS the two are separate permissions: GetObject of a
// version needs s3:GetObjectVersion, which a read-only policy granting s3:GetObject (the common least privilege for
// "read the backups") does not give; S3 answers 403 AccessDenied. The check passes, the members are dropped, and
// every restored member's fetch step fails until RESTORE_SECONDS ends the restore failed, the cluster gone.
import t from 'tap';
import { accessDenied, chunks, copyObject, noSuchKey, refusedOrFetchable, snapshot } from '../fixtures/snapshot-s3.js';

/**
 * A bucket that keeps versions, read with credentials allowed s3:GetObject and s3:PutObject on the prefix but not
 * s3:GetObjectVersion: as AWS answers, a GET or HEAD naming a VersionId is 403 AccessDenied; everything else is served.
 */
function versionedReadOnlyLatest(objects: Record<string, Buffer>) {
  const send = async (cmd: { constructor: { name: string }; input: Record<string, unknown> }) => {
    const name = cmd.constructor.name;
    if ((name === 'GetObjectCommand' || name === 'HeadObjectCommand') && cmd.input['VersionId'] !== undefined)
      throw accessDenied();
    if (name === 'CopyObjectCommand') {
      copyObject(objects, cmd.input);
      return { VersionId: 'v-copy' };
    }
    const body = objects[`${cmd.input['Bucket']}/${cmd.input['Key']}`];
    if (!body) throw noSuchKey();
    if (name === 'HeadObjectCommand') return { ContentLength: body.length, ETag: '"etag-1"', VersionId: 'v1' };
    return { Body: chunks(body), ETag: '"etag-1"', VersionId: 'v1' };
  };
  return { send } as any;
}

t.test('a restore check that passes in a versioned bucket leaves a pin the restored members can fetch', async (t) => {
  const SNAP = snapshot('the data\n');
  const s3 = versionedReadOnlyLatest({ 'b/ns/snap.db': SNAP });
  await refusedOrFetchable(t, s3, 'b/ns/snap.db', 'b/ns/snap.db.restore-u', SNAP);
});
