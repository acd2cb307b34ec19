// A pod whose PATCH failed is retried by the injector (from 30 s, backing off to an hour), and the tool's status
// counts it failed and says so (InjectionFailed: "retried"). A retry is an injector request like any other: it
// carries the pod and every PodBuggerTool of its namespace, and past the body limit Metacontroller can send it no
// more (413). Once the namespace's tools alone pass the limit, no retry can ever come: the status must say why (the
// tools, ToolsTooLargeToSend), as it does for a pod that never failed, not that the pod is being retried.
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { ANY, FakeApi, injectAndApply, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const LIMIT = 64 * 1024;

t.test(
  "a failed pod that no injector request can carry any more is said to be held by the namespace's tools",
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
    // The first attempt fails (an API server's refusal of the moment), recorded on the pod.
    api.failPatch = new KubeError(503, 'unavailable', 'ServiceUnavailable');
    await injectAndApply(api, ['dbg', 'web-1'], { policy: ANY });
    api.failPatch = undefined;
    const before = (await statusAndApply(api, ['dbg', 'a'], { bodyLimit: LIMIT })).status as any;
    t.match(before, { failed: 1 }, 'web-1 failed, to be retried');

    // Then the namespace's other tools pass the body limit together (16 args of 384 `<` each, six bytes as sent).
    for (const n of ['x', 'y'])
      api.put(tool(n, { label: 'app=db', image: 'busybox', args: Array(16).fill('<'.repeat(384)) }));
    const later = new Date(FIXED_NOW.getTime() + 60_000);
    const s = (await statusAndApply(api, ['dbg', 'a'], { bodyLimit: LIMIT, now: later })).status as any;
    const ready = s.conditions.find((c: any) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: 'ToolsTooLargeToSend' }, 'Ready names the cause: no retry can be sent');
    t.match(s, { skippedBy: { ToolsTooLargeToSend: 1 } }, 'web-1 is skipped, ToolsTooLargeToSend');
  },
);
