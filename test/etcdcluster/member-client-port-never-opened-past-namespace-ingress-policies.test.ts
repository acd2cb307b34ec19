// NetworkPolicies add up: a pod selected by several policies for ingress may be reached by what any of them allows.
// The members' NetworkPolicy `<name>-members` let the client port 2379 in from anywhere (a rule without `from`), and
// the metrics port from every pod of the namespace. In a namespace whose admin denies ingress by default
// (`podSelector: {}`, `policyTypes: [Ingress]`, no rule), that policy opened 2379 to every pod of every namespace:
// metaops widened what the namespace's own policies allow (issue 29).
//
// Must hold: where another policy of the namespace selects the members for Ingress, 2379 is let in only from what the
// cluster needs (its members; its backup pods, by the label an EtcdBackup's Job pods carry for each cluster they
// dial; the hook server's pods, by their labels in METAOPS_SERVER_NAMESPACE, only when it is set), never from
// everyone, and the metrics port from no pod of the namespace; NetworkPolicyCreated says which case applies; a
// namespace without policies gets the answer it got before; the same observed state gives the same answer; finalize
// keeps the policy as narrow as it was observed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import { finalize } from '../../hooks/etcdcluster/sync.js';
import { networkSettings, networkSettingsProblems } from '../../hooks/etcdcluster/network.js';
import { selectorSelects } from '../../lib/network-policy.js';
import { SERVER_POD_LABELS } from '../../lib/config.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backupRequest, etcdCluster } from '../fixtures/backup.js';
import { podTemplateOf } from '../fixtures/backup-kubelet.js';
import { running } from '../fixtures/etcd-loop.js';
import { backupSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod } from '../fixtures/requests.js';

const root = join(import.meta.dirname, '..', '..');
const denyIngress = (namespace: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'default-deny-ingress', namespace, uid: 'uid-admin-in' },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
});
const denyEgress = (namespace: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'default-deny-egress', namespace, uid: 'uid-admin-out' },
  spec: { podSelector: {}, policyTypes: ['Egress'] },
});
const membersPolicy = (children: KubeObject[]): any =>
  children.find((c) => c.kind === 'NetworkPolicy' && c.metadata.name === 'e-members');
const condition = (status: any) => ((status?.conditions ?? []) as any[]).find((c) => c.type === 'NetworkPolicyCreated');
/** The rules of a policy by port: who may reach it (`everyone` for a rule without `from`). */
const byPort = (policy: any): Record<number, unknown> =>
  Object.fromEntries(
    (policy.spec.ingress as any[]).flatMap((r) => r.ports.map((p: any) => [p.port, r.from ?? 'everyone'])),
  );
const stable = (v: unknown) => JSON.parse(JSON.stringify(v, (k, x) => (k === 'lastTransitionTime' ? undefined : x)));
const OWN = { app: 'etcd', etcd_cluster: 'e', 'etcdcluster.metaops.io/instance': 'e' };

t.test(
  'a namespace that denies ingress by default: 2379 only from the members, backup pods and server pods',
  async (t) => {
    const loop = await running({ size: 3 }, 'e', { serverNamespace: 'metaops' } as never);
    t.same(byPort(membersPolicy(loop.children))[2379], 'everyone', 'a namespace without policies: open, as before');
    loop.related = [denyIngress('ns')];
    await loop.step();
    const policy = membersPolicy(loop.children);
    const rules = byPort(policy);
    t.same(rules[2379], [
      { podSelector: { matchLabels: OWN } },
      { podSelector: { matchLabels: { 'client.etcd.metaops.io/e': 'backup' } } },
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'metaops' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'metaops', 'app.kubernetes.io/component': 'hooks' } },
      },
    ]);
    t.notOk(
      (policy.spec.ingress as any[]).some((r) => !r.from || r.from.length === 0),
      'no rule lets everyone in',
    );
    t.notOk(
      (policy.spec.ingress as any[]).some((r) =>
        (r.from as any[]).some((p) => p.podSelector && !p.podSelector.matchLabels),
      ),
      'no rule lets every pod of the namespace in',
    );
    t.same(rules[2380], [{ podSelector: { matchLabels: OWN } }], 'peers as before');
    t.notOk(rules[2381], 'the metrics port from no pod (no METAOPS_ETCD_METRICS_NAMESPACES)');
    t.same(policy.spec.policyTypes, ['Ingress', 'Egress'], 'egress as before: the namespace does not govern it');
    t.match(condition(loop.s()), {
      status: 'True',
      reason: 'NamespaceGovernsIngress',
      message: /default-deny-ingress.*client\.etcd\.metaops\.io\/e=backup.*server's pods \(namespace metaops\)/,
    });
    const answered = structuredClone(loop.children);
    const status = stable(loop.s());
    await loop.step();
    t.same(loop.children, answered, 'fed back: the same children');
    t.same(stable(loop.s()), status, 'and the same status');
  },
);

t.test('without METAOPS_SERVER_NAMESPACE: nothing wider than the cluster, and the status says so', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [denyIngress('ns')];
  await loop.step();
  t.same(byPort(membersPolicy(loop.children))[2379], [
    { podSelector: { matchLabels: OWN } },
    { podSelector: { matchLabels: { 'client.etcd.metaops.io/e': 'backup' } } },
  ]);
  t.match(condition(loop.s()), {
    status: 'True',
    reason: 'NamespaceGovernsIngress',
    message: /METAOPS_SERVER_NAMESPACE is not set/,
  });
});

t.test('the metrics namespaces the server names stay; the namespace pods go', async (t) => {
  const loop = await running({ size: 1 }, 'e', { metricsNamespaces: ['monitoring'] } as never);
  loop.related = [denyIngress('ns')];
  await loop.step();
  t.same(byPort(membersPolicy(loop.children))[2381], [
    {
      namespaceSelector: {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['monitoring'] }],
      },
    },
  ]);
});

t.test('a namespace that denies both: no egress, 2379 narrowed, both said', async (t) => {
  const loop = await running({ size: 3 }, 'e', { serverNamespace: 'metaops' } as never);
  loop.related = [denyIngress('ns'), denyEgress('ns')];
  await loop.step();
  const policy = membersPolicy(loop.children);
  t.same(policy.spec.policyTypes, ['Ingress']);
  t.notOk(byPort(policy)[2379] === 'everyone');
  t.match(condition(loop.s()), {
    status: 'True',
    reason: 'NamespaceGovernsEgressAndIngress',
    message: /default-deny-ingress.*default-deny-egress/,
  });
});

t.test('a namespace without policies, or whose policies select other pods: the answer as before', async (t) => {
  const plain = await running({ size: 3 }, 'e', { serverNamespace: 'metaops' } as never);
  const before = membersPolicy(plain.children);
  t.same(byPort(before), {
    2379: 'everyone',
    2380: [{ podSelector: { matchLabels: OWN } }],
    2381: [{ podSelector: {} }],
  });
  t.notOk(condition(plain.s()), 'no condition');
  plain.related = [
    { ...denyIngress('ns'), spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] } },
    denyIngress('another-namespace'),
  ];
  await plain.step();
  t.same(membersPolicy(plain.children), before, 'the same policy');
  t.notOk(condition(plain.s()), 'and no condition');
});

t.test("a backup's pods carry the label the members' policy lets in, for the cluster they dial", async (t) => {
  const spec = {
    clusterName: 'e',
    backupPolicy: { backupIntervalInSecond: 0 },
    s3: { path: 'bucket/ns/snap', awsSecret: 'aws' },
  };
  const r = backupSync(
    backupRequest({ spec, clusters: [etcdCluster('e', 'ns', { clusterID: '1311768467463790320' })] }),
    'metaops:test',
    FIXED_NOW,
  );
  const job = r.children.find((c) => c.kind === 'Job')!;
  t.ok(job, 'a Job');
  const labels = podTemplateOf(job).metadata.labels as Record<string, string>;
  t.equal(labels['client.etcd.metaops.io/e'], 'backup');
  const loop = await running({ size: 1 });
  loop.related = [denyIngress('ns')];
  await loop.step();
  const from = byPort(membersPolicy(loop.children))[2379] as any[];
  t.ok(
    from.some((p) => !p.namespaceSelector && selectorSelects(p.podSelector, labels)),
    "the backup pod is selected by a peer of the members' client rule",
  );
  const other = { ...labels };
  delete other['client.etcd.metaops.io/e'];
  other['client.etcd.metaops.io/f'] = 'backup';
  t.notOk(
    from.some((p) => !p.namespaceSelector && selectorSelects(p.podSelector, other)),
    "another cluster's backup pod is not",
  );
});

t.test('an answer that keeps what exists (a refused spec) answers the narrowed policy', async (t) => {
  const loop = await running({ size: 3 }, 'e', { serverNamespace: 'metaops' } as never);
  t.same(byPort(membersPolicy(loop.children))[2379], 'everyone', 'observed open, as an earlier metaops made it');
  loop.related = [denyIngress('ns')];
  loop.spec = { ...loop.spec, pod: { tolerations: [{ key: 'dedicated', operator: 'Exists' }] } };
  const res: any = await loop.step();
  t.match(
    res.status?.conditions?.find((c: any) => c.type === 'Ready'),
    { reason: 'InvalidSpec' },
  );
  t.equal(loop.children.filter((c) => c.kind === 'Pod').length, 3, 'the members are kept');
  t.not(byPort(membersPolicy(loop.children))[2379], 'everyone', 'the client port narrowed all the same');
});

t.test('finalize keeps the policy as narrow as it was observed', async (t) => {
  const loop = await running({ size: 3 }, 'e', { serverNamespace: 'metaops' } as never);
  loop.related = [denyIngress('ns')];
  await loop.step();
  const observed = loop.children.map((c) => asObserved(c, c.kind === 'Pod' ? readyPod : undefined));
  const parent = {
    ...loop.parent(),
    metadata: { ...loop.parent().metadata, deletionTimestamp: '2026-01-02T03:04:05Z' },
  };
  const kept = finalize(
    { controller: {}, parent, children: objectMap(observed) } as never,
    { serverNamespace: 'metaops' } as never,
    FIXED_NOW,
  );
  const policy = membersPolicy(kept.children as KubeObject[]);
  t.same(policy.spec, membersPolicy(observed).spec, 'as observed: 2379 not opened to everyone at deletion');
});

t.test('METAOPS_SERVER_NAMESPACE: read from the environment, checked, set by the shipped manifests', async (t) => {
  t.equal(networkSettings({ METAOPS_SERVER_NAMESPACE: ' metaops ' }).serverNamespace, 'metaops');
  t.notOk(networkSettings({}).serverNamespace, 'unset');
  t.notOk(networkSettings({ METAOPS_SERVER_NAMESPACE: '' }).serverNamespace, 'empty: unset');
  t.same(networkSettingsProblems({ METAOPS_SERVER_NAMESPACE: 'metaops' }), []);
  t.match(networkSettingsProblems({ METAOPS_SERVER_NAMESPACE: 'Not/A Namespace' }), [/METAOPS_SERVER_NAMESPACE/]);
  const deployment = YAML.parse(readFileSync(join(root, 'manifests', 'deploy', 'deployment.yaml'), 'utf8'));
  const template = deployment.spec.template;
  t.same(
    template.spec.containers[0].env.find((e: any) => e.name === 'METAOPS_SERVER_NAMESPACE'),
    { name: 'METAOPS_SERVER_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    'from the downward API',
  );
  t.ok(
    selectorSelects({ matchLabels: SERVER_POD_LABELS }, template.metadata.labels),
    "the server's pods carry the labels",
  );
  const chart = readFileSync(join(root, 'charts', 'metaops', 'templates', 'deployment.yaml'), 'utf8');
  t.match(chart, /- name: METAOPS_SERVER_NAMESPACE\n\s+valueFrom:\n\s+fieldRef:\n\s+fieldPath: metadata.namespace/);
});
