// A PodBuggerTool's `selector` and its `label: key=value` shorthand are both required to hold (match.ts selectorOf:
// "both required to hold"; docs/podbuggertool.md: "`selector` ... and/or `label`"). When both name the same key
// with different values (`selector.matchLabels.app: web`, `label: app=db`), no pod can satisfy both: the tool selects
// nothing. A tool that drops one of them instead debugs pods its own selector excludes.
import t from 'tap';
import { FakeApi, injectAll, pod, statusAndApply, tool } from '../fixtures/pbt.js';

t.test('a pod the selector excludes gets no container, though the label shorthand selects it', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { selector: { matchLabels: { app: 'web' } }, label: 'app=db', image: 'busybox' }))
    .put(pod('web-1', { app: 'web' }))
    .put(pod('db-1', { app: 'db' }));
  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', 'db-1'), [], 'db-1 is not app=web: the selector excludes it');
  t.same(api.ephemeralNames('dbg', 'web-1'), [], 'web-1 is not app=db: the label excludes it');
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.equal((res.status as any).matched, 0, 'the status counts no pod: none satisfies both');
});
