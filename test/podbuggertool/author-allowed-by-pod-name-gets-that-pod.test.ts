// An author whom RBAC allows to patch pods/ephemeralcontainers on some pods by name (a Role with resourceNames: the
// right of `kubectl debug` on web-1, and nothing else) could debug web-1 by hand. docs/podbuggertool.md (Failures,
// AuthorNotAllowed) says a tool handles "an authorizer that decides per pod: RBAC's resourceNames": the pods the
// author may patch get the container, the others are that pod's failure. RBAC answers a review without a name
// ("some pod of the namespace") with a refusal for such a rule, so a tool asked about its namespace first is refused
// as a whole: its author gets nothing on web-1 either, though the tool does only what they may do.
import t from 'tap';
import { injectAll, statusAndApply, webAndVaultAllowedByName } from '../fixtures/pbt.js';

t.test('an author allowed on one pod by name gets the container into that pod', async (t) => {
  // RBAC with `resourceNames: [web-1]` on pods/ephemeralcontainers (and `list pods`): allowed only when asked about
  // web-1 by name; a review that names no pod matches no rule with resourceNames.
  const api = webAndVaultAllowedByName(['web-1']);
  await statusAndApply(api, ['dbg', 'a']);
  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a'], 'the author may patch web-1: the container is added');
  t.same(api.ephemeralNames('dbg', 'vault-0'), [], 'the author may not patch vault-0: none there');
});
