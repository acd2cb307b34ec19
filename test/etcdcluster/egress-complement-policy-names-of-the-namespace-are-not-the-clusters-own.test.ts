// The members' complement egress policies are named `<cluster>-members-egress-<i>`. A policy of the namespace's under
// such a name (an admin's deny-all egress policy `<cluster>-members-egress-0`, which a tenant names its EtcdCluster
// after) counts as the cluster's only when it is (labelled managed-by metaops and controlled by the cluster: lib
// ownPolicy, as the restore check's): otherwise it governs, and the members' policy does not widen it with Egress.
import t from 'tap';
import { clusterGovernance } from '../../hooks/etcdcluster/network.js';
import { selector } from '../../hooks/etcdcluster/members.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';

function admin(name: string, podSelector: unknown): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace: 'team-a', uid: `uid-${name}` },
    spec: { podSelector, policyTypes: ['Egress'], egress: [] },
  } as KubeObject;
}

function governance(policyName: string) {
  const request = {
    controller: {},
    parent: {
      apiVersion: 'metaops.dev/v1alpha1',
      kind: 'EtcdCluster',
      metadata: { name: 'c', namespace: 'team-a', uid: 'uid-c' },
      spec: { size: 1 },
    },
    children: {},
    related: { [NP]: { [`team-a/${policyName}`]: admin(policyName, {}) } },
    finalizing: false,
  } as unknown as CompositeSyncRequest;
  const member = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'c-0', namespace: 'team-a', labels: { ...selector('c', true), etcd_node: 'c-0' } },
  } as KubeObject;
  return clusterGovernance(request, [member], { parentKinds: ['metaops.dev/EtcdCluster'] }).members;
}

t.test("an admin's deny-all egress policy under any name governs the members' egress", async (t) => {
  t.equal(governance('deny-all-egress').egress, true, 'under a name of its own: governs (holds)');
  t.equal(
    governance('c-members-egress-0').egress,
    true,
    "named `<cluster>-members-egress-0`: still the namespace's, and the members' policy leaves egress out",
  );
});
