// The EtcdBackup hook's memory lives in its status (issue 30.2, 30.3): a one-off backup that succeeded is never
// taken again, whatever happens to its Job; a periodic backup's lineage and a break in it are reported and stay
// reported; the failure reason is spelled as etcd-operator spelled it too. Each answer's status is fed back as the
// next request's, its children as the next observed children, as Metacontroller does.
import t from 'tap';
import { parentLabelValue } from '../../lib/parent-label.js';
import { ETCDBACKUP_EVENTS, backupWritten } from '../../hooks/etcdbackup/events.js';
import { conditionEvents } from '../../lib/events.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { backupPod, backupRequest, etcdCluster } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW, asObserved } from '../fixtures/requests.js';

const ONCE = { clusterName: 'example', s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' } };
const PERIODIC = {
  clusterName: 'example',
  backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 },
  s3: { path: 'bucket/ns/nightly', awsSecret: 'aws' },
};

/** Metacontroller for one EtcdBackup: the status and children fed back, the pods and clusters as a test sets them. */
class BackupLoop {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  pods: KubeObject[] = [];
  clusters: KubeObject[] = [etcdCluster('example', 'ns')];
  last!: CompositeSyncResponse;
  constructor(
    public spec: Record<string, unknown>,
    readonly uid = 'uid-ns-nightly',
  ) {}
  step(): CompositeSyncResponse {
    const request = backupRequest({
      spec: this.spec,
      uid: this.uid,
      ...(this.status ? { status: this.status } : {}),
      children: this.children,
      pods: this.pods,
      clusters: this.clusters,
    });
    this.last = backupSync(request, 'metaops:test', FIXED_NOW);
    this.status = this.last.status as Record<string, unknown>;
    this.children = this.last.children.map((c) => asObserved(c));
    return this.last;
  }
  s(): any {
    return this.status;
  }
  kinds(): string[] {
    return this.last.children.map((c) => c.kind);
  }
}

const ok = (key: string, extra: Record<string, unknown> = {}) => ({
  succeeded: true,
  bucket: 'bucket',
  key,
  etcdRevision: 42,
  etcdVersion: '3.6.9',
  lastSuccessDate: '2026-01-01T00:00:00Z',
  backupUid: 'uid-ns-nightly',
  ...extra,
});

t.test('a one-off backup whose Job is deleted (a TTL, a clean-up) is not taken again', async (t) => {
  const loop = new BackupLoop(ONCE);
  loop.step();
  t.same(loop.kinds(), ['Job']);
  const args: string[] = (loop.last.children[0] as any).spec.template.spec.containers[0].args;
  t.same(args.slice(args.indexOf('--backup-uid'), args.indexOf('--backup-uid') + 4), [
    '--backup-uid',
    'uid-ns-nightly',
    '--backup-name',
    'ns/nightly',
  ]);
  loop.step();
  t.match(loop.s().conditions[0], { reason: 'Running' });
  // The Job's pod finished: the snapshot is recorded.
  loop.pods = [backupPod('nightly', 'ns', ok('ns/before-upgrade.db'), '2026-01-01T00:00:00Z')];
  loop.step();
  t.match(loop.s(), { succeeded: true, key: 'ns/before-upgrade.db', etcdRevision: 42 });
  t.same(loop.kinds(), ['Job'], 'the finished Job stays while it is there');
  // A TTL controller deletes the Job, and its pod with it.
  loop.children = [];
  loop.pods = [];
  for (let i = 0; i < 3; i++) {
    loop.step();
    t.same(loop.last.children, [], 'no Job made again');
    t.match(loop.s(), { succeeded: true, key: 'ns/before-upgrade.db' });
    t.match(loop.s().conditions[0], { status: 'True', reason: 'BackupSucceeded', message: /taken once/ });
    t.notOk(loop.last.resyncAfterSeconds);
  }
  // The cluster is deleted since: a snapshot taken is still taken, nothing to refuse.
  loop.clusters = [];
  loop.step();
  t.same(loop.last.children, []);
  t.match(loop.s().conditions[0], { status: 'True', reason: 'BackupSucceeded' });
  // Another path: another snapshot, taken once too.
  loop.clusters = [etcdCluster('example', 'ns')];
  loop.spec = { ...ONCE, s3: { path: 'bucket/ns/after-upgrade.db', awsSecret: 'aws' } };
  loop.step();
  t.same(loop.kinds(), ['Job'], 'a new path is a new snapshot');
});

t.test('a one-off backup that failed is tried again once its Job is deleted', async (t) => {
  const loop = new BackupLoop(ONCE);
  loop.step();
  loop.pods = [
    backupPod(
      'nightly',
      'ns',
      { succeeded: false, reason: 'AccessDenied', backupUid: 'uid-ns-nightly' },
      '2026-01-01T00:00:00Z',
    ),
  ];
  loop.step();
  t.match(loop.s(), { succeeded: false, reason: 'AccessDenied', Reason: 'AccessDenied' });
  loop.children = [];
  loop.pods = [];
  loop.step();
  t.same(loop.kinds(), ['Job'], 'deleting a failed Job retries');
});

t.test("a namesake's finished pod (the EtcdBackup deleted and recreated) is not this one's record", async (t) => {
  const loop = new BackupLoop(ONCE, 'uid-second-life');
  // The first EtcdBackup's pod is still being garbage-collected.
  loop.pods = [backupPod('nightly', 'ns', ok('ns/before-upgrade.db'), '2026-01-01T00:00:00Z')];
  loop.step();
  t.notOk(loop.s().succeeded, 'nothing recorded from it');
  t.same(loop.kinds(), ['Job']);
  loop.children = [];
  loop.step();
  t.same(loop.kinds(), ['Job'], 'its own snapshot still to be taken');
  // A pod of a Job made before results named their EtcdBackup is taken as this one's.
  const legacy = { ...ok('ns/before-upgrade.db') } as Record<string, unknown>;
  delete legacy['backupUid'];
  loop.pods = [backupPod('nightly', 'ns', legacy, '2026-01-01T00:00:00Z')];
  loop.step();
  t.equal(loop.s().succeeded, true);
});

t.test('the reason under both spellings: reason, and Reason as etcd-operator had it', async (t) => {
  const loop = new BackupLoop(PERIODIC);
  loop.step();
  t.notOk('Reason' in loop.s());
  loop.pods = [
    backupPod(
      'nightly',
      'ns',
      { succeeded: false, reason: 'NoSuchBucket', backupUid: 'uid-ns-nightly' },
      '2026-01-01T00:00:00Z',
    ),
  ];
  loop.step();
  t.match(loop.s(), { succeeded: false, reason: 'NoSuchBucket', Reason: 'NoSuchBucket' });
  loop.pods.push(backupPod('nightly', 'ns', ok('ns/nightly_v42_2026-01-01T01-00-00Z'), '2026-01-01T01:00:00Z'));
  loop.step();
  t.equal(loop.s().succeeded, true);
  t.notOk('reason' in loop.s() || 'Reason' in loop.s(), 'no reason once it succeeds');
});

const lineageResult = (key: string, at: string, extra: Record<string, unknown> = {}) =>
  backupPod('nightly', 'ns', ok(key, { clusterId: 'c1', lineage: '2026-01-01T00-00-00Z', pruned: [], ...extra }), at);

t.test('a periodic backup reports its lineage, and a break in it stays reported', async (t) => {
  const loop = new BackupLoop(PERIODIC);
  loop.pods = [lineageResult('ns/nightly_v10_2026-01-01T00-00-00Z', '2026-01-01T00:00:05Z')];
  loop.step();
  t.same(loop.s().lineage, { clusterID: 'c1', since: '2026-01-01T00:00:00Z' });
  const lineage = () => loop.s().conditions.find((c: any) => c.type === 'Lineage');
  t.match(lineage(), {
    status: 'True',
    reason: 'Continuous',
    message: /etcd cluster c1 .* since 2026-01-01T00:00:00Z: pruning keeps the 2 newest/,
  });

  // The cluster was lost and recreated: the next snapshot begins a new lineage.
  const broke = lineageResult('ns/nightly_v3_2026-01-01T02-00-00Z', '2026-01-01T02:00:05Z', {
    clusterId: 'c2',
    lineage: '2026-01-01T02-00-00Z',
    lineageBreak: {
      reason: 'EtcdClusterChanged',
      key: 'ns/nightly_v900_2026-01-01T01-00-00Z',
      revision: 900,
      clusterId: 'c1',
      date: '2026-01-01T01:00:00.000Z',
    },
  });
  const before = backupRequest({ spec: PERIODIC, uid: loop.uid, status: loop.status! }).parent;
  loop.pods = [broke];
  loop.step();
  t.match(loop.s().lineage, {
    clusterID: 'c2',
    since: '2026-01-01T02:00:00Z',
    previous: {
      reason: 'EtcdClusterChanged',
      key: 'ns/nightly_v900_2026-01-01T01-00-00Z',
      revision: 900,
      clusterID: 'c1',
    },
  });
  t.match(lineage(), {
    status: 'False',
    reason: 'EtcdClusterChanged',
    message: /changed from c1 to c2 with no EtcdRestore.*nightly_v900.* is kept, never pruned/,
  });
  t.same(
    conditionEvents(before, loop.status, ETCDBACKUP_EVENTS).map((e) => [e.type, e.reason]),
    [['Warning', 'EtcdClusterChanged']],
    'one Warning event',
  );
  // The new lineage goes on: the break stays reported (its earlier snapshots are still kept).
  loop.pods = [
    broke,
    lineageResult('ns/nightly_v4_2026-01-01T03-00-00Z', '2026-01-01T03:00:05Z', {
      clusterId: 'c2',
      lineage: '2026-01-01T02-00-00Z',
    }),
  ];
  loop.step();
  t.match(lineage(), { status: 'False', reason: 'EtcdClusterChanged' });
  t.equal(loop.s().key, 'ns/nightly_v4_2026-01-01T03-00-00Z');
  // Its pods gone (the CronJob's history): the status alone keeps it.
  loop.pods = [];
  loop.step();
  t.match(lineage(), { status: 'False', reason: 'EtcdClusterChanged' });
});

t.test('a revision gone back because of an EtcdRestore is a new lineage, not a warning', async (t) => {
  const loop = new BackupLoop(PERIODIC);
  loop.pods = [lineageResult('ns/nightly_v10_2026-01-01T00-00-00Z', '2026-01-01T00:00:05Z')];
  loop.step();
  loop.clusters = [
    etcdCluster('example', 'ns', {
      restore: { uid: 'u-r', name: 'back', phase: 'Restored', created: '2026-01-01T01:30:00Z' },
    }),
  ];
  loop.pods = [
    lineageResult('ns/nightly_v5_2026-01-01T02-00-00Z', '2026-01-01T02:00:05Z', {
      clusterId: 'c3',
      lineage: '2026-01-01T02-00-00Z',
      lineageBreak: {
        reason: 'EtcdClusterChanged',
        key: 'k',
        revision: 900,
        clusterId: 'c1',
        date: '2026-01-01T01:00:00.000Z',
      },
    }),
  ];
  loop.step();
  const lineage = loop.s().conditions.find((c: any) => c.type === 'Lineage');
  t.match(lineage, { status: 'True', reason: 'Restored', message: /after EtcdRestore back/ });
  t.equal(loop.s().lineage.previous.restoredBy, 'back');

  // A restore older than the last snapshot before the break explains nothing.
  const other = new BackupLoop(PERIODIC);
  other.clusters = [
    etcdCluster('example', 'ns', {
      restore: { uid: 'u-r', name: 'old', phase: 'Restored', created: '2025-06-01T00:00:00Z' },
    }),
  ];
  other.pods = loop.pods;
  other.step();
  t.match(
    other.s().conditions.find((c: any) => c.type === 'Lineage'),
    { status: 'False', reason: 'EtcdClusterChanged' },
  );
  // Nor one that did not finish, nor one of a cluster this backup does not dial.
  for (const clusters of [
    [etcdCluster('example', 'ns', { restore: { name: 'x', phase: 'Restoring', created: '2026-01-01T01:30:00Z' } })],
    [
      etcdCluster('example', 'ns'),
      etcdCluster('other', 'ns', { restore: { name: 'x', phase: 'Restored', created: '2026-01-01T01:30:00Z' } }),
    ],
  ]) {
    const l = new BackupLoop(PERIODIC);
    l.clusters = clusters;
    l.pods = loop.pods;
    l.step();
    t.match(
      l.s().conditions.find((c: any) => c.type === 'Lineage'),
      { status: 'False' },
    );
  }
});

t.test('a revision gone back in the same cluster: RevisionWentBack; maxBackups 0 keeps all', async (t) => {
  const loop = new BackupLoop({ ...PERIODIC, backupPolicy: { backupIntervalInSecond: 600, maxBackups: 0 } });
  loop.pods = [
    lineageResult('ns/nightly_v3_2026-01-01T02-00-00Z', '2026-01-01T02:00:05Z', {
      lineage: '2026-01-01T02-00-00Z',
      lineageBreak: {
        reason: 'RevisionWentBack',
        key: 'k',
        revision: 900,
        clusterId: 'c1',
        date: '2026-01-01T01:00:00.000Z',
      },
    }),
  ];
  loop.step();
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Lineage'),
    {
      status: 'False',
      reason: 'RevisionWentBack',
      message: /revision of etcd cluster c1 went back from 900 with no EtcdRestore.*every one is kept \(maxBackups 0\)/,
    },
  );
  const once = new BackupLoop(ONCE);
  once.pods = [lineageResult('ns/before-upgrade.db', '2026-01-01T00:00:05Z')];
  once.step();
  t.notOk(once.s().lineage, 'a one-off has no lineage');
  t.same(
    once.s().conditions.map((c: any) => c.type),
    ['Ready'],
  );
});

t.test('a prune that failed is in the status and a Warning, once per snapshot', async (t) => {
  const loop = new BackupLoop(PERIODIC);
  loop.step();
  const before = backupRequest({ spec: PERIODIC, uid: loop.uid, status: loop.status! });
  loop.pods = [
    lineageResult('ns/nightly_v10_2026-01-01T00-00-00Z', '2026-01-01T00:00:05Z', {
      pruneProblem: 'pruning stopped after 0 deletion(s): AccessDenied',
    }),
  ];
  const res = loop.step();
  t.equal(loop.s().pruneProblem, 'pruning stopped after 0 deletion(s): AccessDenied');
  t.match(loop.s().conditions[0], { status: 'True', reason: 'BackupSucceeded', message: /; pruning stopped/ });
  t.same(
    backupWritten(before, res).map((e) => [e.type, e.reason]),
    [
      ['Normal', 'BackupSucceeded'],
      ['Warning', 'PruneFailed'],
    ],
  );
  loop.pods.push(lineageResult('ns/nightly_v11_2026-01-01T01-00-00Z', '2026-01-01T01:00:05Z'));
  loop.step();
  t.notOk('pruneProblem' in loop.s(), 'cleared by a clean run');
});

t.test('a one-off Job that failed without a pod to say why: its Failed condition is the reason', async (t) => {
  const loop = new BackupLoop(ONCE);
  const job = (conditions: unknown[]) => [asObserved(loop.step().children[0]!, { failed: 3, conditions })];
  loop.children = job([{ type: 'Failed', status: 'True', message: 'Job has reached the specified backoff limit' }]);
  loop.step();
  t.match(loop.s(), {
    succeeded: false,
    reason: 'Job has reached the specified backoff limit',
    Reason: 'Job has reached the specified backoff limit',
  });
  t.match(loop.s().conditions[0], { status: 'False', reason: 'BackupFailed' });
  const fresh = new BackupLoop(ONCE);
  fresh.step();
  fresh.children = [asObserved(fresh.last.children[0]!, { conditions: [{ type: 'Failed', status: 'True' }] })];
  fresh.step();
  t.match(fresh.s(), { succeeded: false, reason: 'the backup Job failed' });
  for (const conditions of [
    [{ type: 'Failed', status: 'False', message: 'not yet' }],
    [{ type: 'Suspended', status: 'True', message: 'suspended' }],
  ]) {
    const l = new BackupLoop(ONCE);
    l.step();
    l.children = [asObserved(l.last.children[0]!, { active: 1, conditions })];
    l.step();
    t.notOk('succeeded' in l.s(), JSON.stringify(conditions));
    t.match(l.s().conditions[0], { reason: 'Running', message: 'the backup Job is running' });
    t.equal(l.last.resyncAfterSeconds, 10);
  }
});

t.test('what the hook answers, word for word: the Job, the messages, the related objects it asks for', async (t) => {
  const { customize } = await import('../../hooks/etcdbackup/sync.js');
  t.same(customize({ controller: {}, parent: backupRequest({ spec: ONCE, namespace: 'team-a' }).parent } as any), {
    relatedResources: [
      {
        apiVersion: 'v1',
        resource: 'pods',
        // By its parent label (docs/etcdbackup.md); unkeyed here: a server without a key.
        labelSelector: {
          matchLabels: {
            'etcdbackup.metaops.io/parent-id': parentLabelValue(undefined, 'EtcdBackup', 'team-a', 'nightly'),
          },
        },
      },
      { apiVersion: 'etcd.database.coreos.com/v1beta2', resource: 'etcdclusters', namespace: 'team-a' },
      // The namespace's EtcdRestores: the snapshots one under way restores are never pruned.
      { apiVersion: 'etcd.database.coreos.com/v1beta2', resource: 'etcdrestores', namespace: 'team-a' },
    ],
  });
  t.same(customize({ controller: {} } as any).relatedResources[0], {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    resource: 'etcdclusters',
    namespace: '',
  });
  const loop = new BackupLoop({
    ...ONCE,
    clusterName: undefined,
    etcdEndpoints: ['http://example-client:2379', 'http://other-client:2379'],
  });
  loop.clusters = [etcdCluster('example', 'ns'), etcdCluster('other', 'ns')];
  loop.step();
  const args: string[] = (loop.last.children[0] as any).spec.template.spec.containers[0].args;
  t.equal(
    args[args.indexOf('--endpoints') + 1],
    'http://example-client.ns.svc.cluster.local:2379,http://other-client.ns.svc.cluster.local:2379',
  );
  loop.pods = [backupPod('nightly', 'ns', ok('ns/before-upgrade.db'), '2026-01-01T00:00:00Z')];
  loop.step();
  t.equal(loop.s().conditions[0].message, 'snapshot at revision 42 in s3://bucket/ns/before-upgrade.db');
  loop.children = [];
  loop.step();
  t.equal(
    loop.s().conditions[0].message,
    'snapshot at revision 42 in s3://bucket/ns/before-upgrade.db (taken once: the Job is not made again)',
  );
  // The same EtcdBackup made periodic: its snapshots are another series, the CronJob is made.
  loop.spec = { ...loop.spec, backupPolicy: { backupIntervalInSecond: 3600 } };
  loop.step();
  t.same(loop.kinds(), ['CronJob']);
  // A refusal is the Ready condition's, and only a missing cluster is looked at again.
  const refused = new BackupLoop({ ...ONCE, s3: { path: 'bucket/elsewhere/x', awsSecret: 'aws' } });
  refused.step();
  t.match(refused.s().conditions, [{ type: 'Ready', status: 'False', reason: 'NotAllowed' }]);
  t.notOk(refused.last.resyncAfterSeconds);
});

t.test(
  'the lineage in status: a result without one keeps it; a restore at the very moment explains a break',
  async (t) => {
    const loop = new BackupLoop(PERIODIC);
    loop.pods = [lineageResult('ns/nightly_v10_2026-01-01T00-00-00Z', '2026-01-01T00:00:05Z')];
    loop.step();
    const kept = loop.s().lineage;
    loop.pods = [
      lineageResult('ns/nightly_v10_2026-01-01T00-00-00Z', '2026-01-01T00:00:05Z'),
      backupPod('nightly', 'ns', ok('ns/nightly_v11_2026-01-01T01-00-00Z'), '2026-01-01T01:00:05Z'),
    ];
    loop.step();
    t.same(loop.s().lineage, kept, 'a result of an older command (no lineage) changes nothing');
    const noCluster = new BackupLoop(PERIODIC);
    noCluster.status = { lineage: kept };
    noCluster.pods = [
      lineageResult('k', '2026-01-01T00:00:05Z', { clusterId: undefined, lineage: '2026-01-01T05-00-00Z' }),
    ];
    noCluster.step();
    t.same(noCluster.s().lineage, kept);

    const at = new BackupLoop(PERIODIC);
    at.clusters = [
      etcdCluster('example', 'ns', { restore: { name: 'exact', phase: 'Restored', created: '2026-01-01T01:00:00Z' } }),
    ];
    at.pods = [
      lineageResult('k2', '2026-01-01T02:00:05Z', {
        clusterId: 'c9',
        lineage: '2026-01-01T02-00-00Z',
        lineageBreak: {
          reason: 'EtcdClusterChanged',
          key: 'k',
          revision: 9,
          clusterId: 'c1',
          date: '2026-01-01T01:00:00Z',
        },
      }),
    ];
    at.step();
    t.equal(at.s().lineage.previous.restoredBy, 'exact');
  },
);
