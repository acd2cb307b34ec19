// A PodBuggerTool's status at the sizes the issue names (10,000 pods selected by one tool): the count lists the
// pods a page of PAGE_SIZE at a time within COUNT_BUDGET_MS, and starts again from the first page at every sync.
// A page of 250 pods as the API server stores them (about 5 KB each with managedFields, issue 32) is about 1.25 MB;
// at 120 ms per page (the API server's encoding and this server's parse of 1.25 MB) 40 pages take 4.8 s, more than
// the budget, at every sync: the tool's status must still count its pods at some point (a count that resumes where
// the last one stopped, a budget that grows with the pods, ...), not say CountIncomplete with zeros for ever.
import t from 'tap';
import { sealToken } from '../../hooks/podbuggertool/seal.js';
import { COUNT_BUDGET_MS, PAGE_SIZE } from '../../hooks/podbuggertool/sync.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const PODS = 10_000;
const PAGE_MS = 120;
const later = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);
const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');

t.test('a tool selecting 10,000 pods gets a complete count within a few syncs', async (t) => {
  t.ok((PODS / PAGE_SIZE) * PAGE_MS > COUNT_BUDGET_MS, 'the case: one pass takes longer than the budget');
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (let i = 0; i < PODS; i++) api.put(pod(`p${String(i).padStart(5, '0')}`, { app: 'web' }));
  const list = api.list.bind(api);
  api.list = async (...args: Parameters<FakeApi['list']>) => {
    await new Promise((r) => setTimeout(r, PAGE_MS));
    return list(...args);
  };
  const seen: string[] = [];
  let matched = 0;
  for (let sync = 1; sync <= 4 && matched !== PODS; sync++) {
    const res = await statusAndApply(api, ['dbg', 'a'], { now: later(60 * sync) });
    matched = (res.status as any).matched;
    seen.push(`${ready(res).reason}: matched ${matched}`);
  }
  t.equal(matched, PODS, `the status counts every pod the tool selects (syncs said: ${seen.join('; ')})`);
});

t.test('a resumed count: an expired token (410) or a changed spec starts it again from the first page', async (t) => {
  const { KubeError } = await import('../../lib/kube.js');
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (let i = 0; i < PAGE_SIZE * 2 + 3; i++) api.put(pod(`p${String(i).padStart(4, '0')}`, { app: 'web' }));
  const stored = api.stored('PodBuggerTool', 'dbg', 'a');
  const progress = (generation: number, token: string) => ({
    generation,
    continue: token,
    read: 7,
    matched: 7,
    injected: 0,
    outdated: 0,
    pending: 7,
    skipped: 0,
    failed: 0,
    failures: [],
    skips: [],
  });
  // A token the API server no longer serves: 410, and the count starts again, complete and honest.
  api.setStatus('dbg', 'a', {
    ...(stored.status ?? {}),
    countProgress: progress(1, sealToken(undefined, stored, 'old-token')!),
  });
  const list = api.list.bind(api);
  let expired = 0;
  api.list = async (...args: Parameters<FakeApi['list']>) => {
    if (args[3].continue === 'old-token' && ++expired)
      throw new KubeError(410, 'The provided continue parameter is too old', 'Expired');
    return list(...args);
  };
  const restarted = await statusAndApply(api, ['dbg', 'a'], { now: later(60) });
  t.match(restarted.status, { matched: PAGE_SIZE * 2 + 3, pending: PAGE_SIZE * 2 + 3 });
  t.equal((restarted.status as any).countProgress, undefined);
  t.equal(expired, 1, 'the sealed token was opened and sent, and the API server said it expired');
  // Progress of another generation (the spec changed since) is not resumed: the count starts from the first page.
  api.setStatus('dbg', 'a', {
    ...(restarted.status as object),
    countProgress: progress(0, sealToken(undefined, stored, String(PAGE_SIZE))!),
  });
  const lists = api.lists.length;
  const res = await statusAndApply(api, ['dbg', 'a'], { now: later(120) });
  t.equal(api.lists[lists]!.options.continue, undefined, 'from the first page');
  t.match(res.status, { matched: PAGE_SIZE * 2 + 3 });
});
