// NetworkPolicies add up: a pod selected by several policies for a direction may do what any of them allows. metaops
// answers NetworkPolicies for the pods that run a tenant's image (PodSet `<name>-podset`, Memcached `<name>-memcached`:
// egress to all but the instance metadata service; EtcdCluster `<name>-members` and `<name>-restore-check`: the same
// egress, and the members' client port 2379 from anywhere). In a namespace whose admin denies egress by default
// (`podSelector: {}`, `policyTypes: [Egress]`, no rule), that policy opened egress to everything but the metadata
// service for those pods: metaops widened what the namespace's own policies allow (issue 29).
//
// Must hold: where another policy of the namespace selects the pods for Egress, metaops answers them no egress (PodSet,
// Memcached: no policy; EtcdCluster: its policy without the Egress type), and the status says the namespace governs
// their egress; a namespace without policies gets the answers it got before; hostile policy objects are read by type,
// bounded, never a failure (one it cannot read is doubt: metaops' policy keeps every pod from the metadata services, and
// the status says so); the same observed state gives the same answer.
import t from 'tap';
import { namespaceGovernance, selectorSelects } from '../../lib/network-policy.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { running } from '../fixtures/etcd-loop.js';
import { podset } from '../../hooks/podset/index.js';
import { memcached } from '../../hooks/memcached/index.js';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';
const denyEgress = (namespace: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'default-deny-egress', namespace, uid: 'uid-admin' },
  spec: { podSelector: {}, policyTypes: ['Egress'] },
});
const denyIngress = (namespace: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'default-deny-ingress', namespace, uid: 'uid-admin-in' },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
});
const policies = (res: any): any[] => (res.children as any[]).filter((c) => c?.kind === 'NetworkPolicy');
const condition = (res: any) =>
  ((res.status?.conditions ?? []) as any[]).find((c) => c.type === 'NetworkPolicyCreated');
const withRelated = (req: CompositeSyncRequest, objects: KubeObject[]): CompositeSyncRequest => ({
  ...req,
  related: { ...(req.related ?? {}), ...objectMap(objects, 'v1', [NP]) },
});
/** The same answer, its conditions' times left out. */
const stable = (res: any) => JSON.parse(JSON.stringify(res, (k, v) => (k === 'lastTransitionTime' ? undefined : v)));

t.test('a PodSet in a namespace that denies egress by default answers its pods no way out', async (t) => {
  const base = request('podset', { size: 2, image: 'busybox:1.36', command: ['sleep', '3600'] });
  const open = podsetSync(base, FIXED_NOW) as any;
  t.equal(policies(open).length, 1, 'a namespace without policies: the policy as before');
  const ns = base.parent.metadata.namespace!;
  const denied = podsetSync(withRelated(base, [denyEgress(ns)]), FIXED_NOW) as any;
  t.same(policies(denied), [], 'no policy that would open egress past the default deny');
  t.same(
    (denied.children as any[]).filter((c) => c.kind === 'Pod').map((p) => p.metadata.name),
    (open.children as any[]).filter((c) => c.kind === 'Pod').map((p) => p.metadata.name),
    'the pods answered as before',
  );
  // Once its pods run, the status says why they have no policy.
  const observed = withRelated(
    { ...base, children: objectMap((open.children as any[]).map((c) => ({ ...c, status: { phase: 'Running' } }))) },
    [denyEgress(ns)],
  );
  const said = podsetSync(observed, FIXED_NOW) as any;
  t.match(condition(said), { status: 'False', reason: 'NamespaceGovernsEgress', message: /default-deny-egress/ });
  t.notOk(policies(said).length, 'and the policy observed before is not answered again');
  t.same(stable(podsetSync(observed, FIXED_NOW)), stable(said), 'the same observed state: the same answer');
  const rules = podset.customize!({ controller: {}, parent: base.parent } as never, {} as never).relatedResources;
  t.ok(
    rules.some((r) => r.resource === 'networkpolicies' && r.namespace === ns && !r.names && !r.labelSelector),
    'customize asks for every NetworkPolicy of its namespace',
  );
});

t.test('a Memcached in a namespace that denies egress by default answers its pods no way out', async (t) => {
  const base = request('memcached', { size: 1, image: 'memcached:1.6' });
  t.equal(policies(memcachedSync(base, FIXED_NOW)).length, 1, 'a namespace without policies: the policy as before');
  const ns = base.parent.metadata.namespace!;
  const denied = memcachedSync(withRelated(base, [denyEgress(ns)]), FIXED_NOW) as any;
  t.same(policies(denied), [], 'no policy that would open egress past the default deny');
  t.ok(
    (denied.children as any[]).some((c) => c.kind === 'Deployment'),
    'the Deployment answered as before',
  );
  const rules = memcached.customize!({ controller: {}, parent: base.parent } as never, {} as never).relatedResources;
  t.ok(
    rules.some((r) => r.resource === 'networkpolicies' && r.namespace === ns),
    'customize asks for the NetworkPolicies of its namespace',
  );
});

t.test('a policy selecting other pods, or for ingress only, leaves the workload policy as it was', async (t) => {
  const base = request('podset', { size: 1, image: 'busybox:1.36', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const before = podsetSync(base, FIXED_NOW) as any;
  const elsewhere: KubeObject = {
    ...denyEgress(ns),
    metadata: { name: 'web-only', namespace: ns },
    spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Egress'] },
  };
  const notIn: KubeObject = {
    ...denyEgress(ns),
    metadata: { name: 'not-podsets', namespace: ns },
    spec: {
      podSelector: { matchExpressions: [{ key: 'app.kubernetes.io/name', operator: 'NotIn', values: ['podset'] }] },
      policyTypes: ['Egress'],
    },
  };
  const other = withRelated(base, [elsewhere, notIn, denyIngress(ns), denyEgress('another-namespace')]);
  t.same(stable(podsetSync(other, FIXED_NOW)), stable(before), 'the same answer');
});

t.test("an EtcdCluster's policies leave egress to a namespace that denies it by default", async (t) => {
  const loop = await running({ size: 3 });
  const before = policies({ children: loop.children });
  t.ok(
    before.every((p) => p.spec.policyTypes.includes('Egress')),
    'a namespace without policies: egress as before',
  );
  loop.related = [denyEgress('ns')];
  await loop.step();
  const members = policies({ children: loop.children }).find((p) => p.metadata.name === 'e-members');
  t.same(members.spec.policyTypes, ['Ingress'], 'the members policy without Egress');
  t.notOk(members.spec.egress, 'and no egress rule');
  t.match(condition({ status: loop.s() }), {
    status: 'True',
    reason: 'NamespaceGovernsEgress',
    message: /default-deny-egress/,
  });
  const answered = structuredClone(loop.children);
  const status = stable(loop.s());
  await loop.step();
  t.same(loop.children, answered, 'fed back: the same children');
  t.same(stable(loop.s()), status, 'and the same status');
  const rules = etcdcluster.customize!(
    { controller: {}, parent: loop.parent() } as never,
    {} as never,
  ).relatedResources;
  t.ok(
    rules.some((r) => r.resource === 'networkpolicies' && r.namespace === 'ns'),
    'customize asks for them',
  );
});

t.test('hostile NetworkPolicy objects are read by type and bounded, never a failure', async (t) => {
  const base = request('podset', { size: 1, image: 'busybox:1.36', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const odd: any[] = [
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'a', namespace: ns }, spec: 7 },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: { toString: 1 }, namespace: ns },
      spec: { podSelector: { matchLabels: { toString: 1 } }, policyTypes: 'Egress' },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'c', namespace: ns },
      spec: { podSelector: { matchExpressions: [{ key: 'x', operator: 'Near' }] }, egress: [{}] },
    },
  ];
  for (const p of odd) {
    const req = { ...base, related: { [NP]: { x: p } } } as any;
    const res = podsetSync(req, FIXED_NOW) as any;
    t.same(
      policies(res).map((p: any) => p.metadata.name),
      [`${base.parent.metadata.name}-podset`],
      `a policy it cannot read is doubt: metaops' policy kept for every pod (${JSON.stringify(p.spec)})`,
    );
  }
  const many: Record<string, unknown> = {};
  for (let i = 0; i < 5000; i++)
    many[`p${i}`] = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: `p${i}`, namespace: ns },
      spec: { podSelector: { matchLabels: { app: `other-${i}` } }, policyTypes: ['Egress'] },
    };
  const started = Date.now();
  const res = podsetSync({ ...base, related: { [NP]: many } } as any, FIXED_NOW) as any;
  t.same(
    policies(res).map((p: any) => p.metadata.name),
    [`${base.parent.metadata.name}-podset`],
    "past the bound on policies: doubt, metaops' policy kept for every pod",
  );
  t.ok(Date.now() - started < 2000, 'answered at once');
  t.same(
    namespaceGovernance(
      { parent: base.parent, related: { [NP]: 'x' } as any },
      { pods: [{}], own: [], parentKinds: [] },
    ),
    {
      egress: false,
      ingress: true,
      egressBy: [],
      ingressBy: ['…'],
      complement: [],
      egressDoubt: "the namespace's NetworkPolicies could not be read",
    },
    'a map of another type: doubt (ingress governed, egress kept)',
  );
});

t.test('selectors are evaluated as Kubernetes does', async (t) => {
  const l = { a: '1', b: '2' };
  t.ok(selectorSelects({}, l), 'empty selects all');
  t.ok(selectorSelects(undefined, l), 'absent selects all');
  t.ok(selectorSelects({ matchLabels: { a: '1' } }, l));
  t.notOk(selectorSelects({ matchLabels: { a: '2' } }, l));
  t.ok(selectorSelects({ matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '3'] }] }, l));
  t.notOk(selectorSelects({ matchExpressions: [{ key: 'c', operator: 'In', values: ['1'] }] }, l));
  t.ok(selectorSelects({ matchExpressions: [{ key: 'c', operator: 'NotIn', values: ['1'] }] }, l));
  t.notOk(selectorSelects({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, l));
  t.ok(selectorSelects({ matchExpressions: [{ key: 'b', operator: 'Exists' }] }, l));
  t.notOk(selectorSelects({ matchExpressions: [{ key: 'c', operator: 'Exists' }] }, l));
  t.ok(selectorSelects({ matchExpressions: [{ key: 'c', operator: 'DoesNotExist' }] }, l));
  t.notOk(selectorSelects({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, l));
  t.notOk(
    selectorSelects({ matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'DoesNotExist' }] }, l),
    'ANDed',
  );
  t.ok(selectorSelects({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, l), 'unreadable: selects');
  t.ok(selectorSelects({ matchExpressions: 'x' }, l), 'unreadable: selects');
  t.ok(selectorSelects({ matchLabels: { a: 1 } }, l), 'unreadable: selects');
});

t.test("the parent's own policy does not count", async (t) => {
  const base = request('podset', { size: 1, image: 'busybox:1.36', command: ['sleep', '3600'] });
  const name = `${base.parent.metadata.name}-podset`;
  const ours = (podsetSync(base, FIXED_NOW) as any).children.find((c: any) => c.kind === 'NetworkPolicy');
  const pods = [ours.spec.podSelector.matchLabels];
  t.same(
    namespaceGovernance(
      { parent: base.parent, related: objectMap([ours], 'v1') },
      { pods, own: [name], parentKinds: [] },
    ),
    {
      egress: false,
      ingress: false,
      egressBy: [],
      ingressBy: [],
      complement: [],
    },
  );
  // Observed as its child, and among the namespace's policies: still answered.
  const res = podsetSync(withRelated({ ...base, children: objectMap([ours]) }, [ours]), FIXED_NOW) as any;
  t.equal(policies(res).length, 1, 'its own policy observed: answered as before');
});
