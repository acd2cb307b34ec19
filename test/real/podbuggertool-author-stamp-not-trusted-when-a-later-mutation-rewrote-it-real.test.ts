// The author stamp is written by the MutatingAdmissionPolicy metaops ships (reinvocationPolicy: Never). The API
// server runs MutatingAdmissionPolicies before mutating admission webhooks (kube-apiserver's plugin order:
// MutatingAdmissionPolicy, then MutatingAdmissionWebhook, then the validating ones), and a policy that is never
// reinvoked does not see what a webhook did after it. So any mutating webhook that writes annotations a tenant
// chooses (a Kyverno `Policy`, a custom resource a tenant may write in their own namespace, whose mutate rule sets
// `metadata.annotations`; any "namespace defaults" webhook) rewrites the stamp after the policy wrote it, and the
// tool is stored with the annotation the tenant chose: here a member of system:masters. The hook server trusts it.
//
// The webhook here stands for such a tenant's mutation: it sets the author annotation of a PodBuggerTool to the value
// its writer put in `defaults.example.com/author` (as a tenant's Kyverno Policy would patch it in, in their namespace).
// Expected: a tool stored with a stamp the policy did not write is not trusted (the policy reinvoked after webhooks,
// or a validating check that the stored stamp is the writer's): mallory's tool acts as mallory, who may not debug.
//
// metaops ships that validating check (a ValidatingAdmissionPolicy beside the mutating one, manifests/admission/):
// with it in force, the API server refuses to store mallory's tool at all. A tool stored while it was not (an install
// of the mutating half only, as before it was shipped) is not trusted either: the hook server trusts a stamp only
// with all four objects in place as shipped, on a tool created after them.
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { AUTHOR_ANNOTATION, AUTHOR_POLICY, AuthorCache, AuthorCheck } from '../../hooks/podbuggertool/author.js';
import { waitFor } from '../e2e/cluster.js';
import {
  authorPolicyCreated,
  FORGED,
  MALLORY,
  pastAuthorGrace,
  pbtApiServer,
  startWebhook,
  tenantDefaults,
  toolsWrittenBy,
} from '../fixtures/pbt-apiserver.js';
import { root } from '../fixtures/requests.js';

const { api, kubectl, apply, as, getJson } = pbtApiServer(t, 'pbt-author-later-mutation', MALLORY, {
  managedFields: true,
});
const NS = 'team-m';
const DEFAULT_AUTHOR = 'defaults.example.com/author';

function tool(name: string, annotations: Record<string, string> = {}) {
  return {
    apiVersion: 'debug.metaops.dev/v1alpha1',
    kind: 'PodBuggerTool',
    metadata: { name, namespace: NS, annotations },
    spec: { label: 'app=web', image: 'busybox:1.36' },
  };
}

/** A tenant's mutate rule (startWebhook): the author annotation set to what the object's writer put in DEFAULT_AUTHOR. */
const startDefaultAuthorWebhook = (t: Test) =>
  startWebhook(
    t,
    api.dir,
    `const wanted = review.request.object?.metadata?.annotations?.[${JSON.stringify(DEFAULT_AUTHOR)}];
        const patch = wanted ? [{ op: 'add', path: ${JSON.stringify(`/metadata/annotations/${AUTHOR_ANNOTATION.replace('/', '~1')}`)}, value: wanted }] : [];`,
  );

t.test('a stamp rewritten by a mutating webhook after the author policy is not trusted', async (t) => {
  // Mallory may write PodBuggerTools in her namespace, and nothing else: no pods/ephemeralcontainers.
  toolsWrittenBy(kubectl, 'mallory', NS);
  tenantDefaults(apply, await startDefaultAuthorWebhook(t));
  // The policy in force (a tool written now is stamped with its writer).
  await waitFor(
    'the author policy in force',
    async () => {
      as('mallory-token', ['apply', '-f', '-'], JSON.stringify(tool('probe')));
      const stamp = getJson(['pbt', 'probe', '-n', NS]).metadata.annotations?.[AUTHOR_ANNOTATION] ?? '';
      as('mallory-token', ['delete', 'pbt', 'probe', '-n', NS]);
      return stamp.startsWith('v1;mallory;');
    },
    60_000,
  );
  const policy = getJson(['mutatingadmissionpolicy', 'metaops-podbuggertool-author']);
  const binding = getJson(['mutatingadmissionpolicybinding', 'metaops-podbuggertool-author']);
  const since = authorPolicyCreated(getJson, {
    kinds: ['mutatingadmissionpolicy', 'mutatingadmissionpolicybinding', 'validatingadmissionpolicy'],
  });
  await pastAuthorGrace(since, 2000);

  // With the validating policy in force, the API server refuses to store the tool with the stamp mallory chose.
  const refusal = await waitFor(
    'the webhook and the validating policy in force',
    async () => {
      try {
        as('mallory-token', ['apply', '-f', '-'], JSON.stringify(tool('forged', { [DEFAULT_AUTHOR]: FORGED })));
      } catch (err) {
        const said = String((err as { stderr?: Buffer }).stderr ?? err);
        return said.includes('ValidatingAdmissionPolicy') ? said : undefined;
      }
      as('mallory-token', ['delete', 'pbt', 'forged', '-n', NS]);
      return undefined;
    },
    60_000,
  );
  t.match(refusal, /ValidatingAdmissionPolicy 'metaops-podbuggertool-author'/, 'refused by the validating policy');
  t.match(refusal, /author stamp/, 'saying why');
  t.equal((getJson(['pbt', '-n', NS]) as { items?: unknown[] }).items?.length ?? 0, 0, 'nothing stored');
  // Mallory's own tool, without the "default author", is stored, stamped as hers; a label, too. A spec change is
  // refused (a tool's spec is fixed at its creation), and leaves it as it was.
  as('mallory-token', ['apply', '-f', '-'], JSON.stringify(tool('hers')));
  as('mallory-token', ['label', 'pbt', 'hers', '-n', NS, 'reviewed=yes']);
  t.throws(
    () =>
      as('mallory-token', [
        'patch',
        'pbt',
        'hers',
        '-n',
        NS,
        '--type=merge',
        '-p',
        '{"spec":{"image":"busybox:1.37"}}',
      ]),
    /spec cannot be changed once it is created/,
    'a spec change: refused',
  );
  t.match(getJson(['pbt', 'hers', '-n', NS]).metadata.annotations?.[AUTHOR_ANNOTATION], /^v1;mallory;/, 'hers');
  // A write of metadata by another (a finalizer, as Metacontroller adds one) keeps her stamp, and is let through.
  kubectl(['patch', 'pbt', 'hers', '-n', NS, '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/x"]}}']);
  kubectl(['patch', 'pbt', 'hers', '-n', NS, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
  t.match(getJson(['pbt', 'hers', '-n', NS]).metadata.annotations?.[AUTHOR_ANNOTATION], /^v1;mallory;/, 'kept');
  // Nor may the webhook rewrite the stamp on an update that changes neither spec nor stamp of its writer's.
  t.throws(
    () => as('mallory-token', ['annotate', 'pbt', 'hers', '-n', NS, `${DEFAULT_AUTHOR}=${FORGED}`]),
    'an annotation the webhook copies into the stamp: refused',
  );
  t.match(getJson(['pbt', 'hers', '-n', NS]).metadata.annotations?.[AUTHOR_ANNOTATION], /^v1;mallory;/, 'still');

  // An install without the validating policy's binding (the mutating half only): the tool is stored as mallory chose.
  kubectl(['delete', 'validatingadmissionpolicybinding', AUTHOR_POLICY]);
  await waitFor(
    'the webhook in force',
    async () => {
      as('mallory-token', ['apply', '-f', '-'], JSON.stringify(tool('forged', { [DEFAULT_AUTHOR]: FORGED })));
      const stamp = getJson(['pbt', 'forged', '-n', NS]).metadata.annotations?.[AUTHOR_ANNOTATION];
      if (stamp === FORGED) return true;
      as('mallory-token', ['delete', 'pbt', 'forged', '-n', NS]);
      return false;
    },
    60_000,
  );
  const forged = getJson(['pbt', 'forged', '-n', NS]);
  t.equal(forged.metadata.annotations?.[AUTHOR_ANNOTATION], FORGED, 'stored with the stamp mallory chose');
  t.equal(policy.metadata.generation, 1, 'the author policy is as shipped, never changed');
  t.equal(binding.metadata.generation, 1, 'its binding is as shipped, never changed');

  const verdict = await new AuthorCheck(api.kube(), new AuthorCache()).verify(forged);
  t.comment(`verdict: ${JSON.stringify(verdict)}`);
  t.match(
    verdict,
    { allowed: false },
    "mallory's tool does not act as admin (system:masters): its stamp is not the policy's",
  );
  t.match(
    verdict,
    { reason: 'AuthorUnverified', message: /no ValidatingAdmissionPolicyBinding metaops-podbuggertool-author/ },
    'the validating binding named',
  );
  // Installed again: the tool stored meanwhile is still not trusted (created before it).
  kubectl(['apply', '-f', join(root, 'manifests', 'admission', 'podbuggertool-author.yaml')]);
  t.match(
    await new AuthorCheck(api.kube(), new AuthorCache()).verify(getJson(['pbt', 'forged', '-n', NS])),
    { allowed: false, reason: 'AuthorUnverified', message: /was created before the admission policy/ },
    'installed again: the tool from before is not trusted',
  );
});
