// Ready=True `Injected` is what a user reads as "the debug container is in every pod and runs". An ephemeral container
// the kubelet cannot create waits in `CreateContainerError` for as long as the pod lives: the kubelet starts an
// ephemeral container only while it has no runtime status, so it tries again at every pod sync and fails again the
// same way. An allowlisted image without an entrypoint (a `FROM scratch` tools image, `gcr.io/distroless/static`)
// and a tool without `command` is one such container: containerd refuses it, "failed to generate container spec: no
// command specified". The status counts each such pod as injected and says Ready=True, "2 of 2 matching pods carry
// debug-a", though the container never ran on any of them. The kubelet's failure to pull the image
// (ImagePullFailed) and its refusal of a root user (RunsAsRoot) are counted as failures; its failure to create the
// container is not (lib/replicas.ts counts CreateContainerError as a failing container for the workloads).
import t from 'tap';
import { ANY, FakeApi, injectAll, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('a tool whose containers the kubelet cannot create is not counted injected, nor Ready=True', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'ghcr.io/org/debug-tools:1' }));
  for (const n of ['p1', 'p2']) api.put(pod(n, { app: 'web' }));
  await injectAll(api, 'dbg', { policy: ANY });
  t.same(api.ephemeralNames('dbg', 'p1'), ['debug-a'], 'added to the pod');
  // The kubelet's report on each pod, at every sync of the pod since: the container cannot be created.
  for (const n of ['p1', 'p2']) {
    const p = api.stored('Pod', 'dbg', n);
    p.status.ephemeralContainerStatuses = [
      {
        name: 'debug-a',
        image: 'ghcr.io/org/debug-tools:1',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: {
          waiting: {
            reason: 'CreateContainerError',
            message: 'failed to generate container "0123abcd" spec: no command specified',
          },
        },
      },
    ];
    api.put(p);
  }
  const res = await statusAndApply(api, ['dbg', 'a'], { policy: ANY, now: new Date(FIXED_NOW.getTime() + 60_000) });
  const ready = (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');
  t.equal(res.status!['injected'], 0, 'no pod counted as carrying a running (or starting) container');
  t.not(ready.status, 'True', `Ready is not True (${ready.reason}: ${ready.message})`);
});
