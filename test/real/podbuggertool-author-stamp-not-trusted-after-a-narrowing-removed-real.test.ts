// The author stamp is trusted only on a tool written after the admission policy and its binding were last changed
// (author.ts inPlaceSince: their creationTimestamps and the newest managedFields[].time). On a real API server, a
// managedFields entry's time moves only when its manager sets or changes a field, and the entry of a manager left
// owning nothing is dropped: a binding narrowed in place (`kubectl patch`: matchResources with an objectSelector, the
// tools of one label only) and put back by removing what was added (a JSON patch `remove`, `kubectl edit` deleting
// the lines) keeps only the entry of its creation, at generation 3. A tenant's tool written in between, outside the
// narrowed binding, keeps the annotation its writer forged (here: a member of system:masters); once the binding is
// as shipped again, that tool was created after every time the hook reads, and its forged stamp must still not be
// trusted: the binding changed (generation 3) after it was written. (The validating policy metaops ships beside it
// refuses such a tool; narrowed the same way, it lets it through, and the same holds.)
import t from 'tap';
import {
  AUTHOR_ANNOTATION,
  AUTHOR_GRACE_MS,
  AUTHOR_POLICY,
  AuthorCache,
  AuthorCheck,
  lastWritten,
} from '../../hooks/podbuggertool/author.js';
import { waitFor } from '../e2e/cluster.js';
import { FORGED, pbtApiServer, sleep, toolsWrittenBy } from '../fixtures/pbt-apiserver.js';

// With their managedFields, as the hook server reads them (kubectl leaves them out unless asked).
const { api, kubectl, as, getJson } = pbtApiServer(
  t,
  'pbt-author-narrowing-removed',
  ['mallory-token,mallory,uid-mallory,tenants'],
  { managedFields: true },
);
const NS = 'team-m';
// An administrator who narrows "the author policy" narrows both halves metaops ships: the mutating policy that
// stamps, and the validating one that refuses a tool stored with any other stamp (which alone would refuse her tool).
const BINDINGS = ['mutatingadmissionpolicybinding', 'validatingadmissionpolicybinding'];
const POLICIES = ['mutatingadmissionpolicy', 'validatingadmissionpolicy'];
/** The author objects of these kinds patched in place (`merge` adds, a `json` remove takes away). */
const patchEach = (kinds: string[], type: 'merge' | 'json', patch: unknown) => {
  for (const kind of kinds) kubectl(['patch', kind, AUTHOR_POLICY, `--type=${type}`, '-p', JSON.stringify(patch)]);
};

function tool(name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}) {
  return {
    apiVersion: 'debug.metaops.dev/v1alpha1',
    kind: 'PodBuggerTool',
    metadata: { name, namespace: NS, labels, annotations },
    spec: { label: 'app=web', image: 'busybox:1.36' },
  };
}

/** Whether a tool written now (as mallory, with the forged annotation and `labels`) is stamped by the policy. */
function stampedNow(labels: Record<string, string>): boolean {
  as('mallory-token', ['apply', '-f', '-'], JSON.stringify(tool('probe', labels, { [AUTHOR_ANNOTATION]: FORGED })));
  const stamp = getJson(['pbt', 'probe', '-n', NS]).metadata.annotations?.[AUTHOR_ANNOTATION];
  as('mallory-token', ['delete', 'pbt', 'probe', '-n', NS]);
  return stamp !== FORGED;
}

t.before(async () => {
  // Mallory may write PodBuggerTools in her namespace, and nothing else: no pods/ephemeralcontainers.
  toolsWrittenBy(kubectl, 'mallory', NS);
  await waitFor('the author policy in force', async () => stampedNow({}), 60_000);
});

t.test('a tool written while the binding was narrowed is not trusted once the narrowing is removed', async (t) => {
  // The administrator narrows the binding in place to the tools labelled stamped=yes...
  patchEach(BINDINGS, 'merge', { spec: { matchResources: { objectSelector: { matchLabels: { stamped: 'yes' } } } } });
  const narrowed = getJson(['mutatingadmissionpolicybinding', AUTHOR_POLICY]);
  const narrowedAt = lastWritten(narrowed);
  t.type(narrowedAt, 'number', 'the narrowing is dated by its managedFields');
  await waitFor('the narrowed binding in force', async () => !stampedNow({}), 60_000);
  // ...and, past the grace, mallory writes a tool outside it, with an annotation of her own.
  await sleep((narrowedAt as number) + AUTHOR_GRACE_MS + 2000 - Date.now());
  as('mallory-token', ['apply', '-f', '-'], JSON.stringify(tool('forged', {}, { [AUTHOR_ANNOTATION]: FORGED })));
  const written = getJson(['pbt', 'forged', '-n', NS]);
  t.equal(written.metadata.annotations?.[AUTHOR_ANNOTATION], FORGED, 'the narrowed binding left her annotation');
  await sleep(1500);
  // The administrator puts the binding back as shipped, removing what was added (kubectl edit deleting the lines).
  patchEach(BINDINGS, 'json', [{ op: 'remove', path: '/spec/matchResources' }]);
  const restored = getJson(['mutatingadmissionpolicybinding', AUTHOR_POLICY]);
  t.ok((restored.metadata.generation ?? 0) >= 3, 'the binding changed after the tool was written (generation)');
  t.comment(
    `binding managedFields after the put-back: ${JSON.stringify((restored.metadata as { managedFields?: unknown }).managedFields)}`,
  );
  t.ok(
    (lastWritten(restored) ?? 0) < Date.parse(getJson(['pbt', 'forged', '-n', NS]).metadata.creationTimestamp!),
    "the binding's managedFields date no change after the tool was written (the cause)",
  );
  await waitFor('the binding as shipped in force again', async () => stampedNow({}), 60_000);

  const hook = api.kube();
  const forged = getJson(['pbt', 'forged', '-n', NS]);
  t.equal(forged.metadata.annotations?.[AUTHOR_ANNOTATION], FORGED, 'the tool still carries the forged annotation');
  t.ok(
    Date.parse(forged.metadata.creationTimestamp!) > (narrowedAt as number) + AUTHOR_GRACE_MS,
    'the tool was written while the binding was narrowed, past the grace',
  );
  const verdict = await new AuthorCheck(hook, new AuthorCache()).verify(forged);
  t.comment(`verdict: ${JSON.stringify(verdict)}`);
  t.match(
    verdict,
    { allowed: false, reason: 'AuthorUnverified' },
    "the forged stamp (system:masters) is not trusted: the tool was written before the binding's last change",
  );
});

t.test('a tool written while the policy was narrowed is not trusted once the narrowing is removed', async (t) => {
  // The administrator narrows the policy in place: a matchCondition that leaves out the tools labelled skip...
  patchEach(POLICIES, 'merge', {
    spec: {
      matchConditions: [
        { name: 'not-skipped', expression: "!has(object.metadata.labels) || !('skip' in object.metadata.labels)" },
      ],
    },
  });
  const narrowedAt = lastWritten(getJson(['mutatingadmissionpolicy', AUTHOR_POLICY]));
  t.type(narrowedAt, 'number', 'the narrowing is dated by its managedFields');
  await waitFor('the narrowed policy in force', async () => !stampedNow({ skip: 'yes' }), 60_000);
  // ...and, past the grace, mallory writes a tool it leaves out, with an annotation of her own.
  await sleep((narrowedAt as number) + AUTHOR_GRACE_MS + 2000 - Date.now());
  as(
    'mallory-token',
    ['apply', '-f', '-'],
    JSON.stringify(tool('forged-too', { skip: 'yes' }, { [AUTHOR_ANNOTATION]: FORGED })),
  );
  t.equal(
    getJson(['pbt', 'forged-too', '-n', NS]).metadata.annotations?.[AUTHOR_ANNOTATION],
    FORGED,
    'the narrowed policy left her annotation',
  );
  await sleep(1500);
  // The administrator puts the policy back as shipped, removing the matchCondition.
  patchEach(POLICIES, 'json', [{ op: 'remove', path: '/spec/matchConditions' }]);
  const restored = getJson(['mutatingadmissionpolicy', AUTHOR_POLICY]);
  t.ok((restored.metadata.generation ?? 0) >= 3, 'the policy changed after the tool was written (generation)');
  await waitFor('the policy as shipped in force again', async () => stampedNow({ skip: 'yes' }), 60_000);
  const forged = getJson(['pbt', 'forged-too', '-n', NS]);
  t.ok(
    (lastWritten(restored) ?? 0) < Date.parse(forged.metadata.creationTimestamp!),
    "the policy's managedFields date no change after the tool was written (the cause)",
  );
  const verdict = await new AuthorCheck(api.kube(), new AuthorCache()).verify(forged);
  t.comment(`verdict: ${JSON.stringify(verdict)}`);
  t.match(
    verdict,
    { allowed: false, reason: 'AuthorUnverified' },
    "the forged stamp (system:masters) is not trusted: the tool was written before the policy's last change",
  );
});
