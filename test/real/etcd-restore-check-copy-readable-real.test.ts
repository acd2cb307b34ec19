// A restore checks before it acts (issue 30.5), on real S3 semantics (moto, IAM enforced): a check that passes must
// mean the restored members can fetch what it pinned, since the live members are dropped on its word. In a bucket
// that keeps no versions the check keeps a copy beside the key (`<key>.restore-<uid>`) and each restored member
// fetches that copy with a GetObject of its own. Credentials that may read the snapshots (s3:GetObject on `*.db`)
// and write under the prefix (s3:PutObject on `ns/*`) pass the check, which makes the copy and never reads it back,
// and every member's fetch of the copy is refused (AccessDenied) after the live members were dropped.
import t from 'tap';
import { motoUser, motoWithSnapshot, refusedOrFetchable } from '../fixtures/snapshot-s3.js';
import { pinPath } from '../../hooks/etcdcommon/snapshot.js';

t.test('a check that pins a copy: the members fetch it with the same credentials, or the check refuses', async (t) => {
  const { moto, data } = await motoWithSnapshot(t, 'plain');
  const restore = await motoUser(moto, 'restore', 'backups', [
    // Read the snapshots, write under the prefix: some requests allowed, others refused.
    { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::plain/ns/*.db' },
    { Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::plain/ns/*' },
  ]);
  await refusedOrFetchable(t, restore, 'plain/ns/snap.db', pinPath('plain/ns/snap.db', 'uid-r'), data);
});
