// Issue 30.2: "a revision that goes backwards without an EtcdRestore is reported" (Lineage=False and a Warning);
// one an EtcdRestore explains is a new lineage, Lineage=True Restored. The hook takes a restore as the explanation
// only when the EtcdRestore was created after the last snapshot of the lineage before (sync.ts restoreExplaining).
// But a restore acts only once its check has fetched and verified the snapshot (issue 30.5), which takes minutes
// on a large snapshot: an hourly backup that runs while the check runs snapshots the old cluster after the
// EtcdRestore's creation. The next backup, of the restored cluster (a new cluster ID), is then reported as an etcd
// cluster changed "with no EtcdRestore (lost and recreated under the same name?)": a false alarm on every restore
// whose check spans a backup. The restore's own record says when it replaced the members (status.restore.since).
import t from 'tap';
import { lineageCondition, lineageStatus } from '../../hooks/etcdbackup/sync.js';
import { etcdCluster } from '../fixtures/backup.js';

/**
 * The lineage the 14:00 backup finds with cluster `example` restored by EtcdRestore "back" (created at `created`,
 * the members replaced at `since`): the restored cluster, a new cluster ID; the lineage before ends with the 13:00
 * snapshot of the old one.
 */
function lineageAfter(created: string, since: string) {
  const cluster = etcdCluster('example', 'ns', {
    restore: { uid: 'u-r', name: 'back', phase: 'Restored', created, since },
  });
  const lineage = lineageStatus(
    undefined,
    {
      succeeded: true,
      key: 'ns/nightly_v5_2026-01-01T14-00-00Z',
      clusterId: 'c2',
      lineage: '2026-01-01T14-00-00Z',
      lineageBreak: {
        reason: 'EtcdClusterChanged',
        key: 'ns/nightly_v900_2026-01-01T13-00-00Z',
        revision: 900,
        clusterId: 'c1',
        date: '2026-01-01T13:00:00.000Z',
      },
    } as any,
    [cluster],
  )!;
  return lineageCondition(lineage, 2);
}

t.test(
  'a restore whose check ran while the last backup of the old cluster was taken explains the new lineage',
  async (t) => {
    // EtcdRestore "back" created at 12:58; its check reads the snapshot for 6 minutes; the hourly backup snapshots
    // the old cluster at 13:00; the check passes at 13:04, the old members are dropped, the restored ones serve.
    const condition = lineageAfter('2026-01-01T12:58:00Z', '2026-01-01T13:04:30Z');
    t.match(condition, { status: true, reason: 'Restored' }, `${condition.reason}: ${condition.message}`);
  },
);

t.test(
  'a restore that replaced the members before the last snapshot of the lineage before explains nothing',
  async (t) => {
    const condition = lineageAfter('2026-01-01T11:58:00Z', '2026-01-01T12:04:30Z');
    t.match(condition, { status: false, reason: 'EtcdClusterChanged' });
  },
);
