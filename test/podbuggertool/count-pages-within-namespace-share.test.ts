// Each PodBuggerTool counts the pods it selects, a page of PAGE_SIZE at a time, at every sync (every 10 s while not
// done, every 60 s at rest): its work is bounded per tool, and a namespace's, over all its tools, by its share of
// pages (COUNT_PAGES: a burst, then so many a second). A tenant's many tools over many pods list no more than that,
// whatever their number, and another namespace's tools are counted meanwhile; the tenant's own counts are cut short
// and go on at later syncs, so that every one of them completes.
import t from 'tap';
import { COUNT_PAGES, PAGE_SIZE, REFRESH_SECONDS } from '../../hooks/podbuggertool/sync.js';
import { FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOOLS = 20;
const PODS = 4 * PAGE_SIZE;

t.test("one namespace's many tools list within its share of pages; another namespace's are counted", async (t) => {
  const api = new FakeApi();
  for (let i = 0; i < TOOLS; i++) api.put(tool(`t${i}`, { label: 'app=web', image: 'busybox' }, 'tenant-a'));
  for (let i = 0; i < PODS; i++) {
    api.put(pod(`a${String(i).padStart(5, '0')}`, { app: 'web' }, {}, 'tenant-a'));
    api.put(pod(`b${String(i).padStart(5, '0')}`, { app: 'web' }, {}, 'tenant-b'));
  }
  api.put(tool('debug', { label: 'app=web', image: 'busybox' }, 'tenant-b'));
  const pagesOf = (ns: string) => api.lists.filter((l) => l.ns === ns).length;
  const matched = (ns: string, name: string) => api.stored('PodBuggerTool', ns, name).status?.matched;

  let now = FIXED_NOW.getTime();
  const round = async () => {
    for (let i = 0; i < TOOLS; i++) await statusAndApply(api, ['tenant-a', `t${i}`], { now: new Date(now) });
  };
  await round();
  const first = pagesOf('tenant-a');
  t.ok(first <= COUNT_PAGES.burst, `tenant A's ${TOOLS} tools asked for ${first} pages at once (its burst)`);
  await statusAndApply(api, ['tenant-b', 'debug'], { now: new Date(now) });
  t.equal(matched('tenant-b', 'debug'), PODS, "tenant B's tool is counted whole, whatever tenant A's used");

  // Round after round, 10 s apart: no more than the share, and every count of tenant A completes.
  let rounds = 1;
  while (rounds < 40 && [...Array(TOOLS).keys()].some((i) => matched('tenant-a', `t${i}`) !== PODS)) {
    const before = pagesOf('tenant-a');
    now += REFRESH_SECONDS * 1000;
    await round();
    rounds += 1;
    const asked = pagesOf('tenant-a') - before;
    t.ok(
      asked <= COUNT_PAGES.perSecond * REFRESH_SECONDS,
      `round ${rounds}: ${asked} pages (${COUNT_PAGES.perSecond} a second)`,
    );
  }
  t.ok(
    [...Array(TOOLS).keys()].every((i) => matched('tenant-a', `t${i}`) === PODS),
    `every tool of tenant A counted whole, in ${rounds} rounds`,
  );
});
