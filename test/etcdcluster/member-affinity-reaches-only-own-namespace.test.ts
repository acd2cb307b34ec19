// A member pod's required podAntiAffinity is enforced by the scheduler both ways: no pod its selector matches is
// scheduled into the topology domain the member runs in, whatever namespace that pod is in, when the term reaches
// that namespace (its `namespaces`, or a `namespaceSelector`: `{}` is every namespace). The tenant who writes an
// EtcdCluster may only create custom resources in their own namespace; metaops creates the member pods with its own
// rights. So spec.pod.affinity with a term reaching other namespaces (and a topologyKey every node shares, such as
// kubernetes.io/os) lets one tenant keep every other tenant's matching pods (all of them, with a selector such as
// "no label x") from being scheduled anywhere in the cluster while its members run. A member pod carries no pod
// (anti-)affinity term that reaches beyond the cluster's own namespace: such a spec is refused (InvalidSpec) or the
// term kept to the cluster's namespace.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const everyPod = { matchExpressions: [{ key: 'metaops-none', operator: 'DoesNotExist' }] };
const term = (extra: Record<string, unknown>) => ({
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { labelSelector: everyPod, topologyKey: 'kubernetes.io/os', ...extra },
    ],
  },
});
const cases: Array<[string, Record<string, unknown>]> = [
  ['a namespaceSelector of every namespace', term({ namespaceSelector: {} })],
  ['a namespaceSelector of another team', term({ namespaceSelector: { matchLabels: { team: 'other' } } })],
  ['another namespace by name', term({ namespaces: ['ns', 'kube-system'] })],
];

/** The pod (anti-)affinity terms of a pod's affinity that reach a namespace other than `own`. */
function reachingOut(affinity: any, own: string): unknown[] {
  const out: unknown[] = [];
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinity?.[kind];
    const terms = [
      ...(a?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
      ...(a?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((p: any) => p?.podAffinityTerm),
    ];
    for (const x of terms)
      if (x?.namespaceSelector !== undefined || (x?.namespaces ?? []).some((n: string) => n !== own)) out.push(x);
  }
  return out;
}

for (const [what, affinity] of cases) {
  t.test(`spec.pod.affinity with ${what}: no member pod carries it`, async (t) => {
    const problem = etcdValueProblem(etcdParent({ size: 3, pod: { affinity } }));
    const loop = await running({ size: 3, pod: { affinity } });
    const pods = loop.children.filter((c) => c.kind === 'Pod');
    const carrying = pods.filter((p) => reachingOut((p['spec'] as any)?.affinity, 'ns').length > 0);
    t.same(
      carrying.map((p) => p.metadata.name),
      [],
      `no member pod answered with a term reaching other namespaces (spec check: ${problem ?? 'accepted'})`,
    );
  });
}
