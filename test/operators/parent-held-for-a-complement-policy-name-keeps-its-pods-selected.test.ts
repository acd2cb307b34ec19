// A parent whose pods the namespace's egress policies split (some selected, some not) answers metaops' complement
// policies `<policy>-egress-<i>` for the others (lib/network-policy.ts egressComplementPolicies). Where an admin's
// policy already holds one of those names (the tenant names its parent after it), the parent is held
// (NetworkPolicyNameTaken: nothing is taken from the other owner). Before, the held answer then carried no egress
// policy of metaops' at all: the pods no namespace policy selects ran selected for egress by no policy, and reached
// the instance metadata service (the node's credentials), the free names (`<name>-podset`, the other `-egress-`
// indices) left unused. Must hold for PodSet, Memcached and EtcdCluster: held, every pod is still selected for egress
// by a policy (the admin's or metaops'), none of metaops' selects a pod the namespace's policy governs (never
// widened), and the hold is still said.
import t from 'tap';
import { adminEgress, forEgress, meshedPods } from '../fixtures/egress-policies.js';
import { running } from '../fixtures/etcd-loop.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { selectorSelects } from '../fixtures/label-selector.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';

const ready = (res: any) => (res.status?.conditions ?? []).find((c: any) => c.type === 'Ready');

/** Every pod (its labels) selected for egress by some policy; metaops' never select one the admin's policy selects. */
function judge(t: any, pods: Array<{ name: string; labels: Record<string, string> }>, ours: any[], adminPolicy: any) {
  for (const pod of pods) {
    const governed = selectorSelects(adminPolicy.spec.podSelector, pod.labels);
    const byUs = ours.filter((p) => forEgress(p) && selectorSelects(p.spec.podSelector, pod.labels));
    t.ok(
      governed || byUs.length > 0,
      `${pod.name} is selected for egress by a policy (the admin's: ${governed}; metaops': ${byUs.map((p) => p.metadata.name).join(', ') || 'none'})`,
    );
    if (governed)
      t.same(
        byUs.map((p) => p.metadata.name),
        [],
        `${pod.name}: metaops does not widen the admin's policy`,
      );
  }
}

t.test('a PodSet held for `<name>-podset-egress-0` keeps its pods no namespace policy selects selected', async (t) => {
  const base = request('podset', { size: 2, image: 'curlimages/curl:8.10.1', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const name = base.parent.metadata.name!;
  const held = adminEgress(`${name}-podset-egress-0`, ns, { matchLabels: { tier: 'restricted' } });
  const related = objectMap([held], 'v1', [NP]);
  const first: any = podsetSync({ ...base, related }, FIXED_NOW);
  const template = (first.children as any[]).find((c) => c.kind === 'Pod');
  // Its pods as they run: one carries the label the admin's policy selects (kept from an earlier template).
  const pods = [{ tier: 'restricted' }, {}].map((extra, i) => ({
    ...template,
    metadata: { ...template.metadata, name: `${name}-${i}`, labels: { ...template.metadata.labels, ...extra } },
    status: { phase: 'Running' },
  }));
  const res: any = podsetSync({ ...base, children: objectMap(pods), related }, FIXED_NOW);
  t.equal(ready(res)?.reason, 'NetworkPolicyNameTaken', 'the hold is said');
  const ours = (res.children as any[]).filter((c) => c.kind === 'NetworkPolicy');
  t.notOk(
    ours.some((p) => p.metadata.name === held.metadata.name),
    "the admin's name is not answered (nothing is taken from it)",
  );
  judge(
    t,
    pods.map((p) => ({ name: p.metadata.name, labels: p.metadata.labels })),
    ours,
    held,
  );
});

t.test(
  'a Memcached held for `<name>-memcached-egress-0` keeps its pods no namespace policy selects selected',
  async (t) => {
    const base = request('memcached', { size: 2, image: 'memcached:1.6.38-alpine' });
    const ns = base.parent.metadata.namespace!;
    const name = base.parent.metadata.name!;
    const held = adminEgress(`${name}-memcached-egress-0`, ns, {
      matchLabels: { 'security.istio.io/tlsMode': 'istio' },
    });
    const first: any = memcachedSync(
      { ...base, related: { ...base.related, ...objectMap([held], 'v1', [NP]) } },
      FIXED_NOW,
    );
    const deployment = (first.children as any[]).find((c) => c.kind === 'Deployment');
    // Its pods as they run: one of them injected by a mesh (the label the admin's policy selects), one not.
    const pods = meshedPods(deployment, name, ns);
    const res: any = memcachedSync(
      {
        ...base,
        children: objectMap([asObserved(deployment, { replicas: 2, readyReplicas: 2 })]),
        related: { ...base.related, ...objectMap([held, ...(pods as any[])], 'v1', [NP]) },
      },
      FIXED_NOW,
    );
    t.equal(ready(res)?.reason, 'NetworkPolicyNameTaken', 'the hold is said');
    const ours = (res.children as any[]).filter((c) => c.kind === 'NetworkPolicy');
    judge(
      t,
      pods.map((p) => ({ name: p.metadata.name, labels: p.metadata.labels })),
      ours,
      held,
    );
  },
);

t.test(
  'an EtcdCluster held for `<name>-members-egress-0` keeps its members no namespace policy selects selected',
  async (t) => {
    // Members made with tier=frontend, then spec.pod.labels changed and the cluster scaled up: both label sets run.
    const loop = await running({ size: 3, pod: { labels: { tier: 'frontend' } } });
    loop.spec = { ...loop.spec, size: 5, pod: { labels: { tier: 'backend' } } };
    for (let i = 0; i < 12; i++) {
      await loop.step();
      for (const p of loop.pods()) loop.etcd.up.add(p);
    }
    t.equal(loop.pods().length, 5, 'five members run');
    // The admin's policy, named as the cluster's first complement policy, selects the frontend members.
    const held = adminEgress('e-members-egress-0', 'ns', { matchLabels: { tier: 'frontend' } });
    loop.related = [held];
    await loop.step();
    await loop.step();
    t.equal(ready(loop.last)?.reason, 'NetworkPolicyNameTaken', 'the hold is said');
    const pods = loop.children.filter((c: any) => c.kind === 'Pod') as any[];
    t.ok(
      pods.some((p) => p.metadata.labels?.tier === 'backend') &&
        pods.some((p) => p.metadata.labels?.tier === 'frontend'),
      'the members carry both label sets',
    );
    const ours = loop.children.filter((c: any) => c.kind === 'NetworkPolicy') as any[];
    judge(
      t,
      pods.map((p) => ({ name: p.metadata.name, labels: p.metadata.labels ?? {} })),
      ours,
      held,
    );
  },
);
