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
import { KubeEventRecorder, NAMESPACE_EVENTS, type EventSpec } from '../../lib/events.js';
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

t.test(
  "the injector's Events and the recorder's draw on one share per namespace; another namespace's are written",
  async (t) => {
    const api = new FakeApi();
    // The server's recorder (the tools' own hook's Events) writes through the same client: namespace dbg's burst is spent.
    const recorder = new KubeEventRecorder(() => api);
    const warning: EventSpec = { type: 'Warning', reason: 'CountStale', action: 'Inject', note: 'stale' };
    const began = performance.now();
    for (let i = 0; i < NAMESPACE_EVENTS.burst; i++)
      await recorder.record(tool(`r${i}`, { label: 'app=none', image: 'busybox' }), [warning], new Date());
    t.equal(api.events.length, NAMESPACE_EVENTS.burst, "the recorder wrote dbg's burst");
    for (const ns of ['dbg', 'other'])
      for (let i = 0; i < 10; i++) {
        api.put(tool(`t${i}`, { label: `app=web-${i}`, image: 'busybox' }, ns));
        api.put(pod(`web-${i}`, { app: `web-${i}` }, {}, ns));
      }
    api.failPatch = new KubeError(403, 'pods is forbidden: admission refused the ephemeral container', 'Forbidden');
    await injectAll(api, 'dbg');
    await injectAll(api, 'other');
    const seconds = Math.ceil((performance.now() - began) / 1000);
    const failed = (ns: string) => api.events.filter((e) => e.reason === 'InjectionFailed' && e.namespace === ns);
    t.ok(
      failed('dbg').length <= NAMESPACE_EVENTS.perSecond * (seconds + 1),
      `dbg's injection failures after its burst: ${failed('dbg').length} in ${seconds} s`,
    );
    t.equal(failed('other').length, 10, "namespace other's injection failures are written: its share is its own");
  },
);
