// A pass over a tool's pods by name (probe.ts) is asked for again soon (REFRESH_SECONDS) while it is the tool's first,
// so that a new tool allowed on some pods finds them quickly; later passes go at the resync. Where a pass stands is
// remembered for MAX_PROBES_PER_NAMESPACE tools of a namespace: a tool of a namespace with more may have had its pass
// forgotten, and must not be taken for a new one and hurried at every sync (forgetting never makes more work).
import t from 'tap';
import { MAX_PROBED_PODS } from '../../hooks/podbuggertool/author.js';
import { MAX_PROBES_PER_NAMESPACE } from '../../hooks/podbuggertool/probe.js';
import { COUNT_PAGES, REFRESH_SECONDS } from '../../hooks/podbuggertool/sync.js';
import { allowedByName, FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOOLS = MAX_PROBES_PER_NAMESPACE + 16;

t.test('a tool whose pass may have been forgotten is not asked for again sooner', async (t) => {
  const api = allowedByName(new FakeApi(), []);
  for (let i = 0; i < TOOLS; i++) api.put(tool(`t${i}`, { label: 'app=web', image: 'busybox' }, 'tenant-a'));
  // More pods than one step asks about: no pass ends at its first step.
  for (let i = 0; i < 2 * MAX_PROBED_PODS; i++) api.put(pod(`p${i}`, { app: 'web' }, {}, 'tenant-a'));
  // One sync a second apart: the namespace's share never runs out (COUNT_PAGES.perSecond).
  t.ok(COUNT_PAGES.perSecond >= 1);
  let now = FIXED_NOW.getTime();
  const hurried = async () => {
    let n = 0;
    for (let i = 0; i < TOOLS; i++) {
      const res = await statusAndApply(api, ['tenant-a', `t${i}`], { now: new Date((now += 1000)) });
      if (res.resyncAfterSeconds === REFRESH_SECONDS) n++;
    }
    return n;
  };
  t.equal(await hurried(), MAX_PROBES_PER_NAMESPACE, 'the first round: the tools whose passes are remembered');
  t.equal(await hurried(), 0, 'the next: every pass was forgotten before its tool came back, none hurried');
});
