// "A tool does nothing its author could not do" (docs/podbuggertool.md, Who may debug): before each PATCH the hook
// asks the API server whether the tool's author may patch pods/ephemeralcontainers. The question names the namespace
// but not the pod, so an authorizer that decides per object (a webhook authorizer, or RBAC's resourceNames) is asked
// about "some pod of the namespace", not about the pod the container goes into. An author whom the cluster's
// authorizer refuses on one pod (`vault-0`, say) and allows on the others gets the container into `vault-0` through
// the hook server's rights: pods/ephemeralcontainers by proxy on the very pod they may not touch.
import t from 'tap';
import { FakeApi, injectAll, pod, tool } from './fixtures/pbt.js';

t.test("the author's review names the pod: a pod the author may not patch gets no container", async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('web-1', { app: 'web' }))
    .put(pod('vault-0', { app: 'web' }));
  // The cluster's authorizer: alice may add ephemeral containers to any pod of dbg except vault-0.
  const create = api.create.bind(api);
  api.create = async (apiVersion: string, resource: string, ns: string, body: any) => {
    const answer: any = await create(apiVersion, resource, ns, body);
    const a = body.spec.resourceAttributes;
    // A webhook authorizer with a deny rule on one object: it answers for the object it is asked about.
    if (a.subresource === 'ephemeralcontainers' && a.name === 'vault-0') answer.status = { allowed: false };
    return answer;
  };
  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', 'vault-0'), [], 'the author may not patch vault-0: no container there');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a'], 'the author may patch web-1: the container is added');
});
