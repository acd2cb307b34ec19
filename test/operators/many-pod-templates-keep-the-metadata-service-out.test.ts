// a-tenant36: a tenant who may only write its own PodSet makes metaops withdraw its pods' egress policy (the one that
// keeps the instance metadata service out) in a namespace whose own policies govern ingress only.
//
// lib/network-policy.ts namespaceGovernance judges at most MAX_POD_LABEL_SETS (32) distinct label sets of the pods;
// past it "the pods count as governed (doubt)", and the PodSet answers no `<name>-podset` policy. A PodSet's pods carry
// metaops.dev/template-hash, one value per template: a tenant who scales up by one with a new command each time (the
// new member is made from the current template at once; the rollout replaces outdated pods one at a time and waits
// for the new one to be Ready, so a current template whose pod never gets Ready stalls it) ends with 33 pods of 33
// templates. From then on no policy selects its pods for egress at all: they reach 169.254.169.254 (the node's
// credentials), and the status blames "a NetworkPolicy it could not read".
//
// Must hold: where no NetworkPolicy of the namespace selects the pods for Egress, the PodSet answers its policy,
// however many templates its pods were made from.
import t from 'tap';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';
const denyIngress = (namespace: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'default-deny-ingress', namespace, uid: 'uid-admin-in' },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
});
const policies = (res: any): any[] => (res.children as any[]).filter((c) => c?.kind === 'NetworkPolicy');

/** Observed as the API server and kubelet report it: running, not Ready (the tenant's command never gets Ready). */
function observedPod(pod: any): KubeObject {
  const p = structuredClone(pod);
  p.metadata.uid = `uid-${p.metadata.name}`;
  p.metadata.creationTimestamp = '2020-01-01T00:00:00Z';
  p.status = {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'False' }],
    containerStatuses: [{ name: p.spec.containers[0].name, ready: false, restartCount: 0, state: { running: {} } }],
  };
  return p;
}

for (const related of ['ingress-only policy', 'no policy'] as const)
  t.test(`a PodSet scaled up one template at a time keeps its egress policy (${related})`, async (t) => {
    const base = request('podset', { size: 1, image: 'busybox:1.36', command: ['sleep', '3600'] });
    const ns = base.parent.metadata.namespace!;
    const namespacePolicies = related === 'no policy' ? { [NP]: {} } : objectMap([denyIngress(ns)], 'v1', [NP]);
    let observed: KubeObject[] = [];
    let res: any;
    const templates = new Set<string>();
    for (let size = 1; size <= 40; size++) {
      const req: CompositeSyncRequest = {
        ...base,
        parent: { ...base.parent, spec: { size, image: 'busybox:1.36', command: ['sleep', String(3600 + size)] } },
        children: objectMap(observed),
        related: { ...(base.related ?? {}), ...namespacePolicies },
      };
      res = podsetSync(req, FIXED_NOW) as any;
      const pods = (res.children as any[]).filter((c) => c.kind === 'Pod');
      const byName = new Map(observed.map((p) => [p.metadata.name!, p]));
      observed = pods.map((p) => byName.get(p.metadata.name) ?? observedPod(p));
      for (const p of observed) templates.add((p.metadata.labels as any)['metaops.dev/template-hash']);
      t.equal(policies(res).length, 1, `size ${size}: the PodSet's egress policy answered`, {
        condition: (res.status?.conditions ?? []).find((c: any) => c.type === 'NetworkPolicyCreated'),
      });
      if (policies(res).length !== 1) break;
    }
    t.comment(`pods: ${observed.length}, templates among them: ${templates.size}`);
  });
