// The EtcdBackup in team-a, its cluster and metaops's image, synced by the pure hook: shared by the tests of a spec
// refused before the sync (refused-spec-*.test.ts) and of the backup pod those refusals judge a kept child against
// (backup-pod-runs-the-image-cli-unprivileged.test.ts).
import { etcdbackup } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { runPure } from '../../lib/operator.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { backupRequest, etcdCluster } from '../fixtures/backup.js';
import { FIXED_NOW } from '../fixtures/requests.js';

export const A = 'team-a';
export const hourly = { backupIntervalInSecond: 3600, maxBackups: 3 };
export const good = { clusterName: 'web', backupPolicy: hourly, s3: { path: `shared/${A}/web`, awsSecret: 'a-aws' } };
export const IMAGE = 'registry.example.com/metaops:1.4.0';

export function backup(spec: Record<string, unknown>, children: KubeObject[] = []): CompositeSyncResponse {
  return runPure(
    etcdbackup,
    'sync',
    backupRequest({ namespace: A, name: 'a-backup', spec, clusters: [etcdCluster('web', A)], children }),
    { now: FIXED_NOW, settings: etcdSettings({ env: { METAOPS_IMAGE: IMAGE } }) },
  );
}

export const podSpecOf = (child: any) =>
  (child.kind === 'CronJob' ? child.spec.jobTemplate.spec : child.spec).template.spec as Record<string, any>;
