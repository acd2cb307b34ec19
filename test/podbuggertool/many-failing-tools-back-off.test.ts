// A refused PATCH is retried with a backoff, per pod and tool: 30 s, doubling to an hour, its state in the pod's
// failures annotation (`debug.metaops.dev/failures`, one entry per tool). A record longer than 16 KiB is "longer than
// any honest record" and is not read (match.ts MAX_RECORD_CHARS). But the record is the injector's own: one entry of
// about 50 to 110 characters per tool (its container's name and the retry state) of the namespace whose PATCH fails, so some 330 tools (160 with names of 57 characters) (which anyone who may write
// PodBuggerTools in the namespace may make, each failing for good: an env name the API server refuses, or a
// namespace not opted in) make the injector's own record unreadable. The backoff state is then lost: every tool is
// due again, the record starts over, each call changes the pod's annotation (a pod update, so Metacontroller calls
// again at once), and the pod is PATCHed without end while the clock stands still.
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, injectAndApply, pod, tool } from '../fixtures/pbt.js';

t.test('every failing tool of a namespace is tried once per backoff, however many there are', async (t) => {
  const api = new FakeApi().put(pod('web-1', { app: 'web' }));
  // Names of 57 characters: their containers, debug-<name>, are 63 (no hash).
  const tools = 170;
  for (let i = 0; i < tools; i++)
    api.put(
      tool(`t${String(i).padStart(3, '0')}`.padEnd(57, 'x'), { label: 'app=web', image: 'busybox' }, 'dbg', 'mallory'),
    );
  api.failPatch = new KubeError(422, 'spec.ephemeralContainers[0].env[0].name: Invalid value', 'Invalid');
  // Metacontroller calls about the pod again whenever its annotations change (and at the resync asked for); the
  // clock does not move: no retry is due within these calls.
  let calls = 0;
  for (; calls < tools + 30; calls++) {
    const before = JSON.stringify(api.stored('Pod', 'dbg', 'web-1').metadata.annotations ?? {});
    const res = await injectAndApply(api, ['dbg', 'web-1']);
    const after = JSON.stringify(api.stored('Pod', 'dbg', 'web-1').metadata.annotations ?? {});
    if (before === after && res.resyncAfterSeconds !== 1) break;
  }
  t.comment(`${calls} calls, ${api.patches.length} PATCHes`);
  t.ok(api.patches.length <= tools, `at most one PATCH per tool before any retry is due (${api.patches.length})`);
  t.ok(calls < tools + 30, 'the calls come to rest once every tool was tried');
});

t.test('the record stays readable, and the tools beyond it take turns, each retry backing off', async (t) => {
  const { MAX_RECORD_CHARS, MAX_RECORDED_TOOLS, OVERFLOW_KEY, recordedAttempts } =
    await import('../../hooks/podbuggertool/match.js');
  const { FIXED_NOW } = await import('../fixtures/requests.js');
  const api = new FakeApi().put(pod('web-1', { app: 'web' }));
  const tools = MAX_RECORDED_TOOLS + 4;
  // Names whose containers are the longest (63 characters), and a reason of the longest a record keeps (64).
  const names = Array.from({ length: tools }, (_, i) => `f${String(i).padStart(3, '0')}`.padEnd(57, 'x'));
  for (const name of names) api.put(tool(name, { label: 'app=web', image: 'busybox' }, 'dbg', 'mallory'));
  api.failPatch = new KubeError(422, 'refused', 'R'.repeat(64));
  let now = FIXED_NOW.getTime();
  const tried = new Set<string>();
  const longest = { chars: 0 };
  let calls = 0;
  let unasked = 0;
  for (; calls < 2000 && tried.size < tools; calls++) {
    const before = api.patches.length;
    const res = await injectAndApply(api, ['dbg', 'web-1'], { now: new Date(now) });
    for (const p of api.patches.slice(before)) tried.add(p.containers[0].name);
    const text = api.stored('Pod', 'dbg', 'web-1').metadata.annotations?.['debug.metaops.dev/failures'] ?? '';
    longest.chars = Math.max(longest.chars, text.length);
    if (res.resyncAfterSeconds === undefined) unasked++;
    now += (res.resyncAfterSeconds ?? 0) * 1000;
  }
  t.equal(unasked, 0, 'a retry is asked for at every call while tools fail');
  const record = recordedAttempts(api.stored('Pod', 'dbg', 'web-1'));
  t.ok(longest.chars <= MAX_RECORD_CHARS, `the record is at most ${longest.chars} characters, and read`);
  t.equal(record.size, MAX_RECORDED_TOOLS + 1, 'one entry per recorded tool, and the overflow');
  t.ok(record.get(OVERFLOW_KEY)!.attempts > 1, 'the overflow backs off');
  t.equal(tried.size, tools, 'every tool was tried, those beyond the record in turn');
  t.comment(
    `every tool tried after ${calls} calls, ${api.patches.length} PATCHes, ${(now - FIXED_NOW.getTime()) / 3600e3} h`,
  );
  // An honest tool that comes later gets its container, after the overflow's wait at most.
  api.failPatch = undefined;
  api.put(tool('honest', { label: 'app=web', image: 'busybox' }));
  const from = now;
  for (let i = 0; i < 2000 && !api.ephemeralNames('dbg', 'web-1').includes('debug-honest'); i++) {
    const res = await injectAndApply(api, ['dbg', 'web-1'], { now: new Date(now) });
    now += (res.resyncAfterSeconds ?? 0) * 1000;
  }
  t.comment(`the honest tool's container after ${(now - from) / 3600e3} h`);
  t.ok(api.ephemeralNames('dbg', 'web-1').includes('debug-honest'), "the honest tool's container is added");
});
