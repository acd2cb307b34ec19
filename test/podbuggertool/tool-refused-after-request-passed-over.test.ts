// The injector adds one tool's container per call. The request's copy of a tool may be older than the tool as the
// API server has it: its status refused since (AuthorNotAllowed), or its author refused on this pod's review of a
// moment. Such a tool adds nothing and records nothing on the pod; it must not keep another tool of the same
// namespace from adding its container in that very call (the call goes on to the next tool due), and a pod it alone
// wants is left quiet.
import t from 'tap';
import { AUTHOR_ANNOTATION } from '../../hooks/podbuggertool/author.js';
import { FakeApi, inject, injectorRequest, pod, stamp, tool } from '../fixtures/pbt.js';

function world(): FakeApi {
  const a = tool('a', { label: 'app=web', image: 'busybox' });
  a.metadata.annotations = { [AUTHOR_ANNOTATION]: stamp('alice') };
  const b = tool('b', { label: 'app=web', image: 'busybox' });
  b.metadata.annotations = { [AUTHOR_ANNOTATION]: stamp('bob') };
  return new FakeApi()
    .put(a)
    .put(b)
    .put(pod('web-1', { app: 'web' }));
}

t.test('a tool refused by its status since the request was built is passed over for the next tool', async (t) => {
  const api = world();
  const request = injectorRequest(api, 'dbg', 'web-1');
  // Since: tool `a`'s own sync refused its author (its status, of its current generation).
  api.setStatus('dbg', 'a', {
    observedGeneration: api.stored('PodBuggerTool', 'dbg', 'a').metadata.generation ?? 0,
    conditions: [{ type: 'Ready', status: 'False', reason: 'AuthorNotAllowed', message: 'refused' }],
  });
  const res = await inject(api, ['dbg', 'web-1'], {}, request);
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-b'], "b's container added in the same call");
  t.notOk(res.annotations, 'nothing recorded for a');
  t.equal(res.resyncAfterSeconds, undefined, 'no call back asked for: every tool due was tried');
});

t.test("a tool whose author this pod's review refuses is passed over for the next tool", async (t) => {
  const api = world();
  api.allow = (user) => user !== 'alice';
  const res = await inject(api, ['dbg', 'web-1']);
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-b'], "b's container added in the same call");
  t.notOk(res.annotations, 'nothing recorded for a');
  t.ok((res.resyncAfterSeconds ?? 0) >= 10, "a's recheck asked for, backing off (not a call a second later)");
});
