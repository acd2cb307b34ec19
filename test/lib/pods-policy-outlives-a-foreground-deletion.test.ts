// A parent deleted with `kubectl delete --cascade=foreground` (propagationPolicy Foreground: the tenant chooses) has
// Kubernetes' garbage collector delete every child at once, whatever the parent's finalize answers: the pods start
// their grace period (30 s) running the tenant's image, and the NetworkPolicy that keeps them from the instance
// metadata service (EtcdCluster `<name>-members` / `<name>-restore-check`, PodSet `<name>-podset`, Memcached
// `<name>-memcached`), which had no finalizer, was gone 1 s later (e2e, Metacontroller v4.17.2 and v1.5.20).
//
// Must hold: every such policy is decorated by metaops' DecoratorController `pod-network-policy` (its label selector
// selects each kind's policy), whose finalize holds a policy being deleted (Metacontroller keeps its finalizer on it,
// and the CNI enforces a policy until it is gone) while a pod it selects is observed in its namespace, not ended, at
// most 120 s after the policy's own deletion, and releases it at once when none is; customize asks for nothing while
// the policy lives and, once it is deleted, for the pods of its podSelector's labels (a rule without a namespace, the
// same for every policy of one name: Metacontroller v1.5.20 caches it by name and generation).
import t from 'tap';
import { podNetworkPolicy } from '../../hooks/podpolicy/index.js';
import { matchesSelector } from '../../lib/labels.js';
import type { DecoratorSyncRequest, DecoratorSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { POLICY_KEPT_AT_DELETION_SECONDS } from '../../lib/policy-at-deletion.js';
import { running } from '../fixtures/etcd-loop.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const DELETED = new Date(FIXED_NOW.getTime() - 10_000);

function labelsOf(o: KubeObject): Record<string, string> {
  return (o.metadata.labels ?? {}) as Record<string, string>;
}

/** Every pods' NetworkPolicy the kinds answer, with the labels of the pods it must select. */
async function policiesOfEveryKind(): Promise<Array<{ policy: KubeObject; pods: KubeObject[] }>> {
  const out: Array<{ policy: KubeObject; pods: KubeObject[] }> = [];
  const loop = await running({ size: 3 });
  const members = loop.children.filter((c) => c.kind === 'Pod');
  for (const c of loop.children)
    if (c.kind === 'NetworkPolicy' && String(c.metadata.name).endsWith('-members'))
      out.push({ policy: c, pods: members });
  const ps = request('podset', { size: 2, image: 'tenant.example/x:1' });
  const psAnswer = podsetSync(ps, FIXED_NOW);
  out.push({
    policy: psAnswer.children.find((c) => c.kind === 'NetworkPolicy')!,
    pods: psAnswer.children.filter((c) => c.kind === 'Pod'),
  });
  const mc = request('memcached', { size: 2 });
  const mcAnswer = memcachedSync(mc, FIXED_NOW);
  const deployment = mcAnswer.children.find((c) => c.kind === 'Deployment') as any;
  out.push({
    policy: mcAnswer.children.find((c) => c.kind === 'NetworkPolicy')!,
    pods: [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'mc-pod', labels: deployment.spec.template.metadata.labels } },
    ],
  });
  return out;
}

const deleted = (policy: KubeObject, at = DELETED): KubeObject => ({
  ...asObserved(policy),
  metadata: { ...asObserved(policy).metadata, namespace: 'team-a', deletionTimestamp: at.toISOString() } as any,
});
const inTeamA = (pod: KubeObject, status: Record<string, unknown> = readyPod): KubeObject => {
  const o = asObserved(pod, status);
  return { ...o, metadata: { ...o.metadata, namespace: 'team-a' } };
};
const terminating = (pod: KubeObject): KubeObject => ({
  ...pod,
  metadata: { ...pod.metadata, deletionTimestamp: DELETED.toISOString(), deletionGracePeriodSeconds: 30 } as any,
});

async function finalizeOf(policy: KubeObject, related: KubeObject[], now = FIXED_NOW): Promise<DecoratorSyncResponse> {
  const req: DecoratorSyncRequest = {
    controller: {},
    object: policy as any,
    attachments: {},
    related: objectMap(related),
  };
  return (await runHook(podNetworkPolicy as any, 'finalize', req, { now })) as DecoratorSyncResponse;
}

t.test("every kind's pods NetworkPolicy is decorated, and it selects the kind's pods", async (t) => {
  const selector = podNetworkPolicy.resources[0]!;
  t.equal(selector.resource, 'networkpolicies');
  t.ok(
    typeof podNetworkPolicy.finalize === 'function',
    'the decorator has a finalize hook (Metacontroller puts its finalizer on)',
  );
  const all = await policiesOfEveryKind();
  t.equal(all.length, 3, 'an EtcdCluster, a PodSet and a Memcached policy');
  for (const { policy, pods } of all) {
    t.ok(matchesSelector(labelsOf(policy), selector.labelSelector!), `${policy.metadata.name} is decorated`);
    t.ok(pods.length > 0, `${policy.metadata.name}: pods to select`);
  }
});

t.test('a pods policy being deleted is held while a pod it selects runs or stops, released once none is', async (t) => {
  for (const { policy, pods } of await policiesOfEveryKind()) {
    const name = policy.metadata.name;
    const gone = deleted(policy);
    for (const state of ['running', 'terminating'] as const) {
      const observed = pods.map((p) => (state === 'running' ? inTeamA(p) : terminating(inTeamA(p))));
      const res = await finalizeOf(gone, observed);
      t.equal(res.finalized, false, `${name}, pods ${state}: held`);
      t.ok(res.resyncAfterSeconds! >= 1 && res.resyncAfterSeconds! <= 5, `${name}: asked again within 5 s`);
      t.same(res.attachments, [], `${name}: nothing attached`);
    }
    t.equal((await finalizeOf(gone, [])).finalized, true, `${name}: no pod observed, released`);
    const ended = pods.map((p) => inTeamA(p, { phase: 'Succeeded' }));
    t.equal((await finalizeOf(gone, ended)).finalized, true, `${name}: only ended pods, released`);
    const elsewhere = pods.map((p) => ({ ...inTeamA(p), metadata: { ...inTeamA(p).metadata, namespace: 'team-b' } }));
    t.equal((await finalizeOf(gone, elsewhere)).finalized, true, `${name}: pods of another namespace do not hold it`);
    const unselected = pods.map((p) => ({ ...inTeamA(p), metadata: { ...inTeamA(p).metadata, labels: { x: 'y' } } }));
    t.equal((await finalizeOf(gone, unselected)).finalized, true, `${name}: pods it does not select do not hold it`);
  }
});

t.test('a pods policy is released at the latest 120 s after its own deletion, and never while it lives', async (t) => {
  const { policy, pods } = (await policiesOfEveryKind())[0]!;
  const gone = deleted(policy!);
  const observed = pods!.map((p) => terminating(inTeamA(p)));
  const before = new Date(DELETED.getTime() + (POLICY_KEPT_AT_DELETION_SECONDS - 1) * 1000);
  const within = await finalizeOf(gone, observed, before);
  t.equal(within.finalized, false, `${POLICY_KEPT_AT_DELETION_SECONDS - 1} s after: held`);
  t.equal(within.resyncAfterSeconds, 1, 'asked again when the bound ends');
  const after = new Date(DELETED.getTime() + POLICY_KEPT_AT_DELETION_SECONDS * 1000);
  t.equal((await finalizeOf(gone, observed, after)).finalized, true, 'past the bound: released whatever pods are left');
  const alive = { ...asObserved(policy!), metadata: { ...asObserved(policy!).metadata, namespace: 'team-a' } };
  t.equal((await finalizeOf(alive, [])).finalized, false, 'a policy not being deleted is not released');
  const bare = { ...gone, spec: { podSelector: {}, policyTypes: ['Egress'] } } as KubeObject;
  const bareHeld = await finalizeOf(bare, []);
  t.equal(bareHeld.finalized, false, 'a policy with no labels to ask pods by: held for the bound alone');
  t.equal((await finalizeOf(bare, [], after)).finalized, true, 'and released past it');
});

t.test('customize asks for nothing while a policy lives, and for its pods by label once it is deleted', async (t) => {
  const { policy } = (await policiesOfEveryKind())[0]!;
  const alive = { ...asObserved(policy!), metadata: { ...asObserved(policy!).metadata, namespace: 'team-a' } };
  // As Metacontroller sends it: the decorated object under `parent` (both releases); `object` read too.
  const customize = (o: KubeObject) => podNetworkPolicy.customize!({ controller: {}, parent: o as any }, {} as any);
  t.same(
    podNetworkPolicy.customize!({ controller: {}, object: deleted(policy!) as any }, {} as any).relatedResources.length,
    1,
    'the object under `object` is read as well',
  );
  t.same(customize(alive).relatedResources, [], 'nothing while it lives (no call per pod change)');
  const rules = customize(deleted(policy!)).relatedResources;
  t.same(
    rules,
    [
      {
        apiVersion: 'v1',
        resource: 'pods',
        labelSelector: { matchLabels: (policy!['spec'] as any).podSelector.matchLabels },
      },
    ],
    'its pods by its selector labels, no namespace (the same rule for every policy of one name and selector)',
  );
  const odd = { ...deleted(policy!), spec: { podSelector: { matchLabels: { a: { toString: 1 } } } } } as any;
  t.same(customize(odd).relatedResources, [], 'a selector it cannot read asks for nothing (held for the bound)');
});
