// Ready=True `Injected` is what a user reads as "the debug container is in every pod and runs". A tool whose image
// the kubelet cannot pull (a tag that does not exist: the allowlist `busybox` admits any tag, `busybox:1.366`
// included) adds containers that wait in ErrImagePull / ImagePullBackOff for as long as the pods live, and never run;
// the status counts each as injected and says Ready=True, "4 of 4 matching pods carry debug-a". The kubelet's
// refusal of a root user (RunsAsRoot) is counted as a failure; its failure to pull the image is not.
import t from 'tap';
import { FakeApi, injectAll, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { KubeError } from '../../lib/kube.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('a tool whose containers cannot be pulled on any pod is not Ready=True Injected', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox:1.366' }));
  for (const n of ['p1', 'p2', 'p3', 'p4']) api.put(pod(n, { app: 'web' }));
  await injectAll(api, 'dbg');
  // The kubelet's report on each pod: the image cannot be pulled.
  for (const n of ['p1', 'p2', 'p3', 'p4']) {
    const p = api.stored('Pod', 'dbg', n);
    p.status.ephemeralContainerStatuses = [
      {
        name: 'debug-a',
        image: 'busybox:1.366',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: {
          waiting: {
            reason: 'ImagePullBackOff',
            message: 'Back-off pulling image "busybox:1.366": ErrImagePull: docker.io/library/busybox:1.366: not found',
          },
        },
      },
    ];
    api.put(p);
  }
  const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
  const ready = (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');
  t.not(ready.status, 'True', `Ready is not True (${ready.reason}: ${ready.message})`);
});

/** The kubelet's report on debug-a of a stored pod. */
function report(api: FakeApi, name: string, state: Record<string, unknown>) {
  const p = api.stored('Pod', 'dbg', name);
  p.status.ephemeralContainerStatuses = [{ name: 'debug-a', image: 'busybox:1.366', ready: false, state }];
  api.put(p);
}
const readyOf = (res: { status?: Record<string, unknown> | null }) =>
  (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');

t.test('the pods whose container does not run are failed, named, with why; the rest injected', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox:1.366' }));
  for (const n of ['p1', 'p2', 'p3', 'p4', 'p5']) api.put(pod(n, { app: 'web' }));
  await injectAll(api, 'dbg');
  report(api, 'p1', { waiting: { reason: 'ErrImagePull', message: 'not found' } });
  // Exited with an error (a session its user ended with `exit` 0 is not a failure: the completed-pod test).
  report(api, 'p2', { terminated: { exitCode: 1, reason: 'Error' } });
  report(api, 'p3', { running: { startedAt: '2026-01-01T00:00:00Z' } });
  report(api, 'p4', { waiting: { reason: 'ContainerCreating' } });
  const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
  t.match(res.status, {
    matched: 5,
    injected: 3,
    failed: 2,
    failures: [
      { pod: 'p1', reason: 'ImagePullFailed' },
      { pod: 'p2', reason: 'ContainerExited' },
    ],
  });
  const ready = readyOf(res);
  t.match(ready, { status: 'False', reason: 'ContainerNotRunning' });
  t.match(ready.message, /p1 \(ImagePullFailed\), p2 \(ContainerExited\)/, 'the pods named, with why');
});

t.test('the kubelet alternating ErrImagePull and ImagePullBackOff does not change the status', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox:1.366' }));
  api.put(pod('p1', { app: 'web' }));
  await injectAll(api, 'dbg');
  let now = FIXED_NOW.getTime() + 60_000;
  const seen: string[] = [];
  for (const reason of ['ErrImagePull', 'ImagePullBackOff', 'ErrImagePull', 'RegistryUnavailable']) {
    report(api, 'p1', { waiting: { reason } });
    const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(now) });
    seen.push(JSON.stringify(res.status));
    now += 60_000;
  }
  t.equal(new Set(seen).size, 1, 'one status, written once');
});

t.test('an injector failure beside them is InjectionFailed, as before', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox:1.366' }));
  for (const n of ['p1', 'p2']) api.put(pod(n, { app: 'web' }));
  await injectAll(api, 'dbg');
  report(api, 'p1', { waiting: { reason: 'ImagePullBackOff' } });
  api.put(pod('p3', { app: 'web' }, {}));
  api.failPatch = new KubeError(403, 'forbidden', 'Forbidden');
  await injectAll(api, 'dbg');
  const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
  t.match(res.status, { failed: 2, failures: [{ pod: 'p1', reason: 'ImagePullFailed' }, { pod: 'p3' }] });
  t.match(readyOf(res), { status: 'False', reason: 'InjectionFailed' });
});

t.test(
  'a container of an earlier spec that cannot be pulled stays outdated (the current spec may be fine)',
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox:1.366' }));
    api.put(pod('p1', { app: 'web' }));
    await injectAll(api, 'dbg');
    report(api, 'p1', { waiting: { reason: 'ImagePullBackOff' } });
    // The tool created again with the image fixed (a spec is fixed at creation).
    const fixed = api.stored('PodBuggerTool', 'dbg', 'a');
    fixed.spec.image = 'busybox:1.36';
    fixed.metadata.uid = 'uid-tool-a-again';
    delete fixed.status;
    api.put(fixed);
    const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
    t.match(res.status, { matched: 1, outdated: 1, failed: 0 });
    // Not a failure of the current spec; not done either: the pod carries an earlier spec's container (Outdated).
    t.match(readyOf(res), { status: 'False', reason: 'Outdated' });
  },
);
