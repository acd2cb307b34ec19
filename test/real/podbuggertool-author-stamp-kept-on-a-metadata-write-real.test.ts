// The author of a PodBuggerTool is whoever last wrote its spec: "a user who may edit a tool but not debug its
// namespace cannot borrow its author's rights by changing it (it becomes theirs), and one who only labels it changes
// nothing" (docs/podbuggertool.md, "Who may debug"). The validating author policy is there because a mutating webhook
// after the mutating policy (a tenant's Kyverno Policy in their own namespace) may rewrite the stamp.
//
// On an update that changes neither the spec nor, as its writer sent it, the stamp (a label, a finalizer: an
// administrator's `kubectl label`, the garbage collector taking an ownerReference away), the mutating policy puts
// back the stamp the tool had. A webhook after it may then write the stamp of the request's own user, which such a
// webhook reads in the AdmissionReview (Kyverno: `{{request.userInfo}}`): the validating policy lets it through,
// because it is "the writer's stamp", though the writer wrote no spec. The tenant's spec is then stored under the
// administrator's name, and the hook server acts for it with the administrator's rights.
//
// The webhook here stands for such a tenant's mutate rule: on a PodBuggerTool carrying the tenant's annotation
// `defaults.example.com/stamp: writer`, it writes the author annotation from the request's userInfo, escaped as the
// policy writes it. Expected: an administrator's label on mallory's tool leaves mallory its author (the write keeps
// her stamp, or is refused), and the tool does not act as the administrator.
import t from 'tap';
import { AUTHOR_ANNOTATION } from '../../hooks/podbuggertool/author.js';
import {
  mallorysApiServer,
  MALLORYS_NS as NS,
  stampWebhookInForce,
  storedAsMallorys,
  TRIGGER,
  verdictOn,
} from '../fixtures/pbt-apiserver.js';

const server = mallorysApiServer(t, 'pbt-author-metadata-write');
const { api, getJson, tool } = server;

t.test("an administrator's label on a tenant's tool does not make the administrator its author", async (t) => {
  // Mallory may write PodBuggerTools in her namespace, and nothing else: no pods/ephemeralcontainers. The author
  // policy and the webhook in force: a tool written now is stamped with its writer, and seen.
  await stampWebhookInForce(t, server);

  // Mallory's tool, with the annotation her webhook rule acts on: stamped as hers (the writer's stamp).
  server.as('mallory-token', ['apply', '-f', '-'], JSON.stringify(tool('hers', { [TRIGGER]: 'writer' })));
  const before = await storedAsMallorys(t, api, getJson, NS, 'hers');

  // An administrator labels it (the spec untouched): a write of metadata, which "changes nothing".
  try {
    server.kubectl(['label', 'pbt', 'hers', '-n', NS, 'reviewed=yes']);
  } catch (err) {
    t.comment(`the label was refused: ${String((err as { stderr?: Buffer }).stderr ?? err)}`);
  }
  const after = getJson(['pbt', 'hers', '-n', NS]);
  t.comment(`stamp after the label: ${after.metadata.annotations?.[AUTHOR_ANNOTATION]}`);
  t.same(after.spec, before.spec, "the spec is mallory's, as she wrote it");
  t.match(
    after.metadata.annotations?.[AUTHOR_ANNOTATION],
    /^v1;mallory;/,
    'the stamp is still the one of who wrote the spec (mallory), not the labeller (admin)',
  );
  const verdict = await verdictOn(t, api, after);
  t.match(verdict, { allowed: false }, "mallory's spec does not act with the administrator's rights");
});
