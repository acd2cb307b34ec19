// Taints are how a cluster keeps nodes to one tenant (`dedicated=team-b:NoSchedule` on team B's pool) or to the
// control plane (`node-role.kubernetes.io/control-plane:NoSchedule`): a pod lands there only if it tolerates the
// taint. A tenant who may only create custom resources in its namespace (issue 29) makes no pod, so no toleration of
// its own; but an EtcdCluster's spec.pod.tolerations is copied into every member pod, which Metacontroller creates
// with its own rights, and spec.pod.nodeSelector (or affinity) picks the nodes. The hook checks only that each
// toleration is well formed (lib/values.ts tolerationsProblem): `{operator: Exists}` tolerates every taint. So
// tenant A's members, running A's own image, are placed on B's dedicated nodes (taking their capacity from B's pods)
// or on the control plane; and a Ready member there is held by its PodDisruptionBudget (size 1: minAvailable 1),
// so B's node cannot be drained (docs/operating.md "the nodes (drains)": by design for the tenant's own nodes).
//
// Must hold: no member pod metaops answers tolerates a taint that keeps nodes to another tenant or to the control
// plane (the spec refused, or the toleration left out), unless the server's settings allow it.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

/** Whether a toleration tolerates a taint, as the scheduler reads it (v1 Toleration.ToleratesTaint). */
function tolerates(tl: any, taint: { key: string; value: string; effect: string }): boolean {
  if (tl?.effect && tl.effect !== taint.effect) return false;
  if (tl?.key && tl.key !== taint.key) return false;
  if (tl?.operator === 'Exists') return true;
  return (tl?.operator ?? 'Equal') === 'Equal' && (tl?.value ?? '') === taint.value && !!tl?.key;
}

const TAINTS = [
  { what: "team B's dedicated nodes", taint: { key: 'dedicated', value: 'team-b', effect: 'NoSchedule' } },
  {
    what: 'the control plane',
    taint: { key: 'node-role.kubernetes.io/control-plane', value: '', effect: 'NoSchedule' },
  },
];

const cases: Array<[string, Record<string, unknown>]> = [
  [
    'every taint ({operator: Exists})',
    { tolerations: [{ operator: 'Exists' }], nodeSelector: { dedicated: 'team-b' } },
  ],
  [
    "team B's taint by key and value",
    {
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'team-b', effect: 'NoSchedule' }],
      nodeSelector: { dedicated: 'team-b' },
    },
  ],
  [
    "the control plane's taint",
    {
      tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
      nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
    },
  ],
];

for (const [what, pod] of cases) {
  t.test(`spec.pod.tolerations of ${what}: no member pod tolerates another's nodes`, async (t) => {
    const spec = { size: 1, repository: 'registry.tenant-a.example/exfil', version: '3.5.0', pod };
    const problem = etcdValueProblem(etcdParent(spec));
    const loop = await running(spec);
    const pods = loop.children.filter((c) => c.kind === 'Pod');
    t.ok(pods.length > 0, `member pods answered (${pods.map((p) => p.metadata.name).join(', ')})`);
    const held = loop.children.filter((c) => c.kind === 'PodDisruptionBudget');
    t.comment(`PodDisruptionBudgets: ${JSON.stringify(held.map((p) => p['spec']))}`);
    const crossing: string[] = [];
    for (const p of pods)
      for (const { what: whose, taint } of TAINTS)
        if ((((p['spec'] as any)?.tolerations ?? []) as unknown[]).some((tl) => tolerates(tl, taint)))
          crossing.push(`${p.metadata.name} tolerates ${whose} (${taint.key}=${taint.value}:${taint.effect})`);
    t.same(crossing, [], `no member pod tolerates another's nodes (spec check: ${problem ?? 'accepted'})`);
  });
}
