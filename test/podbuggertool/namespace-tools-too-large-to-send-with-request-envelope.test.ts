// The injector's request carries the namespace's PodBuggerTools each under its name as a key, in Metacontroller's
// envelope (`controller`: the whole DecoratorController; `related`, `attachments`, `finalizing`): when the tools,
// each measured alone, leave room for a small pod but do not once their keys and the envelope are added, every
// request of the namespace is refused (413) however small the pod, and the status must say so (the namespace's
// tools, ToolsTooLargeToSend), not count the pod pending (Ready `Injecting` for a container never added).
import t from 'tap';
import { asGoWritesIt, goJsonBytes } from '../../lib/go-json.js';
import { FakeApi, injectorRequest, pod, status, tool } from '../fixtures/pbt.js';
import { postToInjector } from '../fixtures/pbt-app.js';

const LIMIT = 64 * 1024;

t.test("a namespace's tools that leave no room once in the request that carries them are said so", async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  const web = goJsonBytes(api.stored('Pod', 'dbg', 'web-1'));
  // Other tools of the namespace with names at their longest (253 characters), one of them padded (an annotation)
  // so that every tool, measured alone, leaves 200 bytes more than web-1 takes.
  for (let i = 0; i < 8; i++) api.put(tool(`t${i}-`.padEnd(253, 'x'), { label: 'app=db', image: 'busybox' }));
  const padded = tool('pad', { label: 'app=db', image: 'busybox' });
  padded.metadata.annotations = { note: '' };
  api.put(padded);
  const toolBytes = () =>
    [...api.objects.values()].filter((o) => o.kind === 'PodBuggerTool').reduce((n, o) => n + goJsonBytes(o), 0);
  api.stored('PodBuggerTool', 'dbg', 'pad').metadata.annotations!['note'] = 'x'.repeat(LIMIT - web - 200 - toolBytes());
  t.ok(toolBytes() + web < LIMIT, `web-1 and the tools, each measured alone: ${toolBytes() + web} bytes`);

  // The request Metacontroller sends for web-1, with an empty controller (the least it can be): past the limit.
  const payload = asGoWritesIt(JSON.stringify({ ...injectorRequest(api, 'dbg', 'web-1'), finalizing: false }));
  const res = await postToInjector(t, api, payload, LIMIT);
  t.equal(res.statusCode, 413, `the injector's request of ${Buffer.byteLength(payload)} bytes is refused`);

  const s = (await status(api, ['dbg', 'a'], { bodyLimit: LIMIT })).status as any;
  t.match(s, { matched: 1, pending: 0, skippedBy: { ToolsTooLargeToSend: 1 } }, 'web-1 skipped: the tools hold it');
  t.match(
    s.conditions.find((c: any) => c.type === 'Ready'),
    { status: 'False', reason: 'ToolsTooLargeToSend' },
  );
});
