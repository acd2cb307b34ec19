// Tenant A, with no NetworkPolicy right and no admin policy in its namespace, takes the egress policy away from its
// own PodSet's pods (its image and command) and reaches the instance metadata service (the node's credentials, every
// tenant's on that node).
//
// A PodSet (or any metaops parent) deleted with `kubectl delete --cascade=orphan` leaves its children behind: the
// garbage collector removes their ownerReferences, so `<name>-podset` stays, labelled
// `app.kubernetes.io/managed-by: metaops` but controlled by nothing. lib/network-policy.ts anotherParentsPolicy leaves
// a policy out of the namespace's governance only while it is controlled by a metaops kind: the orphaned ones count as
// the namespace's own. Past MAX_NAMESPACE_POLICIES (512) of them namespaceGovernance answers "doubt: governs both",
// and every PodSet, Memcached and EtcdCluster of the namespace then answers its pods no egress policy. Each orphaned
// policy selects only the pods of its deleted PodSet (none of the new one's): as Kubernetes reads them, no policy
// selects the new pods for egress, and they go anywhere. 513 PodSets of size 1, each deleted with --cascade=orphan
// (a delete right on podsets is all it takes), are the whole attack.
//
// Must hold: policies metaops made itself and left behind (labelled managed-by metaops, orphaned) do not take away
// the policy that keeps a PodSet's pods out of the metadata service, whatever their number.
import t from 'tap';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { selectorSelects } from '../fixtures/label-selector.js';

const METADATA = '169.254.169.254';
const NP = 'NetworkPolicy.networking.k8s.io/v1';

/** `<name>-podset` as the PodSet `name` answered it, once the garbage collector orphaned it (no ownerReferences). */
function orphaned(name: string, namespace: string): any {
  const res: any = podsetSync(
    { ...request('podset', { size: 1, image: 'busybox:1.36', command: ['sleep', '3600'] }) },
    FIXED_NOW,
  );
  const made = (res.children as any[]).find((c) => c.kind === 'NetworkPolicy');
  const text = JSON.stringify(made).replaceAll('podset-sample', name);
  const policy = JSON.parse(text);
  policy.metadata.namespace = namespace;
  policy.metadata.uid = `uid-orphan-${name}`;
  delete policy.metadata.ownerReferences;
  return policy;
}

/** Whether `policy` selects a pod labelled `labels`, as Kubernetes reads its podSelector. */
const selects = (policy: any, labels: Record<string, string>) => selectorSelects(policy.spec.podSelector ?? {}, labels);
const forEgress = (policy: any) => (policy.spec.policyTypes ?? []).includes('Egress');
const reachesMetadata = (policy: any) =>
  (policy.spec.egress ?? []).some((rule: any) =>
    (rule.to ?? [{ ipBlock: { cidr: '0.0.0.0/0' } }]).some(
      (peer: any) => peer.ipBlock?.cidr === '0.0.0.0/0' && !(peer.ipBlock.except ?? []).includes(`${METADATA}/32`),
    ),
  );

t.test("513 orphaned PodSet policies do not take a new PodSet's egress policy away", async (t) => {
  const base = request('podset', { size: 2, image: 'curlimages/curl:8.10.1', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const left = Array.from({ length: 513 }, (_, i) => orphaned(`gone-${i}`, ns));
  const res: any = podsetSync({ ...base, related: objectMap(left, 'v1', [NP]) }, FIXED_NOW);
  const pods = (res.children as any[]).filter((c) => c.kind === 'Pod');
  t.ok(pods.length > 0, 'the PodSet makes its pods');
  t.ok(
    pods.every((p) => !left.some((l) => selects(l, p.metadata.labels ?? {}))),
    "as Kubernetes reads them, none of the orphaned policies selects the new PodSet's pods",
  );
  for (const pod of pods) {
    const egress = [...(res.children as any[]).filter((c) => c.kind === 'NetworkPolicy'), ...left].filter(
      (p) => forEgress(p) && selects(p, pod.metadata.labels ?? {}),
    );
    t.ok(
      egress.length > 0,
      `${pod.metadata.name} is selected for egress by some policy (${egress.map((p) => p.metadata.name).join(', ') || 'none: it may go anywhere'})`,
    );
    t.notOk(egress.some(reachesMetadata), `${pod.metadata.name}: no policy selecting it lets it reach ${METADATA}`);
  }
});
