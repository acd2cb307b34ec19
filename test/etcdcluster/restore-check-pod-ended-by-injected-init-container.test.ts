// A mutating admission webhook may add an init container of its own to the restore's check pod (Istio's
// istio-validation, put before the pod's own; Linkerd's linkerd-init). When that one exits with an error (the mesh not
// yet ready on the node), the check pod (restartPolicy Never) ends before any of its own steps or its check ran:
// nothing of the snapshot or of the restored members' images was tried. That is no verdict on the restore: the check
// is made again (within its deadline), never refused as "the restored members could not run that image"; past the
// deadline it is refused, naming the init container that ended it. Its own steps (busybox-image, etcd-image,
// restore-tool) still refuse it at once. Each answer is fed back as the next observed state.
import t from 'tap';
import { RESTORE_CHECK_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { restoreObject, running } from '../fixtures/etcd-loop.js';

const CHECK = 'e-restore-check';

/** The check pod ended on init container `name` (exit 1) before anything after it ran. */
const endedOn = (name: string) => ({
  phase: 'Failed',
  initContainerStatuses: [
    { name, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } },
    { name: 'busybox-image', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
  ],
  containerStatuses: [{ name: 'check', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
});

t.test('a check pod ended by an init container a webhook added is made again, not read as a refusal', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' });
  loop.podStatus.set(CHECK, endedOn('istio-validation'));
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'still checking: the check did not run');
  t.notOk(loop.checkPod(), 'the ended check pod is dropped');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the running members are kept');
  loop.podStatus.delete(CHECK);
  await loop.step();
  t.ok(loop.checkPod(), 'a new check pod is made');
  await loop.step();
  t.match(loop.s().restore, { phase: 'Replacing' }, 'the new check passed: the old members are dropped');
  t.same(loop.pods(), [], 'the old members dropped');
  await loop.step();
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members are made');
});

t.test('past the check deadline the restore is refused, naming the init container that ended it', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  loop.podStatus.set(CHECK, endedOn('linkerd-init'));
  loop.now = new Date(loop.now.getTime() + (RESTORE_CHECK_SECONDS + 1) * 1000);
  await loop.step();
  t.match(loop.s().restore, {
    phase: 'Failed',
    refused: true,
    untouched: true,
    reason:
      /did not finish within 10 minutes \(its pod ended on linkerd-init exited with 1 \(Error\), an init container the check did not make/,
  });
  t.notMatch(loop.s().restore.reason, /could not run that image/, "not blamed on the restored members' images");
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the cluster as it was');
});

t.test('a step of the check itself that fails still refuses the restore at once', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  loop.podStatus.set(CHECK, {
    phase: 'Failed',
    initContainerStatuses: [
      { name: 'istio-validation', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
      { name: 'busybox-image', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
      { name: 'etcd-image', restartCount: 0, state: { terminated: { exitCode: 127, reason: 'Error' } } },
    ],
  });
  await loop.step();
  t.match(loop.s().restore, {
    phase: 'Failed',
    refused: true,
    reason:
      /the check's step etcd-image \(image quay\.io\/coreos\/etcd:v3\.5\.0\) exited with 127 \(Error\): the restored members could not run that image/,
  });
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the cluster as it was');
});
