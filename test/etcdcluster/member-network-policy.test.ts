// An EtcdCluster's members run the tenant's image (spec.repository, spec.version) in pods Metacontroller makes with
// its own rights, in a namespace whose administrator may have set no NetworkPolicy because its tenants make no pods.
// Without a policy every pod of every namespace reads a member's metrics and health (2381: plain HTTP also under TLS,
// the kubelet's probes ask it) and speaks to its peer port (2380), and the tenant's code in a member asks the node's
// instance metadata service (169.254.169.254, fd00:ec2::254) for the node's credentials.
//
// Must hold: every EtcdCluster answers a NetworkPolicy `<name>-members` selecting its member pods: 2379 open to all
// (clients; TLS protects it when set), 2380 only from the cluster's members, 2381 only from pods of its namespace and
// of the namespaces METAOPS_ETCD_METRICS_NAMESPACES names; egress everywhere but the metadata service (every address
// outside it, every pod of every namespace), unless the namespace may use the node's credentials anyway
// (METAOPS_BACKUP_AMBIENT_CREDENTIALS). METAOPS_ETCD_NETWORK_POLICY=false answers none. A running cluster of an earlier
// metaops gets the policy and nothing else changes; the answer fed back changes nothing.
import t from 'tap';
import { ETCDCLUSTER_EVENTS } from '../../hooks/etcdcluster/events.js';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import type { EtcdClusterSettings } from '../../hooks/etcdcluster/network.js';
import { etcdFirstSync } from '../fixtures/etcd.js';
import { FakeEtcd, Loop, running } from '../fixtures/etcd-loop.js';

type Obj = {
  kind: string;
  metadata: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: any;
};
interface Peer {
  namespace: string;
  /** The namespace's labels as the API server sets them. */
  labels: Record<string, string>;
  /** Undefined: an address that is no pod (a node, a cloud service). */
  pod?: Record<string, string>;
  ip: string;
}

const selects = (sel: any, labels: Record<string, string> | undefined): boolean =>
  !!labels &&
  Object.entries(sel?.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
  ((sel?.matchExpressions ?? []) as any[]).every((e) =>
    e.operator === 'In' ? (e.values as string[]).includes(labels[e.key] ?? '\0') : false,
  );

/** Whether an ipBlock holds an address (the test's addresses: exact /32 and /128, or the whole family). */
const inBlock = (block: any, ip: string): boolean => {
  const v6 = ip.includes(':');
  if (block.cidr !== (v6 ? '::/0' : '0.0.0.0/0')) return false;
  return !((block.except ?? []) as string[]).some((e) => e === `${ip}/${v6 ? 128 : 32}`);
};

/** Whether a peer matches a NetworkPolicyPeer of a policy in namespace `own`, as the API defines it. */
function matches(entry: any, peer: Peer, own: string): boolean {
  if (entry.ipBlock) return inBlock(entry.ipBlock, peer.ip);
  if (!peer.pod) return false;
  if (entry.namespaceSelector)
    return selects(entry.namespaceSelector, peer.labels) && selects(entry.podSelector ?? {}, peer.pod);
  return peer.namespace === own && selects(entry.podSelector, peer.pod);
}

function ingressAllowed(policy: Obj, peer: Peer, port: number): boolean {
  return ((policy.spec.ingress ?? []) as any[]).some(
    (rule) =>
      (rule.ports ?? []).some((p: any) => p.port === port && p.protocol === 'TCP') &&
      (rule.from === undefined || (rule.from as any[]).some((f) => matches(f, peer, policy.metadata.namespace!))),
  );
}

function egressAllowed(policy: Obj, peer: Peer): boolean {
  return ((policy.spec.egress ?? []) as any[]).some(
    (rule) => rule.ports === undefined && (rule.to as any[]).some((f) => matches(f, peer, policy.metadata.namespace!)),
  );
}

const ns = (name: string) => ({ namespace: name, labels: { 'kubernetes.io/metadata.name': name } });
const podOf = (namespace: string, labels: Record<string, string>): Peer => ({
  ...ns(namespace),
  pod: labels,
  ip: '10.1.2.3',
});
const address = (ip: string): Peer => ({ ...ns(''), ip });

const policyOf = (children: Obj[]) => children.filter((c) => c.kind === 'NetworkPolicy');
const sync = (spec: Record<string, unknown>, settings?: Partial<EtcdClusterSettings>) =>
  etcdFirstSync(spec, settings) as Promise<{ status?: any; children: Obj[] }>;

t.test(
  'a new cluster answers the members a NetworkPolicy that keeps other namespaces to the client port',
  async (t) => {
    const res = await sync({ size: 3 });
    const policies = policyOf(res.children);
    t.equal(policies.length, 1, 'one NetworkPolicy');
    const policy = policies[0]!;
    t.match(policy, { metadata: { name: 'e-members', namespace: 'ns' } });
    t.same(policy.spec.policyTypes, ['Ingress', 'Egress']);
    const members = res.children.filter((c) => c.kind === 'Pod');
    t.ok(members.length > 0, 'members answered');
    for (const m of members) t.ok(selects(policy.spec.podSelector, m.metadata.labels), `it selects ${m.metadata.name}`);
    const member = podOf('ns', members[0]!.metadata.labels!);
    const neighbour = podOf('ns', { app: 'web' });
    const teamB = podOf('team-b', { app: 'etcd', etcd_cluster: 'e' });
    const node = address('10.0.0.5');
    t.ok(ingressAllowed(policy, teamB, 2379), "another namespace's pod reaches the client port");
    t.ok(ingressAllowed(policy, node, 2379), 'so does any address');
    t.notOk(ingressAllowed(policy, teamB, 2380), "another namespace's pod does not reach the peer port");
    t.notOk(ingressAllowed(policy, neighbour, 2380), 'nor a pod of the namespace that is no member');
    t.ok(ingressAllowed(policy, member, 2380), 'a member reaches the peer port');
    t.notOk(ingressAllowed(policy, teamB, 2381), "another namespace's pod does not read the metrics");
    t.ok(ingressAllowed(policy, neighbour, 2381), "a pod of the cluster's namespace reads the metrics");
    t.ok(ingressAllowed(policy, member, 2381), 'so does a member');
    t.notOk(egressAllowed(policy, address('169.254.169.254')), 'no way out to the metadata service');
    t.notOk(egressAllowed(policy, address('fd00:ec2::254')), 'nor to its IPv6 address');
    for (const ip of ['8.8.8.8', '10.96.0.10', '169.254.20.10', '2001:db8::1'])
      t.ok(egressAllowed(policy, address(ip)), `out to ${ip}`);
    t.ok(egressAllowed(policy, teamB), 'out to a pod of any namespace');
  },
);

t.test('the metrics port opens to the namespaces the server names, and to none besides', async (t) => {
  const res = await sync({ size: 1 }, { metricsNamespaces: ['monitoring'] });
  const policy = policyOf(res.children)[0]!;
  const prometheus = podOf('monitoring', { app: 'prometheus' });
  t.ok(ingressAllowed(policy, prometheus, 2381), 'a pod of monitoring reads the metrics');
  t.notOk(ingressAllowed(policy, prometheus, 2380), 'not the peer port');
  t.notOk(ingressAllowed(policy, podOf('team-b', { app: 'prometheus' }), 2381), 'another namespace does not');
});

t.test('the settings read from the environment: on by default, off by METAOPS_ETCD_NETWORK_POLICY=false', async (t) => {
  const settingsOf = (env: NodeJS.ProcessEnv) => etcdcluster.settings!({ env } as never) as EtcdClusterSettings;
  t.match(settingsOf({}), { memberNetworkPolicy: true, metricsNamespaces: [] });
  t.match(settingsOf({ METAOPS_ETCD_NETWORK_POLICY: 'false', METAOPS_ETCD_METRICS_NAMESPACES: 'monitoring, obs' }), {
    memberNetworkPolicy: false,
    metricsNamespaces: ['monitoring', 'obs'],
  });
  const off = await sync({ size: 1 }, settingsOf({ METAOPS_ETCD_NETWORK_POLICY: 'false' }));
  t.same(policyOf(off.children), [], 'no NetworkPolicy when the server turns it off');
  t.ok(
    off.children.some((c) => c.kind === 'Pod'),
    'the members are answered as before',
  );
  const problems = etcdcluster.configProblems!({
    METAOPS_ETCD_NETWORK_POLICY: 'maybe',
    METAOPS_ETCD_METRICS_NAMESPACES: 'monitoring,Not_A_Namespace',
  });
  t.match(problems, [
    /METAOPS_ETCD_NETWORK_POLICY="maybe": expected true or false/,
    /"Not_A_Namespace" is not a namespace/,
  ]);
  t.same(
    etcdcluster.configProblems!({ METAOPS_ETCD_NETWORK_POLICY: 'true', METAOPS_ETCD_METRICS_NAMESPACES: 'm' }),
    [],
  );
});

t.test("a namespace the server lets use the node's credentials keeps the metadata service", async (t) => {
  const settingsOf = (env: NodeJS.ProcessEnv) => etcdcluster.settings!({ env } as never) as EtcdClusterSettings;
  const allowed = await sync({ size: 1 }, settingsOf({ METAOPS_BACKUP_AMBIENT_CREDENTIALS: 'ns' }));
  t.ok(egressAllowed(policyOf(allowed.children)[0]!, address('169.254.169.254')));
  const other = await sync({ size: 1 }, settingsOf({ METAOPS_BACKUP_AMBIENT_CREDENTIALS: 'team-b' }));
  t.notOk(egressAllowed(policyOf(other.children)[0]!, address('169.254.169.254')));
});

t.test('a running cluster of an earlier metaops gets the policy, nothing else changes, and stays so', async (t) => {
  const loop = await running({ size: 3 });
  const before = loop.children.filter((c) => c.kind !== 'NetworkPolicy');
  loop.children = before;
  await loop.step();
  t.equal(policyOf(loop.children as Obj[]).length, 1, 'the policy is answered');
  t.same(
    loop.children.filter((c) => c.kind !== 'NetworkPolicy'),
    before,
    'every other child answered as it was: no member restarted',
  );
  // The sync that answers it says the members run without it yet (network.ts networkPolicyCreated), and no more.
  t.match(
    (loop.s().conditions as any[]).find((c) => c.type === 'NetworkPolicyCreated'),
    { reason: 'CreatingNetworkPolicy' },
  );
  const answered = structuredClone(loop.children);
  await loop.step();
  t.same(loop.children, answered, 'fed back: the same children');
  t.notOk(
    (loop.s().conditions as any[]).some((c) => c.type === 'NetworkPolicyCreated'),
    'the policy observed: nothing said',
  );
  const status = structuredClone(loop.s());
  await loop.step();
  t.same(loop.children, answered, 'and again');
  t.same(loop.s(), status, 'with the same status');
});

t.test("a NetworkPolicy of the cluster's name another owner holds is not taken: NetworkPolicyNameTaken", async (t) => {
  const loop = new Loop({ size: 3 }, new FakeEtcd('e'));
  const theirs = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'e-members', namespace: 'ns', uid: 'uid-theirs' },
    spec: { podSelector: {}, policyTypes: ['Ingress'] },
  };
  loop.related = [theirs];
  await loop.step();
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Ready'),
    { reason: 'NetworkPolicyNameTaken', message: /NetworkPolicy e-members/ },
  );
  t.same(loop.pods(), [], 'no member made');
  t.same(policyOf(loop.children as Obj[]), [], 'the policy is not answered over theirs');
  t.ok(ETCDCLUSTER_EVENTS.warnings.has('NetworkPolicyNameTaken'), 'told as a warning Event as the other names taken');
});
