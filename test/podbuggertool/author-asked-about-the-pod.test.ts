// "A tool does nothing its author could not do" (docs/podbuggertool.md, Who may debug): before each PATCH the hook
// asks the API server whether the tool's author may patch pods/ephemeralcontainers. The question names the namespace
// but not the pod, so an authorizer that decides per object (a webhook authorizer, or RBAC's resourceNames) is asked
// about "some pod of the namespace", not about the pod the container goes into. An author whom the cluster's
// authorizer refuses on one pod (`vault-0`, say) and allows on the others gets the container into `vault-0` through
// the hook server's rights: pods/ephemeralcontainers by proxy on the very pod they may not touch.
import t from 'tap';
import { AUTHOR_ANNOTATION } from '../../hooks/podbuggertool/author.js';
import { FAILURES_ANNOTATION } from '../../hooks/podbuggertool/match.js';
import { FakeApi, injectAll, pod, statusAndApply, tool } from '../fixtures/pbt.js';

/**
 * Tool a (app=web) over pods web-1 and vault-0; the cluster's authorizer refuses the reviews whose resourceAttributes
 * `refused` says, and answers the others as the fake API server does.
 */
function webAndVaultRefusing(refused: (attributes: any) => boolean): FakeApi {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('web-1', { app: 'web' }))
    .put(pod('vault-0', { app: 'web' }));
  const create = api.create.bind(api);
  api.create = async (apiVersion: string, resource: string, ns: string, body: any) => {
    const answer: any = await create(apiVersion, resource, ns, body);
    if (refused(body.spec.resourceAttributes)) answer.status = { allowed: false };
    return answer;
  };
  return api;
}

t.test("the author's review names the pod: a pod the author may not patch gets no container", async (t) => {
  // The cluster's authorizer: alice may add ephemeral containers to any pod of dbg except vault-0 (a webhook
  // authorizer with a deny rule on one object: it answers for the object it is asked about).
  const api = webAndVaultRefusing((a) => a.subresource === 'ephemeralcontainers' && a.name === 'vault-0');
  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', 'vault-0'), [], 'the author may not patch vault-0: no container there');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a'], 'the author may patch web-1: the container is added');
});

// The review is the author's as the authenticator told it: the stamped extra information (scopes, a session) is sent
// too, so an authorizer that decides on it (a webhook, a proxy's scopes) answers for the same user.
t.test("the author's review sends the stamped userInfo.extra", async (t) => {
  const tl = tool('a', { label: 'app=web', image: 'busybox' });
  tl.metadata.annotations = { [AUTHOR_ANNOTATION]: 'v1;alice;u-1;team-a;scopes=read,scopes=debug%3Dpods' };
  const api = new FakeApi().put(tl).put(pod('web-1', { app: 'web' }));
  const sent: any[] = [];
  const create = api.create.bind(api);
  api.create = async (apiVersion: string, resource: string, ns: string, body: any) => {
    sent.push(body.spec);
    return create(apiVersion, resource, ns, body);
  };
  await injectAll(api, 'dbg');
  t.ok(sent.length > 0, 'reviews were asked');
  for (const spec of sent) t.same(spec.extra, { scopes: ['read', 'debug=pods'] }, 'extra sent as stamped');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a']);
});

// Refused on one pod while allowed on the namespace's others: that pod's failure (AuthorNotAllowed), recorded on it,
// counted by the status and retried with the backoff, not a pod left pending for ever.
t.test('a pod the author may not patch is counted as failed, AuthorNotAllowed', async (t) => {
  const api = webAndVaultRefusing((a) => a.name === 'vault-0');
  await injectAll(api, 'dbg');
  t.equal(api.patches.length, 1, 'no PATCH for vault-0');
  t.match(api.stored('Pod', 'dbg', 'vault-0').metadata.annotations, { [FAILURES_ANNOTATION]: /AuthorNotAllowed/ });
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.match(res.status, {
    matched: 2,
    injected: 1,
    failed: 1,
    failures: [{ pod: 'vault-0', reason: 'AuthorNotAllowed' }],
  });
  t.match((res.status as any).conditions[0], { status: 'False', reason: 'InjectionFailed' });
});
