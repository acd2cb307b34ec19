// The hook server's own objects (manifests/deploy/): its namespace enforces Pod Security `restricted` and the
// Deployment complies; its NetworkPolicy lets out only what the hooks call; its RBAC holds pods only where an admin
// bound them. (test/real/podbuggertool-apiserver.test.ts checks the RBAC on a real API server.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import { restrictedProblems } from '../fixtures/pod-security.js';
import { root } from '../fixtures/requests.js';

const docs = (file: string): any[] =>
  YAML.parseAllDocuments(readFileSync(join(root, 'manifests', 'deploy', file), 'utf8')).map((d) => d.toJS());

t.test('the metaops namespace enforces Pod Security restricted, and the Deployment complies', async (t) => {
  const [ns] = docs('namespace.yaml');
  t.match(ns.metadata.labels, {
    'pod-security.kubernetes.io/enforce': 'restricted',
    'pod-security.kubernetes.io/enforce-version': 'latest',
  });
  const [deployment] = docs('deployment.yaml');
  t.equal(deployment.metadata.namespace, ns.metadata.name);
  t.same(restrictedProblems(deployment.spec.template.spec), [], 'restricted admits its pods');
  t.match(deployment.spec.template.spec.containers[0].resources.limits, { memory: '512Mi' });
});

t.test('egress only to DNS, the API server, etcd members and HTTPS', async (t) => {
  const [policy] = docs('networkpolicy.yaml');
  t.same(policy.spec.policyTypes, ['Ingress', 'Egress'], 'egress is restricted at all');
  const egress = policy.spec.egress as any[];
  const ports = (rule: any) => (rule.ports ?? []).map((p: any) => `${p.protocol}/${p.port}`).sort();
  t.same(
    egress.map(ports),
    [['TCP/53', 'UDP/53'], ['TCP/2379'], ['TCP/443', 'TCP/6443']],
    'each rule names its ports: nothing is open on every port',
  );
  t.same(egress[0].to, [
    {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    },
  ]);
  t.same(egress[1].to, [{ namespaceSelector: {}, podSelector: { matchLabels: { app: 'etcd' } } }], 'etcd: pods only');
  t.notOk(
    egress.some((r) => (r.to ?? []).some((to: any) => to.ipBlock)),
    'no address block is opened beyond the HTTPS ports',
  );
  t.same(policy.spec.ingress[0].from, [
    { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'metacontroller' } } },
  ]);
});

t.test('pods are granted per namespace only: no ClusterRoleBinding holds them', async (t) => {
  const rbac = docs('rbac.yaml');
  const roles = new Map(rbac.filter((d) => d.kind === 'ClusterRole').map((d) => [d.metadata.name, d.rules]));
  const clusterWide = rbac
    .filter((d) => d.kind === 'ClusterRoleBinding')
    .flatMap((b) => roles.get(b.roleRef.name) as any[]);
  t.notOk(
    clusterWide.some((r) => r.resources.some((x: string) => x === 'pods' || x.startsWith('pods/'))),
    'no pod rule is bound cluster-wide',
  );
  t.same(roles.get('metaops-podbuggertool'), [
    // get: the injector reads a pod again before its PATCH; list: a tool's status counts the pods it selects.
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    { apiGroups: [''], resources: ['pods/ephemeralcontainers'], verbs: ['patch'] },
    // list: a count measures a pending pod with every tool of its namespace (what Metacontroller sends with it).
    { apiGroups: ['debug.metaops.dev'], resources: ['podbuggertools'], verbs: ['list'] },
  ]);
  t.notOk(
    rbac.some((d) => d.kind === 'ClusterRoleBinding' && d.roleRef.name === 'metaops-podbuggertool'),
    'bound by an admin, namespace by namespace',
  );
  t.ok(
    clusterWide.some((r) => r.resources.includes('events') && r.apiGroups.includes('events.k8s.io')),
    'Events everywhere',
  );
});
