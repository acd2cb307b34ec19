// A tool whose author may not debug its namespace acts on no pod, and nothing is recorded on its pods (inject.ts:
// "A tool its author could not run acts on no pod: its own status says why; nothing is recorded here"). That holds
// in a namespace a cluster admin did not opt in too (manifests/deploy/rbac.yaml: the hook server may not even read
// its pods there): whoever may only write PodBuggerTools there (tenant A, `tool-writer` in B's namespace) has no
// failure written onto B's pods by Metacontroller, nor an InjectionFailed Event, because the hook server's read of
// the pod was refused before the author was asked about.
import t from 'tap';
import { FAILURES_ANNOTATION } from '../../hooks/podbuggertool/match.js';
import { KubeError } from '../../lib/kube.js';
import { ANY, FakeApi, inject, injectorRequest, pod, tool } from '../fixtures/pbt.js';

t.test('a refused author writes nothing on pods the hook server may not read', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice'))
    .put(pod('web-1', { app: 'web' }, {}, 'team-b'));
  // alice may write tools in team-b, not debug there.
  api.allow = () => false;
  // team-b is not opted in: the hook server's pods get is refused there (its tools are readable cluster-wide).
  const get = api.get.bind(api);
  api.get = async (apiVersion: string, resource: string, ns: string, name: string) => {
    if (resource === 'pods' && ns === 'team-b')
      throw new KubeError(
        403,
        `pods "${name}" is forbidden: User "system:serviceaccount:metaops:metaops" cannot get resource "pods" in the namespace "team-b"`,
        'Forbidden',
      );
    return get(apiVersion, resource, ns, name);
  };
  const res = await inject(api, ['team-b', 'web-1']);
  t.equal(api.patches.length, 0, 'nothing added');
  t.notOk(
    res.annotations && res.annotations[FAILURES_ANNOTATION],
    `no failure recorded on the pod for a tool its author could not run (${JSON.stringify(res.annotations)})`,
  );
  t.same(
    api.events.map((e) => e.reason),
    [],
    'no InjectionFailed Event: the tool injects nothing, its status says why',
  );
});

t.test("the same tool whose author may debug: the refused read is that pod's failure, recorded", async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'bob'))
    .put(pod('web-1', { app: 'web' }, {}, 'team-b'));
  const get = api.get.bind(api);
  api.get = async (apiVersion: string, resource: string, ns: string, name: string) => {
    if (resource === 'pods' && ns === 'team-b') throw new KubeError(403, 'forbidden', 'Forbidden');
    return get(apiVersion, resource, ns, name);
  };
  const res = await inject(api, ['team-b', 'web-1']);
  t.match(res.annotations?.[FAILURES_ANNOTATION], /"debug-a":"Forbidden;n=1;/);
});

/** The API server as the hook server sees a namespace not opted in: its pods may not be read there. */
function podsUnreadable(api: FakeApi, namespace = 'team-b'): FakeApi {
  const get = api.get.bind(api);
  api.get = async (apiVersion: string, resource: string, ns: string, name: string) => {
    if (resource === 'pods' && ns === namespace) throw new KubeError(403, 'forbidden', 'Forbidden');
    return get(apiVersion, resource, ns, name);
  };
  return api;
}

// The other ways a tool does not act on the pod, decided on the tool alone, hold whatever became of the pod: nothing
// recorded on a pod the hook server could not read, no Event, and no review asked for a tool that acts nowhere.
t.test('a tool that does not act, decided on the tool alone, writes nothing on pods that cannot be read', async (t) => {
  await t.test('its status refuses its author for this generation (a review now would allow it)', async (t) => {
    const refused = tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice');
    refused.status = {
      observedGeneration: 1,
      conditions: [{ type: 'Ready', status: 'False', reason: 'AuthorNotAllowed', message: 'refused' }],
    };
    const api = podsUnreadable(new FakeApi().put(refused).put(pod('web-1', { app: 'web' }, {}, 'team-b')));
    const res = await inject(
      api,
      ['team-b', 'web-1'],
      {},
      injectorRequest(api, 'team-b', 'web-1', [tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice')]),
    );
    t.notOk(res.annotations?.[FAILURES_ANNOTATION], 'nothing recorded');
    t.same(api.events, [], 'no Event');
    t.same(api.reviews, [], 'no review asked');
  });

  await t.test('deleted since the request', async (t) => {
    const api = podsUnreadable(new FakeApi().put(pod('web-1', { app: 'web' }, {}, 'team-b')));
    const gone = tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice');
    const res = await inject(api, ['team-b', 'web-1'], {}, injectorRequest(api, 'team-b', 'web-1', [gone]));
    t.notOk(res.annotations?.[FAILURES_ANNOTATION], 'nothing recorded');
    t.same(api.events, [], 'no Event');
  });

  await t.test('its image no longer allowed by the server', async (t) => {
    const api = podsUnreadable(
      new FakeApi()
        .put(tool('a', { label: 'app=web', image: 'alpine' }, 'team-b', 'alice'))
        .put(pod('web-1', { app: 'web' }, {}, 'team-b')),
    );
    const asRequested = tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice');
    const policy = { ...ANY, allowlist: ['busybox'] };
    const res = await inject(
      api,
      ['team-b', 'web-1'],
      { policy },
      injectorRequest(api, 'team-b', 'web-1', [asRequested]),
    );
    t.notOk(res.annotations?.[FAILURES_ANNOTATION], 'nothing recorded');
    t.same(api.events, [], 'no Event');
  });
});
