// METAOPS_DEBUG_ACT_AS_AUTHOR=true (docs/podbuggertool.md, "Admission: acting as the author"): "An author who cannot
// be impersonated exactly (...) is refused: `Ready=False`, `AuthorUnverified`, "cannot be impersonated", and nothing
// is added; the hook server never falls back to its own identity." That holds for an author allowed on the namespace
// (act-as-author.test.ts). An author allowed only on some pods by name (RBAC resourceNames: AuthorAllowedOnSomePods)
// who cannot be impersonated must be refused the same way: their tool adds nothing, so its status must not say it
// acts pod by pod, and it must not keep the injector from adding another tool's container to the same pod.
import t from 'tap';
import { AUTHOR_ANNOTATION } from '../../hooks/podbuggertool/author.js';
import type { Impersonation, KubeApi } from '../../lib/kube.js';
import { ANY, FakeApi, injectAll, pod, stamp, statusAndApply, tool } from '../fixtures/pbt.js';

const AS_AUTHOR = { ...ANY, actAsAuthor: true };

/**
 * An API server whose RBAC lets bob patch pods/ephemeralcontainers everywhere, and `alice ` (a user name with white
 * space at its end: no header carries it exactly) only on web-1, by name; both may list pods. Impersonation works.
 */
function world(): FakeApi {
  const api = new FakeApi();
  const create = api.create.bind(api);
  api.create = async (apiVersion: string, resource: string, ns: string, body: any) => {
    const answer: any = await create(apiVersion, resource, ns, body);
    const a = body.spec?.resourceAttributes;
    if (a?.subresource === 'ephemeralcontainers')
      answer.status = { allowed: body.spec.user === 'bob' || a.name === 'web-1' };
    else if (a?.verb === 'list') answer.status = { allowed: true };
    return answer;
  };
  const patch = api.addEphemeralContainers.bind(api);
  (api as KubeApi).impersonating = (_who: Impersonation) =>
    Object.assign(Object.create(api) as FakeApi, { addEphemeralContainers: patch });
  // Tool `a` (first by name) is the unimpersonable author's; tool `b` is bob's. Both select web-1.
  const a = tool('a', { label: 'app=web', image: 'busybox' });
  a.metadata.annotations = { [AUTHOR_ANNOTATION]: 'v1;alice ;u-1;system:authenticated' };
  const b = tool('b', { label: 'app=web', image: 'busybox' });
  b.metadata.annotations = { [AUTHOR_ANNOTATION]: stamp('bob') };
  return api
    .put(a)
    .put(b)
    .put(pod('web-1', { app: 'web' }));
}

t.test('an author allowed by pod name who cannot be impersonated is refused AuthorUnverified', async (t) => {
  const api = world();
  const res = await statusAndApply(api, ['dbg', 'a'], { policy: AS_AUTHOR });
  t.match((res.status as any).conditions[0], {
    status: 'False',
    reason: 'AuthorUnverified',
    message: /cannot be impersonated/,
  });
});

t.test(
  "an author allowed by pod name who cannot be impersonated does not keep another tool's container out",
  async (t) => {
    const api = world();
    await statusAndApply(api, ['dbg', 'a'], { policy: AS_AUTHOR });
    await statusAndApply(api, ['dbg', 'b'], { policy: AS_AUTHOR });
    // The injector adds one tool's container per call, the next a second later: ten calls are plenty for two tools.
    for (let i = 0; i < 10; i++) await injectAll(api, 'dbg', { policy: AS_AUTHOR });
    t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-b'], "bob's tool gets its container; alice's adds nothing");
  },
);
