// The injector's retries of a refusal that does not go away by itself (bounded always, GUIDE "quiet at rest"): the API
// server refuses the PATCH for good, e.g. Pod Security admission refusing the SYS_PTRACE of a `general` tool (the
// default profile) in a namespace labelled `baseline`. Each retry reads the pod, the tool, the admission policy and
// its binding, and PATCHes; at a fixed 30 s, a tool selecting 10,000 such pods costs about 1,600 API calls a second
// for as long as the tool exists. The same refusal, again and again, must be retried less and less often (or only
// when the pod or the tool changes).
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, injectAndApply, pod, tool } from '../fixtures/pbt.js';

t.test('the same refusal of a PATCH, ten times over: the retries back off', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  api.failPatch = new KubeError(
    403,
    'pods "web-1" is forbidden: violates PodSecurity "baseline:latest": non-default capabilities (container "debug-a" must not include "SYS_PTRACE" in securityContext.capabilities.add)',
    'Forbidden',
  );
  const { FIXED_NOW } = await import('../fixtures/requests.js');
  // Metacontroller calls again when asked (and at once after the pod's annotation changed).
  const asked: Array<number | undefined> = [];
  let now = FIXED_NOW.getTime();
  for (let i = 0; i < 10; i++) {
    const res = await injectAndApply(api, ['dbg', 'web-1'], { now: new Date(now) });
    asked.push(res.resyncAfterSeconds);
    now += (res.resyncAfterSeconds ?? 3600) * 1000;
  }
  const last = asked[asked.length - 1];
  t.ok(
    last === undefined || last > asked[0]!,
    `called again after ${asked.join(', ')} s; ${api.patches.length} PATCHes for one pod that can never take it`,
  );
});

t.test('retries double from 30 s to an hour; a changed tool or a recreated pod tries at once', async (t) => {
  const { FIXED_NOW } = await import('../fixtures/requests.js');
  const { retryDelaySeconds } = await import('../../hooks/podbuggertool/match.js');
  t.same([1, 2, 3, 4, 5, 6, 7, 8, 50].map(retryDelaySeconds), [30, 60, 120, 240, 480, 960, 1920, 3600, 3600]);
  const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  api.failPatch = new KubeError(403, 'violates PodSecurity "baseline:latest"', 'Forbidden');
  // Each retry when it is due: the waits double, and calls in between (a pod event, our own write) make no API call.
  let now = 0;
  const waits: number[] = [];
  for (let i = 0; i < 9; i++) {
    const res = await injectAndApply(api, ['dbg', 'web-1'], { now: at(now) });
    waits.push(res.resyncAfterSeconds!);
    const before = api.gets.length;
    t.same(await injectAndApply(api, ['dbg', 'web-1'], { now: at(now + res.resyncAfterSeconds! - 2) }), {
      attachments: [],
      resyncAfterSeconds: 2,
    });
    t.equal(api.gets.length, before, 'nothing read before the retry is due; called again when it is');
    now += res.resyncAfterSeconds!;
  }
  t.same(waits, [30, 60, 120, 240, 480, 960, 1920, 3600, 3600]);
  t.equal(api.patches.length, 9, 'one PATCH per retry');
  // The tool created again with another command (its spec is fixed at creation): its container is another one,
  // tried at once, from 30 s again.
  const changed = tool('a', { label: 'app=web', image: 'busybox', command: ['sh'] });
  api.put({ ...changed, metadata: { ...changed.metadata, uid: 'uid-tool-a-again' } });
  const res = await injectAndApply(api, ['dbg', 'web-1'], { now: at(now - 3000) });
  t.equal(api.patches.length, 10, 'a tool created again with another spec is tried at once');
  t.equal(res.resyncAfterSeconds, 30);
  // The pod recreated under its name (another uid), carrying the old record: tried at once.
  const old = api.stored('Pod', 'dbg', 'web-1');
  api.put({ ...old, metadata: { ...old.metadata, uid: 'uid-web-1-again' } });
  await injectAndApply(api, ['dbg', 'web-1'], { now: at(now - 3000) });
  t.equal(api.patches.length, 11, 'a recreated pod is tried at once');
  // An annotation edited to a time ahead of now (or written by a clock far off) holds nothing back.
  const ahead = api.stored('Pod', 'dbg', 'web-1');
  const text = ahead.metadata.annotations['debug.metaops.dev/failures'] as string;
  api.annotate('dbg', 'web-1', {
    'debug.metaops.dev/failures': text.replace(/at=[0-9]+/, `at=${Math.floor(FIXED_NOW.getTime() / 1000) + 10 ** 9}`),
  });
  await injectAndApply(api, ['dbg', 'web-1'], { now: at(now - 3000) });
  t.equal(api.patches.length, 12, 'a record from the future is tried at once');
});
