// Issue 30.3: a one-off backup that succeeded is never taken again; docs/etcdbackup.md: "another `s3.path` is another
// snapshot, the same key in another bucket too: its Job runs, and no snapshot is claimed there until it succeeded".
// The record (status.bucket, status.key) leaves out the store: an EtcdBackup whose s3.endpoint is edited (the
// snapshot moved to another S3 store the server allows: a MinIO replaced by AWS, a store in another site for disaster
// recovery) with the same bucket and key is taken for done there. No Job runs, and its Ready condition says
// "snapshot at revision 42 in s3://bucket/<key>" of a store that never received it; an EtcdRestore naming that
// endpoint and path then fails (the restore side does count the endpoint in a snapshot's identity: "from the same
// snapshot (s3.path and s3.endpoint)").
// Each answer's status is fed back as the next request's, as Metacontroller does.
import t from 'tap';
import { etcdbackup } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { runPure } from '../../lib/operator.js';
import { BackupSyncs, etcdCluster, oneOffTakenPod } from '../fixtures/backup.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const OLD = 'http://minio.storage.svc.cluster.local:9000';
const NEW = 'https://s3.dr-site.example.com';

t.test('a one-off backup whose s3.endpoint moves to another store takes its snapshot there', async (t) => {
  const b = new BackupSyncs({
    spec: { clusterName: 'example', s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws', endpoint: OLD } },
    uid: 'uid-ns-nightly',
    clusters: [etcdCluster('example', 'ns')],
    sync: (request) =>
      runPure(etcdbackup, 'sync', request, {
        now: FIXED_NOW,
        settings: etcdSettings({
          env: { METAOPS_IMAGE: 'metaops:test', METAOPS_BACKUP_S3_ENDPOINTS: `${OLD},${NEW}` },
        }),
      }),
  });
  const first = b.step();
  t.same(
    first.children.map((c) => c.kind),
    ['Job'],
    'the first Job runs against the old store',
  );
  b.pods = [oneOffTakenPod('nightly', 'uid-ns-nightly', { bucket: 'bucket' })];
  b.step();
  t.match(b.status, { succeeded: true, key: 'ns/before-upgrade.db' }, 'taken in the old store');
  // The same bucket and key, in another store.
  b.spec = { ...b.spec, s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws', endpoint: NEW } };
  b.children = [];
  b.pods = [];
  const res = b.step();
  t.same(
    res.children.map((c) => c.kind),
    ['Job'],
    'a snapshot in another store is a new snapshot: its Job runs',
  );
  t.notMatch(b.status, { succeeded: true }, `no snapshot claimed in ${NEW} before one is written there`);
});
