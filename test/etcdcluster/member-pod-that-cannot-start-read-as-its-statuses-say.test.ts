// Which member pods are made again for a change of spec.pod (plan/respec.ts), read from what the pod says of itself
// (observed input), its functions called directly:
// - a pod cannot start only while it is neither Ready nor finished, its etcd does not run, and its etcd container or
//   one of its init steps waits for a reason the kubelet gives when it cannot start what the pod gives it (an image
//   it cannot pull, a crash loop, a config or create error); a sidecar's wait, or a wait that is no such reason, is
//   not; the statuses read are the first 16 of each list;
// - a pod's etcd never ran only when its status says so exactly: restart count 0, neither running nor exited now or
//   before; no etcd status is "it may have run";
// - a pod is made from another spec.pod only when it records one (a string) that is not the spec's;
// - a restore replaces the members while it is Replacing or Restoring, not while it checks or once it ended;
// - the pods made again are those of which all three hold (cannot start, another spec, sound to make again).
import t from 'tap';
import { POD_SPEC, podSpecFingerprint } from '../../hooks/etcdcluster/members.js';
import {
  CANNOT_START,
  FAILED_START_MS,
  FAILED_STARTS,
  cannotStart,
  etcdNeverRan,
  madeFromOtherSpec,
  remadeForSpec,
  restoreReplacing,
  shortCrashLoop,
} from '../../hooks/etcdcluster/plan/respec.js';
import { etcdParent, etcdSpec } from '../fixtures/etcd.js';

const waiting = (name: string, reason: unknown) => ({ name, restartCount: 3, state: { waiting: { reason } } });

function pod(status: Record<string, unknown>, name = 'e-0', annotations?: Record<string, unknown>): any {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', ...(annotations ? { annotations } : {}) },
    spec: { containers: [{ name: 'etcd' }] },
    status: { phase: 'Pending', ...status },
  };
}

t.test(
  'a pod cannot start for every reason the kubelet gives when it cannot start what the pod gives it',
  async (t) => {
    const reasons = [
      'ErrImagePull',
      'ImagePullBackOff',
      'InvalidImageName',
      'ErrImageNeverPull',
      'CrashLoopBackOff',
      'CreateContainerConfigError',
      'CreateContainerError',
      'RunContainerError',
    ];
    t.same([...CANNOT_START].sort(), [...reasons].sort());
    for (const reason of reasons) {
      t.equal(cannotStart(pod({ containerStatuses: [waiting('etcd', reason)] })), true, `etcd waits: ${reason}`);
      t.equal(
        cannotStart(
          pod({
            initContainerStatuses: [waiting('restore', reason)],
            // etcd never ran in this pod (an init step crash-looping after it ran, a node rebooted, is a restart).
            containerStatuses: [{ ...waiting('etcd', 'PodInitializing'), restartCount: 0 }],
          }),
        ),
        true,
        `an init step waits: ${reason}`,
      );
    }
  },
);

t.test('a pod being made, or whose waits are no reason it cannot start, can start', async (t) => {
  for (const reason of ['ContainerCreating', 'PodInitializing', '', 'crashloopbackoff'])
    t.equal(cannotStart(pod({ containerStatuses: [waiting('etcd', reason)] })), false, `etcd waits: "${reason}"`);
  t.equal(cannotStart(pod({ containerStatuses: [waiting('etcd', ['CrashLoopBackOff'])] })), false, 'no string');
  t.equal(cannotStart(pod({})), false, 'no status of any container yet');
  t.equal(cannotStart(pod({ containerStatuses: { etcd: waiting('etcd', 'CrashLoopBackOff') } })), false, 'no list');
  t.equal(cannotStart(pod({ containerStatuses: [null, { name: 'etcd', state: null }] })), false, 'nulls read');
  t.equal(cannotStart(pod({ containerStatuses: [{ name: 'etcd', state: { waiting: null } }] })), false, 'a null wait');
});

t.test("only the etcd container's wait counts among the containers, and every init step's", async (t) => {
  const sidecar = pod({
    containerStatuses: [waiting('proxy', 'CrashLoopBackOff'), waiting('etcd', 'PodInitializing')],
  });
  t.equal(cannotStart(sidecar), false, "a sidecar's crash loop is not the member's");
  const secondInit = pod({
    initContainerStatuses: [
      { name: 'fetch', state: { terminated: { exitCode: 0 } } },
      waiting('restore', 'CreateContainerConfigError'),
    ],
    containerStatuses: [waiting('etcd', 'PodInitializing')],
  });
  t.equal(cannotStart(secondInit), true, 'the second init step waits');
  const etcdSecond = pod({ containerStatuses: [waiting('proxy', 'PodInitializing'), waiting('etcd', 'ErrImagePull')] });
  t.equal(cannotStart(etcdSecond), true, 'etcd found by its name wherever it is in the list');
});

t.test('a pod that is Ready, finished, or whose etcd runs is none that cannot start', async (t) => {
  const crashingInit = { initContainerStatuses: [waiting('restore', 'CrashLoopBackOff')] };
  t.equal(cannotStart(pod(crashingInit)), true, 'the init step alone: it cannot start');
  t.equal(
    cannotStart(pod({ ...crashingInit, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] })),
    false,
    'Ready',
  );
  t.equal(
    cannotStart(pod({ ...crashingInit, phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] })),
    true,
    'Running, not Ready',
  );
  for (const phase of ['Failed', 'Succeeded'])
    t.equal(cannotStart(pod({ ...crashingInit, phase })), false, `${phase}: the crash rules' pod`);
  t.equal(
    cannotStart(
      pod({
        ...crashingInit,
        containerStatuses: [{ name: 'etcd', restartCount: 0, state: { running: { startedAt: 'x' } } }],
      }),
    ),
    false,
    'its etcd runs (a WAL replayed), not Ready yet',
  );
});

t.test('the statuses read are the first 16 of each list', async (t) => {
  const filler = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ name: `side-${i}`, state: { running: {} } }) as Record<string, unknown>);
  t.equal(
    cannotStart(pod({ initContainerStatuses: [...filler(15), waiting('restore', 'CrashLoopBackOff')] })),
    true,
    'the 16th init step',
  );
  t.equal(
    cannotStart(pod({ initContainerStatuses: [...filler(16), waiting('restore', 'CrashLoopBackOff')] })),
    false,
    'the 17th is not read',
  );
  t.equal(
    cannotStart(pod({ containerStatuses: [...filler(15), waiting('etcd', 'CrashLoopBackOff')] })),
    true,
    'etcd 16th',
  );
  t.equal(
    cannotStart(pod({ containerStatuses: [...filler(16), waiting('etcd', 'CrashLoopBackOff')] })),
    false,
    'etcd 17th: not read',
  );
  t.equal(
    etcdNeverRan(pod({ containerStatuses: [...filler(16), { name: 'etcd', restartCount: 0, state: {} }] })),
    false,
    'an etcd status not read is no proof it never ran',
  );
});

t.test("a pod's etcd never ran only when its status says so exactly", async (t) => {
  const never = { name: 'etcd', restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } };
  t.equal(etcdNeverRan(pod({ containerStatuses: [never] })), true, 'no restart, waiting, no last state');
  t.equal(etcdNeverRan(pod({ containerStatuses: [{ name: 'etcd', restartCount: 0 }] })), true, 'no state at all');
  t.equal(etcdNeverRan(pod({ containerStatuses: [waiting('proxy', 'x'), never] })), true, 'etcd found by its name');
  t.equal(etcdNeverRan(pod({ containerStatuses: [null, never] })), true, 'a null status read as none');
  t.equal(etcdNeverRan(pod({})), false, 'no etcd status: it may have run');
  t.equal(etcdNeverRan(pod({ containerStatuses: [{ ...never, name: 'proxy' }] })), false, "a sidecar's status");
  t.equal(etcdNeverRan(pod({ containerStatuses: [{ ...never, restartCount: 1 }] })), false, 'restarted once');
  t.equal(etcdNeverRan(pod({ containerStatuses: [{ ...never, restartCount: '0' }] })), false, 'a count as text');
  t.equal(etcdNeverRan(pod({ containerStatuses: [{ ...never, restartCount: undefined }] })), false, 'no count');
  t.equal(
    etcdNeverRan(pod({ containerStatuses: [{ ...never, state: { running: { startedAt: 'x' } } }] })),
    false,
    'running now',
  );
  t.equal(
    etcdNeverRan(pod({ containerStatuses: [{ ...never, state: { terminated: { exitCode: 1 } } }] })),
    false,
    'exited now',
  );
  t.equal(
    etcdNeverRan(pod({ containerStatuses: [{ ...never, lastState: { terminated: { exitCode: 137 } } }] })),
    false,
    'exited before',
  );
  t.equal(etcdNeverRan(pod({ containerStatuses: [{ ...never, state: null, lastState: null }] })), true, 'nulls');
});

t.test('a pod is made from another spec.pod only when it records one that is not the spec', async (t) => {
  const spec = etcdSpec({ pod: { resources: { limits: { memory: '2Gi' } } } });
  const before = etcdSpec({ pod: { resources: { limits: { memory: '256Mi' } } } });
  t.equal(madeFromOtherSpec(pod({}, 'e-0', { [POD_SPEC]: podSpecFingerprint(before) }), spec), true, 'another');
  t.equal(madeFromOtherSpec(pod({}, 'e-0', { [POD_SPEC]: podSpecFingerprint(spec) }), spec), false, 'the same');
  t.equal(madeFromOtherSpec(pod({}, 'e-0'), spec), false, 'no record: not known');
  t.equal(madeFromOtherSpec(pod({}, 'e-0', {}), spec), false, 'no record among other annotations');
  t.equal(madeFromOtherSpec(pod({}, 'e-0', { [POD_SPEC]: 12 }), spec), false, 'a record that is no text');
});

t.test('a restore replaces the members while it is Replacing or Restoring only', async (t) => {
  for (const phase of ['Replacing', 'Restoring'])
    t.equal(restoreReplacing(etcdParent({}, { restore: { phase } })), true, phase);
  for (const phase of ['Checking', 'Restored', 'Failed', '', undefined])
    t.equal(restoreReplacing(etcdParent({}, { restore: { phase } })), false, String(phase));
  t.equal(restoreReplacing(etcdParent({}, {})), false, 'no restore');
  t.equal(restoreReplacing(etcdParent({})), false, 'no status');
});

t.test('the pods made again are those that cannot start, were made from another spec and are sound', async (t) => {
  const spec = etcdSpec({ pod: { resources: { limits: { memory: '2Gi' } } } });
  const other = { [POD_SPEC]: podSpecFingerprint(etcdSpec({})) };
  const same = { [POD_SPEC]: podSpecFingerprint(spec) };
  const crashing = { containerStatuses: [waiting('etcd', 'CrashLoopBackOff')] };
  const pods = [
    pod(crashing, 'e-0', other),
    pod(crashing, 'e-1', same),
    pod({ containerStatuses: [waiting('etcd', 'ContainerCreating')] }, 'e-2', other),
    pod(crashing, 'e-3', other),
    pod(crashing, 'e-4', other),
  ];
  const asked: string[] = [];
  const remade = (p: any) => {
    asked.push(p.metadata.name);
    return p.metadata.name !== 'e-3';
  };
  t.same(remadeForSpec(pods, spec, remade), ['e-0', 'e-4']);
  t.same(
    remadeForSpec(pods, spec, () => false),
    [],
    'none where none is sound',
  );
  t.same(
    remadeForSpec([], spec, () => true),
    [],
  );
});

/** etcd's status in a crash loop after `restarts` starts, its last run `ms` long (none: not known). */
function looping(restarts: unknown, ms?: number, terminated?: Record<string, unknown>) {
  const start = Date.parse('2026-11-29T10:00:00Z');
  const last =
    terminated ??
    (ms === undefined
      ? undefined
      : { startedAt: new Date(start).toISOString(), finishedAt: new Date(start + ms).toISOString() });
  return {
    name: 'etcd',
    restartCount: restarts,
    state: { waiting: { reason: 'CrashLoopBackOff' } },
    ...(last ? { lastState: { terminated: last } } : {}),
  };
}

t.test('a crash loop cannot start only after FAILED_STARTS failed starts in the pod, the last one short', async (t) => {
  t.equal(FAILED_STARTS, 3);
  t.equal(FAILED_START_MS, 60_000);
  const cs = (s: unknown) => cannotStart(pod({ containerStatuses: [s] }));
  t.equal(cs(looping(1)), false, 'killed once: the kubelet restarts it in place');
  t.equal(cs(looping(2)), false, 'two starts');
  t.equal(cs(looping(3)), true, 'three starts, the last run not known');
  t.equal(cs(looping('3')), false, 'a count as text is no count');
  t.equal(cs(looping(undefined)), false, 'no count');
  t.equal(cs(looping(3, 5_000)), true, 'the last run 5 s');
  t.equal(cs(looping(3, 59_999)), true, 'the last run just under a minute');
  t.equal(cs(looping(3, 60_000)), false, 'the last run a minute: it served, then was killed');
  t.equal(cs(looping(3, 600_000)), false, 'the last run ten minutes');
  const at = '2026-11-29T10:10:00Z';
  t.equal(cs(looping(3, undefined, { startedAt: 0, finishedAt: at })), true, 'a start that is no text: not known');
  // A number is no time of the API, though Date.parse reads 2026 as a year: the run is not known, not 26 years long.
  const long = { startedAt: '2000-01-01T00:00:00Z', finishedAt: 2026 };
  t.equal(cs(looping(3, undefined, long)), true, 'an end that is no text: not known');
  t.equal(cs(looping(3, undefined, { startedAt: 'soon', finishedAt: at })), true, 'a start that is no time');
  t.equal(cs(looping(3, undefined, {})), true, 'an exit without times');
  t.equal(cs({ ...looping(3), lastState: null }), true, 'a null last state');
  t.equal(cs({ ...looping(0), state: { waiting: { reason: 'ImagePullBackOff' } } }), true, 'an image error at once');
});

t.test("an init step's crash loop counts only while the pod's etcd never ran", async (t) => {
  const init = { initContainerStatuses: [waiting('check-dns', 'CrashLoopBackOff')] };
  t.equal(
    cannotStart(pod({ ...init, containerStatuses: [{ name: 'etcd', restartCount: 0, state: {} }] })),
    true,
    'etcd never ran',
  );
  t.equal(
    cannotStart(
      pod({
        ...init,
        containerStatuses: [{ name: 'etcd', restartCount: 4, lastState: { terminated: { exitCode: 0 } }, state: {} }],
      }),
    ),
    false,
    'etcd ran in the pod: the node fails it now (a DNS not back after a reboot)',
  );
  t.equal(
    cannotStart(
      pod({
        initContainerStatuses: [waiting('check-dns', 'ImagePullBackOff')],
        containerStatuses: [{ name: 'etcd', restartCount: 4, lastState: { terminated: { exitCode: 0 } }, state: {} }],
      }),
    ),
    true,
    'an image an init step cannot pull counts whatever ran before',
  );
});

t.test('a pod whose etcd runs can start, whatever an init step beside it waits for', async (t) => {
  // A sidecar run as an init step (restartPolicy Always) keeps being restarted beside etcd; its image pulled again.
  const sidecar = {
    initContainerStatuses: [waiting('mesh-proxy', 'ImagePullBackOff')],
    containerStatuses: [{ name: 'etcd', restartCount: 0, state: { running: { startedAt: 'x' } } }],
  };
  t.equal(cannotStart(pod({ ...sidecar, phase: 'Running' })), false, 'etcd runs, not Ready yet');
});

t.test('a short crash loop is read from the etcd container alone, by type', async (t) => {
  const scl = (statuses: unknown[], extra: Record<string, unknown> = {}) =>
    shortCrashLoop(pod({ containerStatuses: statuses, ...extra }));
  t.equal(scl([looping(1)]), true, 'one failed start, the last run not known: it may be');
  t.equal(scl([looping(1, 10_000)]), true, 'a short run');
  t.equal(scl([looping(1, 59_999)]), true, 'just under a minute');
  t.equal(scl([looping(5, 60_000)]), false, 'a run of a minute: it served');
  t.equal(
    scl([looping(1, undefined, { startedAt: 0, finishedAt: '2026-11-29T10:10:00Z' })]),
    true,
    'times read by type',
  );
  t.equal(
    scl([looping(1, undefined, { startedAt: '2000-01-01T00:00:00Z', finishedAt: 2026 })]),
    true,
    'an end no text',
  );
  t.equal(scl([{ ...looping(1), name: 'proxy' }]), false, "a sidecar's crash loop");
  t.equal(scl([null, { ...looping(1), name: 'proxy' }, looping(1)]), true, 'etcd found past a null and a sidecar');
  t.equal(scl([{ ...looping(1), state: { waiting: { reason: 'ImagePullBackOff' } } }]), false, 'no crash loop');
  t.equal(scl([{ name: 'etcd', state: { running: { startedAt: 'x' } } }]), false, 'etcd runs');
  t.equal(scl([{ name: 'etcd', state: null }]), false, 'no state');
  t.equal(scl([{ name: 'etcd' }]), false, 'no state at all');
  t.equal(scl([]), false, 'no status');
  t.equal(scl([looping(1)], { phase: 'Failed' }), false, "a finished pod: the crash rules'");
  t.equal(scl([looping(1)], { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }), false, 'Ready');
});
