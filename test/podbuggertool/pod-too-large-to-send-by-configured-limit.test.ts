// A pod whose injector request would pass the hook server's body limit is counted skipped, TooLargeToSend, by the
// limit the server is configured with (METAOPS_BODY_LIMIT), and Ready says why; a pod the limit lets through is
// pending, as the injector will act on it.
import t from 'tap';
import { toolSettings } from '../../hooks/podbuggertool/inject.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/index.js';
import { FakeApi, pod, status, tool } from '../fixtures/pbt.js';

/** A pod of about 600 KB as JSON (`x` is one byte). */
function world(): FakeApi {
  const big = pod(
    'big',
    { app: 'web' },
    { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'NOTE', value: 'x'.repeat(600_000) }] }] },
  );
  return new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(big)
    .put(pod('small', { app: 'web' }));
}

t.test('a pod past the configured body limit is skipped TooLargeToSend, and Ready says why', async (t) => {
  const res = await status(world(), ['dbg', 'a'], { bodyLimit: 512 * 1024 });
  const s = res.status as any;
  t.match(s, { matched: 2, pending: 1, skipped: 1, skippedBy: { TooLargeToSend: 1 } });
  t.same(s.skips, [{ pod: 'big', reason: 'TooLargeToSend' }]);
  t.match(
    s.conditions.find((c: any) => c.type === 'Ready'),
    {
      status: 'False',
      reason: 'TooLargeToSend',
      message:
        /^big is larger, with the PodBuggerTools of the namespace \(Metacontroller sends every one with each pod\), than the hook server's largest request/,
    },
  );
});

t.test('the same pod within a larger body limit is pending', async (t) => {
  const res = await status(world(), ['dbg', 'a'], { bodyLimit: 1024 * 1024 });
  t.match(res.status as any, { matched: 2, pending: 2, skipped: 0 });
});

t.test("the limit is the server's METAOPS_BODY_LIMIT, else the default", async (t) => {
  t.equal(toolSettings({ env: { METAOPS_BODY_LIMIT: '16777216' } }).bodyLimit, 16 * 1024 * 1024);
  t.equal(toolSettings({ env: {} }).bodyLimit, DEFAULT_BODY_LIMIT);
});
