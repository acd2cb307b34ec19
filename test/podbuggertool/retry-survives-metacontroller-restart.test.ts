// A pod whose PATCH failed is retried when its backoff is up: the failing call answers resyncAfterSeconds (30 s,
// doubling to an hour), and Metacontroller keeps that resync in its work queue, in memory. A call about the pod
// while the retry waits (the pod's own annotation write, any pod event, and every pod once when Metacontroller
// starts again and lists them all) answers no resync at all. A Metacontroller restarted (an upgrade, a node drained,
// an OOM kill) within a pod's backoff forgets the retry: the pod is called about again only at its next event, or
// when the informers resync (v4.17: --cache-flush-interval, 30 min), whatever its backoff said.
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, injectAndApply, pod, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

t.test('a call while a retry waits asks to be called again when it is due', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  api.failPatch = new KubeError(503, 'the server is currently unable to handle the request', 'ServiceUnavailable');
  const failed = await injectAndApply(api, ['dbg', 'web-1'], { now: at(0) });
  t.equal(failed.resyncAfterSeconds, 30, 'the failing call asks for the retry in 30 s');
  api.failPatch = undefined;
  // Metacontroller restarts 5 s later: its queue is gone; it lists every pod and calls about each once.
  const relisted = await injectAndApply(api, ['dbg', 'web-1'], { now: at(5) });
  t.equal(api.patches.length, 1, 'the retry is not due yet: no PATCH');
  t.ok(
    typeof relisted.resyncAfterSeconds === 'number' && relisted.resyncAfterSeconds <= 26,
    `the call asks to be called again when the retry is due, in 25 s (asked: ${relisted.resyncAfterSeconds})`,
  );
});

t.test('with several tools waiting, the call asks for the soonest retry', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(tool('b', { label: 'app=web', image: 'busybox' }))
    .put(pod('web-1', { app: 'web' }));
  api.failPatch = new KubeError(403, 'forbidden', 'Forbidden');
  t.equal((await injectAndApply(api, ['dbg', 'web-1'], { now: at(0) })).resyncAfterSeconds, 1, 'a, then b at once');
  t.equal((await injectAndApply(api, ['dbg', 'web-1'], { now: at(10) })).resyncAfterSeconds, 20, "a's retry first");
  t.equal(api.patches.length, 2);
  const relisted = await injectAndApply(api, ['dbg', 'web-1'], { now: at(25) });
  t.same(relisted, { attachments: [], resyncAfterSeconds: 5 }, "a's retry, due in 5 s: nothing read, nothing written");
  // Once every tool got its container, nothing waits: no resync asked (quiet at rest).
  api.failPatch = undefined;
  await injectAndApply(api, ['dbg', 'web-1'], { now: at(30) });
  const rest = await injectAndApply(api, ['dbg', 'web-1'], { now: at(40) });
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a', 'debug-b']);
  t.same(await injectAndApply(api, ['dbg', 'web-1'], { now: at(41) }), { attachments: [] }, 'at rest');
  t.notOk('resyncAfterSeconds' in rest && rest.resyncAfterSeconds! > 1, 'b done when due');
});
