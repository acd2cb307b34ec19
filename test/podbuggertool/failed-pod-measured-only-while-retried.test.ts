// A pod whose PATCH failed waits on an injector request like a pending one (the injector retries it), and is measured
// as one: larger, with the namespace's tools and the request's envelope, than the body limit, it is skipped
// (TooLargeToSend), not said to be retried (InjectionFailed "retried from 30s") when no retry can be sent. A pod
// that carries the container, which does not run there (it exited), is never retried and waits on no request: it
// stays failed (ContainerExited) whatever the size of the namespace's tools.
import t from 'tap';
import { ephemeralContainer, parser } from '../../hooks/podbuggertool/match.js';
import { KubeError } from '../../lib/kube.js';
import { ANY, FakeApi, injectAndApply, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const LIMIT = 64 * 1024;
const later = new Date(FIXED_NOW.getTime() + 60_000);

t.test('a failed pod too large to be sent again is skipped, TooLargeToSend, not said retried', async (t) => {
  const big = pod(
    'big',
    { app: 'web' },
    { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'NOTE', value: 'x'.repeat(80_000) }] }] },
  );
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(big);
  // The injector's attempt fails (sent before the server's limit was lowered), recorded on the pod.
  api.failPatch = new KubeError(503, 'unavailable', 'ServiceUnavailable');
  await injectAndApply(api, ['dbg', 'big'], { policy: ANY });
  api.failPatch = undefined;
  const s = (await statusAndApply(api, ['dbg', 'a'], { bodyLimit: LIMIT, now: later })).status as any;
  t.match(s, { matched: 1, failed: 0, skipped: 1, skippedBy: { TooLargeToSend: 1 } });
  t.match(
    s.conditions.find((c: any) => c.type === 'Ready'),
    { status: 'False', reason: 'TooLargeToSend' },
  );

  // Within a larger limit (counted again a minute later), it is the failure it was, retried.
  const again = new Date(later.getTime() + 60_000);
  const fits = (await statusAndApply(api, ['dbg', 'a'], { bodyLimit: 1024 * 1024, now: again })).status as any;
  t.match(fits, { matched: 1, failed: 1, skipped: 0 });
});

t.test("a container that exited on its pod stays failed, whatever the size of the namespace's tools", async (t) => {
  const a = tool('a', { label: 'app=web', image: 'busybox' });
  const spec = parser.parse(a.spec);
  if (!spec.ok) throw new Error('spec');
  const web = pod('web-1', { app: 'web' });
  web.spec.ephemeralContainers = [ephemeralContainer('a', spec.spec, web)];
  web.status.ephemeralContainerStatuses = [
    { name: web.spec.ephemeralContainers[0].name, state: { terminated: { exitCode: 1 } } },
  ];
  const api = new FakeApi().put(a).put(web);
  for (const n of ['x', 'y'])
    api.put(tool(n, { label: 'app=db', image: 'busybox', args: Array(16).fill('<'.repeat(384)) }));
  const s = (await statusAndApply(api, ['dbg', 'a'], { bodyLimit: LIMIT })).status as any;
  t.match(s, { matched: 1, failed: 1, skipped: 0, failures: [{ pod: 'web-1', reason: 'ContainerExited' }] });
  t.match(
    s.conditions.find((c: any) => c.type === 'Ready'),
    { reason: 'ContainerNotRunning' },
  );
});
