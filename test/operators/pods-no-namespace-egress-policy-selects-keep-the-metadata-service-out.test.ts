// Tenant A (namespace `ns`, allowed only to write custom resources) reaches the cloud's instance metadata service (the
// node's credentials, shared by every tenant whose pods run on that node) from its etcd members, past the
// NetworkPolicy metaops answers to keep it out.
//
// The EtcdCluster's `<name>-members` policy leaves Egress out as soon as one of the namespace's own policies selects
// *any* member pod for egress (lib/network-policy.ts namespaceGovernance: "a direction is governed where a policy
// selects a set judged"). NetworkPolicies select pods, not parents: the members the namespace's policy does not select
// are then selected for egress by no policy at all, and Kubernetes lets them out anywhere. The member labels are the
// tenant's (`spec.pod.labels`), and running members keep the labels they were made with, so the tenant splits its
// members at will: made with `tier: frontend` (a label the namespace admin's egress policy selects), then
// `spec.pod.labels` changed and the cluster scaled up: the new members carry `tier: backend`, and nothing keeps them
// from 169.254.169.254. The status says the opposite ("they reach only what the namespace's policies allow").
//
// Must hold: every member pod is selected for egress by some policy (Kubernetes semantics: a pod no policy selects for
// egress may go anywhere), and none of the policies that select it lets it reach the metadata service; and metaops
// still never widens what the admin's policy allows the members it selects.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { selectorSelects } from '../fixtures/label-selector.js';

const METADATA = '169.254.169.254';

/** The namespace admin's egress policy for pods labelled tier=frontend: out only to 10.0.0.0/8 (their backends). */
const adminEgress = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'frontend-egress', namespace: 'ns', uid: 'uid-admin', labels: { owner: 'namespace-admin' } },
  spec: {
    podSelector: { matchLabels: { tier: 'frontend' } },
    policyTypes: ['Egress'],
    egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }],
  },
};

/** Whether `policy` selects a pod labelled `labels`, as Kubernetes reads its podSelector. */
const selects = (policy: any, labels: Record<string, string>) => selectorSelects(policy.spec.podSelector ?? {}, labels);

const forEgress = (policy: any) =>
  (policy.spec.policyTypes ?? []).includes('Egress') ||
  (!(policy.spec.policyTypes ?? []).length && (policy.spec.egress ?? []).length > 0);

/** Whether an egress rule list lets a pod reach `ip` (IPv4 /n blocks and their excepts; a peer without ipBlock: pods). */
function reaches(policy: any, ip: string): boolean {
  const toInt = (a: string) => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
  const inCidr = (cidr: string) => {
    const [base, bits] = cidr.split('/');
    if (!base!.includes('.')) return false;
    const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
    return (toInt(ip) & mask) >>> 0 === (toInt(base!) & mask) >>> 0;
  };
  return (policy.spec.egress ?? []).some((rule: any) =>
    (rule.to ?? [{ ipBlock: { cidr: '0.0.0.0/0' } }]).some(
      (peer: any) => peer.ipBlock && inCidr(peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some(inCidr),
    ),
  );
}

t.test("members the namespace's egress policy does not select are still kept from the metadata service", async (t) => {
  const loop = await running({ size: 3, pod: { labels: { tier: 'frontend' } } });
  loop.related = [adminEgress as any];
  await loop.step();
  // The tenant changes its members' labels and scales up: the new members carry the new labels.
  loop.spec = { ...loop.spec, size: 5, pod: { labels: { tier: 'backend' } } };
  for (let i = 0; i < 12; i++) {
    await loop.step();
    for (const p of loop.pods()) loop.etcd.up.add(p);
  }
  const pods = loop.children.filter((c: any) => c.kind === 'Pod') as any[];
  const tiers = Object.fromEntries(pods.map((p) => [p.metadata.name, p.metadata.labels?.tier]));
  t.ok(
    Object.values(tiers).includes('frontend') && Object.values(tiers).includes('backend'),
    `the members carry both label sets (${JSON.stringify(tiers)})`,
  );
  const policies = [...loop.children.filter((c: any) => c.kind === 'NetworkPolicy'), adminEgress] as any[];
  for (const pod of pods) {
    const egress = policies.filter((p) => forEgress(p) && selects(p, pod.metadata.labels ?? {}));
    t.ok(
      egress.length > 0,
      `${pod.metadata.name} (tier=${pod.metadata.labels?.tier}) is selected for egress by some policy (${egress.map((p) => p.metadata.name).join(', ') || 'none: it may go anywhere'})`,
    );
    t.notOk(
      egress.some((p) => reaches(p, METADATA)),
      `${pod.metadata.name}: no policy selecting it lets it reach ${METADATA}`,
    );
    if (pod.metadata.labels?.tier === 'frontend')
      t.same(
        egress.map((p) => p.metadata.name),
        ['frontend-egress'],
        `${pod.metadata.name}: only the admin's policy governs its egress (metaops never widens it)`,
      );
  }
});

// The same without the tenant splitting anything: an admin's egress policy whose selector metaops reads "with doubt"
// (lib/network-policy.ts selectorSelects: more than 256 values in one expression, a valid selector the API server
// stores) is counted as selecting every member, so `<name>-members` leaves Egress out; Kubernetes selects only the
// pods it names, so the tenant's members go anywhere. Doubt here widens: the members lose the policy that kept the
// metadata service out.
t.test(
  "an admin egress policy whose selector is read with doubt does not take the members' egress policy away",
  async (t) => {
    const apps = Array.from({ length: 300 }, (_, i) => `app-${i}`);
    const wide = {
      ...adminEgress,
      metadata: { ...adminEgress.metadata, name: 'apps-egress' },
      spec: { ...adminEgress.spec, podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: apps }] } },
    };
    const loop = await running({ size: 3 });
    loop.related = [wide as any];
    await loop.step();
    await loop.step();
    const members = loop.children.filter((c: any) => c.kind === 'Pod') as any[];
    t.ok(
      members.every((p) => !apps.includes(p.metadata.labels?.app)),
      "Kubernetes' reading: the admin's policy selects no member (their app label is not among its values)",
    );
    const policy = loop.children.find((c: any) => c.kind === 'NetworkPolicy' && c.metadata.name === 'e-members') as any;
    t.ok(
      forEgress(policy ?? { spec: {} }),
      `e-members still selects the members for egress (${JSON.stringify(policy?.spec.policyTypes)})`,
    );
    t.notOk(policy && reaches(policy, METADATA), `e-members keeps ${METADATA} out`);
  },
);

// And for a PodSet, whose pods run the tenant's image and command: the same admin policy (selecting no pod of the
// PodSet as Kubernetes reads it) makes the PodSet answer its pods no NetworkPolicy at all.
t.test(
  "a PodSet's pods keep their egress policy beside an admin policy whose selector is read with doubt",
  async (t) => {
    const apps = Array.from({ length: 300 }, (_, i) => `app-${i}`);
    const base = request('podset', { size: 2, image: 'curlimages/curl:8.10.1', command: ['sleep', '3600'] });
    const ns = base.parent.metadata.namespace!;
    const wide = {
      ...adminEgress,
      metadata: { ...adminEgress.metadata, name: 'apps-egress', namespace: ns },
      spec: { ...adminEgress.spec, podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: apps }] } },
    };
    const res = podsetSync(
      { ...base, related: objectMap([wide as any], 'v1', ['NetworkPolicy.networking.k8s.io/v1']) },
      FIXED_NOW,
    ) as any;
    const pods = (res.children as any[]).filter((c) => c.kind === 'Pod');
    t.ok(pods.length > 0, 'the PodSet makes its pods');
    t.ok(
      pods.every((p) => !apps.includes(p.metadata.labels?.app)),
      "Kubernetes' reading: the admin's policy selects none of them",
    );
    for (const pod of pods) {
      const egress = [...(res.children as any[]).filter((c) => c.kind === 'NetworkPolicy'), wide].filter(
        (p) => forEgress(p) && selects(p, pod.metadata.labels ?? {}),
      );
      t.ok(egress.length > 0, `${pod.metadata.name} is selected for egress by some policy`);
      t.notOk(
        egress.some((p) => reaches(p, METADATA)),
        `${pod.metadata.name}: no policy selecting it lets it reach ${METADATA}`,
      );
    }
  },
);
