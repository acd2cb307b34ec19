// spec.pod.annotations are copied onto every member pod, which Metacontroller creates with its own rights. Some pod
// annotations are references that the cluster's components follow across namespaces: Multus (the CNI meta-plugin
// that OpenShift and most telco and storage clusters run) attaches a pod to each network its
// `k8s.v1.cni.cncf.io/networks` annotation names, and a `<namespace>/<name>` entry names a NetworkAttachmentDefinition
// of another namespace (Multus follows it unless it runs with namespaceIsolation). So tenant A, who may only create
// custom resources in its namespace (issue 29), puts its members, running its own image, on tenant B's secondary
// network (`team-b/storage-net`): past B's NetworkPolicies, which do not see secondary networks. The hook checks only
// that annotations are well formed (stringMapProblem 'any'), while it refuses a pod (anti-)affinity term naming
// another namespace for the same reason (test/etcdcluster/member-affinity-reaches-only-own-namespace.test.ts).
//
// Must hold: no member pod carries an annotation naming another namespace's object for a cluster component to
// follow: such a spec is InvalidSpec naming the field, and a running cluster edited to it keeps its members as they are.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { podEditedThenLost, running } from '../fixtures/etcd-loop.js';

const NETWORKS = 'k8s.v1.cni.cncf.io/networks';
const DEFAULT_NETWORK = 'v1.multus-cni.io/default-network';
const refused: Array<[string, string, string]> = [
  ['a list naming another namespace', NETWORKS, 'team-b/storage-net'],
  ['a list naming its own and another namespace', NETWORKS, 'storage-net, ns/fast@eth1 , team-b/storage-net@eth2'],
  ['the JSON form naming another namespace', NETWORKS, '[{"name":"storage-net","namespace":"team-b"}]'],
  ['a JSON object naming another namespace', NETWORKS, '{"name":"storage-net","namespace":"team-b"}'],
  ['JSON of another shape', NETWORKS, '[{"name":"storage-net","namespace":{"toString":1}}]'],
  ['JSON that does not parse', NETWORKS, '[{"name":'],
  ['a default network of another namespace', DEFAULT_NETWORK, 'team-b/storage-net'],
];

/** The namespaces other than `own` that a Multus networks annotation names (or `unreadable`). */
function otherNamespaces(value: unknown, own: string): string[] {
  if (typeof value !== 'string') return [];
  let named: unknown[];
  try {
    const parsed = JSON.parse(value) as unknown;
    named = (Array.isArray(parsed) ? parsed : [parsed]).map((n: any) => n?.namespace ?? own);
  } catch {
    named = value.split(',').map((n) => (n.includes('/') ? n.trim().split('/')[0]! : own));
  }
  return named.filter((n) => n !== own).map((n) => (typeof n === 'string' ? n : 'unreadable'));
}

for (const [what, key, value] of refused) {
  t.test(`spec.pod.annotations ${key} with ${what}: InvalidSpec, no member pod carries it`, async (t) => {
    const pod = { annotations: { [key]: value } };
    const spec = { size: 3, repository: 'registry.tenant-a.example/exfil', version: '3.5.0', pod };
    const field = new RegExp(`spec\\.pod\\.annotations\\["${key.replaceAll('.', '\\.')}"\\]`);
    t.match(etcdValueProblem(etcdParent(spec)), field, 'refused naming the field');
    t.same((await running(spec)).pods(), [], 'a new cluster makes no member');
    const { loop } = await podEditedThenLost(pod, 'e-1');
    t.match(
      loop.s().conditions.find((c: any) => c.type === 'Ready'),
      { reason: 'InvalidSpec', message: field },
    );
    t.same(loop.pods(), ['e-0', 'e-2'], 'the members kept, the lost one not made again');
    const crossing = loop.children
      .filter((c) => c.kind === 'Pod' && otherNamespaces(c.metadata.annotations?.[key], 'ns').length > 0)
      .map((p) => p.metadata.name);
    t.same(crossing, [], "no member pod is attached to another namespace's network");
  });
}

for (const [what, value] of [
  ['networks of its own namespace', 'storage-net, ns/fast@eth1'],
  ['the JSON form naming its own namespace or none', '[{"name":"a","namespace":"ns"},{"name":"b"}]'],
] as Array<[string, string]>) {
  t.test(`spec.pod.annotations ${NETWORKS} with ${what}: accepted, on every member`, async (t) => {
    const spec = { size: 3, pod: { annotations: { [NETWORKS]: value } } };
    t.equal(etcdValueProblem(etcdParent(spec)), undefined);
    const loop = await running(spec);
    t.same(
      loop.children.filter((c) => c.kind === 'Pod').map((p) => p.metadata.annotations?.[NETWORKS]),
      [value, value, value],
    );
  });
}
