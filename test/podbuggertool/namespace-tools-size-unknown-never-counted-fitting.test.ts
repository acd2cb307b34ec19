// A pod that waits on an injector request is measured with every PodBuggerTool of its namespace (Metacontroller sends
// them all with it). When their size cannot be known, the pod is not counted as if its request fitted (pending,
// Ready `Injecting`, for a request that may be refused every time): the count's time running out between the page
// of pods and the tools cuts the count short before that page (the next count resumes there), and a list of the
// tools the API server refuses is said as the temporary error it is, the counts not taken.
import t from 'tap';
import { countPods, PAGE_SIZE } from '../../hooks/podbuggertool/sync.js';
import { parser } from '../../hooks/podbuggertool/match.js';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, pod, status, tool } from '../fixtures/pbt.js';

const LIMIT = 64 * 1024;

/** A namespace whose tools, together, pass LIMIT (16 args of 384 `<`, six bytes each as Go writes them). */
function namespace(pods = ['web-1', 'web-2']) {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (const name of pods) api.put(pod(name, { app: 'web' }));
  for (const n of ['x', 'y'])
    api.put(tool(n, { label: 'app=db', image: 'busybox', args: Array(16).fill('<'.repeat(384)) }));
  return api;
}

t.test("a count whose time runs out before the namespace's tools are listed stops before that page", async (t) => {
  const api = namespace();
  const a = api.stored('PodBuggerTool', 'dbg', 'a');
  const spec = parser.parse(a.spec);
  if (!spec.ok) throw new Error('spec');
  // Time for one call: the page of pods; none left for the tools.
  let calls = 0;
  const over = () => ++calls > 1;
  const result = await countPods(api as any, a as any, spec.spec, over, { bodyLimit: LIMIT, resume: undefined });
  t.equal(result.complete, false, 'not complete: the pods read could not be placed');
  t.notOk(!result.complete && result.progress, 'no progress past the first page: the next count reads it again');
  t.equal(api.toolLists.length, 0, 'no page of tools was asked for');

  // With the time to list them, the same pods are skipped: no request for them can be sent.
  const whole = await countPods(api as any, a as any, spec.spec, () => false, { bodyLimit: LIMIT });
  t.match(whole, { complete: true, counts: { matched: 2, pending: 0, skippedBy: { ToolsTooLargeToSend: 2 } } });
});

t.test('a count cut short so resumes from the page whose pods waited on the size, counting none of it', async (t) => {
  const api = namespace([]);
  // A first page of completed pods (skipped, no request needed), a second of pods waiting on a request.
  for (let i = 0; i < PAGE_SIZE + 10; i++) {
    const name = `web-${String(i).padStart(3, '0')}`;
    api.put({ ...pod(name, { app: 'web' }), ...(i < PAGE_SIZE ? { status: { phase: 'Succeeded' } } : {}) });
  }
  const a = api.stored('PodBuggerTool', 'dbg', 'a');
  const spec = parser.parse(a.spec);
  if (!spec.ok) throw new Error('spec');
  let calls = 0;
  const result = await countPods(api as any, a as any, spec.spec, () => ++calls > 2, { bodyLimit: LIMIT });
  t.equal(result.complete, false);
  const progress = !result.complete ? result.progress : undefined;
  t.match(progress, { read: PAGE_SIZE, matched: PAGE_SIZE, pending: 0, skippedBy: { PodCompleted: PAGE_SIZE } });
  t.equal(progress?.skippedBy['ToolsTooLargeToSend'], undefined, 'nothing of the second page is counted');

  // Resumed from there, with the time to list the tools: the second page is counted whole.
  const resumed = await countPods(api as any, a as any, spec.spec, () => false, { bodyLimit: LIMIT, resume: progress });
  t.match(resumed, {
    complete: true,
    counts: { matched: PAGE_SIZE + 10, pending: 0, skippedBy: { PodCompleted: PAGE_SIZE, ToolsTooLargeToSend: 10 } },
  });
});

t.test("a list of the namespace's tools refused by the API server is a temporary error, not a count", async (t) => {
  const api = namespace();
  const list = api.list.bind(api);
  api.list = async (version, resource, ns, options) => {
    if (resource === 'podbuggertools') throw new KubeError(503, 'the server is unavailable', 'ServiceUnavailable');
    return list(version, resource, ns, options);
  };
  const s = (await status(api, ['dbg', 'a'], { bodyLimit: LIMIT })).status as any;
  t.not(s.pending, 2, 'web-1 and web-2 are not counted pending');
  const ready = s.conditions.find((c: any) => c.type === 'Ready');
  t.not(ready?.reason, 'Injecting', 'Ready does not say Injecting');
  t.match(JSON.stringify(s.conditions), /could not list the PodBuggerTools of namespace dbg/, 'the status says why');
});
