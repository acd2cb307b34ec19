// A restore's check pod (restartPolicy Never) whose run ended on something that says nothing of the snapshot: S3
// answered "try again" (503 SlowDown once its client's three attempts were spent, a reset connection), its first
// requests were refused because the mesh sidecar a webhook injected was not yet listening (Istio without
// holdApplicationUntilProxyStarts: ECONNREFUSED), or its container was lost under it (a node rebooted, the container
// runtime lost it: ContainerStatusUnknown, exit 137). A restored member's step that ends so is run again (restore.ts
// transientFailure, killedRun); the check should be made again within its deadline too, as one its node evicted is,
// never refused at once as if the snapshot, the credentials or the restored members' images had failed. Each answer
// is fed back as the next observed state.
import t from 'tap';
import { restoreObject, running } from '../fixtures/etcd-loop.js';

const CHECK = 'e-restore-check';

/** The check pod ended with the check's CLI verdict `reason` (exit 1), as the kubelet reports it. */
const checkSaid = (reason: string) => ({
  phase: 'Failed',
  containerStatuses: [
    {
      name: 'check',
      restartCount: 0,
      state: { terminated: { exitCode: 1, reason: 'Error', message: JSON.stringify({ succeeded: false, reason }) } },
    },
  ],
});

/** The check pod whose container `name` (the check, or a step of its own) was lost by the runtime under it. */
const lostUnder = (name: string) => {
  const lost = { name, restartCount: 0, state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown' } } };
  const done = (n: string) => ({
    name: n,
    restartCount: 0,
    state: { terminated: { exitCode: 0, reason: 'Completed' } },
  });
  const waiting = (n: string) => ({ name: n, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } });
  return name === 'check'
    ? {
        phase: 'Failed',
        initContainerStatuses: ['busybox-image', 'etcd-image', 'restore-tool'].map(done),
        containerStatuses: [lost],
      }
    : {
        phase: 'Failed',
        initContainerStatuses: [lost, waiting('etcd-image'), waiting('restore-tool')],
        containerStatuses: [waiting('check')],
      };
};

const cases: Array<[string, Record<string, unknown>]> = [
  ['S3 answered SlowDown', checkSaid('s3://bk/snap.db: SlowDown: Please reduce your request rate.')],
  ['S3 was unavailable for a moment', checkSaid('s3://bk/snap.db: ServiceUnavailable: Service Unavailable')],
  [
    'the mesh sidecar was not yet listening (connection refused)',
    checkSaid('s3://bk/snap.db: Error: connect ECONNREFUSED 52.216.0.1:443'),
  ],
  ['the check container was lost by the runtime (node reboot)', lostUnder('check')],
  ["the check's own busybox-image step was lost by the runtime", lostUnder('busybox-image')],
];

for (const [what, status] of cases)
  t.test(`a restore check that ended because ${what} is made again, not refused`, async (t) => {
    const loop = await running({ size: 3 });
    loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
    await loop.step();
    t.match(loop.s().restore, { phase: 'Checking' });
    loop.podStatus.set(CHECK, status);
    await loop.step();
    t.match(
      loop.s().restore,
      { phase: 'Checking' },
      `still checking: nothing was learnt of the snapshot (was ${loop.s().restore?.phase}: ${loop.s().restore?.reason})`,
    );
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the running members are kept');
    // The check pod made again passes.
    loop.podStatus.delete(CHECK);
    for (let i = 0; i < 3 && loop.s().restore?.phase === 'Checking'; i++) await loop.step();
    t.match(loop.s().restore, { phase: 'Replacing' }, 'the check made again passed: the restore goes on');
  });
