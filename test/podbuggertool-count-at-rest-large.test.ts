// At rest a PodBuggerTool's status does not change, so nothing is written, and nothing wakes the pods of its
// namespace (every write of a tool makes Metacontroller call the injector about every pod there): "at rest the
// counts, and so the status, stay the same: nothing is written" (docs/podbuggertool.md). A count that takes more
// than one sync's budget (COUNT_BUDGET_MS: 10,000 pods at 120 ms a page of 250, the size docs and tests name) is cut
// short at every resync: the status says CountIncomplete with the pods read so far and a countProgress, is written,
// and ten seconds later the resumed count completes and Ready=True is written again. Every minute, at rest, two
// writes of the tool, and each wakes every pod of the namespace.
import t from 'tap';
import { COUNT_BUDGET_MS, PAGE_SIZE } from '../hooks/podbuggertool/sync.js';
import type { CompositeSyncResponse } from '../lib/metacontroller.js';
import { FakeApi, pod, statusAndApply, tool } from './fixtures/pbt.js';
import { FIXED_NOW } from './fixtures/requests.js';

// 2,000 pods at 600 ms a page take as long to count as 10,000 at 120 ms (8 pages, 4.8 s), with less memory here.
const PODS = 2_000;
const PAGE_MS = 600;
const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');

t.test('a status too large to count in one sync stays the same at rest: nothing written', async (t) => {
  t.ok((PODS / PAGE_SIZE) * PAGE_MS > COUNT_BUDGET_MS, 'the case: one pass takes longer than the budget');
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  // Every pod carries the container already: nothing to do, at rest.
  for (let i = 0; i < PODS; i++)
    api.put(
      pod(
        `p${String(i).padStart(5, '0')}`,
        { app: 'web' },
        { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] },
      ),
    );
  const list = api.list.bind(api);
  api.list = async (...args: Parameters<FakeApi['list']>) => {
    await new Promise((r) => setTimeout(r, PAGE_MS));
    return list(...args);
  };
  // Metacontroller's calls: when the answer asks (resyncAfterSeconds), else at the resync period (60 s).
  let now = FIXED_NOW.getTime();
  let done = false;
  for (let sync = 0; sync < 4 && !done; sync++) {
    const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(now) });
    done = ready(res).reason === 'Injected';
    now += (res.resyncAfterSeconds ?? 60) * 1000;
  }
  t.ok(done, 'the count completes: Ready=True, Injected');
  // At rest: three resync periods, each call as Metacontroller makes it.
  const seen: string[] = [];
  let writes = 0;
  for (let sync = 0; sync < 4; sync++) {
    const before = JSON.stringify(api.stored('PodBuggerTool', 'dbg', 'a').status);
    const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(now) });
    if (JSON.stringify(res.status) !== before) writes++;
    seen.push(ready(res).reason);
    now += (res.resyncAfterSeconds ?? 60) * 1000;
  }
  t.equal(writes, 0, `at rest the status is the same at every sync (Ready said: ${seen.join(', ')})`);
});
