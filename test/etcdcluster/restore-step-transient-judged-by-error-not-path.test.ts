// A restore step's failure proves nothing (made again, or run again by the kubelet) only when S3 or the network said
// so: judged by the failure's own name and code, which the CLI reports apart from its reason (`error`), or, from a
// CLI without it, by the reason with the snapshot paths the step was given taken out. The path is the EtcdRestore
// author's, and may hold any word (`ECONNRESET`, `SlowDown`), spaces and `: ` too: a NoSuchKey on such a key is a
// verdict on the snapshot. The restored member's fetch step (evidence.ts failedInitStep) reads it the same way as
// the check (restore.ts checkVerdict).
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { checkVerdict, transientFailure } from '../../hooks/etcdcluster/restore.js';
import { failedInitStep } from '../../hooks/etcdcluster/plan/evidence.js';
import { errorOf } from '../../hooks/etcdcommon/snapshot.js';

const message = (reason: string, error?: string) =>
  JSON.stringify({ succeeded: false, reason, ...(error ? { error } : {}) });

t.test('the CLI names a failure by its name and code, never by its message or path', async (t) => {
  t.equal(errorOf(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })), 'Error ECONNRESET');
  t.equal(errorOf(Object.assign(new Error('Please reduce your request rate.'), { name: 'SlowDown' })), 'SlowDown');
  t.equal(errorOf(Object.assign(new Error('The key s3://b/ECONNRESET'), { name: 'NoSuchKey' })), 'NoSuchKey');
  t.equal(errorOf('thrown text'), 'Error');
});

t.test('with the error reported, it alone is judged', async (t) => {
  t.ok(transientFailure(message('s3://bucket/snap.db: SlowDown: Please reduce your request rate.', 'SlowDown')));
  t.ok(transientFailure(message('s3://bucket/snap.db: Error: read ECONNRESET', 'Error ECONNRESET')));
  t.notOk(transientFailure(message('s3://bucket/SlowDown: x ECONNRESET.db: NoSuchKey: no such key', 'NoSuchKey')));
  t.notOk(transientFailure(message('s3://bucket/TimeoutError.db: AccessDenied: Access Denied', 'AccessDenied')));
});

t.test('without it, the paths the step was given are taken out, whatever they hold', async (t) => {
  const path = 'bucket/a: SlowDown: ECONNRESET b.db';
  t.notOk(transientFailure(message(`s3://${path}: NoSuchKey: The specified key does not exist.`), [path]));
  t.ok(transientFailure(message(`s3://${path}: SlowDown: Please reduce your request rate.`), [path]));
  t.ok(transientFailure(message(`s3://${path}: Error: read ECONNRESET`), [path]));
  // A path without spaces, the step's arguments not known: each s3:// word is taken out.
  t.notOk(transientFailure(message('s3://bucket/EAI_AGAIN.db: NoSuchKey: The specified key does not exist.')));
  t.ok(transientFailure(message('s3://bucket/snap.db: SlowDown: Please reduce your request rate.')));
});

const checkPod = (path: string, reason: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'e-restore-check', uid: 'u1' },
  spec: { containers: [{ name: 'check', args: ['etcd-restore-check', '--s3-path', path] }] },
  status: {
    phase: 'Failed',
    containerStatuses: [
      { name: 'check', state: { terminated: { exitCode: 1, reason: 'Error', message: message(reason) } } },
    ],
  },
});

t.test("a check's verdict on a key with spaces and S3's words in it refuses at once", async (t) => {
  const path = 'bucket/x: SlowDown: y.db';
  const reason = `s3://${path}: NoSuchKey: The specified key does not exist.`;
  const since = '2026-01-02T03:04:05Z';
  t.same(checkVerdict(checkPod(path, reason), since, new Date(Date.parse(since) + 60_000)), {
    state: 'failed',
    reason,
  });
});

const memberPod = (path: string, reason: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'e-3' },
  spec: {
    restartPolicy: 'Always',
    initContainers: [{ name: 'fetch-snapshot', args: ['etcd-restore-fetch', '--s3-path', path, '--file', '/x'] }],
  },
  status: {
    phase: 'Pending',
    initContainerStatuses: [
      {
        name: 'fetch-snapshot',
        restartCount: 1,
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: { terminated: { exitCode: 1, reason: 'Error', message: message(reason) } },
      },
    ],
  },
});

for (const path of ['bucket/etcd-ECONNRESET-test.db', 'bucket/a: SlowDown: b.db'])
  t.test(`a restored member's fetch refused on ${path} is a failed step, not one run again`, async (t) => {
    const failed = failedInitStep(
      memberPod(path, `SnapshotChanged: s3://${path} is not the snapshot its restore checked`),
    );
    t.equal(failed?.name, 'fetch-snapshot');
    t.ok(failedInitStep(memberPod(path, `NoSuchKey: The specified key does not exist. s3://${path}`)));
    t.notOk(
      failedInitStep(memberPod(path, 'SlowDown: Please reduce your request rate.')),
      'S3 throttling is run again',
    );
  });
