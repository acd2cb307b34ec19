// Metacontroller v4 sends every PodBuggerTool of a pod's namespace with each injector request, whole: managedFields
// included (the hook server cuts them out only after Fastify took the body within METAOPS_BODY_LIMIT, lib/app.ts
// acceptJson; test/podbuggertool/injector-does-not-hold-server-thread-with-tools-managed-fields.test.ts sends them so).
// A tool's managedFields are its writer's to make as large as the API server stores (a tenant who may write tools
// in the namespace: many field managers, or managedFields written back with an update). The tools of a namespace
// whose managedFields alone pass the body limit put every injector request of the namespace past it (413), so
// another author's tool there adds nothing to any pod. Its status must say so (ToolsTooLargeToSend: every pod that
// would be pending skipped, "not pending for ever", docs/podbuggertool.md) rather than count the pods pending and
// say Injecting for ever: the count measures the namespace's tools without their managedFields
// (hooks/podbuggertool/sync.ts sentBytes), a bound that the very requests it stands for do not keep.
import t from 'tap';
import { FakeApi, injectorRequest, pod, status, tool } from '../fixtures/pbt.js';
import { postToInjector } from '../fixtures/pbt-app.js';
import { keyedManagedFields } from '../fixtures/keyed-managed-fields.js';

const LIMIT = 64 * 1024;
const TOOL_API = 'debug.metaops.dev/v1alpha1';

t.test(
  "a namespace's tools past the body limit by their managedFields: the status says no pod can be sent",
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
    // Two small tools of a tenant of the namespace (their specs a few bytes), their managedFields 40 KB each.
    for (const [i, n] of ['x', 'y'].entries()) {
      const other = tool(n, { label: 'app=db', image: 'busybox' }, 'dbg', 'mallory');
      other.metadata.managedFields = [keyedManagedFields(TOOL_API, 40 * 1024, i)];
      api.put(other);
    }

    // The injector's request for web-1, as Metacontroller v4 sends it: refused for its size, so nothing is added.
    const payload = JSON.stringify(injectorRequest(api, 'dbg', 'web-1'));
    const res = await postToInjector(t, api, payload, LIMIT);
    t.equal(res.statusCode, 413, `the injector's request of ${payload.length} bytes is refused for its size`);
    t.same(api.ephemeralNames('dbg', 'web-1'), [], 'nothing is added to web-1');

    // The tool's status: web-1 can never be sent to the injector while these tools are as they are.
    const s = (await status(api, ['dbg', 'a'], { bodyLimit: LIMIT })).status as any;
    t.match(
      s,
      { matched: 1, pending: 0, skipped: 1, skippedBy: { ToolsTooLargeToSend: 1 } },
      'web-1 is skipped ToolsTooLargeToSend, not pending',
    );
    const ready = s.conditions.find((c: any) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: 'ToolsTooLargeToSend' }, 'Ready says why');
  },
);
