// metaops' complement egress policies are named `<policy>-egress-<i>` (lib/network-policy.ts complementPolicyName).
// A policy of the namespace's under one of those names (an admin's deny-all egress policy `<name>-podset-egress-0`,
// which a tenant names its PodSet after) counts as the namespace's unless it is the parent's own (labelled
// managed-by metaops and controlled by the parent: lib ownPolicy, as `<cluster>-restore-check`): it governs, and
// metaops' `<name>-podset` does not widen it. The same for a Memcached (`<name>-memcached-egress-<i>`).
import t from 'tap';
import { adminEgress, forEgress } from '../fixtures/egress-policies.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { selectorSelects } from '../fixtures/label-selector.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';

const selects = selectorSelects;

/** The PodSet `podset-sample` synced beside the admin's policies, its pods observed with each of `labelSets` added. */
function answered(policies: (ns: string) => any[], extra: Array<Record<string, string>>) {
  const base = request('podset', { size: 2, image: 'curlimages/curl:8.10.1', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const admins = policies(ns);
  const related = objectMap(admins, 'v1', [NP]);
  const first: any = podsetSync({ ...base, related }, FIXED_NOW);
  const pod = (first.children as any[]).find((c) => c.kind === 'Pod');
  const sets = extra.map((e) => ({ ...pod.metadata.labels, ...e }));
  const pods = sets.map((labels, i) => ({
    ...pod,
    metadata: { ...pod.metadata, name: `podset-sample-${i}`, labels },
    status: { phase: 'Running' },
  }));
  const res: any = podsetSync({ ...base, children: objectMap(pods), related }, FIXED_NOW);
  const ours = ((res.children ?? []) as any[]).filter((c) => c.kind === 'NetworkPolicy');
  return { res, sets, ours, admins };
}

const ready = (res: any) => (res.status?.conditions ?? []).find((c: any) => c.type === 'Ready');

t.test("an admin's deny-all egress policy named `<podset>-podset-egress-0` is not widened by metaops", async (t) => {
  const { res, sets, ours, admins } = answered(
    (ns) => [adminEgress('podset-sample-podset-egress-0', ns, {}, [])],
    [{}],
  );
  const held = ready(res)?.reason === 'NetworkPolicyNameTaken';
  for (const labels of sets) {
    const byAdmin = admins.filter((p) => forEgress(p) && selects(p.spec.podSelector, labels));
    const byUs = ours.filter((p) => forEgress(p) && selects(p.spec.podSelector, labels));
    t.equal(byAdmin.length, 1, "the admin's policy selects the pod for egress (deny all)");
    t.ok(
      held || byUs.length === 0,
      `no policy of metaops' adds a way out to it (metaops answers ${byUs.map((p) => p.metadata.name)})`,
    );
  }
});

t.test(
  "an admin's deny-all egress policy named `<memcached>-memcached-egress-0` is not widened by metaops",
  async (t) => {
    const base = request('memcached', { size: 1, image: 'memcached:1.6' });
    const ns = base.parent.metadata.namespace!;
    const denyAll = adminEgress(`${base.parent.metadata.name}-memcached-egress-0`, ns, {}, []);
    const related = objectMap([denyAll], 'v1', [NP]);
    const res: any = memcachedSync({ ...base, related }, FIXED_NOW);
    const deployment = (res.children as any[]).find((c) => c.kind === 'Deployment');
    const labels = deployment.spec.template.metadata.labels;
    const held = ready(res)?.reason === 'NetworkPolicyNameTaken';
    const ours = (res.children as any[]).filter(
      (c) => c.kind === 'NetworkPolicy' && forEgress(c) && selects(c.spec.podSelector, labels),
    );
    t.ok(selects(denyAll.spec.podSelector, labels), "the admin's policy selects the pods for egress (deny all)");
    t.ok(
      held || ours.length === 0,
      `no policy of metaops' adds a way out (answered ${ours.map((p) => p.metadata.name)})`,
    );
  },
);
