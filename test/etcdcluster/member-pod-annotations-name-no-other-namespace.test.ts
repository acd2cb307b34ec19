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
// follow (refused as InvalidSpec, or left out).
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const NETWORKS = 'k8s.v1.cni.cncf.io/networks';
const cases: Array<[string, string]> = [
  ['a list naming another namespace', 'team-b/storage-net'],
  ['the JSON form naming another namespace', '[{"name":"storage-net","namespace":"team-b"}]'],
];

/** The namespaces other than `own` that a Multus networks annotation names. */
function otherNamespaces(value: unknown, own: string): string[] {
  if (typeof value !== 'string') return [];
  let named: string[];
  try {
    const parsed = JSON.parse(value) as Array<{ namespace?: string }>;
    named = parsed.map((n) => n.namespace ?? own);
  } catch {
    named = value.split(',').map((n) => (n.includes('/') ? n.trim().split('/')[0]! : own));
  }
  return named.filter((n) => n !== own);
}

for (const [what, value] of cases) {
  t.test(`spec.pod.annotations ${NETWORKS} with ${what}: no member pod carries it`, async (t) => {
    const spec = {
      size: 3,
      repository: 'registry.tenant-a.example/exfil',
      version: '3.5.0',
      pod: { annotations: { [NETWORKS]: value } },
    };
    const problem = etcdValueProblem(etcdParent(spec));
    const loop = await running(spec);
    const pods = loop.children.filter((c) => c.kind === 'Pod');
    t.ok(pods.length > 0, `member pods answered (${pods.map((p) => p.metadata.name).join(', ')})`);
    const crossing = pods
      .filter((p) => otherNamespaces(p.metadata.annotations?.[NETWORKS], 'ns').length > 0)
      .map((p) => `${p.metadata.name}: ${p.metadata.annotations?.[NETWORKS]}`);
    t.same(
      crossing,
      [],
      `no member pod is attached to another namespace's network (spec check: ${problem ?? 'accepted'})`,
    );
  });
}
