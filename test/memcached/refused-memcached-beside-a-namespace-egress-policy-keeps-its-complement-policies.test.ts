// A Memcached whose spec is refused (or whose answer is otherwise kept as observed: hooks/memcached/sync.ts kept) keeps
// its pods' NetworkPolicies as the sync answers them. Where a namespace egress policy selects some of its pods, that
// is the complement policies (`<name>-memcached-egress-<i>`, selecting the pods no namespace egress policy selects),
// not `<name>-memcached` (which would add egress to the pods the namespace's policy governs); where none does, it is
// `<name>-memcached` again and a complement policy left from before is dropped once `<name>-memcached` is observed.
//
// Must hold, with the spec refused and the Deployment kept: the complement answered while the namespace's policy selects
// some of its pods, NetworkPolicyCreated saying its pods run without the complement until it is observed; the setting
// off answers none; an observed `<name>-memcached` kept until the complement replacing it is observed, then dropped;
// a complement observed once no namespace policy governs kept until `<name>-memcached` is observed, then dropped.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { adminEgress } from '../fixtures/egress-policies.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';
const SPEC = { size: 1, image: 'memcached:1.6' };

const policyNames = (res: CompositeSyncResponse) =>
  res.children
    .filter((c) => c.kind === 'NetworkPolicy')
    .map((c) => c.metadata.name)
    .sort();
const condition = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any)?.conditions as any[] | undefined)?.find((c) => c.type === type);

/** A running Memcached whose pod template another writer labelled `tier: old`, and the admin's policy of those. */
function setting() {
  const base = request('memcached', SPEC);
  const ns = base.parent.metadata.namespace!;
  const name = base.parent.metadata.name!;
  const admin = adminEgress('old-pods', ns, { matchLabels: { tier: 'old' } });
  const related = objectMap([admin], 'v1', [NP]);
  const first: any = memcachedSync({ ...base, related }, FIXED_NOW);
  const deployment = structuredClone(first.children.find((c: any) => c.kind === 'Deployment'));
  deployment.spec.template.metadata.labels.tier = 'old';
  const running = asObserved(deployment, { replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1 });
  const service = asObserved(first.children.find((c: any) => c.kind === 'Service'));
  const answered: any = memcachedSync({ ...base, children: objectMap([running, service]), related }, FIXED_NOW);
  const complement = (answered.children as any[]).filter((c) => c.kind === 'NetworkPolicy');
  // Its policy from before the namespace's policy governed: what the sync answers without it.
  const alone: any = memcachedSync({ ...base, children: objectMap([running, service]) }, FIXED_NOW);
  const main = (alone.children as any[]).find((c) => c.kind === 'NetworkPolicy');
  /** The request with its spec refused (size -1) and these children observed. */
  const refused = (children: any[], withAdmin = true, status?: any) => {
    const req = request('memcached', { ...SPEC, size: -1 });
    if (status) req.parent.status = status;
    return { ...req, children: objectMap(children), ...(withAdmin ? { related } : {}) };
  };
  return { name, running, service, complement, main, refused };
}

t.test('a refused Memcached beside a namespace egress policy keeps its complement policy, not its own', async (t) => {
  const { name, running, service, complement, refused } = setting();
  t.same(
    complement.map((p) => p.metadata.name),
    [`${name}-memcached-egress-0`],
    'the sync answers the complement',
  );
  const res = memcachedSync(refused([running, service, ...complement.map((c) => asObserved(c))]), FIXED_NOW);
  t.equal(condition(res, 'Ready')?.reason, 'InvalidSpec', 'the spec refused');
  t.same(policyNames(res), [`${name}-memcached-egress-0`], 'its complement kept, no <name>-memcached');
  t.notOk(condition(res, 'NetworkPolicyCreated')?.status === 'False', 'nothing said missing');
});

t.test(
  'a refused Memcached whose complement policy is not observed answers it and says its pods run without it',
  async (t) => {
    const { name, running, service, refused } = setting();
    const res = memcachedSync(refused([running, service]), FIXED_NOW);
    t.same(policyNames(res), [`${name}-memcached-egress-0`], 'the complement answered while its Deployment is kept');
    const created = condition(res, 'NetworkPolicyCreated');
    t.match(created, { status: 'False', reason: 'CreatingNetworkPolicy' }, 'not observed yet: said');
    t.match(created?.message, `${name}-memcached-egress-0`, 'the complement named');
    t.match(created?.message, `pod(s) of Deployment ${name} run the spec's image without it`, 'its running pods told');
  },
);

t.test('a refused Memcached with the setting off keeps no policy beside a namespace egress policy', async (t) => {
  const { running, service, refused } = setting();
  const res = memcachedSync(refused([running, service]), FIXED_NOW, { workloadNetworkPolicy: false });
  t.same(policyNames(res), [], 'no complement, no <name>-memcached');
  t.notOk(condition(res, 'NetworkPolicyCreated'), 'nothing said');
});

t.test('a refused Memcached keeps its own policy until the complement replacing it is observed', async (t) => {
  const { name, running, service, complement, main, refused } = setting();
  const before = memcachedSync(refused([running, service, asObserved(main)]), FIXED_NOW);
  t.same(
    policyNames(before),
    [`${name}-memcached`, `${name}-memcached-egress-0`].sort(),
    'its own policy kept while the complement is not observed',
  );
  const after = memcachedSync(
    refused([running, service, asObserved(main), ...complement.map((c) => asObserved(c))]),
    FIXED_NOW,
  );
  t.same(policyNames(after), [`${name}-memcached-egress-0`], 'dropped once the complement is observed');
});

t.test('a refused Memcached no namespace policy governs any more goes back to its own policy', async (t) => {
  const { name, running, service, complement, main, refused } = setting();
  const leftOver = complement.map((c) => asObserved(c));
  const before = memcachedSync(refused([running, service, ...leftOver], false), FIXED_NOW);
  t.same(
    policyNames(before),
    [`${name}-memcached`, `${name}-memcached-egress-0`].sort(),
    '<name>-memcached answered, the complement kept until it is observed',
  );
  const after = memcachedSync(refused([running, service, ...leftOver, asObserved(main)], false), FIXED_NOW);
  t.same(policyNames(after), [`${name}-memcached`], 'the complement dropped once <name>-memcached is observed');
  t.notOk(condition(after, 'NetworkPolicyCreated')?.status === 'False', 'nothing said missing');
});

t.test('a policy a refused Memcached keeps still not observed 60 s on: not created, the Memcached named', async (t) => {
  const since = new Date(FIXED_NOW.getTime() - 120_000).toISOString();
  const status = {
    conditions: [
      { type: 'NetworkPolicyCreated', status: 'False', reason: 'CreatingNetworkPolicy', lastTransitionTime: since },
    ],
  };
  const { name, running, service, refused } = setting();
  for (const [withAdmin, policy] of [
    [true, `${name}-memcached-egress-0`],
    [false, `${name}-memcached`],
  ] as const) {
    const cond = condition(
      memcachedSync(refused([running, service], withAdmin, status), FIXED_NOW),
      'NetworkPolicyCreated',
    );
    t.match(cond, { status: 'False', reason: 'NetworkPolicyNotCreated' }, policy);
    t.match(cond?.message, `NetworkPolicy ${policy} has not been created`, policy);
    t.match(cond?.message, 'see the SyncError event on this Memcached', `${policy}: where to look`);
  }
});
