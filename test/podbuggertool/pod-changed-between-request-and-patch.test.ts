// What the injector does when the pod or the tool the request names changed before its PATCH: it decides again on
// what the API server holds (inject.ts decidedAgain), and the PATCH carries the uid and resourceVersion of the pod it
// read. A pod relabelled, deleted, made again under its name, or changed after it was read; a tool of another namespace
// in the request; a tool made again under its name by another author: none gets a container it should not.
import t from 'tap';
import { FAILURES_ANNOTATION } from '../../hooks/podbuggertool/match.js';
import { FakeApi, inject, injectorRequest, pod, tool } from '../fixtures/pbt.js';

t.test('a pod relabelled since the request gets nothing, and nothing is recorded', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  const request = injectorRequest(api, 'dbg', 'web-1');
  api.put(pod('web-1', { app: 'db' }));
  const res = await inject(api, ['dbg', 'web-1'], {}, request);
  t.same(api.patches, []);
  t.notOk(res.annotations?.[FAILURES_ANNOTATION]);
  t.same(api.events, []);
});

/** Pod web-1 (app=web, which tool a selects) as the request named it, then deleted and made again with `labels`. */
function madeAgainSince(labels: Record<string, string>) {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  const request = injectorRequest(api, 'dbg', 'web-1');
  const again = pod('web-1', labels);
  again.metadata.uid = 'uid-web-1-again';
  api.put(again);
  return { api, request };
}

t.test('a pod deleted and made again under its name, no longer selected, gets nothing', async (t) => {
  const { api, request } = madeAgainSince({ app: 'db' });
  await inject(api, ['dbg', 'web-1'], {}, request);
  t.same(api.patches, []);
});

t.test('a pod made again under its name, still selected: the PATCH names the pod read, not the request', async (t) => {
  const { api, request } = madeAgainSince({ app: 'web' });
  await inject(api, ['dbg', 'web-1'], {}, request);
  t.equal(api.patches.length, 1);
  t.equal(api.patches[0]!.precondition?.uid, 'uid-web-1-again');
  t.not(api.patches[0]!.precondition?.resourceVersion, request.object.metadata.resourceVersion, 'the pod as read');
});

t.test(
  'a pod changed between its read and the PATCH: refused, read again a second later, nothing recorded',
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
    const get = api.get.bind(api);
    api.get = async (v: string, r: string, ns: string, name: string) => {
      const got = await get(v, r, ns, name);
      if (r === 'pods') api.put(pod('web-1', { app: 'db' }));
      return got;
    };
    const res = await inject(api, ['dbg', 'web-1']);
    t.equal(api.patches.length, 1);
    t.same(api.ephemeralNames('dbg', 'web-1'), []);
    t.notOk(res.annotations?.[FAILURES_ANNOTATION]);
    t.equal(res.resyncAfterSeconds, 1);
  },
);

t.test('a tool of another namespace in the request acts on no pod here, and costs no API call', async (t) => {
  const api = new FakeApi()
    .put(pod('web-1', { app: 'web' }))
    .put(tool('a', { label: 'app=web', image: 'busybox' }, 'other'));
  const request = injectorRequest(api, 'dbg', 'web-1', [tool('a', { label: 'app=web', image: 'busybox' }, 'other')]);
  const res = await inject(api, ['dbg', 'web-1'], {}, request);
  t.same(api.patches, []);
  t.same(api.gets, []);
  t.notOk(res.annotations?.[FAILURES_ANNOTATION]);
});

t.test('a tool without a namespace in the request is not taken for one of the pod namespace', async (t) => {
  const api = new FakeApi()
    .put(pod('web-1', { app: 'web' }, {}, 'default'))
    .put(tool('a', { label: 'app=web', image: 'busybox' }, 'default'));
  const bare = tool('a', { label: 'app=web', image: 'busybox' }, 'default');
  delete bare.metadata.namespace;
  const request = injectorRequest(api, 'default', 'web-1', [bare]);
  await inject(api, ['default', 'web-1'], {}, request);
  // Read again from the API server: the tool of the pod's namespace decides, whatever the request said.
  t.ok(api.gets.some((g) => g.includes('podbuggertools default/a')));
});

t.test('a tool made again under its name by another author since the request acts not as the first', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }, 'dbg', 'bob'))
    .put(pod('web-1', { app: 'web' }));
  const request = injectorRequest(api, 'dbg', 'web-1');
  const again = tool('a', { label: 'app=web', image: 'busybox', command: ['sh', '-c', 'evil'] }, 'dbg', 'alice');
  again.metadata.uid = 'uid-tool-a-again';
  api.put(again);
  api.allow = (user) => user === 'bob';
  await inject(api, ['dbg', 'web-1'], {}, request);
  t.same(api.patches, []);
});
