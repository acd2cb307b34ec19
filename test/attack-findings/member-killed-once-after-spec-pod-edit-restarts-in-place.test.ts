// Members restart in place (issue 30): an etcd container killed once (an OOM kill under a load spike, a container
// runtime restart, a node reboot) is restarted by the kubelet on its data after a 10 s back-off. But in a cluster
// with storage whose spec.pod was edited at any time after its member pods were made (pods are never changed in
// place, so the edit waits silently for the next pod made: a nodeSelector for a node pool to come, a larger memory
// request), plan/respec.ts reads the kubelet's back-off (`CrashLoopBackOff`, restartCount 1) as "cannot start on the
// spec.pod it was made from" and deletes the pod, to make it again with the edited spec.pod. A majority killed once
// at the same moment is then deleted at once and made again on a spec that may not schedule at all (here a
// nodeSelector for a pool that does not exist yet and a 64Gi request): quorum that the kubelet would have brought back
// in seconds is lost until the user notices and undoes the edit; even with a spec that schedules, a restart in place
// becomes a delete, a reschedule and a volume detach and attach. A container killed once is not a member that cannot
// start. Each answer fed back as the next observed state.
import t from 'tap';
import { OOM_KILLED, PVC, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const podSpec = (loop: any, name: string) =>
  loop.children.find((c: any) => c.kind === 'Pod' && c.metadata.name === name)?.spec;

for (const killed of [['e-1'], ['e-1', 'e-2']])
  t.test(`storage, spec.pod edited since the pods were made, ${killed.join(' and ')} killed once`, async (t) => {
    const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
    // An edit for members to come: no running member is changed by it.
    loop.spec = {
      ...loop.spec,
      pod: {
        persistentVolumeClaimSpec: PVC,
        nodeSelector: { pool: 'etcd-large' },
        resources: { requests: { memory: '64Gi' } },
      },
    };
    for (let i = 0; i < 3; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 10_000);
      await loop.step();
    }
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the edit changes no running member');
    for (const p of killed) {
      loop.etcd.up.delete(p);
      loop.podStatus.set(p, OOM_KILLED);
    }
    for (let i = 3; i < 6; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 10_000);
      await loop.step();
      for (const p of killed) {
        t.ok(loop.pods().includes(p), `sync ${i - 2}: ${p} kept: the kubelet restarts its etcd in place`);
        t.notOk(podSpec(loop, p)?.nodeSelector, `sync ${i - 2}: ${p} is not made again on the edited spec.pod`);
      }
    }
    t.same(loop.etcd.calls, [], 'no membership change');
  });

// A single-node cluster rebooted: every member pod's sandbox is made again, and its check-dns step fails until the
// cluster DNS is back (CoreDNS restarts on the same node), the kubelet backing it off (CrashLoopBackOff). The same
// rule deletes all three members at once to make them again on the edited spec.pod.
t.test('storage, spec.pod edited since, every member waiting for DNS after a node reboot', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.spec = {
    ...loop.spec,
    pod: { persistentVolumeClaimSpec: PVC, nodeSelector: { pool: 'etcd-large' } },
  };
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 10_000);
    await loop.step();
  }
  const members = ['e-0', 'e-1', 'e-2'];
  loop.etcd.listError = new Error('etcdserver: request timed out');
  for (const p of members) {
    loop.etcd.up.delete(p);
    loop.podStatus.set(p, {
      phase: 'Pending',
      initContainerStatuses: [
        {
          name: 'check-dns',
          restartCount: 1,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error' } },
        },
      ],
      containerStatuses: [{ name: 'etcd', restartCount: 3, state: { waiting: { reason: 'PodInitializing' } } }],
    });
  }
  for (let i = 3; i < 6; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 10_000);
    await loop.step();
    t.same(loop.pods(), members, `sync ${i - 2}: every member kept, waiting for DNS on its node`);
    for (const p of members)
      t.notOk(podSpec(loop, p)?.nodeSelector, `sync ${i - 2}: ${p} is not made again on the edited spec.pod`);
  }
});
