// A restore checks before it acts (issue 30.5): a check that passes leaves a pin the restored members can fetch with
// the same credentials. Where the pin is a copy beside the key (`<key>.restore-<uid>`: a bucket that keeps no
// versions, or one whose version the credentials may not fetch by its VersionId), each restored member fetches that
// copy with a GetObject of its own (hooks/etcdcommon/snapshot.ts fetchChecked): credentials allowed to read the key
// and to write the copy, but not to read the copy back (s3:GetObject granted on the snapshots' keys only, a policy
// that allows some requests and refuses others), pass the check today, and every restored member's fetch is refused
// after the live members were dropped. The check must prove the members' own request, as it does for a version
// (restore-check-proves-members-can-fetch-version.test.ts), or refuse before anything is dropped.
import t from 'tap';
import { accessDenied, chunks, copyObject, noSuchKey, refusedOrFetchable, snapshot } from '../fixtures/snapshot-s3.js';

const SNAP = snapshot('the data\n');

/**
 * S3 whose credentials may GetObject only the keys `readable` says (as an IAM Resource pattern would), may copy
 * (s3:GetObject on the source, s3:PutObject on the target) anywhere under the prefix, and whose bucket keeps
 * versions or not (`versioned`; a version may not be read by its VersionId: `version`).
 */
function partialS3(
  objects: Record<string, Buffer>,
  readable: (key: string) => boolean,
  o: { versioned?: boolean; version?: Error } = {},
) {
  const send = async (cmd: { constructor: { name: string }; input: Record<string, unknown> }) => {
    const name = cmd.constructor.name;
    if (name === 'CopyObjectCommand') {
      copyObject(objects, cmd.input, readable);
      return {};
    }
    if (name !== 'GetObjectCommand') throw new Error(`unexpected ${name}`);
    const key = String(cmd.input['Key']);
    if (!readable(key)) throw accessDenied();
    if (cmd.input['VersionId'] !== undefined && o.version) throw o.version;
    const body = objects[`${cmd.input['Bucket']}/${key}`];
    if (!body) throw noSuchKey();
    return { Body: chunks(body), ETag: '"etag-1"', ...(o.versioned ? { VersionId: 'v1' } : {}) };
  };
  return { send } as any;
}

t.test('a bucket without versions, the copy not readable by these credentials: refused, or fetchable', async (t) => {
  // s3:GetObject on the snapshots (`*.db`), s3:PutObject on the prefix: the key reads, the copy is made, not read.
  const s3 = partialS3({ 'b/ns/snap.db': SNAP }, (key) => key.endsWith('.db'));
  await refusedOrFetchable(t, s3, 'b/ns/snap.db', 'b/ns/snap.db.restore-u');
});

t.test('a version not readable by its VersionId, the copy not readable either: refused, or fetchable', async (t) => {
  const s3 = partialS3({ 'b/ns/snap.db': SNAP }, (key) => key.endsWith('.db'), {
    versioned: true,
    version: accessDenied(),
  });
  await refusedOrFetchable(t, s3, 'b/ns/snap.db', 'b/ns/snap.db.restore-u');
});

t.test('a store that ignores CopySourceIfMatch, the key written again before the copy: refused', async (t) => {
  // A bucket without versions on an S3-compatible store that drops the copy's condition (a wrong dependency): the
  // key is written again between the check's read and its copy, and the copy holds the new bytes. The members would
  // refuse them (sha256) after the live members were dropped; the check must find it first.
  const objects: Record<string, Buffer> = { 'b/ns/snap.db': SNAP };
  const other = snapshot('other data\n');
  const inner = partialS3(objects, () => true);
  const s3 = {
    send: async (cmd: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const res = await inner.send(cmd);
      // The key written again right after the check read it.
      if (cmd.constructor.name === 'GetObjectCommand' && cmd.input['Key'] === 'ns/snap.db')
        objects['b/ns/snap.db'] = other;
      return res;
    },
  } as any;
  await refusedOrFetchable(t, s3, 'b/ns/snap.db', 'b/ns/snap.db.restore-u');
});
