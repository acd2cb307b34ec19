// spec.pod.annotations are copied onto every member pod (made with Metacontroller's rights). The hook refuses a
// Multus `k8s.v1.cni.cncf.io/networks` / `v1.multus-cni.io/default-network` annotation that names a network of
// another namespace (lib/pod-policy.ts annotationReachProblem), reading the JSON form's `namespace` member as
// JavaScript does: by its exact, lower-case key. Multus reads the same text with Go's encoding/json
// (json.Unmarshal into []*NetworkSelectionElement, field tag `json:"namespace"`), which matches object keys to
// struct fields case-insensitively (Unicode simple folding: `Namespace`, `NAMESPACE`, `nameſpace` with U+017F), the
// last matching key winning. So `[{"name":"storage-net","Namespace":"team-b"}]` passes the hook as naming no
// namespace, and Multus attaches tenant A's members (its own image) to tenant B's NetworkAttachmentDefinition
// team-b/storage-net: the reach the check was added to refuse (issue 29, d-a-tenant28 9c07fc2).
//
// Must hold: an annotation Multus would read as naming another namespace's network is InvalidSpec naming the field,
// no member pod carries it, and a running cluster edited to it keeps its members as they are.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { podEditedThenLost, running } from '../fixtures/etcd-loop.js';

const NETWORKS = 'k8s.v1.cni.cncf.io/networks';
const DEFAULT_NETWORK = 'v1.multus-cni.io/default-network';

/** Go's bytes.EqualFold for the ASCII field name `namespace` (with the two non-ASCII folds Go accepts). */
const goFoldsToNamespace = (key: string) =>
  key
    .replace(/\u017f/g, 's')
    .replace(/\u212a/g, 'k')
    .toLowerCase() === 'namespace';

/** The namespaces Multus reads out of a networks annotation's JSON form (Go: case-insensitive keys, last wins). */
function multusNamespaces(value: string, own: string): string[] {
  const parsed = JSON.parse(value) as unknown;
  return (Array.isArray(parsed) ? parsed : [parsed]).map((n) => {
    let ns = '';
    for (const [k, v] of Object.entries(n as Record<string, unknown>)) if (goFoldsToNamespace(k)) ns = String(v);
    return ns === '' ? own : ns;
  });
}

const refused: Array<[string, string, string]> = [
  ['the JSON form naming another namespace as "Namespace"', NETWORKS, '[{"name":"storage-net","Namespace":"team-b"}]'],
  ['the JSON form naming another namespace as "NAMESPACE"', NETWORKS, '[{"name":"storage-net","NAMESPACE":"team-b"}]'],
  [
    'the JSON form naming another namespace as "nameſpace" (U+017F)',
    NETWORKS,
    '[{"name":"storage-net","nameſpace":"team-b"}]',
  ],
  [
    'the JSON form naming its own namespace, then another as "Namespace"',
    NETWORKS,
    '[{"name":"storage-net","namespace":"ns","Namespace":"team-b"}]',
  ],
  [
    'a default network of another namespace as "Namespace"',
    DEFAULT_NETWORK,
    '{"name":"storage-net","Namespace":"team-b"}',
  ],
];

for (const [what, key, value] of refused) {
  t.test(`spec.pod.annotations ${key} with ${what}: InvalidSpec, no member pod carries it`, async (t) => {
    t.same(multusNamespaces(value, 'ns'), ['team-b'], 'Multus (Go encoding/json) reads namespace team-b');
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
    const crossing = loop.children
      .filter((c) => c.kind === 'Pod' && typeof c.metadata.annotations?.[key] === 'string')
      .filter((p) => multusNamespaces(p.metadata.annotations?.[key] ?? '', 'ns').some((n) => n !== 'ns'))
      .map((p) => p.metadata.name);
    t.same(crossing, [], "no member pod is attached to another namespace's network");
  });
}
