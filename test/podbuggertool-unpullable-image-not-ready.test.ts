// Ready=True `Injected` is what a user reads as "the debug container is in every pod and runs". A tool whose image
// the kubelet cannot pull (a tag that does not exist: the allowlist `busybox` admits any tag, `busybox:1.366`
// included) adds containers that wait in ErrImagePull / ImagePullBackOff for as long as the pods live, and never run;
// the status counts each as injected and says Ready=True, "4 of 4 matching pods carry debug-a". The kubelet's
// refusal of a root user (RunsAsRoot) is counted as a failure; its failure to pull the image is not.
import t from 'tap';
import { FakeApi, injectAll, pod, statusAndApply, tool } from './fixtures/pbt.js';
import { FIXED_NOW } from './fixtures/requests.js';

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
