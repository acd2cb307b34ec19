// Member pods run the spec's own image (`spec.repository`) and carry spec.pod.labels and spec.pod.annotations, checked
// for form only (besides the hooks' own keys and Multus's networks). The node agents that hand cloud credentials to
// pods decide by exactly those: kube2iam (and kiam) give a pod the AWS role its annotation `iam.amazonaws.com/role`
// names, and kube2iam restricts the roles a namespace may name only when it runs with --namespace-restrictions (off by
// default); AAD Pod Identity gives a pod the Azure identity of every AzureIdentityBinding whose selector its label
// `aadpodidbinding` carries, in every namespace unless it runs in forceNamespaced mode (off by default). A cluster
// admin who lets no tenant create pods has no reason to turn those on. So tenant A, who may only create custom
// resources in its namespace (issue 29), gets tenant B's role `team-b-backup` (B's buckets, B's KMS keys) or B's
// Azure identity, in a pod running A's code, made with Metacontroller's rights: the ServiceAccount token the hooks
// took away (automountServiceAccountToken: false) comes back as a cloud credential of another tenant.
//
// Must hold: no member pod asks a credential agent for an identity (an annotation or label those agents read) unless
// the server's administrator allows it: such a spec is InvalidSpec naming the field, and no member pod carries it.
import t from 'tap';
import { etcdRefusal } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const cases: Array<[string, 'labels' | 'annotations', string, string]> = [
  [
    "kube2iam/kiam: tenant B's AWS role",
    'annotations',
    'iam.amazonaws.com/role',
    'arn:aws:iam::123456789012:role/team-b-backup',
  ],
  ["kube2iam: tenant B's AWS role by name", 'annotations', 'iam.amazonaws.com/role', 'team-b-backup'],
  ["AAD Pod Identity: tenant B's Azure identity binding", 'labels', 'aadpodidbinding', 'team-b-identity'],
];

for (const [what, where, key, value] of cases) {
  t.test(`spec.pod.${where} ${key}: ${what}: InvalidSpec, no member pod carries it`, async (t) => {
    const spec = {
      size: 3,
      repository: 'registry.tenant-a.example/exfil',
      version: '3.5.0',
      pod: { [where]: { [key]: value } },
    };
    t.match(await etcdRefusal(spec), new RegExp(`spec\\.pod\\.${where}`), 'refused naming the field');
    const fresh = await running(spec);
    t.same(
      fresh.children
        .filter((c) => c.kind === 'Pod' && (c.metadata as any)[where]?.[key] === value)
        .map((p) => p.metadata.name),
      [],
      "no member pod asks for another tenant's identity",
    );
  });
}
