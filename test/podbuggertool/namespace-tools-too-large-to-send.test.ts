// Metacontroller sends every PodBuggerTool of a namespace with each of its pods (the injector's related objects): when
// those tools alone are larger than the hook server's body limit, no pod of the namespace can be sent to the injector
// (413), however small. The status says so, naming the cause (the namespace's tools), not the pods' size, and counts
// no pod pending for ever.
import t from 'tap';
import { FakeApi, pod, status, tool } from '../fixtures/pbt.js';

const LIMIT = 64 * 1024;

t.test("a namespace's tools alone past the body limit: every pod skipped, and Ready says why", async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  // Other tools of the namespace, within the CRD's bounds (16 args of 384 characters each, `<`, which Metacontroller's
  // Go encoder writes in six bytes): about 37 KB each as sent.
  for (const n of ['x', 'y'])
    api.put(tool(n, { label: 'app=db', image: 'busybox', args: Array(16).fill('<'.repeat(384)) }));
  const res = await status(api, ['dbg', 'a'], { bodyLimit: LIMIT });
  const s = res.status as any;
  t.match(s, { matched: 1, pending: 0, skipped: 1, skippedBy: { ToolsTooLargeToSend: 1 } });
  t.same(s.skips, [{ pod: 'web-1', reason: 'ToolsTooLargeToSend' }]);
  const ready = s.conditions.find((c: any) => c.type === 'Ready');
  t.match(ready, {
    status: 'False',
    reason: 'ToolsTooLargeToSend',
    message: /PodBuggerTools of this namespace are together larger than the hook server's largest request/,
  });

  // Within a larger limit, the same pod is pending: the injector will be sent it.
  const fits = (await status(api, ['dbg', 'a'], { bodyLimit: 1024 * 1024 })).status as any;
  t.match(fits, { matched: 1, pending: 1, skipped: 0 });
});
