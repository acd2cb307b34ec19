// docs/podset.md and docs/memcached.md: "While its pods run and the policy is not observed (Metacontroller could not
// create it: its rights on networkpolicies, an admission policy, a quota; it tells the hook nothing), the status says
// so: NetworkPolicyCreated=False CreatingNetworkPolicy, then NetworkPolicyNotCreated". A refused spec (InvalidSpec:
// a GitOps typo such as a trailing space in the image) keeps the pods running and answers their policy
// (keptWithPolicies), but the status of a refused answer is the previous one (conditionsKeepingOthers): the
// NetworkPolicyCreated condition is never computed while the spec stays refused, and no resync is asked for.
// 1. Pods running, their policy never observed, spec refused for 10 minutes: nothing says the pods reach the
//    instance metadata service.
// 2. The reverse: NetworkPolicyNotCreated said, then the spec refused and the policy created: the status keeps saying
//    the pods run without it (a Warning's words, "they reach the instance metadata service") for as long as the spec
//    stays refused.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import { podset } from '../../hooks/podset/index.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { runPure } from '../../lib/operator.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const run = (hook: any, req: CompositeSyncRequest, now: Date) =>
  runPure(hook, 'sync', req, { now, settings: hook.settings({ env: {} }) }) as CompositeSyncResponse;
const created = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === 'NetworkPolicyCreated');

const KINDS = [
  ['podset', podset, { size: 2 }, { size: 2, image: 'busybox ' }],
  ['memcached', memcached, { size: 2 }, { size: 2, image: 'memcached ' }],
] as const;

/** The parent settled with its pods running, everything observed but its NetworkPolicy. */
function settled(kind: string, hook: any, spec: object) {
  const first = run(hook, request(kind as never, spec as never), at(0));
  const policy = asObserved(first.children.find((c) => c.kind === 'NetworkPolicy')!);
  const observed = first.children
    .filter((c) => c.kind !== 'NetworkPolicy')
    .map((c) =>
      asObserved(
        c,
        c.kind === 'Pod' ? readyPod : c.kind === 'Deployment' ? { replicas: 2, readyReplicas: 2 } : undefined,
      ),
    );
  return { first, policy, observed };
}

for (const [kind, hook, spec, bad] of KINDS) {
  t.test(`${kind}: refused for 10 minutes, pods running without their policy`, async (t) => {
    const { first, policy, observed } = settled(kind, hook, spec);
    // Settled with its policy; then the spec is refused and the policy deleted (by hand, a namespace clean-up).
    const step0 = request(kind, spec, { children: objectMap([...observed, policy as KubeObject]) });
    step0.parent.status = first.status as never;
    let status: any = run(hook, step0, at(5)).status;
    let res!: CompositeSyncResponse;
    for (const s of [10, 60, 130, 600]) {
      const req = request(kind, bad as never, { children: objectMap(observed) });
      req.parent.status = status;
      res = run(hook, req, at(s));
      status = res.status;
    }
    t.match(
      (status.conditions as any[]).find((c) => c.type === 'Ready'),
      { reason: 'InvalidSpec' },
    );
    t.ok(
      res.children.some((c) => c.kind === 'NetworkPolicy'),
      'the policy is answered',
    );
    t.match(
      created(res),
      { status: 'False' },
      `NetworkPolicyCreated says the pods run without it: ${JSON.stringify(status.conditions)}`,
    );
  });

  t.test(`${kind}: refused, its policy created since NetworkPolicyNotCreated was said`, async (t) => {
    const { first, policy, observed } = settled(kind, hook, spec);
    let status: any = first.status;
    for (const s of [10, 80]) {
      const req = request(kind, spec, { children: objectMap(observed) });
      req.parent.status = status;
      status = run(hook, req, at(s)).status;
    }
    t.match(created({ status } as never), { reason: 'NetworkPolicyNotCreated' }, 'said while it was absent');
    // The spec refused; the policy is created meanwhile (the quota raised, Metacontroller's rights fixed).
    const req = request(kind, bad as never, { children: objectMap([...observed, policy as KubeObject]) });
    req.parent.status = status;
    const res = run(hook, req, at(200));
    t.notMatch(
      created(res),
      { status: 'False' },
      `the policy is observed: nothing says the pods run without it (${JSON.stringify(created(res))})`,
    );
  });
}
