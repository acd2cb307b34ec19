// PodSet and Memcached pods run the tenant's image (and a PodSet's command) and now get a NetworkPolicy child
// (<name>-podset, <name>-memcached: lib/network-policy.ts) that keeps them from the instance metadata service (the
// node's role, which every tenant's pods on that node share). Metacontroller creates each child on its own and tells
// the hook nothing when a create fails: a Metacontroller installed with narrower rights than its shipped ClusterRole,
// an admission policy refusing tenants' NetworkPolicies, or a quota on networkpolicies in the namespace (which tenant
// A fills with its own parents' policies: each EtcdCluster, Memcached and PodSet makes one). The EtcdCluster says so
// (NetworkPolicyCreated=False, test/etcdcluster/members-never-run-silently-without-their-network-policy.test.ts); a
// PodSet or Memcached keeps its pods running, sync after sync, with nothing in its status: its Ready says all is well
// while the tenant's code reaches 169.254.169.254.
//
// Must hold (as for EtcdCluster): while the pods' NetworkPolicy is not observed, the hook either makes no pods or says
// so in the status (a condition naming the NetworkPolicy), so that the pods never run silently without it.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const told = (status: any) =>
  ((status?.conditions ?? []) as any[]).some((c) => /NetworkPolicy/.test(`${c.reason} ${c.message}`));
const conditionsText = (status: any) =>
  ((status?.conditions ?? []) as any[]).map((c) => `${c.type}=${c.status} ${c.reason}`).join('; ');

t.test('a PodSet whose NetworkPolicy is never created does not run its pods silently', async (t) => {
  const req = request('podset', { size: 2, image: 'curlimages/curl:8.10.1', command: ['sleep', '3600'] });
  let res: any;
  for (let i = 0; i < 6; i++) {
    res = podsetSync(req, FIXED_NOW);
    // Metacontroller made the pods (they run) but not the policy (its create is refused): never observed.
    const observed = (res.children as KubeObject[])
      .filter((c) => c.kind !== 'NetworkPolicy')
      .map((c) => asObserved(c, c.kind === 'Pod' ? readyPod : undefined));
    req.children = objectMap(observed);
    req.parent.status = res.status;
  }
  const pods = (res.children as KubeObject[]).filter((c) => c.kind === 'Pod').map((p) => p.metadata.name);
  t.ok(
    pods.length === 0 || told(res.status),
    `pods ${pods.join(', ')} run without their policy (podset-sample-podset); conditions: ${conditionsText(res.status)}`,
  );
});

t.test('a Memcached whose NetworkPolicy is never created does not run its pods silently', async (t) => {
  const req = request('memcached', { size: 2, image: 'attacker.example/any:1' });
  let res: any;
  for (let i = 0; i < 6; i++) {
    res = memcachedSync(req, FIXED_NOW);
    const observed = (res.children as KubeObject[])
      .filter((c) => c.kind !== 'NetworkPolicy')
      .map((c) =>
        c.kind === 'Deployment'
          ? asObserved(c, {
              observedGeneration: 1,
              replicas: 2,
              readyReplicas: 2,
              availableReplicas: 2,
              updatedReplicas: 2,
            })
          : asObserved(c),
      );
    req.children = objectMap(observed);
    req.parent.status = res.status;
  }
  const dep = (res.children as KubeObject[]).find((c) => c.kind === 'Deployment');
  t.ok(
    !dep || told(res.status),
    `its Deployment runs the tenant image without the policy; conditions: ${conditionsText(res.status)}`,
  );
});
