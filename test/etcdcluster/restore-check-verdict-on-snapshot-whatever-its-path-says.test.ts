// The check's verdict on the snapshot (NoSuchKey, AccessDenied, a snapshot that is not intact) refuses the restore at
// once, whatever words the snapshot's path holds: the path is the EtcdRestore author's, and the CLI's reason names it
// (`s3://<path>: <S3's code>: ...`, `s3://<path> is not an intact etcd snapshot`). Only S3's own answer or the
// network's error may make the run one that proves nothing (restore.ts transientFailure): a key named
// `etcd-ECONNRESET-test.db` or a folder `TimeoutError` is no network failure.
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { checkVerdict } from '../../hooks/etcdcluster/restore.js';

const since = '2026-01-02T03:04:05Z';
const within = new Date(Date.parse(since) + 60_000);
const ended = (reason: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'e-restore-check', uid: 'u1' },
  status: {
    phase: 'Failed',
    initContainerStatuses: ['busybox-image', 'etcd-image', 'restore-tool'].map((name) => ({
      name,
      state: { terminated: { exitCode: 0, reason: 'Completed' } },
    })),
    containerStatuses: [
      {
        name: 'check',
        state: { terminated: { exitCode: 1, reason: 'Error', message: JSON.stringify({ succeeded: false, reason }) } },
      },
    ],
  },
});

for (const reason of [
  's3://bucket/etcd-ECONNRESET-test.db: NoSuchKey: The specified key does not exist.',
  's3://bucket/ETIMEDOUT/snap.db: AccessDenied: Access Denied',
  's3://bucket/backups/EAI_AGAIN.db is not an intact etcd snapshot (its sha256 does not match: etcd would refuse to restore it)',
  's3://bucket/socket-hang-up/ECONNREFUSED.db has 12 bytes: it is no etcd snapshot',
])
  t.test(`a verdict on the snapshot refuses at once: ${reason}`, async (t) => {
    t.same(checkVerdict(ended(reason), since, within), { state: 'failed', reason });
  });
