// The API server's answers about tools' authors (SubjectAccessReviews) are remembered for AUTHOR_CACHE_MS, in one
// memory for the whole server (hooks/podbuggertool/author.ts AuthorCache: 1,000 answers, the oldest forgotten first).
// The injector asks about each pod by name (an authorizer may decide per object), and every pod of the cluster goes
// through the injector: tenant A, with one PodBuggerTool and a PodSet of 1,000 pods (two custom resources, in A's own
// namespace), fills that memory with 1,000 answers of its own and pushes out what tenant B's checks remembered. Each of
// B's injections then asks the API server again, with the hook server's identity, behind A's questions (one
// SubjectAccessReview per pod each time, under the one API Priority and Fairness share of the hook's service
// account). Other shared memories of this hook keep each namespace's share (count-memory-kept-whatever-another-
// namespace-remembers, count-pages-within-namespace-share); this one does not.
import t from 'tap';
import {
  AUTHOR_ANNOTATION,
  AUTHOR_OBJECTS,
  AUTHOR_POLICY,
  AuthorCache,
  AuthorCheck,
  authorPolicyObjects,
} from '../../hooks/podbuggertool/author.js';
import type { KubeApi } from '../../lib/kube.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { stamp } from '../fixtures/pbt.js';

const POLICY_CREATED = '2026-01-01T00:00:00Z';
const TOOL_CREATED = '2026-01-02T00:00:00Z';

const tool = (namespace: string, author: string): KubeObject => ({
  apiVersion: 'debug.metaops.dev/v1alpha1',
  kind: 'PodBuggerTool',
  metadata: {
    name: 'dbg',
    namespace,
    uid: `uid-${namespace}`,
    generation: 1,
    creationTimestamp: TOOL_CREATED,
    annotations: { [AUTHOR_ANNOTATION]: stamp(author) },
  },
  spec: {},
});

/** An API server that has the author policy in place and allows every review; it counts reviews per namespace. */
function apiServer() {
  const reviews = new Map<string, number>();
  const kube = {
    get: async (_api: string, resource: string, _ns: string, name: string) =>
      name === AUTHOR_POLICY
        ? {
            // The policies and their bindings as metaops ships them.
            ...authorPolicyObjects()[AUTHOR_OBJECTS.findIndex((o) => o.resource === resource)],
            metadata: { name, creationTimestamp: POLICY_CREATED, generation: 1 },
          }
        : undefined,
    create: async (_api: string, _resource: string, _ns: string, body: Record<string, any>) => {
      const ns = body['spec'].resourceAttributes.namespace as string;
      reviews.set(ns, (reviews.get(ns) ?? 0) + 1);
      return { ...body, status: { allowed: true } };
    },
  } as unknown as KubeApi;
  return { kube, reviews };
}

t.test("tenant A's 1,000 pods do not push tenant B's remembered author answers out", async (t) => {
  const { kube, reviews } = apiServer();
  const now = Date.parse('2026-01-03T00:00:00Z');
  const cache = new AuthorCache(() => now);
  const check = new AuthorCheck(kube, cache);
  const b = tool('tenant-b', 'bob');
  t.match(await check.verify(b, () => false, 'b-0'), { allowed: true }, "B's author may debug pod b-0");
  const asked = reviews.get('tenant-b') ?? 0;
  t.ok(asked > 0, `B's author was asked about (${asked} reviews)`);
  // Tenant A's tool over its PodSet's 1,000 pods, each through the injector.
  const a = tool('tenant-a', 'mallory');
  for (let i = 0; i < 1000; i++) await check.verify(a, () => false, `a-${i}`);
  t.comment(`reviews: ${JSON.stringify(Object.fromEntries(reviews))}`);
  // B's next injection into the same pod, within AUTHOR_CACHE_MS (the clock has not moved).
  t.match(await check.verify(b, () => false, 'b-0'), { allowed: true });
  t.equal(
    (reviews.get('tenant-b') ?? 0) - asked,
    0,
    "B's answer, remembered a moment ago, is still remembered: the API server is not asked again because of A's pods",
  );
});
