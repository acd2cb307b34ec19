// Issue 30.3: a one-off backup that succeeded is never taken again, and "a new path is a new snapshot"
// (etcdbackup/record.test.ts). The hook records the snapshot by its key alone (status.key, the path without its
// bucket) and compares that with the spec's key: an EtcdBackup whose s3.path is edited to the same key in another
// bucket (a copy for another region, a bucket renamed) is taken for done. No Job runs, and its Ready condition says
// "snapshot at revision 42 in s3://<the new bucket>/<key>": a snapshot that was never written there.
// Each answer's status is fed back as the next request's, as Metacontroller does.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { BackupSyncs, backupPod, backupRequest, etcdCluster, oneOffTakenPod } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW, asObserved } from '../fixtures/requests.js';

t.test('a one-off backup whose s3.path moves to another bucket takes its snapshot there', async (t) => {
  const b = new BackupSyncs({
    spec: { clusterName: 'example', s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' } },
    uid: 'uid-ns-nightly',
    clusters: [etcdCluster('example', 'ns')],
  });
  b.step();
  b.pods = [oneOffTakenPod('nightly', 'uid-ns-nightly')];
  b.step();
  t.match(b.status, { succeeded: true, key: 'ns/before-upgrade.db' }, 'taken in s3://bucket');
  // The same key, in another bucket.
  b.spec = { ...b.spec, s3: { path: 'dr-bucket/ns/before-upgrade.db', awsSecret: 'aws' } };
  b.children = [];
  b.pods = [];
  const res = b.step();
  t.same(
    res.children.map((c) => c.kind),
    ['Job'],
    'a snapshot in another bucket is a new snapshot: its Job runs',
  );
  const ready = (b.status!['conditions'] as any[]).find((c) => c.type === 'Ready');
  t.notMatch(ready, { status: 'True', message: /s3:\/\/dr-bucket\// }, 'no snapshot claimed in s3://dr-bucket');
});

t.test(
  'a one-off record without its bucket runs once more; the CLI finds its own snapshot and it is done',
  async (t) => {
    const spec = { clusterName: 'example', s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' } };
    const step = (status: Record<string, unknown>, children: KubeObject[], pods: KubeObject[]) =>
      backupSync(
        backupRequest({
          spec,
          uid: 'uid-ns-nightly',
          status,
          children,
          pods,
          clusters: [etcdCluster('example', 'ns')],
        }),
        'metaops:test',
        FIXED_NOW,
      );
    // Recorded by a version that kept the key alone; the Job long gone.
    const legacy = { succeeded: true, key: 'ns/before-upgrade.db', etcdRevision: 42 };
    const first = step(legacy, [], []);
    t.same(
      first.children.map((c) => c.kind),
      ['Job'],
      'the Job runs (its CLI never overwrites a snapshot)',
    );
    t.notMatch(first.status, { succeeded: true }, 'no snapshot claimed before the CLI says where it is');
    const found = backupPod(
      'nightly',
      'ns',
      {
        succeeded: true,
        alreadyTaken: true,
        bucket: 'bucket',
        key: 'ns/before-upgrade.db',
        etcdRevision: 42,
        lastSuccessDate: '2026-01-01T00:00:00Z',
        backupUid: 'uid-ns-nightly',
      },
      '2026-01-02T00:00:00Z',
    );
    const second = step(
      first.status as any,
      first.children.map((c) => asObserved(c)),
      [found],
    );
    t.match(second.status, { succeeded: true, bucket: 'bucket', key: 'ns/before-upgrade.db' });
    const third = step(second.status as any, [], []);
    t.same(third.children, [], 'taken once: not again once its Job is gone');
  },
);

t.test('a one-off record of another destination is dropped whole: no reason left under either spelling', async (t) => {
  // A status written by another version (or edited) may hold a success and a reason at once; the reason is then
  // mirrored as etcd-operator spells it (`Reason`). Once the path moves, nothing of that record is this snapshot's.
  const res = backupSync(
    backupRequest({
      spec: { clusterName: 'example', s3: { path: 'dr-bucket/ns/before-upgrade.db', awsSecret: 'aws' } },
      uid: 'uid-ns-nightly',
      status: {
        succeeded: true,
        reason: 'an old run failed',
        key: 'ns/before-upgrade.db',
        bucket: 'bucket',
        endpoint: '',
        etcdRevision: 42,
      },
      children: [],
      pods: [],
      clusters: [etcdCluster('example', 'ns')],
    }),
    'metaops:test',
    FIXED_NOW,
  );
  t.same(
    res.children.map((c) => c.kind),
    ['Job'],
    'the new destination is a new snapshot',
  );
  const status = res.status as Record<string, unknown>;
  for (const k of ['succeeded', 'reason', 'Reason', 'key', 'bucket', 'etcdRevision'])
    t.notOk(k in status, `${k} of the other destination's record is not kept`);
});
