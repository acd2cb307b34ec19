// An author refused on the namespace as a whole, who may list its pods, has the pods the tool selects asked about by
// name (probe.ts: MAX_PROBED_PODS reviews and one page of pods a sync, for each such tool). Whoever may write
// PodBuggerTools chooses how many tools: the pages of pods one namespace's counts read are bounded by its share
// (COUNT_PAGES: a burst, then so many a second, whatever the number of tools), and so must be the pages and the
// SubjectAccessReviews its refused tools' passes ask for. Otherwise a tenant who may create tools and list pods, but
// may debug nothing, makes the hook server ask the API server (and its authorizer: a webhook, a cloud IAM) for
// MAX_PROBED_PODS + 2 reviews per tool every 10 s, without bound, and fills the controller's queue with them.
import t from 'tap';
import { MAX_PROBED_PODS } from '../../hooks/podbuggertool/author.js';
import { COUNT_PAGES, REFRESH_SECONDS } from '../../hooks/podbuggertool/sync.js';
import { allowedByName, FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOOLS = 200;
const PODS = 4 * MAX_PROBED_PODS;

t.test("one namespace's refused tools ask about pods by name within its share", async (t) => {
  // The author may list the pods, and may patch none of them (on the namespace or by name).
  const api = allowedByName(new FakeApi(), []);
  for (let i = 0; i < TOOLS; i++) api.put(tool(`t${i}`, { label: 'app=web', image: 'busybox' }, 'tenant-a'));
  for (let i = 0; i < PODS; i++) api.put(pod(`p${String(i).padStart(4, '0')}`, { app: 'web' }, {}, 'tenant-a'));
  const byName = () => api.reviews.filter((r) => r.attributes['namespace'] === 'tenant-a' && r.attributes['name']);
  const pages = () => api.lists.filter((l) => l.ns === 'tenant-a').length;

  let now = FIXED_NOW.getTime();
  const round = async () => {
    for (let i = 0; i < TOOLS; i++) await statusAndApply(api, ['tenant-a', `t${i}`], { now: new Date(now) });
  };
  await round();
  t.ok(
    pages() <= COUNT_PAGES.burst,
    `${TOOLS} refused tools at once read ${pages()} pages of pods (burst ${COUNT_PAGES.burst})`,
  );
  t.ok(
    byName().length <= COUNT_PAGES.burst * MAX_PROBED_PODS,
    `and asked ${byName().length} reviews by pod name (at most ${COUNT_PAGES.burst * MAX_PROBED_PODS}: the share's pages)`,
  );
  for (let r = 1; r <= 3; r++) {
    const [p, n] = [pages(), byName().length];
    now += REFRESH_SECONDS * 1000;
    await round();
    const limit = COUNT_PAGES.perSecond * REFRESH_SECONDS;
    t.ok(pages() - p <= limit, `round ${r}, ${REFRESH_SECONDS}s later: ${pages() - p} pages (at most ${limit})`);
    t.ok(
      byName().length - n <= limit * MAX_PROBED_PODS,
      `round ${r}: ${byName().length - n} reviews by name (at most ${limit * MAX_PROBED_PODS})`,
    );
  }
});
