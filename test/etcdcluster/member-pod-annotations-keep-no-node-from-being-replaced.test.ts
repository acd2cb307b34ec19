// docs/operating.md "Tenants", the nodes (drains): an EtcdCluster's members must not keep a shared node from being
// drained for ever (its PodDisruptionBudget admits the eviction of a member that is not Ready:
// test/etcdcluster/member-not-ready-keeps-no-node-from-draining.test.ts). But spec.pod.annotations, copied onto every
// member pod and checked only for form, can say the same to the node autoscalers: `karpenter.sh/do-not-disrupt: "true"`
// (Karpenter never voluntarily disrupts the node the pod runs on: no consolidation, no drift or expiry replacement,
// so the node's image and Kubernetes version are never upgraded) and
// `cluster-autoscaler.kubernetes.io/safe-to-evict: "false"` (Cluster Autoscaler never removes the node). Tenant A, who
// may only create custom resources (issue 29), pins one member on each of the shared nodes its nodeSelector or
// anti-affinity reaches, and those nodes, tenant B's workloads on them included, are held on their old version and
// never scaled down, with no budget or setting of the administrator's to say so.
//
// Must hold: no member pod carries an annotation that keeps its node from being replaced or removed: such a spec is
// InvalidSpec naming the field, and no member pod carries it.
import t from 'tap';
import { etcdRefusal } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const HOLDING: Array<[string, string]> = [
  ['karpenter.sh/do-not-disrupt', 'true'],
  ['cluster-autoscaler.kubernetes.io/safe-to-evict', 'false'],
];

for (const [key, value] of HOLDING) {
  t.test(`spec.pod.annotations ${key}: ${value}: InvalidSpec, no member pod carries it`, async (t) => {
    const pod = { annotations: { [key]: value } };
    const spec = { size: 3, pod };
    t.match(await etcdRefusal(spec), /spec\.pod\.annotations/, 'refused naming the field');
    const fresh = await running(spec);
    t.same(
      fresh.children
        .filter((c) => c.kind === 'Pod' && c.metadata.annotations?.[key] === value)
        .map((p) => p.metadata.name),
      [],
      'no member pod holds its node',
    );
  });
}
