// The tool's status counts a pending pod TooLargeToSend (or ToolsTooLargeToSend) when Metacontroller's injector
// request for it would pass the body limit, measured "as Go's JSON writes them" (hooks/podbuggertool/sync.ts
// sentBytes: `<`, `>` and `&` in six bytes each). Go's encoding/json also escapes U+2028 and U+2029, always (they are
// three bytes in UTF-8, six as `\u2028`): a tenant's tools whose strings are line separators, within their CRD
// bounds, are twice the size on the wire that the status measures. Their namespace's injector requests are refused
// (413), and another author's tool there says its pods are pending, Injecting, for ever, rather than
// ToolsTooLargeToSend ("not pending for ever", docs/podbuggertool.md).
import t from 'tap';
import { FakeApi, injectorRequest, pod, status, tool } from '../fixtures/pbt.js';
import { postToInjector } from '../fixtures/pbt-app.js';

const LIMIT = 64 * 1024;

/** JSON text as Go's encoding/json writes it (Metacontroller's request): `<`, `>`, `&`, U+2028, U+2029 escaped. */
function asGoWritesIt(text: string): string {
  return text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

t.test(
  "a namespace's tools past the body limit by their line separators: the status says no pod can be sent",
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
    // Two tools of a tenant of the namespace, within the CRD's bounds: 8 args of 1,000 line separators each.
    for (const n of ['x', 'y'])
      api.put(
        tool(n, { label: 'app=db', image: 'busybox', args: Array(8).fill('\u2028'.repeat(1000)) }, 'dbg', 'mallory'),
      );

    // The injector's request for web-1, as Metacontroller sends it: refused for its size, so nothing is added.
    const payload = asGoWritesIt(JSON.stringify(injectorRequest(api, 'dbg', 'web-1')));
    const res = await postToInjector(t, api, payload, LIMIT);
    t.equal(
      res.statusCode,
      413,
      `the injector's request of ${Buffer.byteLength(payload)} bytes is refused for its size`,
    );
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
