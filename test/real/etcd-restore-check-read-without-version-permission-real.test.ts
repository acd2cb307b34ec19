// A restore checks before it acts (issue 30.5), on real S3 semantics (moto, IAM enforced): a check that passes must
// mean the restored members can fetch what it checked, since the live members are dropped on its word. In a bucket
// that keeps versions the check reads the key with a plain GetObject and pins the version it read; each restored
// member then fetches that version by VersionId, which needs s3:GetObjectVersion. The credentials policy
// docs/etcdbackup.md gives (s3:PutObject, s3:GetObject, s3:DeleteObject on the prefix) passes the check and fails
// every member's fetch.
import t from 'tap';
import { motoUser, motoWithSnapshot, refusedOrFetchable } from '../fixtures/snapshot-s3.js';
import { pinPath } from '../../hooks/etcdcommon/snapshot.js';

t.test('a check that passes in a versioned bucket: the members fetch with the same credentials', async (t) => {
  const { moto, data } = await motoWithSnapshot(t, 'versioned', { versioned: true });
  // The restore's credentials: the policy docs/etcdbackup.md gives for a namespace's prefix of a shared bucket.
  const restore = await motoUser(moto, 'restore', 'backups', [
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
  ]);
  await refusedOrFetchable(t, restore, 'versioned/ns/snap.db', pinPath('versioned/ns/snap.db', 'uid-r'), data);
});
