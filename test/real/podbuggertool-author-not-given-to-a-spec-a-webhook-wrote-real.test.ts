// The validating author policy computes the writer's stamp again after every mutation and takes a stored stamp
// that is exactly the writer's. It cannot tell a spec the writer sent from one a mutating webhook wrote into the
// writer's request: both are "the spec of this update". So a tenant's mutate rule (Kyverno: a namespaced Policy with
// a precondition on `{{request.userInfo.username}}`) that, on a write of someone else, sets the spec the tenant keeps
// in an annotation and writes the request's user as the stamp, has the tenant's spec stored under that user's name.
// The tenant need not wait for an administrator: deleting a ConfigMap of theirs that owns the tool with
// `--cascade=orphan` has the garbage collector patch the tool (RBAC: patch on every resource, pods/ephemeralcontainers
// included), and the tool then acts with the garbage collector's rights.
//
// Unlike a write of metadata whose stamp is rewritten (podbuggertool-author-stamp-kept-on-a-metadata-write), here the
// spec changes in the same write: a check that a write leaving the spec alone keeps the stored stamp does not see it.
// Expected: mallory's spec never acts as anyone but mallory (the write refused, or the tool not trusted).
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

const server = mallorysApiServer(t, 'pbt-author-webhook-spec');
const { api, getJson, tool } = server;
const SPEC = 'defaults.example.com/spec';

t.test("a spec a webhook writes into another's write does not act as that other", async (t) => {
  // Mallory may write PodBuggerTools and ConfigMaps in her namespace, and nothing else: no pods/ephemeralcontainers.
  await stampWebhookInForce(t, server, { gc: true, spec: { annotation: SPEC, exceptUser: 'mallory' } });

  // Mallory's ConfigMap, and her tool owned by it, with the annotation her webhook rule acts on.
  // Her tool as stored looks harmless (busybox, `true`); the spec she wants waits in an annotation.
  const wanted = {
    label: 'app=web',
    image: 'busybox:1.36',
    command: ['sh', '-c', 'cat /var/run/secrets/* ; sleep 3600'],
  };
  const mine = tool('hers', { [TRIGGER]: 'writer', [SPEC]: JSON.stringify(wanted) });
  mine.spec = { label: 'app=web', image: 'busybox:1.36', command: ['true'] };
  createOwnedTool(server.as, getJson, NS, mine);
  await storedAsMallorys(t, api, getJson, NS, 'hers');

  // Mallory deletes her ConfigMap, orphaning its dependents: the garbage collector takes the ownerReference away.
  // (A write of the garbage collector refused is one way to keep the stamp: the ownerReference then stays.)
  const wasOrphaned = await orphaned(t, server.as, getJson, NS, 'hers');
  const after = getJson(['pbt', 'hers', '-n', NS]);
  t.comment(`orphaned: ${wasOrphaned}; stamp after: ${after.metadata.annotations?.[AUTHOR_ANNOTATION]}`);
  t.comment(`spec after: ${JSON.stringify(after.spec)}`);
  t.notMatch(
    after.metadata.annotations?.[AUTHOR_ANNOTATION] ?? '',
    /generic-garbage-collector/,
    'the spec mallory chose is not stored under the name of the garbage collector, which wrote no spec',
  );
  const verdict = await verdictOn(t, api, after);
  t.match(verdict, { allowed: false }, "mallory's spec does not act with the garbage collector's rights");
});
