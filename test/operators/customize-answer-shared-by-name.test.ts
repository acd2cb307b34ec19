// What a customize answer does when Metacontroller v1.5.20 hands it to another parent. v1.5.20 keeps one answer per
// parent name and generation (pkg/controller/common/customize/manager.go L73-91), so the parent `x` of namespace team-b
// is handed the answer given for `x` of team-a when their generations agree (a tenant picks its parent's name and can
// follow another's generation by editing its own spec). This models how v1.5.20 resolves each rule of that answer for
// team-b's parent (manager.go L289-353, read at tag v1.5.20) and holds every kind to what docs/metacontroller.md says:
// - no rule ever lists another namespace than team-b's: the answer is refused, or it selects within team-b alone;
// - the kinds whose answer names no namespace give team-a and team-b one and the same answer (right for both);
// - every other kind (each that checks who holds its children's names: a rule by name must name the namespace, since
//   v1.5.20 lists a names rule without one across every namespace, L282-287 and L335) is refused for team-b, with
//   Metacontroller's "requested related object namespace team-a differs from parent object namespace team-b"
//   (L332-334), before any hook is called for it. No answer can be right for both parents there: the e2e scenario
//   "a parent of tenant A named as tenant B's" shows what a user sees.
import t from 'tap';
import { operators } from '../../main/operators.js';

/** Related resources that are cluster-scoped (a names rule without a namespace lists them, no namespace involved). */
const CLUSTER_SCOPED = new Set(['storageclasses']);

interface Rule {
  apiVersion: string;
  resource: string;
  namespace?: string;
  names?: string[];
  labelSelector?: unknown;
}

/**
 * How v1.5.20 resolves one rule for a namespaced parent in `ns`: the namespaces it lists (`['*']`: every namespace,
 * `[]`: cluster-scoped objects), or the error that fails the parent's sync.
 */
function resolveV1520(rule: Rule, ns: string): { lists: string[] } | { refused: string } {
  const bySelector = rule.labelSelector !== undefined && rule.labelSelector !== null;
  const byNamespaceOrNames = Boolean(rule.namespace) || (rule.names?.length ?? 0) > 0;
  // determineSelectionType L216-226.
  if (bySelector && byNamespaceOrNames)
    return { refused: 'related rule cannot have both labelSelector and Namespace/Names' };
  // selectByLabels (no selector is labels.Everything(), L237-243): the parent's namespace (L320-321).
  if (!byNamespaceOrNames) return { lists: CLUSTER_SCOPED.has(rule.resource) ? [] : [ns] };
  // selectByNamespaceAndNames L331-348.
  if (rule.namespace && rule.namespace !== ns)
    return {
      refused: `requested related object namespace ${rule.namespace} differs from parent object namespace ${ns}`,
    };
  if (CLUSTER_SCOPED.has(rule.resource)) return { lists: [] };
  return { lists: [rule.namespace || '*'] };
}

const SPEC = {
  // The richest spec each kind's customize reads (as test/operators/customize-per-parent.test.ts).
  size: 3,
  version: '8.0',
  TLS: { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'etcd-client' } },
  etcdEndpoints: ['http://x-client:2379'],
  clusterName: 'x',
  selector: { matchLabels: { app: 'web' } },
  backup: { clusterName: 'x' },
  storage: { size: '1Gi', storageClassName: 'fast' },
};

/** The kinds whose answer names no namespace (docs/metacontroller.md, v1.5.20 and same-named parents). */
const SHARED = ['etcdrestore', 'pod-network-policy', 'podbuggertool-injector'];

t.test("v1.5.20 hands team-a's answer to team-b's same-named parent: refused, or within team-b alone", async (t) => {
  const refused: string[] = [];
  const shared: string[] = [];
  for (const def of operators as any[]) {
    if (!def.customize) continue;
    const { group, version, kind } = def.resource ?? def.object ?? {};
    const parentIn = (namespace: string) => ({
      apiVersion: group ? `${group}/${version}` : version,
      kind,
      metadata: { name: 'x', namespace, uid: `uid-${namespace}`, generation: 1 },
      spec: SPEC,
    });
    const answer = (namespace: string) =>
      def.customize({ controller: {}, parent: parentIn(namespace) }, {}).relatedResources as Rule[];
    const fromA = answer('team-a');
    const resolved = fromA.map((rule) => resolveV1520(rule, 'team-b'));
    for (const [i, r] of resolved.entries())
      if ('lists' in r)
        t.ok(
          r.lists.every((n) => n === 'team-b'),
          `${def.name}: ${fromA[i]!.resource} for team-b lists ${r.lists.join(',') || 'cluster-scoped objects'}`,
        );
    const refusal = resolved.find((r): r is { refused: string } => 'refused' in r);
    if (refusal) {
      refused.push(def.name);
      // The first refused rule fails the sync (L305-352 returns at the first error): the message Metacontroller logs
      // and puts in the SyncError Event of team-b's parent.
      t.match(refusal.refused, /namespace team-a differs from parent object namespace team-b/, `${def.name}: refused`);
    } else {
      shared.push(def.name);
      t.same(answer('team-b'), fromA, `${def.name}: team-b's own answer is team-a's: right for both`);
    }
  }
  t.same(shared.sort(), SHARED, 'the kinds whose answer serves every parent of its name');
  t.ok(refused.length >= 6, `refused for the other parent: ${refused.join(', ')}`);
});
