// A tool whose image the kubelet cannot pull (a tag that does not exist: `busybox` in the allowlist admits any tag)
// leaves a container that never runs on every pod it selects. With 20 pods or fewer the status says so:
// Ready=False ContainerNotRunning ("fix the spec, and delete those pods"), a Warning Event on the tool, and no retry
// (the container is on the pod; nothing is retried). The status names at most MAX_LISTED (20) failures but counts
// them all: with 21 pods, the same failure on every pod must still be ContainerNotRunning, with its Warning, not
// `InjectionFailed` "could not be added ... retried from 30s" (nothing was refused, and nothing is retried), which is
// no Warning of the tool's status: `kubectl describe podbuggertool` shows nothing wrong.
import t from 'tap';
import { MAX_LISTED } from '../../hooks/podbuggertool/sync.js';
import { FakeApi, injectAll, pod, statusTold, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const readyOf = (res: { status?: Record<string, unknown> | null }) =>
  (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');

/** `n` pods whose debug-a the kubelet cannot pull, the tool counted once they are. */
async function unpullableOn(n: number) {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox:1.366' }));
  const names = Array.from({ length: n }, (_, i) => `web-${String(i).padStart(3, '0')}`);
  for (const name of names) api.put(pod(name, { app: 'web' }));
  await injectAll(api, 'dbg');
  for (const name of names) {
    const p = api.stored('Pod', 'dbg', name);
    p.status.ephemeralContainerStatuses = [
      { name: 'debug-a', image: 'busybox:1.366', ready: false, state: { waiting: { reason: 'ImagePullBackOff' } } },
    ];
    api.put(p);
  }
  // The tool's hook as the route calls it, its Events recorded (kubectl describe podbuggertool shows them).
  return statusTold(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
}

for (const n of [MAX_LISTED, MAX_LISTED + 1, 200]) {
  t.test(`${n} pods whose container cannot be pulled: ContainerNotRunning, a Warning, no retry`, async (t) => {
    const { res, told } = await unpullableOn(n);
    t.match(res.status, { matched: n, failed: n, injected: 0 }, 'every pod counted failed');
    const ready = readyOf(res);
    t.equal(
      ready.reason,
      'ContainerNotRunning',
      `the kubelet's failure, said as such (said: ${ready.reason}: ${ready.message})`,
    );
    t.notMatch(ready.message, /retried from/, 'nothing is said to be retried: nothing is');
    const warnings = told.filter((e) => e.type === 'Warning');
    t.ok(
      warnings.length > 0,
      `a Warning Event on the tool (kubectl describe shows it); got ${JSON.stringify(warnings)}`,
    );
    t.not(res.resyncAfterSeconds, 30, 'not counted again every 30 s as if the injector were retrying');
  });
}
