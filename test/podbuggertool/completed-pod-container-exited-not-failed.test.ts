// "Only pods that can take the container: skip (and report) pods that are Succeeded or Failed" (issue 32), and Ready
// is True, Injected, when "every matching pod carries the container, and it runs or starts (or the pod was skipped
// because it completed)" (docs/podbuggertool.md). A Job's pod that got the container while it ran, and then
// completed, has it terminated (the kubelet stops every container of a completed pod, the debug one with them): the
// container did not fail, the pod is done. Counted as the tool's failure (ContainerExited), it turns the tool
// Ready=False ContainerNotRunning, "fix the spec, and delete those pods", for as long as the completed pod is kept
// (a Job's history), though nothing is wrong with the spec and nothing can be done on the pod.
import t from 'tap';
import { FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

t.test('a completed pod whose debug container stopped with it is not a failure of the tool', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=batch', image: 'busybox' }));
  for (const [name, phase, exitCode] of [
    ['job-ok', 'Succeeded', 137],
    ['job-failed', 'Failed', 137],
  ] as const) {
    const p = pod(name, { app: 'batch' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] });
    p.status = {
      phase,
      ephemeralContainerStatuses: [
        { name: 'debug-a', state: { terminated: { exitCode, reason: 'Error' } }, ready: false, restartCount: 0 },
      ],
    };
    api.put(p);
  }
  // And one running pod, with its container running.
  const running = pod(
    'job-running',
    { app: 'batch' },
    { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] },
  );
  running.status = {
    phase: 'Running',
    ephemeralContainerStatuses: [{ name: 'debug-a', state: { running: {} }, ready: false, restartCount: 0 }],
  };
  api.put(running);
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.equal((res.status as any).failed, 0, 'no failure: the completed pods are done, not failed');
  t.not(ready(res).reason, 'ContainerNotRunning', 'nothing for the author to fix, nor any pod to delete');
  t.equal(ready(res).status, 'True', `Ready (said: ${ready(res).reason}: ${ready(res).message})`);
});

// The workflow the docs show: `kubectl attach -it web-1 -c debug-...`, and the session ends (`exit`): the shell
// exits 0. The container did what it was for; the spec has nothing to fix.
t.test('a debug session its user ended (exit 0) is not a failure of the tool', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const p = pod('web-1', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] });
  p.status = {
    phase: 'Running',
    ephemeralContainerStatuses: [
      { name: 'debug-a', state: { terminated: { exitCode: 0, reason: 'Completed' } }, ready: false, restartCount: 0 },
    ],
  };
  api.put(p);
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.equal((res.status as any).failed, 0, 'a session that ended is no failure');
  t.not(ready(res).reason, 'ContainerNotRunning', `not "fix the spec" (said: ${ready(res).message})`);
});
