// An EtcdCluster's PodDisruptionBudget is made by metaops with Metacontroller's rights: the tenant who writes the
// EtcdCluster may only create custom resources, never a PodDisruptionBudget of its own. A budget decides for every
// eviction of the pods it selects, whoever asks: `kubectl drain` of a node, the cluster autoscaler removing a node,
// a node pool's upgrade. Nodes are shared by every tenant: a node that cannot be drained stays cordoned, its capacity
// lost to all, and an upgrade of the node pool stops at it.
//
// The budget's minAvailable is a quorum of `size` (1 for size 1), with the API server's default
// unhealthyPodEvictionPolicy (IfHealthyBudget): a pod that is not Ready may be evicted only while the budget is met.
// A member whose etcd never becomes Ready (the tenant's own image, spec.repository, exits or never answers its
// readiness probe; its pod Running, restarting) serves nothing and keeps nothing a quorum needs, yet no eviction of it
// is ever admitted: the tenant picks the nodes (spec.pod.nodeSelector kubernetes.io/hostname, affinity, tolerations)
// and one size-1 cluster per node makes every node of the cluster undrainable for as long as the EtcdCluster exists.
// A member that is not Ready does not keep its node from being drained (policy/v1 unhealthyPodEvictionPolicy
// AlwaysAllow, or a budget that does not count it).
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { running } from '../fixtures/etcd-loop.js';

/** Whether a pod is Ready (its Ready condition True), as the disruption controller counts healthy pods. */
const ready = (p: KubeObject) =>
  ((p['status'] as any)?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

/** Whether a budget's label selector selects a pod (matchLabels only: what the hook writes). */
const selects = (pdb: any, p: KubeObject) =>
  Object.entries(pdb.spec.selector?.matchLabels ?? {}).every(([k, v]) => p.metadata.labels?.[k] === v);

/**
 * Whether the API server's eviction of `pod` is admitted under `pdb` (policy/v1): the budget's status as the
 * disruption controller computes it (currentHealthy: the Ready pods it selects; desiredHealthy: minAvailable;
 * disruptionsAllowed: their difference), then the eviction's rule (kubernetes pkg/registry/core/pod/storage/eviction.go):
 * a Pending or finished pod is never held; a pod that is not Ready is evicted when unhealthyPodEvictionPolicy is
 * AlwaysAllow, else (IfHealthyBudget, the default) only while currentHealthy >= desiredHealthy; a Ready pod only while
 * disruptionsAllowed > 0.
 */
function evictionAdmitted(pdb: any, pods: KubeObject[], pod: KubeObject): boolean {
  const phase = (pod['status'] as any)?.phase;
  if (phase === 'Pending' || phase === 'Succeeded' || phase === 'Failed') return true;
  const selected = pods.filter((p) => selects(pdb, p));
  const currentHealthy = selected.filter(ready).length;
  const min = pdb.spec.minAvailable;
  const desiredHealthy =
    typeof min === 'number' ? min : Math.ceil((Number.parseInt(String(min), 10) / 100) * selected.length);
  if (!ready(pod)) {
    if (pdb.spec.unhealthyPodEvictionPolicy === 'AlwaysAllow') return true;
    return currentHealthy >= desiredHealthy;
  }
  return currentHealthy - desiredHealthy > 0;
}

/** The pod as the kubelet shows it when its etcd exits at every start: Running, not Ready, restarting. */
function crashLooping(p: KubeObject): KubeObject {
  return {
    ...p,
    status: {
      phase: 'Running',
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'False', reason: 'ContainersNotReady' },
      ],
      containerStatuses: [
        {
          name: 'etcd',
          ready: false,
          restartCount: 42,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error' } },
        },
      ],
    },
  };
}

t.test('a member pod that is not Ready can be evicted: its node can be drained', async (t) => {
  const loop = await running({ size: 1, pod: { nodeSelector: { 'kubernetes.io/hostname': 'node-7' } } });
  const pdb = loop.children.find((c) => c.kind === 'PodDisruptionBudget') as any;
  t.ok(pdb, 'the cluster has its PodDisruptionBudget');
  const pods = loop.children.filter((c) => c.kind === 'Pod').map(crashLooping);
  t.equal(pods.length, 1, 'one member pod');
  t.same(
    (pods[0]!['spec'] as any).nodeSelector,
    { 'kubernetes.io/hostname': 'node-7' },
    'on the node the tenant chose',
  );
  t.equal(
    evictionAdmitted(pdb, pods, pods[0]!),
    true,
    `the eviction of a member that is not Ready is admitted (budget ${JSON.stringify(pdb.spec)})`,
  );
});
