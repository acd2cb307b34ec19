// Issue 30.2: a lineage break an EtcdRestore explains is a new lineage, Lineage=True Restored; one no restore
// explains is reported (Lineage=False, a Warning). The hook takes a restore as the explanation when it was created,
// or replaced the members, after the last snapshot of the lineage before (sync.ts restoreExplaining). That snapshot's
// time (`metaops-taken`) is stamped by the backup pod's node clock; the restore's by the API server
// (creationTimestamp) and the hook (status.restore.since). A node whose clock runs a few minutes ahead stamps the
// last snapshot of the old cluster after a restore that really came later: the restore reads as older than it, and
// a real restore is reported as an unexplained rollback ("with no EtcdRestore"). The clock rule: a time stamped by
// another clock is read with its bound (a node may be ahead by up to NODE_CLOCK_SLACK_SECONDS), one ahead of the
// hook's now as now; a restore the lineage before already began with explains no later break.
import t from 'tap';
import { NODE_CLOCK_SLACK_SECONDS, lineageCondition, lineageStatus } from '../../hooks/etcdbackup/sync.js';
import { backupPod, backupRequest, etcdCluster } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const restored = (name: string, created: string, since: string) =>
  etcdCluster('example', 'ns', { restore: { uid: `u-${name}`, name, phase: 'Restored', created, since } });

/** The lineage the next backup finds after the old cluster's last snapshot stamped `taken` (its node's clock). */
function lineageAfter(taken: string, clusters: ReturnType<typeof etcdCluster>[], before?: unknown, now?: Date) {
  const lineage = lineageStatus(
    before,
    {
      succeeded: true,
      key: 'ns/nightly_v5_2026-01-01T14-00-00Z',
      clusterId: 'c2',
      lineage: '2026-01-01T14-00-00Z',
      lineageBreak: {
        reason: 'EtcdClusterChanged',
        key: 'ns/nightly_v900',
        revision: 900,
        clusterId: 'c1',
        date: taken,
      },
    } as any,
    clusters,
    now,
  )!;
  return lineageCondition(lineage, 2);
}

t.test('a restore after the last snapshot of a node whose clock ran 5 minutes ahead explains the break', async (t) => {
  // The old cluster's snapshot at 13:00 (stamped 13:05); EtcdRestore "back" created 13:01, members dropped 13:02.
  const condition = lineageAfter('2026-01-01T13:05:00.000Z', [
    restored('back', '2026-01-01T13:01:00Z', '2026-01-01T13:02:00Z'),
  ]);
  t.match(condition, { status: true, reason: 'Restored', message: /after EtcdRestore back/ });
  t.ok(NODE_CLOCK_SLACK_SECONDS >= 300 && NODE_CLOCK_SLACK_SECONDS < 3300, 'a bound of minutes, under an hour');
});

t.test('a restore long before the last snapshot still explains nothing', async (t) => {
  // Members replaced at 12:04:30, the last snapshot of the old lineage 13:00: a rollback since is reported.
  const condition = lineageAfter('2026-01-01T13:00:00.000Z', [
    restored('old', '2026-01-01T11:58:00Z', '2026-01-01T12:04:30Z'),
  ]);
  t.match(condition, { status: false, reason: 'EtcdClusterChanged' });
});

t.test('a restore the lineage before began with explains no later break', async (t) => {
  // "back" restored at 13:02 and began lineage c2 (its first snapshot 13:03); at 13:05 the cluster is lost and made
  // again (c3): the next break comes within minutes of the restore, and is no restore's doing.
  const before = {
    clusterID: 'c2',
    since: '2026-01-01T13:03:00Z',
    previous: {
      reason: 'EtcdClusterChanged',
      key: 'k',
      revision: 900,
      clusterID: 'c1',
      date: '2026-01-01T13:00:00Z',
      restoredBy: 'back',
    },
  };
  const condition = lineageAfter(
    '2026-01-01T13:03:00.000Z',
    [restored('back', '2026-01-01T13:01:00Z', '2026-01-01T13:02:00Z')],
    before,
  );
  t.match(condition, { status: false, reason: 'EtcdClusterChanged' });
});

t.test("a snapshot stamped ahead of the hook's clock (a node an hour ahead): read as now", async (t) => {
  // The hook's now 03:04:05 (FIXED_NOW); the old snapshot stamped 04:00 (real ~03:00); restored at 03:02.
  const clusters = [restored('back', '2026-01-02T03:01:00Z', '2026-01-02T03:02:00Z')];
  t.match(lineageAfter('2026-01-02T04:00:00.000Z', clusters, undefined, FIXED_NOW), {
    status: true,
    reason: 'Restored',
  });
  // Through the hook, with its own clock: the result of the backup that found the break.
  const response = backupSync(
    backupRequest({
      spec: {
        clusterName: 'example',
        backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 },
        s3: { path: 'bucket/ns/nightly', awsSecret: 'aws' },
      },
      clusters,
      pods: [
        backupPod(
          'nightly',
          'ns',
          {
            succeeded: true,
            bucket: 'bucket',
            key: 'ns/nightly_v5_2026-01-02T03-04-00Z',
            etcdRevision: 5,
            etcdVersion: '3.6.9',
            lastSuccessDate: '2026-01-02T03:04:00Z',
            backupUid: 'uid-ns-nightly',
            clusterId: 'c2',
            lineage: '2026-01-02T03-04-00Z',
            pruned: [],
            lineageBreak: {
              reason: 'EtcdClusterChanged',
              key: 'k',
              revision: 900,
              clusterId: 'c1',
              date: '2026-01-02T04:00:00.000Z',
            },
          },
          '2026-01-02T03:04:01Z',
        ),
      ],
    }),
    'metaops:test',
    FIXED_NOW,
  );
  const lineage = (response.status as any).conditions.find((c: any) => c.type === 'Lineage');
  t.match(lineage, { status: 'True', reason: 'Restored', message: /after EtcdRestore back/ });
});
