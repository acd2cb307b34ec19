// A restore's check pod whose runs prove nothing against the snapshot (S3 saying "try again", its check or one of its
// own steps lost or killed under it, the pod rejected by its node at admission) is made again while its deadline
// (RESTORE_CHECK_SECONDS) runs, and its verdict on the snapshot still counts at once. Past the deadline it is refused,
// and the refusal says what the last run ended on: never that the restored members' images cannot run (a step lost by
// the runtime did not exit on its image), never a bare "Failed".
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { checkVerdict, RESTORE_CHECK_SECONDS } from '../../hooks/etcdcluster/restore.js';

const since = '2026-01-02T03:04:05Z';
const within = new Date(Date.parse(since) + 60_000);
const past = new Date(Date.parse(since) + (RESTORE_CHECK_SECONDS + 1) * 1000);
const pod = (status: Record<string, unknown>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'e-restore-check', uid: 'u1' },
  spec: { initContainers: [{ name: 'busybox-image', image: 'busybox:1.28.0-glibc' }] },
  status,
});
const done = (name: string) => ({ name, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
const check = (terminated: Record<string, unknown>) =>
  pod({
    phase: 'Failed',
    initContainerStatuses: ['busybox-image', 'etcd-image', 'restore-tool'].map(done),
    containerStatuses: [
      { name: 'istio-proxy', state: { running: {} } },
      { name: 'check', state: { terminated } },
    ],
  });
const verdict = (reason: string) => JSON.stringify({ succeeded: false, reason });

t.test('a check run that proves nothing: again within the deadline, refused past it saying why', async (t) => {
  const stepLost = pod({
    phase: 'Failed',
    initContainerStatuses: [
      { name: 'busybox-image', state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown' } } },
    ],
    containerStatuses: [{ name: 'check', state: { waiting: { reason: 'PodInitializing' } } }],
  });
  t.same(checkVerdict(stepLost, since, within), { state: 'again' });
  const late = checkVerdict(stepLost, since, past);
  t.match(late, { state: 'failed' });
  t.notMatch((late as { reason: string }).reason, /could not run that image/, 'the image is not blamed');
  t.match(
    (late as { reason: string }).reason,
    /did not finish within 10 minutes \(its last run ended on its step busybox-image ended under it, exit 137 \(ContainerStatusUnknown\)\)/,
  );

  const slow = check({ exitCode: 1, reason: 'Error', message: verdict('s3://bk/s.db: SlowDown: Please reduce') });
  t.same(checkVerdict(slow, since, within), { state: 'again' });
  t.same(checkVerdict(slow, since, past), { state: 'failed', reason: 's3://bk/s.db: SlowDown: Please reduce' });

  const lost = check({ exitCode: 137, reason: 'ContainerStatusUnknown' });
  t.same(checkVerdict(lost, since, within), { state: 'again' });
  t.same(checkVerdict(lost, since, past), {
    state: 'failed',
    reason: 'the snapshot check exited with 137 (ContainerStatusUnknown)',
  });
});

t.test('a verdict on the snapshot or on an image refuses at once', async (t) => {
  for (const reason of ['s3://bk/s.db: AccessDenied: Access Denied', 's3://bk/s.db: NoSuchKey: not there'])
    t.same(checkVerdict(check({ exitCode: 1, message: verdict(reason) }), since, within), { state: 'failed', reason });
  const stepExited = pod({
    phase: 'Failed',
    initContainerStatuses: [{ name: 'busybox-image', state: { terminated: { exitCode: 1, reason: 'Error' } } }],
  });
  t.match(checkVerdict(stepExited, since, within), {
    state: 'failed',
    reason: /busybox-image \(image busybox:1.28.0-glibc\) exited with 1 \(Error\): the restored members could not run/,
  });
});

t.test('a check pod rejected by its node: again within the deadline, refused past it naming the reason', async (t) => {
  for (const reason of ['OutOfcpu', 'OutOfnvidia.com/gpu', 'UnexpectedAdmissionError', 'NodeAffinity']) {
    const rejected = pod({ phase: 'Failed', reason, message: `Pod was rejected: ${reason}` });
    t.same(checkVerdict(rejected, since, within), { state: 'again' }, reason);
    t.same(
      checkVerdict(rejected, since, past),
      { state: 'failed', reason: `the snapshot check did not finish within 10 minutes (Failed (${reason}))` },
      reason,
    );
  }
  // A pod that ended with a reason after its check ran is judged by its check's verdict (no admission refusal).
  const ran = pod({
    phase: 'Failed',
    reason: 'Whatever',
    containerStatuses: [{ name: 'check', state: { terminated: { exitCode: 1, message: verdict('NoSuchKey') } } }],
  });
  t.same(checkVerdict(ran, since, within), { state: 'failed', reason: 'NoSuchKey' });
});
