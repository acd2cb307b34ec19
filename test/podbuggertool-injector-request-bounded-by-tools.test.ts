// The injector's request is one pod and every PodBuggerTool of its namespace (the related objects), so "a request's
// size does not depend on how many pods a tool selects" (issue 32). It depends on the tools instead, with no bound:
// each tool may carry, within its CRD's own limits, 64 command and 64 args strings of 4096 characters and 64 env
// values of 4096 (about 790 KB), and nothing bounds how many tools a namespace holds. Eleven such tools, written by
// anyone who may write PodBuggerTools there, put every injector request of the namespace past the hook server's
// 8 MiB body limit: the hook answers 413, and no tool's container reaches any pod of that namespace, the tool of
// another author included, whose status says "Injecting ... pending" and never why: the failure mode issue 32 was
// filed about, moved from the pods a tool selects to the tools of a namespace.
import t from 'tap';
import { operators as hooks } from '../main/operators.js';
import { buildApp } from '../lib/app.js';
import { ANY, FakeApi, injectorRequest, pod, tool } from './fixtures/pbt.js';
import { FIXED_NOW } from './fixtures/requests.js';

/** A tool at the bounds its CRD allows: command, args and env all full. */
function largest(name: string): any {
  const s = 'x'.repeat(4096);
  return tool(
    name,
    {
      label: 'nothing=here',
      image: 'busybox',
      command: Array.from({ length: 64 }, () => s),
      args: Array.from({ length: 64 }, () => s),
      env: Array.from({ length: 64 }, (_, i) => ({ name: `V${i}`, value: s })),
    },
    'dbg',
    'mallory',
  );
}

t.test("another author's tools within their CRD bounds do not stop a tool's injection in the namespace", async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  for (let i = 0; i < 11; i++) api.put(largest(`big-${i}`));
  const app = buildApp({
    operators: hooks,
    auth: { bearer: 'token-0123456789abcdef' },
    services: { kube: () => api, now: () => FIXED_NOW },
    settings: { 'podbuggertool-injector': { policy: ANY } },
  });
  t.teardown(() => app.close());
  const payload = JSON.stringify(injectorRequest(api, 'dbg', 'web-1'));
  t.comment(`request: ${(payload.length / 1024 / 1024).toFixed(2)} MiB for one pod and 12 tools`);
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/podbuggertool-injector/sync',
    payload,
    headers: { authorization: 'Bearer token-0123456789abcdef', 'content-type': 'application/json' },
  });
  t.equal(res.statusCode, 200, 'the request is served');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a'], "tool a's container is added");
});
