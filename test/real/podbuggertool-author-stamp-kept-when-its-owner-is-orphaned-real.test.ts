// The author of a PodBuggerTool is whoever last wrote its spec; a write of its metadata alone changes nothing
// (docs/podbuggertool.md, "Who may debug"). A tenant can have a write of metadata made by a user far more privileged
// than any administrator, with nothing but rights in their own namespace: the garbage collector. A tool that names
// an owner (a ConfigMap of the tenant's) loses that ownerReference when the owner is deleted with
// `--cascade=orphan`: kube-controller-manager's generic-garbage-collector (RBAC: get, list, watch, patch, update and
// delete on every resource, pods/ephemeralcontainers included) patches the tool. A mutating webhook after the author
// policy that writes the request's own user as the stamp (a tenant's Kyverno Policy: `{{request.userInfo}}`) then
// stamps the tenant's spec as the garbage collector's, and the validating author policy lets it through ("the
// writer's stamp"): the hook server acts for the tenant's tool with the garbage collector's rights, in every pod of
// the namespace it selects.
//
// Expected: the orphaning leaves mallory the author of her tool, and the tool does not act (mallory may not debug).
import t from 'tap';
import { AUTHOR_ANNOTATION } from '../../hooks/podbuggertool/author.js';
import {
  createOwnedTool,
  mallorysApiServer,
  MALLORYS_NS as NS,
  orphaned,
  stampWebhookInForce,
  storedAsMallorys,
  TRIGGER,
  verdictOn,
} from '../fixtures/pbt-apiserver.js';

const server = mallorysApiServer(t, 'pbt-author-orphaned');
const { api, getJson, tool } = server;

t.test('a tool whose owner is deleted with --cascade=orphan keeps its author', async (t) => {
  // Mallory may write PodBuggerTools and ConfigMaps in her namespace, and nothing else: no pods/ephemeralcontainers.
  await stampWebhookInForce(t, server, { gc: true });

  // Mallory's ConfigMap, and her tool owned by it, with the annotation her webhook rule acts on.
  createOwnedTool(server.as, getJson, NS, tool('hers', { [TRIGGER]: 'writer' }));
  const before = await storedAsMallorys(t, api, getJson, NS, 'hers');

  // Mallory deletes her ConfigMap, orphaning its dependents: the garbage collector takes the ownerReference away.
  // (A write of the garbage collector refused is one way to keep the stamp: the ownerReference then stays.)
  const wasOrphaned = await orphaned(t, server.as, getJson, NS, 'hers');
  const after = getJson(['pbt', 'hers', '-n', NS]);
  t.comment(`orphaned: ${wasOrphaned}; stamp after: ${after.metadata.annotations?.[AUTHOR_ANNOTATION]}`);
  t.same(after.spec, before.spec, "the spec is mallory's, as she wrote it");
  t.match(
    after.metadata.annotations?.[AUTHOR_ANNOTATION],
    /^v1;mallory;/,
    'the stamp is still the one of who wrote the spec (mallory), not the garbage collector',
  );
  const verdict = await verdictOn(t, api, after);
  t.match(verdict, { allowed: false }, "mallory's spec does not act with the garbage collector's rights");
});
