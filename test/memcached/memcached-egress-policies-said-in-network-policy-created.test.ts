// What a running Memcached's NetworkPolicyCreated condition says where the namespace's own egress policies select some
// of its pods (hooks/memcached/sync.ts policyCondition, and the children its sync answers meanwhile):
//
// - its complement policy (`<name>-memcached-egress-0`) not observed while its pods run: CreatingNetworkPolicy, naming
//   it and the Memcached's running pods; `<name>-memcached` observed from before kept until the complement is
//   observed, then dropped (its pods never left without either);
// - the setting off (METAOPS_WORKLOAD_NETWORK_POLICY=false): no policy, and nothing said about the namespace's;
// - the namespace's selectors past what metaops reads exactly (more than 4 complement selectors): `<name>-memcached`
//   selects every pod, and once it is observed the condition says the doubt (NamespaceEgressInDoubt), naming it.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { adminEgress } from '../fixtures/egress-policies.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';
const SPEC = { size: 1, image: 'memcached:1.6' };
const RUNNING = { replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1 };

const policies = (res: CompositeSyncResponse) => res.children.filter((c) => c.kind === 'NetworkPolicy') as any[];
const policyNames = (res: CompositeSyncResponse) =>
  policies(res)
    .map((c) => c.metadata.name)
    .sort();
const created = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === 'NetworkPolicyCreated');

/** A Memcached whose running pods carry `labels` besides its template's, beside the admin's egress `admins`. */
function beside(labels: Record<string, string>, admins: (ns: string) => any[], status?: any) {
  const base = request('memcached', SPEC);
  if (status) base.parent.status = status;
  const ns = base.parent.metadata.namespace!;
  const name = base.parent.metadata.name!;
  const related = objectMap(admins(ns), 'v1', [NP]);
  const first: any = memcachedSync({ ...base, related }, FIXED_NOW);
  const deployment = structuredClone(first.children.find((c: any) => c.kind === 'Deployment'));
  Object.assign(deployment.spec.template.metadata.labels, labels);
  const running = asObserved(deployment, RUNNING);
  const service = asObserved(first.children.find((c: any) => c.kind === 'Service'));
  const sync = (children: any[], settings?: any) =>
    memcachedSync({ ...base, children: objectMap([running, service, ...children]), related }, FIXED_NOW, settings);
  // `<name>-memcached` as the sync answers it without the namespace's policies.
  const main = policies(memcachedSync({ ...base, children: objectMap([running, service]) }, FIXED_NOW))[0];
  return { name, sync, main };
}

const OLD = (ns: string) => [adminEgress('old-pods', ns, { matchLabels: { tier: 'old' } })];

t.test('a running Memcached whose complement policy is not observed says its pods run without it', async (t) => {
  const { name, sync } = beside({ tier: 'old' }, OLD);
  const res = sync([]);
  t.same(policyNames(res), [`${name}-memcached-egress-0`], 'the complement answered');
  const cond = created(res);
  t.match(cond, { status: 'False', reason: 'CreatingNetworkPolicy' }, 'not observed yet: said, not governed');
  t.match(cond?.message, `NetworkPolicy ${name}-memcached-egress-0`, 'the complement named');
  t.match(cond?.message, `1 pod(s) of Deployment ${name} run the spec's image without it`, 'its running pods told');
  t.ok((res as any).resyncAfterSeconds > 0, 'looked at again until it is observed');
});

t.test('a complement policy still not observed 60 s on: not created, the Memcached named for its events', async (t) => {
  const since = new Date(FIXED_NOW.getTime() - 120_000).toISOString();
  const waiting = {
    type: 'NetworkPolicyCreated',
    status: 'False',
    reason: 'CreatingNetworkPolicy',
    lastTransitionTime: since,
  };
  const { name, sync } = beside({ tier: 'old' }, OLD, { conditions: [waiting] });
  const cond = created(sync([]));
  t.match(cond, { status: 'False', reason: 'NetworkPolicyNotCreated' });
  t.match(cond?.message, `NetworkPolicy ${name}-memcached-egress-0 has not been created`);
  t.match(cond?.message, 'see the SyncError event on this Memcached', 'where to look');
});

t.test("a running Memcached's own policy is kept until the complement replacing it is observed", async (t) => {
  const { name, sync, main } = beside({ tier: 'old' }, OLD);
  const before = sync([asObserved(main)]);
  t.same(
    policyNames(before),
    [`${name}-memcached`, `${name}-memcached-egress-0`].sort(),
    'both answered: no pod left without a policy keeping the metadata service out',
  );
  const complement = policies(before).filter((p) => p.metadata.name !== `${name}-memcached`);
  const after = sync([asObserved(main), ...complement.map((c) => asObserved(c))]);
  t.same(policyNames(after), [`${name}-memcached-egress-0`], 'dropped once the complement is observed');
  t.match(created(after), { status: 'True', reason: 'NamespaceGovernsEgress' });
});

t.test('the setting off: a running Memcached beside a namespace egress policy says nothing of it', async (t) => {
  const { sync } = beside({ tier: 'old' }, OLD);
  const res = sync([], { workloadNetworkPolicy: false });
  t.same(policyNames(res), [], 'no policy');
  t.notOk(created(res), 'no NetworkPolicyCreated: metaops makes none, and says nothing of the namespace');
});

t.test('namespace selectors past what metaops reads: <name>-memcached selects every pod, the doubt said', async (t) => {
  const { name, sync } = beside({ a: '1', b: '1' }, (ns) => [
    adminEgress('p1', ns, { matchLabels: { a: '1', b: '1' } }),
    adminEgress('p2', ns, { matchLabels: { c: '1', d: '1' } }),
    adminEgress('p3', ns, { matchLabels: { e: '1', f: '1' } }),
  ]);
  const res = sync([]);
  t.same(policyNames(res), [`${name}-memcached`], '8 complement selectors exceed 4: its own policy');
  t.match(created(res), { status: 'False', reason: 'CreatingNetworkPolicy' }, 'not observed yet: its pods without it');
  const settled = sync(policies(res).map((p) => asObserved(p)));
  const cond = created(settled);
  t.match(cond, { status: 'True', reason: 'NamespaceEgressInDoubt' }, 'observed: the doubt said');
  t.match(cond?.message, `NetworkPolicy ${name}-memcached selects every pod for egress`, 'its policy named');
  t.match(cond?.message, /more than 4 selectors/, 'why');
});
