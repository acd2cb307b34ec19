// A tool's status "stays honest at any size" (issue 32): the issue's complaint was a status that "kept saying
// Ready=True with the stale count for as long as we watched". At rest (a complete count of the spec in the status) a
// count cut short keeps the last complete status and goes on, from the hook server's memory, at the next sync
// (sync.ts CountMemory). The API server's continue token holds the resourceVersion of the list's first page, and
// stops being served once that revision is compacted (410 Expired; 5 min by default): a pass over the pods that takes
// longer than that starts again from the first page, every time. At a sync every 10 s, a token lives 30 to 60 syncs:
// with a page of 250 pods taking 2 to 4 s to serve (one page a sync) a pass over 7,500 to 15,000 pods never ends;
// at 1 s a page, 30,000 (and each replica of the hook server counts on its own, slower still). No pass ever
// completes, and the status says Ready=True, Injected, with the counts of the last pass that did, for ever: pods
// added since are pending and never said so, neither as counts nor as CountIncomplete.
//
// Scaled down here: five pages of pods, one page read per sync (the rest of the budget spent waiting on the API
// server), and a token expired when its pass began three syncs ago (compaction).
import t from 'tap';
import { PAGE_SIZE } from '../../hooks/podbuggertool/sync.js';
import { KubeError, type ListOptions } from '../../lib/kube.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const PAGES_PER_SYNC = 1;
const EXPIRES_AFTER_SYNCS = 3;
const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');

t.test('a count at rest that never completes does not keep saying Ready=True with stale counts', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const carrying = { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] };
  for (let i = 0; i < 5 * PAGE_SIZE; i++) api.put(pod(`p${String(i).padStart(5, '0')}`, { app: 'web' }, carrying));
  let now = FIXED_NOW.getTime();
  const first = await statusAndApply(api, ['dbg', 'a'], { now: new Date(now) });
  t.match(ready(first), { status: 'True', reason: 'Injected' }, 'a complete count: every pod carries it');

  // From now on the API server is slow (one page per sync) and compacts: a token whose pass began 3 syncs ago is 410.
  let sync = 0;
  const began = new Map<string, number>();
  const list = api.list.bind(api);
  let pages = 0;
  let stop = new AbortController();
  api.list = async (apiVersion: string, resource: string, ns: string, options: ListOptions) => {
    let pass = sync;
    let inner: string | undefined;
    if (options.continue) {
      const from = began.get(options.continue);
      if (from === undefined || sync - from >= EXPIRES_AFTER_SYNCS)
        throw new KubeError(410, 'The provided continue parameter is too old', 'Expired');
      pass = from;
      inner = options.continue.split('/')[1];
    }
    const page = await list(apiVersion, resource, ns, { ...options, ...(inner ? { continue: inner } : {}) });
    if (++pages >= PAGES_PER_SYNC) stop.abort(new Error('the budget is spent waiting on the API server'));
    if (!page.continue) return page;
    const token = `${pass}/${page.continue}`;
    began.set(token, pass);
    return { ...page, continue: token };
  };
  // 100 pods added at rest: they do not carry the container yet.
  for (let i = 0; i < 100; i++) api.put(pod(`zz${String(i).padStart(3, '0')}`, { app: 'web' }));
  now += 60_000;
  let last: CompositeSyncResponse | undefined;
  // An hour of syncs, as Metacontroller makes them (when asked, else at the 60 s resync).
  for (let elapsed = 0; elapsed < 3600;) {
    sync++;
    pages = 0;
    stop = new AbortController();
    last = await statusAndApply(api, ['dbg', 'a'], { now: new Date(now), signal: stop.signal });
    const step = last.resyncAfterSeconds ?? 60;
    elapsed += step;
    now += step * 1000;
  }
  const status = api.stored('PodBuggerTool', 'dbg', 'a').status;
  t.not(
    `${ready(last!).status} ${ready(last!).reason} matched=${status.matched} pending=${status.pending}`,
    `True Injected matched=${5 * PAGE_SIZE} pending=0`,
    'after an hour the status does not still say every pod carries the container, counting none of the 100 added',
  );
  // Said as kubectl describe shows it: Ready Unknown, CountStale, the counts kept and dated.
  t.match(ready(last!), { status: 'Unknown', reason: 'CountStale', message: /counts are those of .* may be stale/ });
  // Said once: the syncs that follow while it stays stale write the same status (quiet at rest).
  sync++;
  pages = 0;
  stop = new AbortController();
  now += 10_000;
  const again = await statusAndApply(api, ['dbg', 'a'], { now: new Date(now), signal: stop.signal });
  t.same(again.status, last!.status, 'the same status at the next sync');
  // The API server fast again: a count completes, and the status says where the pods stand.
  api.list = list;
  let done: CompositeSyncResponse | undefined;
  for (let i = 0; i < 3; i++) {
    now += 10_000;
    done = await statusAndApply(api, ['dbg', 'a'], { now: new Date(now) });
  }
  t.match(done!.status, { matched: 5 * PAGE_SIZE + 100, pending: 100 });
  t.match(ready(done!), { status: 'False', reason: 'Injecting' });
});

// A hook server restarted (its memory lost) while the status says CountStale: the status stays as it is (not back to
// the old Ready) until a count completes; a count that completes says where the pods stand.
t.test('a CountStale status survives a restart of the hook server until a count completes', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const carrying = { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] };
  for (let i = 0; i < 3 * PAGE_SIZE; i++) api.put(pod(`p${String(i).padStart(5, '0')}`, { app: 'web' }, carrying));
  let now = FIXED_NOW.getTime();
  await statusAndApply(api, ['dbg', 'a'], { now: new Date(now) });
  const stored = api.stored('PodBuggerTool', 'dbg', 'a');
  const stale = {
    ...stored.status,
    conditions: [{ ...stored.status.conditions[0], status: 'Unknown', reason: 'CountStale', message: 'stale' }],
  };
  api.setStatus('dbg', 'a', stale);
  // Another server (another FakeApi client: another memory), one page per sync.
  const restarted = new FakeApi();
  restarted.objects = api.objects;
  const list = restarted.list.bind(restarted);
  let stop = new AbortController();
  restarted.list = async (...args: Parameters<typeof list>) => {
    const page = await list(...args);
    stop.abort(new Error('slow'));
    return page;
  };
  now += 60_000;
  const kept = await statusAndApply(restarted, ['dbg', 'a'], { now: new Date(now), signal: stop.signal });
  t.match(ready(kept), { status: 'Unknown', reason: 'CountStale' }, 'still stale: the count has not completed');
  const { conditions: _c, ...counts } = stale;
  t.match(kept.status, counts, 'the counts as they were');
  t.match(ready(kept).message, new RegExp(`counts are those of ${stale.countedAt} and may be stale`));
  restarted.list = list;
  stop = new AbortController();
  now += 10_000;
  const done = await statusAndApply(restarted, ['dbg', 'a'], { now: new Date(now) });
  t.match(ready(done), { status: 'True', reason: 'Injected' }, 'a complete count: where the pods stand');
});
