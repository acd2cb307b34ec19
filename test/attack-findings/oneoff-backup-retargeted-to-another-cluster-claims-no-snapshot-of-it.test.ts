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
import { backupPod, backupRequest, etcdCluster } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW, asObserved } from '../fixtures/requests.js';

t.test('a one-off backup whose clusterName is changed claims no snapshot of the new cluster', async (t) => {
  let spec: Record<string, unknown> = {
    clusterName: 'example',
    s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' },
  };
  let status: Record<string, unknown> | undefined;
  let children: KubeObject[] = [];
  let pods: KubeObject[] = [];
  // (Another etcd cluster: its own cluster ID.)
  const clusters = [etcdCluster('example', 'ns'), etcdCluster('other', 'ns', { clusterID: '987654321987654321' })];
  const step = () => {
    const res = backupSync(
      backupRequest({
        spec,
        uid: 'uid-ns-before-upgrade',
        ...(status ? { status } : {}),
        children,
        pods,
        clusters,
      }),
      'metaops:test',
      FIXED_NOW,
    );
    status = res.status as Record<string, unknown>;
    children = res.children.map((c) => asObserved(c));
    return res;
  };
  step();
  pods = [
    backupPod(
      'before-upgrade',
      'ns',
      {
        succeeded: true,
        bucket: 'bucket',
        key: 'ns/before-upgrade.db',
        etcdRevision: 42,
        etcdVersion: '3.6.9',
        clusterId: '1311768467463790320',
        lastSuccessDate: '2026-01-01T00:00:00Z',
        backupUid: 'uid-ns-before-upgrade',
      },
      '2026-01-01T00:00:00Z',
    ),
  ];
  step();
  t.match(status, { succeeded: true, key: 'ns/before-upgrade.db' }, 'example taken');
  // The same EtcdBackup now names another cluster; its Job long gone (a TTL).
  spec = { ...spec, clusterName: 'other' };
  children = [];
  pods = [];
  for (let i = 0; i < 2; i++) {
    step();
    const ready = (status!['conditions'] as any[]).find((c) => c.type === 'Ready');
    t.notMatch(ready, { status: 'True' }, `sync ${i + 1}: no snapshot of cluster other claimed (${ready?.message})`);
    t.not(status!['succeeded'], true, `sync ${i + 1}: not succeeded for cluster other`);
  }
});
