// "Every failure to act ... is an events.k8s.io/v1 Event ... at most 64 at once, at most 8 of one namespace, and a
// namespace writes a burst of 30 then 1 a second: one tenant's events cannot crowd out another's" (docs/operating.md,
// Events). The injector's InjectionFailed Events do not go through that budget: hooks/podbuggertool/inject.ts `tell`
// writes them with the Kubernetes client directly (one per tool, reason and ten minutes; repeats as a series every
// 10 s), so a tenant with many PodBuggerTools that fail on its pods writes one Event per tool at once, and then one
// series PATCH per tool every 10 s, whatever its namespace's share: at 100 tools, 100 Events in a burst and 10 writes
// a second at rest, from the hook server's one API client and the API server's one Events store shared with every
// tenant. The injector's Events of one namespace should stay within that namespace's share.
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { NAMESPACE_EVENTS } from '../../lib/events.js';
import { FakeApi, injectAll, pod, tool } from '../fixtures/pbt.js';

const TOOLS = 100;

t.test("one namespace's injection failures are written within its share of Events", async (t) => {
  const api = new FakeApi();
  // Each tool selects one pod of its own (an injector call adds one tool's container: each pod is one call here).
  for (let i = 0; i < TOOLS; i++) {
    const n = String(i).padStart(3, '0');
    api.put(tool(`t${n}`, { label: `app=web-${n}`, image: 'busybox' }));
    api.put(pod(`web-${n}`, { app: `web-${n}` }));
  }
  api.failPatch = new KubeError(403, 'pods is forbidden: admission refused the ephemeral container', 'Forbidden');
  const began = performance.now();
  await injectAll(api, 'dbg');
  const seconds = Math.ceil((performance.now() - began) / 1000);
  t.equal(api.patches.length, TOOLS, 'every tool was tried on its pod, and failed');
  const failed = api.events.filter((e) => e.reason === 'InjectionFailed' && e.namespace === 'dbg');
  t.ok(failed.length > 0, 'the failures are told');
  // The share: a burst, then so many a second for the time the calls took (rounded up, generously).
  const share = NAMESPACE_EVENTS.burst + NAMESPACE_EVENTS.perSecond * (seconds + 1);
  t.ok(
    failed.length <= share,
    `Events written for namespace dbg at once: ${failed.length} (its share: ${NAMESPACE_EVENTS.burst} then ${NAMESPACE_EVENTS.perSecond} a second, ${share} in ${seconds} s)`,
  );
});
