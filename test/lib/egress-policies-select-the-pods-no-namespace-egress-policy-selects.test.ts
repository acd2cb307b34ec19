// Where the namespace's own egress policies select some of a parent's pods, metaops answers egress policies of its
// own for exactly the others (lib/network-policy.ts egressComplement, egressComplementPolicies): the complement of a
// selector is the union of its requirements negated (In <-> NotIn, Exists <-> DoesNotExist, matchLabels k=v as
// k NotIn [v]), one policy per term, and over several policies the cross product of those unions.
//
// Must hold, for every pod the parent may have (its selector labels and any of the labels the namespace's selectors
// name): it is selected for egress either by a namespace policy (which alone then decides its egress: no policy of
// metaops' selects it) or by a policy of metaops' that keeps the metadata services out; never neither. Past the
// bound (4 selectors, 64 values) or with a selector metaops cannot read exactly, metaops' own policy selects every
// pod (the metadata services kept out) and the status says it is in doubt.
import t from 'tap';
import {
  egressComplement,
  METADATA_V4,
  negatedRequirement,
  selectorRequirements,
  type Requirement,
} from '../../lib/index.js';
import { podset } from '../../hooks/podset/index.js';
import { runHook } from '../../lib/operator.js';
import { adminEgress, forEgress } from '../fixtures/egress-policies.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { selectorSelects } from '../fixtures/label-selector.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';

const selects = selectorSelects;

/** Every combination of these labels' values (absent among them), on top of `base`. */
function combinations(base: Record<string, string>, values: Record<string, string[]>): Array<Record<string, string>> {
  let out: Array<Record<string, string>> = [{ ...base }];
  for (const [key, vs] of Object.entries(values))
    out = out.flatMap((labels) => [labels, ...vs.map((v) => ({ ...labels, [key]: v }))]);
  return out;
}

/**
 * The PodSet's answer beside the admin's policies once its pods are observed carrying every combination of `values`
 * (labels another writer added to them: `kubectl label pod`), and those label sets.
 */
function answered(policies: (ns: string) => any[], values: Record<string, string[]> = {}) {
  const base = request('podset', { size: 2, image: 'curlimages/curl:8.10.1', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const admins = policies(ns);
  const related = objectMap(admins, 'v1', [NP]);
  const first: any = podsetSync({ ...base, related }, FIXED_NOW);
  const pod = (first.children as any[]).find((c) => c.kind === 'Pod');
  const sets = combinations(pod.metadata.labels, values);
  const pods = sets.map((labels, i) => ({
    ...pod,
    metadata: { ...pod.metadata, name: `podset-sample-${i}`, labels },
    status: { phase: 'Running' },
  }));
  const res: any = podsetSync({ ...base, children: objectMap(pods), related }, FIXED_NOW);
  const ours = (res.children as any[]).filter((c) => c.kind === 'NetworkPolicy');
  // The next sync, with its policies observed too.
  const settled: any = podsetSync({ ...base, children: objectMap([...pods, ...ours]), related }, FIXED_NOW);
  return { res, settled, sets, ours, admins };
}

/** Checks every label set: selected by exactly one side, and metaops' side keeps every metadata address out. */
function exact(t: any, sets: Array<Record<string, string>>, ours: any[], admins: any[]) {
  let wrong = 0;
  for (const labels of sets) {
    const byAdmin = admins.filter((p) => forEgress(p) && selects(p.spec.podSelector, labels));
    const byUs = ours.filter((p) => forEgress(p) && selects(p.spec.podSelector, labels));
    const ok =
      byAdmin.length > 0 !== byUs.length > 0 &&
      byUs.every((p) => METADATA_V4.every((a) => p.spec.egress[0].to[0].ipBlock.except.includes(a)));
    if (!ok) {
      wrong++;
      t.fail(`${JSON.stringify(labels)}: admin ${byAdmin.length}, metaops ${byUs.map((p) => p.metadata.name)}`);
    }
  }
  t.equal(wrong, 0, `each of ${sets.length} label sets selected for egress by exactly one side`);
}

t.test('a complement term per requirement: matchLabels of two keys', async (t) => {
  const { sets, ours, admins, res, settled } = answered(
    (ns) => [adminEgress('frontend-a', ns, { matchLabels: { tier: 'frontend', team: 'a' } })],
    { tier: ['frontend', 'backend'], team: ['a', 'b'] },
  );
  t.same(
    ours.map((p) => p.metadata.name),
    ['podset-sample-podset-egress-0', 'podset-sample-podset-egress-1'],
    'two policies of its own (tier NotIn [frontend], team NotIn [a]), no <name>-podset',
  );
  exact(t, sets, ours, admins);
  const cond = res.status.conditions.find((c: any) => c.type === 'NetworkPolicyCreated');
  t.equal(cond?.reason, 'CreatingNetworkPolicy', 'pods run, its policies not observed yet: said');
  const settledCond = settled.status.conditions.find((c: any) => c.type === 'NetworkPolicyCreated');
  t.equal(settledCond?.reason, 'NamespaceGovernsEgress', 'once observed: the namespace governs some of them');
  t.equal(settledCond?.status, 'True');
  t.match(settledCond?.message, /podset-sample-podset-egress-0, podset-sample-podset-egress-1/);
});

t.test('the cross product over several policies, expressions of every operator', async (t) => {
  const { sets, ours, admins } = answered(
    (ns) => [
      adminEgress('in', ns, { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }),
      adminEgress('exists', ns, {
        matchExpressions: [
          { key: 'debug', operator: 'Exists' },
          { key: 'team', operator: 'NotIn', values: ['x'] },
        ],
      }),
      adminEgress('absent', ns, { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }),
      // Selects none of the PodSet's pods (another instance): no term.
      adminEgress('other', ns, { matchLabels: { 'app.kubernetes.io/instance': 'someone-else' } }),
    ],
    { tier: ['a', 'b', 'c'], debug: ['1'], team: ['x', 'y'], zone: ['z'] },
  );
  t.equal(ours.length, 2, 'tier NotIn [a b] AND (debug DoesNotExist OR team In [x]) AND zone Exists: two selectors');
  exact(t, sets, ours, admins);
});

t.test('a policy selecting every pod of the PodSet leaves no complement', async (t) => {
  const { ours, res } = answered((ns) => [
    adminEgress('all', ns, {}),
    adminEgress('tier', ns, { matchLabels: { tier: 'frontend' } }),
  ]);
  t.same(ours, [], 'no policy of its own: the namespace decides every pod');
  t.ok(
    res.children.some((c: any) => c.kind === 'Pod'),
    'pods still made',
  );
});

t.test('past the bound: every pod keeps metaops policy, and the status says why', async (t) => {
  const { ours, settled } = answered(
    (ns) => [
      adminEgress('p1', ns, { matchLabels: { a: '1', b: '1' } }),
      adminEgress('p2', ns, { matchLabels: { c: '1', d: '1' } }),
      adminEgress('p3', ns, { matchLabels: { e: '1', f: '1' } }),
    ],
    { a: ['1'], b: ['1'] },
  );
  t.same(
    ours.map((p) => p.metadata.name),
    ['podset-sample-podset'],
    '8 selectors (2 x 2 x 2) exceed 4: <name>-podset selects every pod',
  );
  t.same(ours[0].spec.podSelector, {
    matchLabels: { 'app.kubernetes.io/name': 'podset', 'app.kubernetes.io/instance': 'podset-sample' },
  });
  const cond = settled.status.conditions.find((c: any) => c.type === 'NetworkPolicyCreated');
  t.equal(cond?.reason, 'NamespaceEgressInDoubt', 'once its policy is observed, the status names the doubt');
  t.equal(cond?.status, 'True');
  t.match(cond?.message, /more than 4 selectors/);
});

t.test('the pieces: requirements read, negated, and the bound', async (t) => {
  t.same(selectorRequirements({ matchLabels: { k: 'v' } }), [{ key: 'k', operator: 'In', values: ['v'] }]);
  t.equal(selectorRequirements({ matchExpressions: [{ key: 'k', operator: 'Gt', values: ['1'] }] }), undefined);
  t.equal(
    selectorRequirements({ matchExpressions: [{ key: 'k', operator: 'In', values: Array(300).fill('x') }] }),
    undefined,
    'more values than are read: doubt',
  );
  const pairs: Array<[Requirement, Requirement]> = [
    [
      { key: 'k', operator: 'In', values: ['v'] },
      { key: 'k', operator: 'NotIn', values: ['v'] },
    ],
    [
      { key: 'k', operator: 'Exists' },
      { key: 'k', operator: 'DoesNotExist' },
    ],
  ];
  for (const [a, b] of pairs) {
    t.same(negatedRequirement(a), b);
    t.same(negatedRequirement(b), a);
  }
  const wide = {
    metadata: { name: 'wide' },
    spec: { policyTypes: ['Egress'], podSelector: { matchExpressions: [{ key: 'k', operator: 'In', values: ['a'] }] } },
  };
  t.same(egressComplement([{ name: 'wide', policy: wide }], { k: 'b' }), [[]], 'contradicted by the fixed labels');
  t.same(egressComplement([{ name: 'wide', policy: wide }], { k: 'a' }), [], 'satisfied by them: no complement');
  t.match(
    egressComplement([{ name: 'x', policy: { spec: { policyTypes: ['Sideways'] } } }], {}),
    /could not be read/,
    'unreadable directions: doubt',
  );
});

t.test('every metadata address the docs name is kept out', async (t) => {
  t.same([...METADATA_V4], ['169.254.169.254/32', '168.63.129.16/32', '169.254.0.23/32']);
});

t.test('a PodSet being deleted keeps its complement policies while its pods remain', async (t) => {
  const { res, ours } = answered((ns) => [adminEgress('frontend', ns, { matchLabels: { tier: 'frontend' } })], {
    tier: ['frontend'],
  });
  t.same(
    ours.map((p) => p.metadata.name),
    ['podset-sample-podset-egress-0'],
    'tier NotIn [frontend]',
  );
  const pods = (res.children as any[]).filter((c) => c.kind === 'Pod');
  const base = request('podset', { size: 2, image: 'curlimages/curl:8.10.1', command: ['sleep', '3600'] });
  const deleted = new Date(FIXED_NOW.getTime() - 10_000).toISOString();
  const parent = { ...base.parent, metadata: { ...base.parent.metadata, deletionTimestamp: deleted } };
  const req = { ...base, parent, children: objectMap([...pods, ...ours]) };
  const kept: any = await runHook(podset as any, 'finalize', req, { now: FIXED_NOW });
  t.same(
    kept.children.map((c: any) => c.metadata.name),
    ['podset-sample-podset-egress-0'],
    'pods still observed: the complement policy answered, as stored',
  );
  t.same(kept.children[0].spec, ours[0].spec);
  t.equal(kept.finalized, false, 'not released while they run');
  const gone: any = await runHook(podset as any, 'finalize', { ...req, children: objectMap(ours) }, { now: FIXED_NOW });
  t.same(gone.children, [], 'no pod left: released');
  t.equal(gone.finalized, true);
});

t.test("a Memcached whose pods a namespace policy selects in part gets the others' complement", async (t) => {
  const base = request('memcached', { size: 1, image: 'memcached:1.6' });
  const ns = base.parent.metadata.namespace!;
  const related = objectMap([adminEgress('old-pods', ns, { matchLabels: { tier: 'old' } })], 'v1', [NP]);
  const first: any = memcachedSync({ ...base, related }, FIXED_NOW);
  const deployment = first.children.find((c: any) => c.kind === 'Deployment');
  // Its Deployment as observed, its pod template labelled by another writer (`tier: old`): those pods are the admin's.
  const observed = structuredClone(deployment);
  observed.spec.template.metadata.labels.tier = 'old';
  const res: any = memcachedSync({ ...base, children: objectMap([observed]), related }, FIXED_NOW);
  const ours = (res.children as any[]).filter((c) => c.kind === 'NetworkPolicy');
  t.same(
    ours.map((p) => p.metadata.name),
    [`${base.parent.metadata.name}-memcached-egress-0`],
    'no <name>-memcached: its complement instead',
  );
  const sets = [deployment.spec.template.metadata.labels, observed.spec.template.metadata.labels];
  exact(t, sets, ours, [adminEgress('old-pods', ns, { matchLabels: { tier: 'old' } })]);
});

t.test(
  'a Memcached whose pods run beside a namespace egress policy says which of its policies select the others',
  async (t) => {
    const base = request('memcached', { size: 1, image: 'memcached:1.6' });
    const ns = base.parent.metadata.namespace!;
    const name = base.parent.metadata.name!;
    const related = objectMap([adminEgress('old-pods', ns, { matchLabels: { tier: 'old' } })], 'v1', [NP]);
    const first: any = memcachedSync({ ...base, related }, FIXED_NOW);
    const observed = structuredClone(first.children.find((c: any) => c.kind === 'Deployment'));
    observed.spec.template.metadata.labels.tier = 'old';
    observed.status = { replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1 };
    const res: any = memcachedSync({ ...base, children: objectMap([observed]), related }, FIXED_NOW);
    const complement = (res.children as any[]).filter((c) => c.kind === 'NetworkPolicy');
    const settled: any = memcachedSync({ ...base, children: objectMap([observed, ...complement]), related }, FIXED_NOW);
    const created = (settled.status.conditions as any[]).find((c) => c.type === 'NetworkPolicyCreated');
    t.match(created, { status: 'True', reason: 'NamespaceGovernsEgress' });
    t.match(created.message, `select(s) some of these pods for egress: no NetworkPolicy ${name}-memcached is made`);
    t.match(created.message, `selected by NetworkPolicy ${name}-memcached-egress-0, which keep(s) them`);
    const off: any = memcachedSync({ ...base, children: objectMap([observed]), related }, FIXED_NOW, {
      workloadNetworkPolicy: false,
    });
    t.same(
      (off.children as any[]).filter((c) => c.kind === 'NetworkPolicy'),
      [],
      'the setting off: no policy of its own, no complement',
    );
  },
);
