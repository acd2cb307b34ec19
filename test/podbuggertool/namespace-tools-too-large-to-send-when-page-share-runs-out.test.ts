// A pod that would be pending is measured with every PodBuggerTool of its namespace (Metacontroller sends them all with
// it): when they alone are past the body limit, the pod is skipped, ToolsTooLargeToSend. The tools are listed with
// the count's own pages, out of the namespace's share (COUNT_PAGES). When that share runs out between the page of pods
// and the page of tools (a namespace of many tools counting, the very namespace whose tools are too large), the tools'
// size is not known: the count must not then complete as if the pod fitted (pending, Ready `Injecting`), flipping a
// status that said ToolsTooLargeToSend to Injecting and back as the share comes and goes: nothing changed on the
// cluster, and every status write wakes every pod of the namespace.
import t from 'tap';
import { countPagesFor } from '../../hooks/podbuggertool/sync.js';
import { FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const LIMIT = 64 * 1024;

t.test(
  "a namespace's tools past the body limit stay said so when the share of pages runs out before they are listed",
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
    // Other tools of the namespace within the CRD's bounds: 16 args of 384 `<` (six bytes each as Go writes them).
    for (const n of ['x', 'y'])
      api.put(tool(n, { label: 'app=db', image: 'busybox', args: Array(16).fill('<'.repeat(384)) }));

    const first = (await statusAndApply(api, ['dbg', 'a'], { bodyLimit: LIMIT })).status as any;
    t.match(first, { pending: 0, skippedBy: { ToolsTooLargeToSend: 1 } }, 'first count: ToolsTooLargeToSend');

    // A minute later, nothing changed; the namespace's other counts have used its share down to where one page
    // is left for this count (beyond the half of the burst a count at rest leaves to tools without one).
    const later = new Date(FIXED_NOW.getTime() + 60_000);
    const pages = countPagesFor(api);
    while (pages.take('dbg', later.getTime(), 21));
    const again = (await statusAndApply(api, ['dbg', 'a'], { bodyLimit: LIMIT, now: later })).status as any;
    t.match(again, { pending: 0 }, 'web-1 is not counted pending: its request is refused as before');
    t.not(again.conditions.find((c: any) => c.type === 'Ready').reason, 'Injecting', 'Ready does not say Injecting');
  },
);
