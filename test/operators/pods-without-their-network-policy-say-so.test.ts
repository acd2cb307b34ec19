// PodSet and Memcached answer a NetworkPolicy for their pods (lib/network-policy.ts) that keeps the tenant's image from
// the instance metadata service. Metacontroller creates it and tells the hook nothing when it cannot (a ResourceQuota
// on count/networkpolicies.networking.k8s.io, an admission webhook refusing it): the pods are made and run without it.
// As EtcdCluster says it of its members (NetworkPolicyCreated=False NetworkPolicyNotCreated and a Warning, ec05b80),
// a PodSet or Memcached whose pods have run for minutes while their policy is never observed must say so in its status.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import { podset } from '../../hooks/podset/index.js';
import type { CompositeSyncRequest, CompositeSyncResponse } from '../../lib/metacontroller.js';
import { runPure } from '../../lib/operator.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const run = (hook: any, req: CompositeSyncRequest, now: Date) =>
  runPure(hook, 'sync', req, { now, settings: hook.settings({ env: {} }) }) as CompositeSyncResponse;
const said = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as any[]).filter((c) => /NetworkPolicy/.test(`${c.type} ${c.reason} ${c.message}`));

for (const [kind, hook, spec] of [
  ['podset', podset, { size: 2 }],
  ['memcached', memcached, { size: 2 }],
] as const) {
  t.test(`${kind}: pods running 10 minutes without their NetworkPolicy say so`, async (t) => {
    const first = run(hook, request(kind, spec), at(0));
    // Everything is created but the NetworkPolicy, which the API server refuses.
    const observed = first.children
      .filter((c) => c.kind !== 'NetworkPolicy')
      .map((c) =>
        asObserved(
          c,
          c.kind === 'Pod' ? readyPod : c.kind === 'Deployment' ? { replicas: 2, readyReplicas: 2 } : undefined,
        ),
      );
    let status = first.status;
    let res = first;
    for (const s of [10, 60, 600]) {
      const req = request(kind, spec, { children: objectMap(observed) });
      req.parent.status = status as never;
      res = run(hook, req, at(s));
      status = res.status;
    }
    t.ok(
      res.children.some((c) => c.kind === 'NetworkPolicy'),
      'the policy is still answered',
    );
    t.not(
      said(res).length,
      0,
      `a condition says the policy is missing: ${JSON.stringify((res.status as any).conditions)}`,
    );
  });
}
