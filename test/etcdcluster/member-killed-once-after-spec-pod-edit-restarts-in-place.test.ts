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
import { cannotStart, FAILED_START_MS, FAILED_STARTS } from '../../hooks/etcdcluster/plan/respec.js';

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

// The rule itself: what a pod shows before it is read as one that cannot start on its spec.pod.
t.test(
  'cannotStart: image and config errors at once, a crash loop only after several short failed starts',
  async (t) => {
    const pod = (status: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'e-1' },
      status,
    });
    const etcd = (s: Record<string, unknown>) => pod({ phase: 'Running', containerStatuses: [{ name: 'etcd', ...s }] });
    const loop = (restartCount: number, lastState?: Record<string, unknown>) =>
      etcd({ restartCount, state: { waiting: { reason: 'CrashLoopBackOff' } }, ...(lastState ? { lastState } : {}) });
    const run = (seconds: number) => ({
      terminated: {
        exitCode: 137,
        startedAt: '2026-01-01T00:00:00Z',
        finishedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString(),
      },
    });
    t.ok(cannotStart(etcd({ restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } })), 'an image error');
    t.ok(
      cannotStart(etcd({ restartCount: 0, state: { waiting: { reason: 'CreateContainerConfigError' } } })),
      'a config error',
    );
    t.notOk(cannotStart(loop(1)), 'killed once: the kubelet restarts it');
    t.notOk(cannotStart(loop(FAILED_STARTS - 1)), `${FAILED_STARTS - 1} failed starts: not yet`);
    t.ok(cannotStart(loop(FAILED_STARTS)), `${FAILED_STARTS} failed starts, no run known`);
    t.ok(cannotStart(loop(6, run(2))), 'six starts, the last of two seconds (OOMKilled at start)');
    t.notOk(
      cannotStart(loop(6, run(FAILED_START_MS / 1000))),
      'the last run served a minute: killed, not failing to start',
    );
    t.notOk(cannotStart(loop(6, run(3600))), 'the last run served an hour');
    const init = (etcdStatus: Record<string, unknown>, restartCount: number) =>
      pod({
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'check-dns', restartCount, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
        containerStatuses: [{ name: 'etcd', ...etcdStatus }],
      });
    const initializing = { state: { waiting: { reason: 'PodInitializing' } } };
    t.ok(
      cannotStart(init({ restartCount: 0, ...initializing }, 5)),
      'an init step failing in a pod whose etcd never ran',
    );
    t.notOk(cannotStart(init({ restartCount: 0, ...initializing }, 1)), 'an init step failed once');
    t.notOk(
      cannotStart(init({ restartCount: 3, ...initializing }, 9)),
      'an init step failing after its etcd ran in the pod (DNS after a node reboot): its node, not its spec',
    );
  },
);
