// A restored member's pod may carry init containers a mutating admission webhook added (Istio's istio-validation put
// before the pod's own, Linkerd's linkerd-init, Vault's vault-agent-init). Only the restore's own steps, found by name
// (fetch-snapshot, restore-snapshot, place-snapshot), say how the restore goes: an injected one that failed once and
// that the kubelet runs again (restartPolicy Always: istio-validation before the mesh is ready on a node) does not end
// the restore and drop its members, and one that runs does not spare the restore's deadline as a fetch at work would.
// A restore step of its own that fails permanently still ends the restore. Each answer fed back as the next observed
// state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { RESTORE_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { restoreStarted, running } from '../fixtures/etcd-loop.js';
import { backingOff, DNS_CHECKED, fetchFailed, RESTORE_WAITING } from '../fixtures/restore-steps.js';

/** The webhook's init container, put first, in the kubelet's back-off after it exited with an error. */
const INJECTED_BACKING_OFF = backingOff('istio-validation', 1, { exitCode: 1, reason: 'Error', message: 'iptables' });
const FETCHING = { name: 'fetch-snapshot', restartCount: 0, state: { running: { startedAt: '2026-01-02T03:05:00Z' } } };
const FETCH_WAITING = { name: 'fetch-snapshot', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } };

t.test('an injected init container the kubelet runs again does not end the restore', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  t.equal(loop.s().restore.phase, 'Restoring');
  const restored = loop.pods();
  t.same(restored, ['e-3', 'e-4', 'e-5']);
  loop.podStatus.set('e-3', {
    phase: 'Pending',
    initContainerStatuses: [INJECTED_BACKING_OFF, DNS_CHECKED, FETCH_WAITING, RESTORE_WAITING],
  });
  for (const p of ['e-4', 'e-5'])
    loop.podStatus.set(p, { phase: 'Pending', initContainerStatuses: [DNS_CHECKED, FETCHING, RESTORE_WAITING] });
  for (let i = 0; i < 3; i++) {
    await loop.step();
    t.equal(loop.s().restore.phase, 'Restoring', `sync ${i + 1}: still restoring`);
    t.same(loop.pods(), restored, `sync ${i + 1}: the restored members kept`);
  }
  // Its own fetch failing for good still ends it, whatever the injected container did.
  loop.podStatus.set('e-4', {
    phase: 'Pending',
    initContainerStatuses: [
      INJECTED_BACKING_OFF,
      DNS_CHECKED,
      backingOff('fetch-snapshot', 2, fetchFailed('NoSuchKey: The specified key does not exist.')),
    ],
  });
  await loop.step();
  t.match(loop.s().restore, {
    phase: 'Failed',
    reason: 'fetch-snapshot: NoSuchKey: The specified key does not exist.',
  });
});

t.test('an injected init container at work does not spare the restore past its deadline', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  const agent = {
    name: 'vault-agent-init',
    restartCount: 0,
    state: { running: { startedAt: '2026-01-02T03:05:00Z' } },
  };
  for (const p of loop.pods())
    loop.podStatus.set(p, {
      phase: 'Pending',
      initContainerStatuses: [DNS_CHECKED, agent, FETCH_WAITING, RESTORE_WAITING],
    });
  loop.now = new Date(loop.now.getTime() + (RESTORE_SECONDS - 60) * 1000);
  await loop.step();
  t.equal(loop.s().restore.phase, 'Restoring', 'within the deadline: restoring');
  loop.now = new Date(loop.now.getTime() + 120 * 1000);
  await loop.step();
  t.match(
    loop.s().restore,
    { phase: 'Failed', reason: /did not serve within 15 minutes \(e-3: fetch-snapshot: PodInitializing/ },
    'past it: failed, naming the step that waits',
  );
});
