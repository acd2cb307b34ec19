// lib/network-policy.ts namespaceGovernance counts the namespace's NetworkPolicies before it reads any:
// past MAX_NAMESPACE_POLICIES (512) "every pod counts as governed (doubt)", and PodSet and Memcached answer no policy
// of their own. metaops' own policies count: each EtcdCluster answers `<name>-members` (kept, Ingress only, even where
// the namespace governs egress), each PodSet `<name>-podset`. A tenant who may only write custom resources creates
// 513 EtcdClusters of size 1 (or PodSets of size 0) in its namespace: from then on its PodSet's pods run with no
// egress policy at all and reach 169.254.169.254 (the node's role), the status blaming "a NetworkPolicy it could not
// read". (Related to the known "a NetworkPolicy of another metaops parent counts as the namespace's own", but through
// the count, which is taken before any policy is judged.)
//
// Must hold: metaops' own policies of other parents never make the namespace "govern" a parent's pods, by count or
// otherwise: a PodSet in a namespace with no admin policy keeps `<name>-podset`.
import t from 'tap';
import type { ObservedObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { memberNetworkPolicy } from '../../hooks/etcdcluster/network.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';

for (const count of [500, 513])
  t.test(`${count} EtcdClusters' member policies do not take a PodSet's egress policy away`, async (t) => {
    const base = request('podset', { size: 2, image: 'busybox:1.36', command: ['sleep', '3600'] });
    const ns = base.parent.metadata.namespace!;
    const group: Record<string, ObservedObject> = {};
    for (let i = 0; i < count; i++) {
      const cluster = {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdCluster',
        metadata: { name: `e${i}`, namespace: ns, uid: `uid-e${i}` },
        spec: { size: 1 },
      } as any;
      const p = memberNetworkPolicy(cluster, {}, true) as any;
      p.metadata.uid = `uid-np-e${i}`;
      p.metadata.ownerReferences = [
        {
          apiVersion: cluster.apiVersion,
          kind: 'EtcdCluster',
          name: cluster.metadata.name,
          uid: cluster.metadata.uid,
          controller: true,
        },
      ];
      group[p.metadata.name] = p;
    }
    const res = podsetSync({ ...base, related: { ...(base.related ?? {}), [NP]: group } }, FIXED_NOW) as any;
    const policies = (res.children as any[]).filter((c) => c.kind === 'NetworkPolicy');
    t.equal(policies.length, 1, 'the PodSet answers its egress policy', {
      condition: (res.status?.conditions ?? []).find((c: any) => c.type === 'NetworkPolicyCreated'),
    });
  });
