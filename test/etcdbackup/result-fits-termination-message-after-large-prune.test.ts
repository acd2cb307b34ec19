// The backup's result reaches the EtcdBackup hook only through its pod's termination message (main/cli.ts report,
// hooks/etcdbackup/sync.ts podResult), and the kubelet keeps at most 4096 bytes of that file: the LAST 4096
// (kubelet getTerminationMessage, tail.ReadAtMost(path, MaxContainerTerminationMessageLength = 4096)). The result
// lists every key the run pruned (`pruned`), unbounded: a run after maxBackups is lowered (100 to 2, say) prunes up to
// MAX_EXAMINED (500) snapshots at once. Its JSON is then tens of KiB; what the hook reads is its tail, which is no
// JSON: podResult takes it as `succeeded: false` with the tail's first 300 characters as the reason, so a run that
// wrote its snapshot and pruned 118 is reported Ready=False BackupFailed (a Warning), lastSuccessDate and the key
// not moved on. Every answer and field bounded: the result written must fit what the kubelet keeps, and the hook must
// read a successful run as successful.
import t from 'tap';
import { runBackup } from '../../hooks/etcdbackup/backup.js';
import { META } from '../../hooks/etcdbackup/lineage.js';
import { podResult } from '../../hooks/etcdbackup/sync.js';
import { backupPod } from '../fixtures/backup.js';
import { FakeS3, fakeGateway, fakeKvHash } from '../fixtures/fake-s3.js';

const CLUSTER = '1111111111111111111';
const HEX = BigInt(CLUSTER).toString(16);
const SINCE = '2026-01-01T00-00-00Z';
const BASE = 'team-payments/etcd/main-cluster/snapshot.db';
/** What the kubelet keeps of a termination message file. */
const KUBELET_KEEPS = 4096;
const stampAt = (m: number) =>
  `2026-01-01T${String(Math.floor(m / 60)).padStart(2, '0')}-${String(m % 60).padStart(2, '0')}-00Z`;
const meta = (revision: number): Record<string, string> => ({
  [META.uid]: 'uid-a',
  [META.backup]: 'ns/a',
  [META.cluster]: HEX,
  [META.since]: SINCE,
  [META.revision]: String(revision),
  [META.hash]: String(fakeKvHash('h1', revision)),
  [META.compact]: '-1',
});

t.test(
  'a run that prunes 118 snapshots (maxBackups lowered to 2) is read by the hook as the success it is',
  async (t) => {
    const s3 = new FakeS3();
    for (let m = 0; m < 120; m++) s3.put('bucket', `${BASE}_v${100 + m}_${stampAt(m + 1)}`, 'x', meta(100 + m));
    const gw = await fakeGateway(t, { revision: 300, clusterId: CLUSTER });
    const r = await runBackup({
      endpoints: [gw.url],
      path: `bucket/${BASE}`,
      periodic: true,
      maxBackups: 2,
      timeoutMs: 5000,
      s3: s3.client,
      now: () => new Date(Date.UTC(2026, 0, 1, 3)),
      backup: { uid: 'uid-a', name: 'ns/a' },
    });
    t.equal(r.succeeded, true, `the snapshot is written (${r.reason ?? ''})`);
    t.equal(s3.keys('bucket', 'team-payments/').length, 2, 'maxBackups 2 kept: 118 pruned');
    // What main/cli.ts report() writes to /dev/termination-log, and what the kubelet keeps of it.
    const written = JSON.stringify({ ...r, backupUid: 'uid-a' });
    t.comment(`the result is ${written.length} bytes`);
    t.ok(written.length <= KUBELET_KEEPS, `the result fits a termination message (${written.length} bytes)`);
    const kept = Buffer.from(written).subarray(-KUBELET_KEEPS).toString('utf8');
    const pod = backupPod('a', 'ns', {}, '2026-01-01T03:00:05Z');
    (pod as any).status.containerStatuses[0].state.terminated.message = kept;
    const read = podResult(pod)?.result;
    t.match(read, { succeeded: true }, `the hook reads the run as succeeded (${JSON.stringify(read).slice(0, 200)})`);
  },
);
