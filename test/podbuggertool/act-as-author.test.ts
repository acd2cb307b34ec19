// METAOPS_DEBUG_ACT_AS_AUTHOR=true (docs/podbuggertool.md, "Who may debug"): the PATCH that adds a tool's container
// is sent as the tool's stamped author (Kubernetes impersonation), so that the API server's admission answers as for
// the author's own request. An author who cannot be impersonated exactly gets nothing: never the server's own PATCH.
import t from 'tap';
import { AUTHOR_ANNOTATION, MAX_STAMP_CHARS } from '../../hooks/podbuggertool/author.js';
import { policyProblems, policyFromEnv } from '../../hooks/podbuggertool/match.js';
import type { Impersonation, KubeApi } from '../../lib/kube.js';
import { ANY, FakeApi, injectAll, pod, stamp, statusAndApply, tool } from '../fixtures/pbt.js';

const AS_AUTHOR = { ...ANY, actAsAuthor: true };

/** A FakeApi whose impersonating view records who each PATCH was sent as. */
function impersonatingApi(): { api: FakeApi; as: Array<Impersonation | undefined> } {
  const api = new FakeApi();
  const as: Array<Impersonation | undefined> = [];
  const patch = api.addEphemeralContainers.bind(api);
  api.addEphemeralContainers = async (...args) => {
    as.push(undefined);
    return patch(...args);
  };
  (api as KubeApi).impersonating = (who: Impersonation) =>
    Object.assign(Object.create(api) as FakeApi, {
      addEphemeralContainers: async (...args: Parameters<FakeApi['addEphemeralContainers']>) => {
        as.push(structuredClone(who));
        return patch(...args);
      },
    });
  return { api, as };
}

t.test('the setting: off by default, true or false, and only with the author check', async (t) => {
  t.equal(policyFromEnv({}).actAsAuthor, false);
  t.equal(policyFromEnv({ METAOPS_DEBUG_ACT_AS_AUTHOR: 'true' }).actAsAuthor, true);
  t.equal(policyFromEnv({ METAOPS_DEBUG_ACT_AS_AUTHOR: 'false' }).actAsAuthor, false);
  t.same(policyProblems({ METAOPS_DEBUG_ACT_AS_AUTHOR: 'true' }), []);
  t.match(policyProblems({ METAOPS_DEBUG_ACT_AS_AUTHOR: 'yes' }), [
    /METAOPS_DEBUG_ACT_AS_AUTHOR: "yes" is not true or false/,
  ]);
  t.match(policyProblems({ METAOPS_DEBUG_ACT_AS_AUTHOR: 'true', METAOPS_DEBUG_AUTHOR_CHECK: 'off' }), [
    /METAOPS_DEBUG_ACT_AS_AUTHOR=true needs the author check/,
  ]);
});

t.test('on: the PATCH is sent as the stamped author, user, UID, groups and extra', async (t) => {
  const { api, as } = impersonatingApi();
  const tl = tool('a', { label: 'app=web', image: 'busybox' });
  tl.metadata.annotations = { [AUTHOR_ANNOTATION]: 'v1;alice;u-1;team-a,system:authenticated;scopes=read' };
  api.put(tl).put(pod('web-1', { app: 'web' }));
  await injectAll(api, 'dbg', { policy: AS_AUTHOR });
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a']);
  t.same(as, [{ user: 'alice', uid: 'u-1', groups: ['team-a', 'system:authenticated'], extra: { scopes: ['read'] } }]);
});

t.test("off: the PATCH is the hook server's own (the documented limit)", async (t) => {
  const { api, as } = impersonatingApi();
  api.put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a']);
  t.same(as, [undefined], 'not impersonated');
});

t.test('on, with a client that cannot impersonate: nothing is added, the failure recorded', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  t.equal((api as KubeApi).impersonating, undefined);
  await injectAll(api, 'dbg', { policy: AS_AUTHOR });
  t.same(api.patches, [], 'no PATCH as the server');
  t.match(api.stored('Pod', 'dbg', 'web-1').metadata.annotations, { 'debug.metaops.dev/failures': /debug-a/ });
});

for (const [what, text] of [
  ['a user name with white space at its end', 'v1;alice ;u-1;system:authenticated'],
  ['a group with a control character', 'v1;alice;u-1;team%2Ca\u0001'],
  [
    'more groups than the headers carry',
    `v1;alice;u-1;${Array.from({ length: 40_000 }, (_, i) => `g${i.toString(36)}`).join(',')}`,
  ],
] as const) {
  t.test(`on: an author who cannot be impersonated exactly (${what}) is refused, in the status too`, async (t) => {
    t.ok(text.length <= MAX_STAMP_CHARS, 'a stamp the hook reads');
    const { api, as } = impersonatingApi();
    const tl = tool('a', { label: 'app=web', image: 'busybox' });
    tl.metadata.annotations = { [AUTHOR_ANNOTATION]: text };
    api.put(tl).put(pod('web-1', { app: 'web' }));
    await injectAll(api, 'dbg', { policy: AS_AUTHOR });
    t.same(api.patches, [], 'no PATCH');
    t.same(as, []);
    const res = await statusAndApply(api, ['dbg', 'a'], { policy: AS_AUTHOR });
    t.match((res.status as any).conditions[0], {
      status: 'False',
      reason: 'AuthorUnverified',
      message: /cannot be impersonated/,
    });
  });
}

t.test('on: a tool without a stamp is refused, as with the setting off', async (t) => {
  const { api } = impersonatingApi();
  const tl = tool('a', { label: 'app=web', image: 'busybox' });
  delete tl.metadata.annotations![AUTHOR_ANNOTATION];
  api.put(tl).put(pod('web-1', { app: 'web' }));
  await injectAll(api, 'dbg', { policy: AS_AUTHOR });
  t.same(api.patches, []);
  t.ok(stamp('x').startsWith('v1;'));
});
