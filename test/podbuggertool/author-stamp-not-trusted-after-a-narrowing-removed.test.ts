// The author stamp is trusted only on a tool written after the admission policy and its binding were last changed.
// The API server moves a managedFields entry's time only when its manager sets or changes a field, and drops the
// entry of a manager left owning nothing: a binding narrowed by `kubectl patch` (matchResources: an objectSelector)
// and put back by removing what was added (`kubectl patch --type=json` remove, `kubectl edit` deleting the lines)
// keeps only the entry of its creation, dated at its creation, at generation 3. Measured on kube-apiserver 1.36
// (test/real/podbuggertool-author-stamp-not-trusted-after-a-narrowing-removed-real.test.ts): the binding's
// managedFields after the put-back are exactly the one `kubectl-client-side-apply` entry of its creation. A tool
// written while the binding was narrowed (outside it: its annotation is its writer's) was created after every time
// the object shows, and must still not be trusted: the binding changed (generation 3) at a time nothing dates.
import t from 'tap';
import { FakeApi, POLICY_CREATED, TOOL_CREATED } from '../fixtures/pbt.js';
import { bindingPutBack, unverified } from '../fixtures/pbt-author.js';

t.test('a tool written while the binding was narrowed is not trusted once the narrowing is removed', async (t) => {
  const api = new FakeApi();
  // Created 2026-01-01 by `kubectl apply` (generation 1); narrowed on 2026-01-01 at noon (generation 2); put back by
  // removing matchResources on 2026-01-02 at noon (generation 3). The tool was written at midnight, in between.
  bindingPutBack(api, {
    manager: 'kubectl-client-side-apply',
    time: POLICY_CREATED,
    fieldsV1: {
      'f:metadata': {
        'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
        'f:labels': { '.': {}, 'f:app.kubernetes.io/part-of': {} },
      },
      'f:spec': { 'f:policyName': {} },
    },
  });
  t.ok(Date.parse(TOOL_CREATED) > Date.parse(POLICY_CREATED), 'the tool was created after the binding');
  await unverified(t, api, 'the stamp is not trusted');
});
