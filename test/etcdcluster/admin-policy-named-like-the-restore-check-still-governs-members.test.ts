// a-tenant36: the EtcdCluster judges the namespace's own NetworkPolicies (hooks/etcdcluster/network.ts
// clusterGovernance) leaving out "the cluster's own policies (`<name>-members`, `<name>-restore-check`, controlled by
// it)"; but they are left out by name alone, whoever controls them. A tenant picks its cluster's name: named `x` in a
// namespace whose admin denies egress by a policy named `x-restore-check` (podSelector {}, policyTypes [Egress]), the
// admin's policy is not counted for the members, and `x-members` is answered with Egress (everything but the metadata
// service): metaops widens what the admin's policy denies. The name `x-restore-check` being another owner's holds
// nothing while no restore runs.
//
// Must hold: a policy that is not the cluster's child (another owner's uid, no controller reference to the cluster)
// counts as the namespace's own whatever its name; the members' policy then leaves egress out.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';

const adminDenyEgress = (name: string) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name, namespace: 'ns', uid: 'uid-admin', labels: { owner: 'cluster-admin' } },
  spec: { podSelector: {}, policyTypes: ['Egress'] },
});

t.test("an admin's default-deny egress named `<cluster>-restore-check` still governs the members", async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [adminDenyEgress('e-restore-check')];
  await loop.step();
  await loop.step();
  const members = loop.children.find((c: any) => c.kind === 'NetworkPolicy' && c.metadata.name === 'e-members') as any;
  t.ok(members, 'the members policy answered (for ingress)');
  t.same(members?.spec.policyTypes, ['Ingress'], 'without Egress: the admin denies it');
  t.notOk(members?.spec.egress, 'and no egress rule');
});
