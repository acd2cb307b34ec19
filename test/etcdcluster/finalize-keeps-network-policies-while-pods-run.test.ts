// While an EtcdCluster is deleted its pods run their grace period (30 s) and the tenant's image in them runs on: the
// finalize answer keeps the cluster's NetworkPolicies (the members' and the restore check pod's) while a pod each
// selects is observed, answered as the sync answers them, and only a policy observed as the cluster's (none is made
// during a deletion). Bounded: POLICY_KEPT_AT_DELETION_SECONDS after the deletion nothing is kept, whatever pods are
// left, so a deletion never waits on them; the parent is released once nothing is observed.
import t from 'tap';
import { finalize } from '../../hooks/etcdcluster/sync.js';
import { POLICY_KEPT_AT_DELETION_SECONDS, restoreCheckNetworkPolicy } from '../../hooks/etcdcluster/network.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { running } from '../fixtures/etcd-loop.js';
import { asObserved, FIXED_NOW, objectMap, readyPod } from '../fixtures/requests.js';

const DELETED = '2026-01-02T03:04:05Z';
const names = (children: any[]) => children.map((c) => `${c.kind}/${c.metadata?.name}`).sort();

async function deleted() {
  const loop = await running({ size: 3 });
  const parent = {
    ...structuredClone(loop.parent()),
    metadata: { ...loop.parent().metadata, deletionTimestamp: DELETED },
  };
  const observed = loop.children.map((c) => asObserved(c, c.kind === 'Pod' ? readyPod : undefined));
  const call = (children: KubeObject[], at = FIXED_NOW, settings = {}) =>
    finalize({ controller: {}, parent, children: objectMap(children) } as any, settings, at);
  return { loop, parent, observed, call };
}

t.test(
  "the members' policy is kept while member pods are observed, then goes, then the parent is released",
  async (t) => {
    const { observed, call } = await deleted();
    const kept = call(observed);
    t.same(names(kept.children), ['NetworkPolicy/e-members'], 'members observed: only their policy is answered');
    t.equal(kept.finalized, false);
    const policy = observed.find((c) => c.kind === 'NetworkPolicy')!;
    t.same((kept.children[0] as any).spec, (policy as any).spec, 'as it is observed (the sync answered it so)');
    const noPods = observed.filter((c) => c.kind !== 'Pod');
    t.same(call(noPods).children, [], 'no pod left: the policy goes with the rest');
    t.equal(call(noPods).finalized, false, 'not released while the policy is observed');
    t.equal(call([]).finalized, true, 'nothing left: released');
  },
);

t.test('nothing is kept past the bound, whatever pods are left', async (t) => {
  const { observed, call } = await deleted();
  const late = new Date(Date.parse(DELETED) + POLICY_KEPT_AT_DELETION_SECONDS * 1000);
  t.same(call(observed, late).children, [], `${POLICY_KEPT_AT_DELETION_SECONDS} s after the deletion: none kept`);
  const just = new Date(late.getTime() - 1000);
  t.same(names(call(observed, just).children), ['NetworkPolicy/e-members'], 'a second before: kept');
});

t.test('a policy not observed is not made during the deletion; the setting off keeps none', async (t) => {
  const { observed, call } = await deleted();
  t.same(call(observed.filter((c) => c.kind !== 'NetworkPolicy')).children, [], 'not observed: none answered');
  t.same(call(observed, FIXED_NOW, { memberNetworkPolicy: false }).children, [], 'setting off: none answered');
});

t.test("the restore check pod's policy is kept while the check pod is observed", async (t) => {
  const { observed, call, parent } = await deleted();
  const checkPod = asObserved(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'e-restore-check', namespace: parent.metadata.namespace },
      spec: {},
    },
    readyPod,
  );
  const checkPolicy = asObserved(restoreCheckNetworkPolicy(parent, {})!);
  const withCheck = [...observed.filter((c) => c.kind !== 'Pod'), checkPod, checkPolicy];
  t.same(names(call(withCheck).children), ['NetworkPolicy/e-restore-check'], 'no member left: the check policy only');
  t.same(names(call([...observed, checkPod, checkPolicy]).children), [
    'NetworkPolicy/e-members',
    'NetworkPolicy/e-restore-check',
  ]);
  t.same(call([...observed.filter((c) => c.kind !== 'Pod'), checkPolicy]).children, [], 'check pod gone: none');
});
