// A Memcached's pods run the tenant's image (spec.image) with Metacontroller's rights, in a namespace whose
// administrator may have set no NetworkPolicy because its tenants make no pods: without a policy the tenant's code
// takes the node's credentials from the instance metadata service (169.254.169.254).
//
// Must hold: every Memcached answers a NetworkPolicy `<name>-memcached` selecting exactly its pods, as its Service does
// (by its instance label once every pod carries it; before, by its Deployment's selector), Egress only (its clients
// reach it as the namespace's own policies say), its way out every address but the metadata service's and every pod;
// METAOPS_WORKLOAD_NETWORK_POLICY=false answers none. A running Memcached of an earlier metaops gets the policy and
// nothing else changes (its Deployment's template unchanged: no pod recreated); the answer fed back changes nothing. A
// refused spec keeps the observed policy. Its name is valid at the longest Memcached name, and held
// (`NetworkPolicyNameTaken`, nothing made) while another owner has it.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import { childNames, currentNames, INSTANCE_LABEL } from '../../hooks/memcached/sync.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { runPure } from '../../lib/operator.js';
import { ruleProblem } from '../../lib/values.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const settingsOf = (env: NodeJS.ProcessEnv) => memcached.settings!({ env } as any);
const sync = (req: CompositeSyncRequest, env: NodeJS.ProcessEnv = {}) =>
  runPure(memcached, 'sync', req, { now: FIXED_NOW, settings: settingsOf(env) }) as CompositeSyncResponse;
const named = (name: string, spec: Record<string, unknown> = { size: 2 }) => {
  const req = request('memcached', spec);
  req.parent.metadata = { ...req.parent.metadata, name, namespace: 'ns', uid: `uid-${name}` };
  return req;
};
const child = (res: CompositeSyncResponse, kind: string) => res.children.find((c) => c.kind === kind) as any;
const policiesOf = (res: CompositeSyncResponse) => res.children.filter((c) => c.kind === 'NetworkPolicy') as any[];
const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');

t.test(
  'a Memcached answers one NetworkPolicy <name>-memcached keeping its pods from the metadata service',
  async (t) => {
    const res = sync(named('cache'));
    const [policy, ...more] = policiesOf(res);
    t.same(more, [], 'one policy');
    t.same(policy, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: {
        name: 'cache-memcached',
        namespace: 'ns',
        labels: {
          'app.kubernetes.io/name': 'memcached',
          'app.kubernetes.io/instance': 'cache',
          'app.kubernetes.io/component': 'network-policy',
          'app.kubernetes.io/managed-by': 'metaops',
        },
      },
      spec: {
        podSelector: {
          matchLabels: {
            'app.kubernetes.io/name': 'memcached',
            'app.kubernetes.io/instance': 'cache',
            [INSTANCE_LABEL]: 'cache',
          },
        },
        policyTypes: ['Egress'],
        egress: [
          {
            to: [
              { ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.169.254/32', '168.63.129.16/32', '169.254.0.23/32'] } },
              { ipBlock: { cidr: '::/0', except: ['fd00:ec2::254/128', 'fd20:ce::254/128'] } },
              { namespaceSelector: {} },
            ],
          },
        ],
      },
    });
    t.same(policy.spec.podSelector.matchLabels, child(res, 'Service').spec.selector, "the Service's pods, exactly");
    const template = child(res, 'Deployment').spec.template.metadata.labels;
    for (const [k, v] of Object.entries(policy.spec.podSelector.matchLabels))
      t.equal(template[k], v, `pods carry ${k}`);
  },
);

t.test("before its pods carry the instance label, the policy selects its Deployment's pods", async (t) => {
  // A Memcached of an earlier metaops: its Service selects by name and instance, its pods lack the instance label.
  const first = sync(named('cache'));
  const deploy = structuredClone(child(first, 'Deployment'));
  delete deploy.spec.template.metadata.labels[INSTANCE_LABEL];
  const svc = structuredClone(child(first, 'Service'));
  delete svc.spec.selector[INSTANCE_LABEL];
  const req = named('cache');
  req.children = objectMap([
    asObserved(deploy, { replicas: 2, updatedReplicas: 2, observedGeneration: 1 }),
    asObserved(svc),
  ]);
  const res = sync(req);
  t.same(policiesOf(res)[0].spec.podSelector.matchLabels, deploy.spec.selector.matchLabels);
  t.same(policiesOf(res)[0].spec.podSelector.matchLabels, child(res, 'Service').spec.selector);
});

t.test('METAOPS_WORKLOAD_NETWORK_POLICY=false answers none; any other word stops the server', async (t) => {
  const off = sync(named('cache'), { METAOPS_WORKLOAD_NETWORK_POLICY: 'false' });
  t.same(
    off.children.map((c) => c.kind),
    ['Deployment', 'Service'],
  );
  t.same(memcached.configProblems!({}), []);
  t.match(memcached.configProblems!({ METAOPS_WORKLOAD_NETWORK_POLICY: 'no' }), [
    /METAOPS_WORKLOAD_NETWORK_POLICY="no": expected true or false/,
  ]);
});

t.test('the policy is a child Metacontroller may make: networkpolicies, in place', async (t) => {
  t.match(
    memcached.childResources.find((r) => r.resource === 'networkpolicies'),
    { apiVersion: 'networking.k8s.io/v1', updateStrategy: { method: 'InPlace' } },
  );
});

t.test('the longest Memcached name makes a valid policy name, asked for and judged by it', async (t) => {
  const longest = 'm'.repeat(53);
  const res = sync(named(longest));
  t.not(ready(res).reason, 'InvalidSpec');
  t.equal(policiesOf(res)[0].metadata.name, `${longest}-memcached`);
  t.equal(ruleProblem('dns1123Subdomain', `${longest}-memcached`), undefined);
  const policy = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', name: `${longest}-memcached` };
  t.ok(childNames(named(longest).parent).some((n) => n.kind === policy.kind && n.name === policy.name));
  const stored = { ...named(longest).parent, status: { serviceName: `${longest}-memcached`, conditions: [] } };
  t.ok(currentNames(stored).some((n) => n.kind === policy.kind && n.name === policy.name));
});

t.test('a running Memcached of an earlier metaops gains the policy and nothing else changes', async (t) => {
  const before = sync(named('cache'));
  const observed = before.children
    .filter((c) => c.kind !== 'NetworkPolicy')
    .map((c) => asObserved(c, c.kind === 'Deployment' ? { replicas: 2, readyReplicas: 2 } : undefined));
  const req = named('cache');
  req.children = objectMap(observed);
  const res = sync(req);
  t.same(child(res, 'Deployment'), child(before, 'Deployment'), 'the Deployment as before: no pod recreated');
  t.same(child(res, 'Service'), child(before, 'Service'));
  t.equal(policiesOf(res).length, 1);
  const again = named('cache');
  again.children = objectMap([...observed, asObserved(policiesOf(res)[0])]);
  again.parent.status = res.status;
  const next = sync(again);
  t.same(next.children, res.children, 'the same answer');
  // Until the policy is observed its pods run without it, and the status says so; once it is, nothing else changed.
  const creating = (s: any) => (s.conditions as any[]).find((c) => c.type === 'NetworkPolicyCreated');
  t.match(creating(res.status), { status: 'False', reason: 'CreatingNetworkPolicy' });
  t.equal(creating(next.status), undefined, 'said no more once the policy is observed');
  const without = {
    ...res.status,
    conditions: (res.status as any).conditions.filter((c: any) => !creating({ conditions: [c] })),
  };
  t.same(next.status, without, 'the same status but for NetworkPolicyCreated');
  again.parent.status = next.status;
  t.same(sync(again).status, next.status, 'at rest');
});

t.test('a refused spec keeps the observed policy', async (t) => {
  const observed = sync(named('cache')).children.map((c) => asObserved(c));
  const req = named('cache', { size: -1 });
  req.children = objectMap(observed);
  const res = sync(req);
  t.equal(ready(res).reason, 'InvalidSpec');
  t.same(res.children.map((c) => `${c.kind}/${c.metadata.name}`).sort(), [
    'Deployment/cache',
    'NetworkPolicy/cache-memcached',
    'Service/cache-memcached',
  ]);
});

t.test("another owner's NetworkPolicy <name>-memcached holds the Memcached: nothing made", async (t) => {
  const theirs = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'cache-memcached', namespace: 'ns', uid: 'uid-admins' },
    spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] },
  } as KubeObject;
  const req = named('cache');
  req.related = objectMap([theirs]);
  const res = sync(req);
  t.match(ready(res), { status: 'False', reason: 'NetworkPolicyNameTaken', message: /NetworkPolicy cache-memcached/ });
  t.same(res.children, [], 'no Deployment (no pod runs without its policy)');
});
