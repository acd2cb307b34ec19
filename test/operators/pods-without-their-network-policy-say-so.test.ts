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

/** What the first answer made, as observed once created: everything but its NetworkPolicy (refused), pods Ready. */
const createdButThePolicy = (first: CompositeSyncResponse) =>
  first.children
    .filter((c) => c.kind !== 'NetworkPolicy')
    .map((c) =>
      asObserved(
        c,
        c.kind === 'Pod' ? readyPod : c.kind === 'Deployment' ? { replicas: 2, readyReplicas: 2 } : undefined,
      ),
    );

for (const [kind, hook, spec] of [
  ['podset', podset, { size: 2 }],
  ['memcached', memcached, { size: 2 }],
] as const) {
  t.test(`${kind}: pods running 10 minutes without their NetworkPolicy say so`, async (t) => {
    const first = run(hook, request(kind, spec), at(0));
    // Everything is created but the NetworkPolicy, which the API server refuses.
    const observed = createdButThePolicy(first);
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

for (const [kind, hook, spec] of [
  ['podset', podset, { size: 2 }],
  ['memcached', memcached, { size: 2 }],
] as const) {
  t.test(`${kind}: CreatingNetworkPolicy, then NetworkPolicyNotCreated 60 s after it was first missed`, async (t) => {
    const first = run(hook, request(kind, spec), at(0));
    const observed = createdButThePolicy(first);
    const step = (status: unknown, s: number) => {
      const req = request(kind, spec, { children: objectMap(observed) });
      req.parent.status = status as never;
      return run(hook, req, at(s));
    };
    const created = (res: CompositeSyncResponse) =>
      ((res.status as any).conditions as any[]).find((c) => c.type === 'NetworkPolicyCreated');
    const a = step(first.status, 10);
    t.match(created(a), { status: 'False', reason: 'CreatingNetworkPolicy' });
    t.equal(a.resyncAfterSeconds, 60, 'looks again to say whether it was created');
    const b = step(a.status, 69);
    t.match(created(b), { reason: 'CreatingNetworkPolicy' }, 'not yet 60 s since it was first missed');
    const c = step(b.status, 70);
    t.match(created(c), { status: 'False', reason: 'NetworkPolicyNotCreated' });
    t.equal(c.resyncAfterSeconds, undefined, 'said: nothing more to look at');
    t.same(step(c.status, 600).status, c.status, 'at rest while it stays absent');
    // Created at last: said no more.
    const req = request(kind, spec, {
      children: objectMap([...observed, asObserved(c.children.find((x) => x.kind === 'NetworkPolicy')!)]),
    });
    req.parent.status = c.status as never;
    t.equal(created(run(hook, req, at(700))), undefined);
  });
}

for (const [kind, hook, spec, suffix] of [
  ['podset', podset, { size: 2 }, '-podset'],
  ['memcached', memcached, { size: 2 }, '-memcached'],
] as const) {
  t.test(`${kind}: its policy's name another owner's: held says why, NetworkPolicyCreated says nothing`, async (t) => {
    const first = run(hook, request(kind, spec), at(0));
    const observed = createdButThePolicy(first);
    const parent = request(kind, spec).parent;
    const admins = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: `${parent.metadata.name}${suffix}`, namespace: parent.metadata.namespace, uid: 'uid-admins' },
      spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] },
    };
    const req = request(kind, spec, { children: objectMap(observed), related: objectMap([admins as never]) });
    req.parent.status = first.status as never;
    const res = run(hook, req, at(10));
    const conditions = (res.status as any).conditions as any[];
    t.match(
      conditions.find((c) => c.type === 'Ready'),
      { status: 'False', reason: 'NetworkPolicyNameTaken' },
    );
    t.equal(
      conditions.find((c) => c.type === 'NetworkPolicyCreated'),
      undefined,
    );
    t.notOk(
      res.children.some((c) => c.kind === 'NetworkPolicy'),
      'the admin’s policy is not taken',
    );
  });
}
