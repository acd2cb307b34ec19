// A one-off backup is taken once (issue 30.3), and its record is bound to its destination (the endpoint, bucket and
// key: another bucket or store is another snapshot, etcdbackup/oneoff-other-bucket-is-new-snapshot.test.ts) but not
// to its source. An EtcdBackup `before-upgrade` that took cluster `example` is edited to name cluster `other` (the
// same manifest reused before the next cluster's upgrade, a GitOps overlay that changes clusterName): the hook keeps
// `succeeded: true` and Ready=True "snapshot at revision 42 in s3://bucket/ns/before-upgrade.db", and runs nothing.
// The user reads that `other` was backed up before its upgrade; the only snapshot is `example`'s. (Deleting the Job
// does not help either: the backup command finds its own object at the key by the EtcdBackup's UID alone and reports
// it `alreadyTaken`, whatever cluster it holds.) A snapshot of another cluster is no snapshot of this one. Each
// answer's status is fed back as the next request's, as Metacontroller does.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { BackupSyncs, backupRequest, etcdCluster, oneOffTakenPod } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW, asObserved } from '../fixtures/requests.js';
import { runBackup } from '../../hooks/etcdbackup/backup.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';

t.test('a one-off backup whose clusterName is changed claims no snapshot of the new cluster', async (t) => {
  const b = new BackupSyncs({
    spec: { clusterName: 'example', s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' } },
    uid: 'uid-ns-before-upgrade',
    // (Another etcd cluster: its own cluster ID.)
    clusters: [etcdCluster('example', 'ns'), etcdCluster('other', 'ns', { clusterID: '987654321987654321' })],
  });
  b.step();
  b.pods = [
    oneOffTakenPod('before-upgrade', 'uid-ns-before-upgrade', { bucket: 'bucket', clusterId: '1311768467463790320' }),
  ];
  b.step();
  t.match(b.status, { succeeded: true, key: 'ns/before-upgrade.db' }, 'example taken');
  // The same EtcdBackup now names another cluster; its Job long gone (a TTL).
  b.spec = { ...b.spec, clusterName: 'other' };
  b.children = [];
  b.pods = [];
  for (let i = 0; i < 2; i++) {
    b.step();
    const status = b.status!;
    const ready = (status['conditions'] as any[]).find((c) => c.type === 'Ready');
    t.notMatch(ready, { status: 'True' }, `sync ${i + 1}: no snapshot of cluster other claimed (${ready?.message})`);
    t.not(status['succeeded'], true, `sync ${i + 1}: not succeeded for cluster other`);
  }
});

// The same edit while the Job that took `example` and its pod are still there: its result is no snapshot of `other`.
t.test('a one-off backup retargeted while its Job is kept: the Job is said to be of the other cluster', async (t) => {
  const b = new BackupSyncs({
    name: 'before-upgrade',
    namespace: 'ns',
    spec: { clusterName: 'example', s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' } },
    uid: 'uid-ns-before-upgrade',
    clusters: [etcdCluster('example', 'ns'), etcdCluster('other', 'ns', { clusterID: '987654321987654321' })],
    // (A Job is never changed, OnDelete: once made, the one observed is the first.)
    observe: (answered, observed) =>
      observed.length > 0
        ? observed
        : answered.map((c) => {
            const o = asObserved(c);
            // The Job completed.
            o['status'] = { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] };
            return o;
          }),
  });
  const pod = oneOffTakenPod('before-upgrade', 'uid-ns-before-upgrade', {
    bucket: 'bucket',
    clusterId: '123456789abcdef0',
  });
  b.step();
  b.pods = [pod];
  b.step();
  t.match(b.status, { succeeded: true, clusterName: 'example', clusterID: '123456789abcdef0' }, 'example taken, bound');
  b.spec = { ...b.spec, clusterName: 'other' };
  for (let i = 0; i < 2; i++) {
    b.step();
    const status = b.status!;
    const ready = (status['conditions'] as any[]).find((c) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: 'ResultUnknown' }, `sync ${i + 1}`);
    t.match(ready.message, /for EtcdCluster example, not for other/, `sync ${i + 1}: says whose the Job's run is`);
    t.not(status['succeeded'], true);
  }
});

// The cluster recreated under the same name: another etcd cluster ID; the snapshot is of the first.
t.test('a one-off backup whose cluster was recreated under its name claims no snapshot of the new one', async (t) => {
  const spec = { clusterName: 'example', s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' } };
  const status = {
    succeeded: true,
    key: 'ns/before-upgrade.db',
    bucket: 'bucket',
    endpoint: '',
    etcdRevision: 42,
    clusterName: 'example',
    clusterID: '123456789abcdef0',
  };
  const sync = (clusters?: KubeObject[]) =>
    backupSync(
      backupRequest({
        name: 'before-upgrade',
        namespace: 'ns',
        spec,
        uid: 'uid-ns-before-upgrade',
        status,
        children: [],
        pods: [],
        ...(clusters ? { clusters } : {}),
      }),
      'metaops:test',
      FIXED_NOW,
    );
  const same = sync();
  t.match(same.status, { succeeded: true }, 'the same cluster: taken once');
  t.same(same.children, [], 'no Job made again');
  const recreated = sync([etcdCluster('example', 'ns', { clusterID: '987654321987654321' })]);
  t.not(recreated.status!['succeeded'], true, 'not succeeded for the recreated cluster');
});

// The backup command's own check (its Job made again): its own snapshot at the key is its result only when it is of
// the cluster it snapshots now; of another (both IDs known), it is refused and kept.
t.test('the backup command: its own one-off snapshot of another cluster is not taken for this one', async (t) => {
  const s3 = new FakeS3();
  const run = async (clusterId: string) =>
    runBackup({
      endpoints: [(await fakeGateway(t, { revision: 42, clusterId })).url],
      path: 'bucket/ns/before-upgrade.db',
      periodic: false,
      maxBackups: 1,
      timeoutMs: 2000,
      s3: s3.client,
      now: () => FIXED_NOW,
      backup: { uid: 'uid-ns-before-upgrade', name: 'ns/before-upgrade' },
    });
  t.match(await run('1111111111111111111'), { succeeded: true }, 'the first cluster taken');
  const body = s3.objects.get('bucket/ns/before-upgrade.db')!.body.toString();
  t.match(await run('1111111111111111111'), { succeeded: true, alreadyTaken: true }, 'the same cluster: taken already');
  const other = await run('2222222222222222222');
  t.match(other, {
    succeeded: false,
    reason:
      /holds this EtcdBackup's snapshot of etcd cluster f6b75ab2bc471c7, not of 1ed6eb565788e38e .*never overwrites/,
  });
  t.equal(s3.objects.get('bucket/ns/before-upgrade.db')!.body.toString(), body, 'the snapshot kept');
});
