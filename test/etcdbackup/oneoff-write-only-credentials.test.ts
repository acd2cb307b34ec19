// A one-off backup never overwrites: backup credentials are often write-only (PutObject
// and multipart only, no GetObject or ListBucket: an append-only key a compromised cluster cannot read backups or
// delete them with). The write is conditional (If-None-Match: *), which alone keeps the promise that no snapshot is
// overwritten; yet a one-off backup first HEADs the key, and when S3 answers 403 to that it fails without writing,
// so with such a key no one-off backup (the one taken before an upgrade) can ever be taken.
import t from 'tap';
import { runBackup } from '../../hooks/etcdbackup/backup.js';
import { FakeS3, fakeGateway, s3Error } from '../fixtures/fake-s3.js';

/** S3 with write-only credentials: PutObject (and multipart) only; HEAD, GET and LIST answer 403. */
function writeOnly(): FakeS3 {
  const s3 = new FakeS3();
  s3.fault = (command) =>
    command === 'HeadObject' || command === 'GetObject' || command === 'ListObjectsV2'
      ? s3Error('Forbidden', 403, 'Access Denied')
      : undefined;
  return s3;
}

/** A one-off backup of the etcd at `endpoint` to s3://bucket/ns/pre-upgrade.db (the EtcdBackup not yet said). */
const oneOff = (endpoint: string, s3: FakeS3) => ({
  endpoints: [endpoint],
  path: 'bucket/ns/pre-upgrade.db',
  periodic: false,
  maxBackups: 0,
  timeoutMs: 5000,
  s3: s3.client,
  now: () => new Date('2026-01-01T00:00:00Z'),
});

t.test(
  'a one-off backup with write-only credentials is taken (the conditional write keeps it from overwriting)',
  async (t) => {
    const s3 = writeOnly();
    const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111', snapshot: 'snap' });
    const result = await runBackup({ ...oneOff(gw.url, s3), backup: { uid: 'uid-a', name: 'ns/a' } });
    t.comment(JSON.stringify(result));
    t.equal(result.succeeded, true, 'the snapshot is written');
    t.same(s3.keys('bucket', 'ns/'), ['ns/pre-upgrade.db']);
  },
);

t.test('write-only credentials and the key already written: the object there is kept, the backup fails', async (t) => {
  const s3 = writeOnly();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111', snapshot: 'new' });
  const opts = oneOff(gw.url, s3);
  t.equal((await runBackup({ ...opts, backup: { uid: 'uid-a', name: 'ns/a' } })).succeeded, true, 'first written');
  const second = await runBackup({ ...opts, backup: { uid: 'uid-b', name: 'ns/b' } });
  t.equal(second.succeeded, false, `another EtcdBackup on the key is refused: ${second.reason}`);
  t.same(s3.keys('bucket', 'ns/'), ['ns/pre-upgrade.db'], 'one object, not overwritten');
});
