// At rest a PodBuggerTool's status does not change, so nothing is written, and nothing wakes the pods of its
// namespace (every write of a tool makes Metacontroller call the injector about every pod there): "at rest the
// counts, and so the status, stay the same: nothing is written" (docs/podbuggertool.md). A count that takes more
// than one sync's budget (COUNT_BUDGET_MS: 10,000 pods at 120 ms a page of 250, the size docs and tests name) is cut
// short at every resync: the status says CountIncomplete with the pods read so far and a countProgress, is written,
// and ten seconds later the resumed count completes and Ready=True is written again. Every minute, at rest, two
// writes of the tool, and each wakes every pod of the namespace.
import t from 'tap';
import { COUNT_BUDGET_MS, PAGE_SIZE, REFRESH_SECONDS } from '../../hooks/podbuggertool/sync.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

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

/** A sync whose time runs out after `pages` pages of the count (the route's deadline, as the count sees it). */
async function cutAfter(api: FakeApi, pages: number, now: number) {
  const stop = new AbortController();
  const list = api.list;
  let read = 0;
  api.list = async (...args: Parameters<FakeApi['list']>) => {
    const page = await list.apply(api, args);
    if (++read >= pages) stop.abort(new Error('deadline'));
    return page;
  };
  try {
    return await statusAndApply(api, ['dbg', 'a'], { now: new Date(now), signal: stop.signal });
  } finally {
    api.list = list;
  }
}

t.test('at rest, a count cut short goes on from where it stopped; a change found is written once', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const carrying = { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] };
  for (let i = 0; i < 3 * PAGE_SIZE; i++) api.put(pod(`p${String(i).padStart(5, '0')}`, { app: 'web' }, carrying));
  let now = FIXED_NOW.getTime();
  const complete = await statusAndApply(api, ['dbg', 'a'], { now: new Date(now) });
  t.match(ready(complete), { reason: 'Injected' });
  const stored = () => JSON.stringify(api.stored('PodBuggerTool', 'dbg', 'a').status);
  const rest = stored();
  // A pod added at rest, in the last page.
  api.put(pod('zz-new', { app: 'web' }));
  now += 60_000;
  const lists = api.lists.length;
  const one = await cutAfter(api, 1, now);
  t.equal(stored(), rest, 'cut short: the status as it was');
  t.equal(one.resyncAfterSeconds, REFRESH_SECONDS, 'and counted on soon');
  now += 10_000;
  const two = await cutAfter(api, 1, now);
  t.equal(stored(), rest, 'cut short again: the status as it was');
  now += (two.resyncAfterSeconds ?? 60) * 1000;
  const done = await statusAndApply(api, ['dbg', 'a'], { now: new Date(now) });
  t.same(
    api.lists.slice(lists).map((l) => l.options.continue),
    [undefined, String(PAGE_SIZE), String(2 * PAGE_SIZE), String(3 * PAGE_SIZE)],
    'each sync read the page after the last one read: one pass',
  );
  t.match(done.status, { matched: 3 * PAGE_SIZE + 1, injected: 3 * PAGE_SIZE, pending: 1 });
  t.match(ready(done), { reason: 'Injecting' });
  t.equal(done.status!['countProgress'], undefined);
});

t.test('at rest, each hook server goes on with its own count (replicas, a restart)', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const carrying = { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] };
  for (let i = 0; i < 2 * PAGE_SIZE; i++) api.put(pod(`p${String(i).padStart(5, '0')}`, { app: 'web' }, carrying));
  let now = FIXED_NOW.getTime();
  await statusAndApply(api, ['dbg', 'a'], { now: new Date(now) });
  const rest = JSON.stringify(api.stored('PodBuggerTool', 'dbg', 'a').status);
  // Another server: its own client over the same API server, and its own memory.
  const other = Object.create(api) as FakeApi;
  const lists = api.lists.length;
  now += 60_000;
  await cutAfter(api, 1, now);
  now += 10_000;
  await cutAfter(other, 1, now);
  now += 10_000;
  const done = await statusAndApply(api, ['dbg', 'a'], { now: new Date(now) });
  t.same(
    api.lists.slice(lists).map((l) => l.options.continue),
    [undefined, undefined, String(PAGE_SIZE)],
    'the other server began its own count; the first went on with its own',
  );
  t.equal(JSON.stringify(done.status), rest, 'the same counts: nothing written');
  t.equal(done.resyncAfterSeconds, undefined, 'done: the resync');
});
