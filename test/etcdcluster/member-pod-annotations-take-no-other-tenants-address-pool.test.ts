// lib/pod-policy.ts refuses a member pod annotation that a cluster component follows into another tenant's network
// (Multus's `k8s.v1.cni.cncf.io/networks` naming team-b/storage-net: "past B's NetworkPolicies"). The CNI plugins
// themselves read pod annotations of the same kind, naming cluster-scoped address pools or subnets that a
// multi-tenant cluster gives one tenant each (so that its egress has addresses of its own, which firewalls, database
// allowlists and cloud security groups outside the cluster trust): Calico's `cni.projectcalico.org/ipv4pools`
// (an IPPool by name) and `cni.projectcalico.org/ipAddrs` (a fixed address from any pool), Cilium's
// `ipam.cilium.io/ip-pool` (multi-pool IPAM), Antrea's `ipam.antrea.io/ippools`, Kube-OVN's
// `ovn.kubernetes.io/logical_switch` (a subnet, bound to namespaces by its own spec, which the annotation overrides)
// and `ovn.kubernetes.io/ip_address`. All are accepted in spec.pod.annotations (checked for form only) and copied onto
// every member pod made with Metacontroller's rights: tenant A's members, running A's image, send from tenant B's
// addresses, and what outside the cluster lets B's addresses in lets A in (issue 29: A reaches B through metaops).
//
// Must hold: no member pod carries an annotation that asks the network plugin for another pool, subnet or address
// than its namespace's own (refused unless the server's administrator allows it): InvalidSpec naming the field, no
// member pod carries it.
import t from 'tap';
import { etcdRefusal } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const POOLS: Array<[string, string]> = [
  ['cni.projectcalico.org/ipv4pools', '["team-b-egress"]'],
  ['cni.projectcalico.org/ipAddrs', '["10.20.0.17"]'],
  ['ipam.cilium.io/ip-pool', 'team-b-egress'],
  ['ipam.antrea.io/ippools', 'team-b-egress'],
  ['ovn.kubernetes.io/logical_switch', 'team-b-subnet'],
  ['ovn.kubernetes.io/ip_address', '10.20.0.17'],
];

for (const [key, value] of POOLS) {
  t.test(`spec.pod.annotations ${key}: ${value}: InvalidSpec, no member pod carries it`, async (t) => {
    const spec = {
      size: 3,
      repository: 'registry.tenant-a.example/exfil',
      version: '3.5.0',
      pod: { annotations: { [key]: value } },
    };
    t.match(await etcdRefusal(spec), /spec\.pod\.annotations/, 'refused naming the field');
    const fresh = await running(spec);
    t.same(
      fresh.children
        .filter((c) => c.kind === 'Pod' && c.metadata.annotations?.[key] === value)
        .map((p) => p.metadata.name),
      [],
      "no member pod takes another tenant's addresses",
    );
  });
}
