// The EtcdBackup's status says how its newest backup went, read from the finished backup pods (hooks/etcdbackup/
// sync.ts newestResults). "Newest" is by the pods' `finishedAt`, which the kubelet stamps with its node's clock. One
// successful run on a node whose clock is ahead then outranks every run after it until real time passes that stamp:
// the backups that fail meanwhile (revoked credentials, a full bucket) are not reported, and the status says
// succeeded, Ready BackupSucceeded. The pods' creationTimestamp (the API server's clock) orders the runs truly.
import t from 'tap';
import { backupPod, backupRequest, etcdCluster } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';

const CLUSTER_ID = '1311768467463790320';

/** A backup pod created (API server clock) at `created`, finished at `finishedAt` by its node's clock. */
function run(result: Record<string, unknown>, created: string, finishedAt: string) {
  const pod = backupPod('nightly', 'ns', { backupUid: 'uid-ns-nightly', ...result }, finishedAt);
  pod.metadata.creationTimestamp = created;
  pod.metadata.name = `nightly-backup-${created.replace(/\D/g, '')}`;
  return pod;
}

t.test('backups failing after a success on a node whose clock ran a day ahead are reported', async (t) => {
  const good = run(
    {
      succeeded: true,
      key: 'ns/snap_v40_2026-01-02T10-00-00Z',
      bucket: 'bucket',
      etcdRevision: 40,
      lastSuccessDate: '2026-01-02T10:00:00.000Z',
    },
    '2026-01-01T10:00:00Z',
    '2026-01-02T10:00:20Z',
  );
  const reason = 'upload to s3://bucket/ns/snap_v41_2026-01-01T11-00-00Z failed: AccessDenied: Access Denied';
  const failed = [11, 12, 13].map((h) =>
    run({ succeeded: false, reason }, `2026-01-01T${h}:00:00Z`, `2026-01-01T${h}:00:20Z`),
  );
  const res = backupSync(
    backupRequest({
      spec: {
        clusterName: 'example',
        backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 },
        s3: { path: 'bucket/ns/snap', awsSecret: 'aws' },
      },
      clusters: [etcdCluster('example', 'ns', { phase: 'Running', clusterID: CLUSTER_ID })],
      pods: [good, ...failed],
    }),
    'metaops:test',
    new Date('2026-01-01T13:05:00Z'),
  );
  const status = res.status as any;
  t.match(status, { succeeded: false, reason: /AccessDenied/ }, 'the newest three runs failed');
  t.notMatch(
    status.conditions.find((c: any) => c.type === 'Ready'),
    { status: 'True', reason: 'BackupSucceeded' },
    'not Ready BackupSucceeded',
  );
});
