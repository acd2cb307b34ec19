// The backup's result reaches the hook through its container's termination message, of which the kubelet keeps the
// last 4096 bytes (hooks/etcdbackup/result.ts). Every field bounded: whatever the keys' lengths (an s3.path near
// the S3 limit, quotes escaped in JSON) and however many were pruned, the result written stays well under that,
// the snapshot's own key intact; and a message the kubelet did cut (a Job of an older version) is said as such,
// not quoted as the reason.
import t from 'tap';
import { podResult } from '../../hooks/etcdbackup/sync.js';
import { fitted, RESULT_BYTES, TERMINATION_MESSAGE_BYTES } from '../../hooks/etcdbackup/result.js';
import { backupPod } from '../fixtures/backup.js';

const bytes = (x: unknown) => Buffer.byteLength(JSON.stringify(x));

t.test('keys near the S3 limit, quotes in them, 500 pruned: the result fits, its key intact', async (t) => {
  const base = `ns/${'"q\\'.repeat(330)}`;
  const key = `${base}_v900_2026-01-01T03-00-00Z`;
  const r = fitted({
    succeeded: true,
    key,
    bucket: 'b'.repeat(63),
    etcdRevision: 900,
    etcdVersion: '3.5.21',
    size: 123,
    lastSuccessDate: '2026-01-01T03:00:00Z',
    clusterId: 'f'.repeat(16),
    lineage: '2026-01-01T00-00-00Z',
    lineageBreak: {
      reason: 'LineageUnproven',
      why: 'w'.repeat(240),
      key: `${base}_v100_2026-01-01T00-00-00Z`,
      revision: 100,
      clusterId: 'e'.repeat(16),
      date: '2026-01-01T00:00:00Z',
    },
    pruned: Array.from({ length: 500 }, (_, i) => `${base}_v${i}_2026-01-01T00-00-00Z`),
    pruneProblem: 'p'.repeat(600),
  });
  const written = { ...r, backupUid: '0123456789abcdef0123456789abcdef0123' };
  t.ok(bytes(written) <= RESULT_BYTES + 64, `${bytes(written)} bytes`);
  t.ok(bytes(written) < TERMINATION_MESSAGE_BYTES, 'under what the kubelet keeps');
  t.equal(r.key, key, 'the key written kept whole');
  t.equal(r.prunedCount, 500, 'every key pruned counted');
  t.equal(r.succeeded, true);
  const pod = backupPod('a', 'ns', written, '2026-01-01T03:00:05Z');
  t.match(podResult(pod)?.result, { succeeded: true, key }, 'read back by the hook as written');
});

t.test('a few keys pruned: listed whole, counted', async (t) => {
  const pruned = ['ns/snap_v1_2026-01-01T00-00-00Z', 'ns/snap_v2_2026-01-01T01-00-00Z'];
  t.match(fitted({ succeeded: true, key: 'ns/snap_v3', pruned }), { pruned, prunedCount: 2 });
  const failed = fitted({ succeeded: false, reason: `no etcd endpoint could be snapshotted: ${'x'.repeat(20_000)}` });
  t.ok(bytes(failed) <= RESULT_BYTES, 'a failure’s reason bounded too');
  t.match(failed.reason, /^no etcd endpoint could be snapshotted: x+…$/);
});

t.test('a result the kubelet cut (written by a CLI that did not bound it) is said as such', async (t) => {
  const long = JSON.stringify({
    succeeded: true,
    key: 'ns/snap_v300',
    pruned: Array.from({ length: 200 }, (_, i) => `ns/snap_v${i}_2026-01-01T00-00-00Z`),
  });
  const pod = backupPod('a', 'ns', {}, '2026-01-01T03:00:05Z') as any;
  const terminated = pod.status.containerStatuses[0].state.terminated;
  terminated.message = Buffer.from(long).subarray(-TERMINATION_MESSAGE_BYTES).toString('utf8');
  terminated.exitCode = 0;
  const read = podResult(pod)?.result;
  t.equal(read?.succeeded, false);
  t.match(read?.reason, /kubelet keeps of a termination message and was cut.*exited 0/);
  t.notMatch(read?.reason, /snap_v/, 'no tail of the key list quoted as the reason');
});
