// The members' NetworkPolicy is answered beside the member pods, and Metacontroller creates each child on its own:
// where the policy's create fails (a Metacontroller installed with narrower rights than its shipped ClusterRole,
// which docs/etcdcluster.md says then "needs ... networkpolicies"; an admission policy that refuses tenants'
// NetworkPolicies; a quota on networkpolicies) the pods are made all the same and the tenant's image runs with the
// instance metadata service and open peer and metrics ports, sync after sync, and the cluster says Available with
// nothing about it. The claims are ordered so (a pod is answered only once its claim is observed); the policy is not.
//
// Must hold: while the members' NetworkPolicy is not observed, the hook either makes no new member pod or says so in
// the status (a condition naming the NetworkPolicy), so that the members never run silently without it.
import t from 'tap';
import { FakeEtcd, Loop } from '../fixtures/etcd-loop.js';

t.test('a NetworkPolicy whose create keeps failing is not silently left out', async (t) => {
  const loop = new Loop({ size: 3 }, new FakeEtcd('e'));
  for (let i = 0; i < 8; i++) {
    await loop.step();
    // Metacontroller could not create it: never observed.
    loop.children = loop.children.filter((c: any) => c.kind !== 'NetworkPolicy');
  }
  const pods = loop.pods();
  const conditions = (loop.s()?.conditions ?? []) as any[];
  const told = conditions.some((c) => /NetworkPolicy/.test(`${c.reason} ${c.message}`));
  t.ok(
    pods.length === 0 || told,
    `members ${pods.join(', ') || 'none'} run without their policy; conditions: ${conditions
      .map((c) => `${c.type}=${c.status} ${c.reason}`)
      .join('; ')}`,
  );
});
