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
// plane: such a spec is InvalidSpec naming the field (a running cluster edited to it keeps its members as they are),
// unless the server's administrator names the taint in METAOPS_POD_TOLERATIONS. PreferNoSchedule (it only weighs)
// and the taints of a node that stopped reporting (not-ready, unreachable) are every pod's.
import t from 'tap';
import { etcdFirstSync } from '../fixtures/etcd.js';
import { podEditedThenLost, running } from '../fixtures/etcd-loop.js';

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
  [
    'a NoExecute taint after an allowed one',
    {
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
        { key: 'dedicated', operator: 'Exists' },
      ],
    },
  ],
];

function crossing(children: Array<{ kind: string; metadata: { name?: string }; [k: string]: unknown }>): string[] {
  const out: string[] = [];
  for (const p of children.filter((c) => c.kind === 'Pod'))
    for (const { what: whose, taint } of TAINTS)
      if ((((p['spec'] as any)?.tolerations ?? []) as unknown[]).some((tl) => tolerates(tl, taint)))
        out.push(`${p.metadata.name} tolerates ${whose} (${taint.key}=${taint.value}:${taint.effect})`);
  return out;
}

const sync = (spec: Record<string, unknown>, podTolerations?: string[]) =>
  etcdFirstSync(spec, podTolerations ? { podTolerations } : undefined);

const ready = (res: { status?: unknown }) =>
  ((res.status as any)?.conditions ?? []).find((c: any) => c.type === 'Ready') as Record<string, unknown> | undefined;

for (const [what, pod] of cases) {
  t.test(`spec.pod.tolerations of ${what}: InvalidSpec, no member pod tolerates another's nodes`, async (t) => {
    const spec = { size: 1, repository: 'registry.tenant-a.example/exfil', version: '3.5.0', pod };
    const res = await sync(spec);
    t.match(ready(res), {
      reason: 'InvalidSpec',
      message: /spec\.pod\.tolerations\[\d\] tolerates .*METAOPS_POD_TOLERATIONS/,
    });
    t.same(crossing(res.children), [], 'no member pod answered tolerates it');
    t.same((await running(spec)).pods(), [], 'a new cluster makes no member');
    const { loop } = await podEditedThenLost(pod, 'e-1');
    t.match(
      loop.s().conditions.find((c: any) => c.type === 'Ready'),
      { reason: 'InvalidSpec' },
    );
    t.same(loop.pods(), ['e-0', 'e-2'], 'the members kept, the lost one not made again');
    t.same(crossing(loop.children), [], "no member pod tolerates another's nodes");
  });
}

t.test('a taint the administrator names in METAOPS_POD_TOLERATIONS is tolerated; others stay refused', async (t) => {
  const pod = { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'etcd', effect: 'NoSchedule' }] };
  const allowed = await sync({ size: 1, pod }, ['dedicated']);
  t.notMatch(ready(allowed), { reason: 'InvalidSpec' });
  const member = allowed.children.find((c) => c.kind === 'Pod') as any;
  t.match(member?.spec?.tolerations, pod.tolerations, 'the member carries the toleration');
  const other = await sync({ size: 1, pod }, ['pool']);
  t.match(ready(other), { reason: 'InvalidSpec', message: /names "pool"/ });
  const any = await sync({ size: 1, pod: { tolerations: [{ operator: 'Exists' }] } }, ['*']);
  t.notMatch(ready(any), { reason: 'InvalidSpec' }, '* allows every taint');
});

t.test("PreferNoSchedule and a node that stopped reporting are every pod's to tolerate", async (t) => {
  const pod = {
    tolerations: [
      { operator: 'Exists', effect: 'PreferNoSchedule' },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 30, effect: 'NoExecute' },
    ],
  };
  const res = await sync({ size: 1, pod });
  t.notMatch(ready(res), { reason: 'InvalidSpec' });
  t.match((res.children.find((c) => c.kind === 'Pod') as any)?.spec?.tolerations, pod.tolerations);
});
