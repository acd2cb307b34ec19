// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
//
// NetworkPolicies add up. In a namespace whose admin denies ingress by default, an EtcdCluster's members' policy
// `<name>-members` must not open the client port 2379 to everyone (a rule without `from`), as it did: it lets in only
// its members, its backup pods (label `client.etcd.metaops.io/<cluster>: backup`) and the hook server's pods
// (METAOPS_SERVER_NAMESPACE), and NetworkPolicyCreated says NamespaceGovernsIngress. Customize asks Metacontroller for
// the namespace's policies: the default-deny applied after the cluster is made narrows the policy at the next sync.
// No CNI here: what is checked is what the API server stores. (Another parent's policy not counted as the namespace's:
// test/operators/another-parents-policy-is-not-the-namespaces.test.ts; Metacontroller reverts or releases a policy
// edited to select another parent's pods, so it is not staged here.)
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { condition, secs, type Scenario } from './common.js';

const NS = 'ingress-governed';

export const ingressGoverned: Scenario = {
  name: "Namespace ingress governance: a default-deny ingress narrows an EtcdCluster's client port to its members, backups and the server",
  async run(k) {
    const notes: string[] = [];
    await k.kubectl(['create', 'namespace', NS]);
    const cluster = {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdCluster',
      metadata: { name: 'ig', namespace: NS },
      spec: { size: 1, version: '3.5.0' },
    };
    await k.kubectl(['apply', '-f', '-'], JSON.stringify(cluster));
    const rules = (p: any) =>
      Object.fromEntries(
        (p.spec.ingress as any[]).flatMap((r) => r.ports.map((x: any) => [x.port, r.from ?? 'everyone'])),
      );
    await waitFor('ig-members, open to its clients', async () => {
      const p = await k.getOrUndefined(['networkpolicy', '-n', NS, 'ig-members']);
      return p && rules(p)[2379] === 'everyone' ? p : undefined;
    });
    const t0 = Date.now();
    const deny = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'default-deny-ingress', namespace: NS },
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    };
    await k.kubectl(['apply', '-f', '-'], JSON.stringify(deny));
    const own = { app: 'etcd', etcd_cluster: 'ig', 'etcdcluster.metaops.io/instance': 'ig' };
    const narrowed = await waitFor(
      'ig-members narrowed once the namespace denies ingress',
      async () => {
        const p = await k.getOrUndefined(['networkpolicy', '-n', NS, 'ig-members']);
        return p && rules(p)[2379] !== 'everyone' ? p : undefined;
      },
      60_000,
    );
    assert.deepEqual(rules(narrowed)[2379], [
      { podSelector: { matchLabels: own } },
      { podSelector: { matchLabels: { 'client.etcd.metaops.io/ig': 'backup' } } },
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'metaops' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/component': 'hooks', 'app.kubernetes.io/name': 'metaops' } },
      },
    ]);
    assert.equal(rules(narrowed)[2381], undefined, 'the metrics port from no pod of the namespace');
    notes.push(`ig-members narrowed ${secs(t0)} after the default-deny ingress was applied`);
    const said = await waitFor('NetworkPolicyCreated NamespaceGovernsIngress', async () => {
      const c = condition(await k.getOrUndefined(['etcdcluster', '-n', NS, 'ig']), 'NetworkPolicyCreated');
      return c?.reason === 'NamespaceGovernsIngress' ? c : undefined;
    });
    assert.equal(said.status, 'True');
    assert.match(said.message, /default-deny-ingress/);
    // Same observed state, same answer: the cluster and its policy stay as they are.
    notes.push(await k.assertQuiet({ namespace: NS, parents: ['etcdclusters/ig'], hooks: ['etcdcluster/sync'] }));
    // The cluster gone before the next scenario: its syncs would count in that scenario's quiet window (hook calls
    // are counted per hook, whatever the parent), as the namespace's deletion alone leaves it for many seconds.
    await k.kubectl(['delete', 'etcdcluster', 'ig', '-n', NS, '--wait=true', '--timeout=150s']);
    await k.kubectl(['delete', 'namespace', NS, '--wait=false']);
    return notes;
  },
};
