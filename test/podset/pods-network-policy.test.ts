// A PodSet's pods run the tenant's image and command (spec.image, spec.command) with Metacontroller's rights, in a
// namespace whose administrator may have set no NetworkPolicy because its tenants make no pods: without a policy the
// tenant's code takes the node's credentials from the instance metadata service (169.254.169.254).
//
// Must hold: every PodSet answers a NetworkPolicy `<name>-podset` selecting exactly its pods (of every template: its
// name and instance labels; not another PodSet's), Egress only (who may reach the pods stays the namespace's), its way
// out every address but the metadata services' (169.254.169.254/32, 168.63.129.16/32, 169.254.0.23/32, fd00:ec2::254/128,
// fd20:ce::254/128) and every pod;
// METAOPS_WORKLOAD_NETWORK_POLICY=false answers none (any other value than true/false stops the server). A running
// PodSet of an earlier metaops gets the policy and nothing else changes (no pod replaced or dropped); the answer fed
// back changes nothing. A refused spec keeps the observed policy. Its name is valid at the longest PodSet name, asked
// for by customize, and held (`NetworkPolicyNameTaken`) while another owner has it.
import t from 'tap';
import { podset } from '../../hooks/podset/index.js';
import { MAX_SIZE } from '../../hooks/podset/schema.js';
import { childNames, networkPolicyName, podLabels } from '../../hooks/podset/sync.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { matchesSelector } from '../../lib/labels.js';
import { runPure } from '../../lib/operator.js';
import { ruleProblem } from '../../lib/values.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const settingsOf = (env: NodeJS.ProcessEnv) => podset.settings!({ env } as any);
const sync = (req: CompositeSyncRequest, env: NodeJS.ProcessEnv = {}) =>
  runPure(podset, 'sync', req, { now: FIXED_NOW, settings: settingsOf(env) }) as CompositeSyncResponse;
const named = (name: string, spec: Record<string, unknown> = { size: 2 }) => {
  const req = request('podset', spec);
  req.parent.metadata = { ...req.parent.metadata, name, namespace: 'ns', uid: `uid-${name}` };
  return req;
};
const policiesOf = (res: CompositeSyncResponse) => res.children.filter((c) => c.kind === 'NetworkPolicy') as any[];
const podsOf = (res: CompositeSyncResponse) => res.children.filter((c) => c.kind === 'Pod');
const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');

t.test('a PodSet answers one NetworkPolicy <name>-podset keeping its pods from the metadata service', async (t) => {
  const res = sync(named('web'));
  const [policy, ...more] = policiesOf(res);
  t.same(more, [], 'one policy');
  t.same(policy, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: 'web-podset',
      namespace: 'ns',
      labels: {
        'app.kubernetes.io/name': 'podset',
        'app.kubernetes.io/instance': 'web',
        'app.kubernetes.io/component': 'network-policy',
        'app.kubernetes.io/managed-by': 'metaops',
      },
    },
    spec: {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'podset', 'app.kubernetes.io/instance': 'web' } },
      // Egress only: an Ingress type here would either close the pods to their clients or (with an open rule) open
      // them past a namespace's own default-deny.
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
});

t.test("the policy selects every pod of the PodSet, of any template, and no other PodSet's", async (t) => {
  const web = sync(named('web'));
  const selector = policiesOf(web)[0].spec.podSelector;
  for (const p of podsOf(web)) t.ok(matchesSelector(p.metadata.labels, selector), `${p.metadata.name} selected`);
  // A pod of an older template (another image: another hash) carries the same name and instance labels.
  const older = sync(named('web', { size: 2, image: 'busybox:1.35' }));
  for (const p of podsOf(older)) t.ok(matchesSelector(p.metadata.labels, selector), 'an older template selected');
  t.ok(matchesSelector(podLabels(named('web').parent), selector));
  for (const other of ['web-2', 'we', 'web-pod']) {
    for (const p of podsOf(sync(named(other))))
      t.notOk(matchesSelector(p.metadata.labels, selector), `PodSet ${other}'s ${p.metadata.name} not selected`);
  }
});

t.test('METAOPS_WORKLOAD_NETWORK_POLICY=false answers none; any other word stops the server', async (t) => {
  for (const off of ['false', 'FALSE', '0', ' false ']) {
    const res = sync(named('web'), { METAOPS_WORKLOAD_NETWORK_POLICY: off });
    t.same(policiesOf(res), [], `${JSON.stringify(off)}: no policy`);
    t.equal(podsOf(res).length, 2, 'the pods as before');
  }
  for (const on of ['true', '1', '', undefined])
    t.equal(policiesOf(sync(named('web'), { METAOPS_WORKLOAD_NETWORK_POLICY: on })).length, 1, `${on}: a policy`);
  t.same(podset.configProblems!({ METAOPS_WORKLOAD_NETWORK_POLICY: 'true' }), []);
  t.match(podset.configProblems!({ METAOPS_WORKLOAD_NETWORK_POLICY: 'maybe' }), [
    /METAOPS_WORKLOAD_NETWORK_POLICY="maybe": expected true or false/,
  ]);
});

t.test('the policy is a child Metacontroller may make: networkpolicies, in place', async (t) => {
  t.match(podset.childResources, [
    { resource: 'pods' },
    { apiVersion: 'networking.k8s.io/v1', resource: 'networkpolicies', updateStrategy: { method: 'InPlace' } },
  ]);
});

t.test('the longest PodSet name makes a valid policy name, asked for by customize', async (t) => {
  const longest = 'p'.repeat(63);
  const res = sync(named(longest, { size: 1 }));
  t.equal(ready(res).reason === 'InvalidSpec', false, 'a name of 63 is served');
  const policy = policiesOf(res)[0];
  t.equal(policy.metadata.name, networkPolicyName(longest));
  t.equal(ruleProblem('dns1123Subdomain', policy.metadata.name), undefined, 'a valid NetworkPolicy name');
  const names = childNames(named(longest, { size: 1 }).parent);
  t.ok(names.some((n) => n.kind === 'NetworkPolicy' && n.name === `${longest}-podset`));
  // Whatever the size: asked for also past the pods' own bound on names.
  const big = childNames(named('web', { size: MAX_SIZE }).parent);
  t.ok(big.some((n) => n.kind === 'NetworkPolicy' && n.name === 'web-podset'));
});

t.test('a running PodSet of an earlier metaops gains the policy and nothing else changes', async (t) => {
  const before = sync(named('web', { size: 3 }));
  const pods = podsOf(before).map((p) => asObserved(p, readyPod));
  const req = named('web', { size: 3 });
  req.children = objectMap(pods);
  const res = sync(req);
  t.same(
    podsOf(res).map((p) => p.metadata),
    podsOf(before).map((p) => p.metadata),
    'the same pods, same labels (template hash): none replaced',
  );
  t.equal(policiesOf(res).length, 1, 'the policy is answered');
  // Until the policy is observed its pods run without it: the status says so, and it looks again to see it created.
  const creating = (s: any) => (s.conditions as any[]).find((c) => c.type === 'NetworkPolicyCreated');
  t.match(creating(res.status), { status: 'False', reason: 'CreatingNetworkPolicy' });
  t.equal(res.resyncAfterSeconds, 60, 'looks again to see the policy created');
  // Fed back as the API server stores it: the answer is the same, and nothing else of the status changed.
  const again = named('web', { size: 3 });
  again.children = objectMap([...pods, asObserved(policiesOf(res)[0])]);
  again.parent.status = res.status;
  const next = sync(again);
  t.same(next.children, res.children, 'the same answer');
  t.equal(next.resyncAfterSeconds, undefined, 'nothing to wait for');
  t.equal(creating(next.status), undefined, 'said no more once the policy is observed');
  const without = (res.status as any).conditions.filter((c: any) => c.type !== 'NetworkPolicyCreated');
  t.same(next.status, { ...res.status, conditions: without }, 'the same status but for NetworkPolicyCreated');
  again.parent.status = next.status;
  t.same(sync(again).status, next.status, 'at rest');
});

t.test('a refused spec keeps the observed policy with the pods', async (t) => {
  const first = sync(named('web'));
  const observed = first.children.map((c) => asObserved(c, c.kind === 'Pod' ? readyPod : undefined));
  const req = named('web', { size: -1 });
  req.children = objectMap(observed);
  const res = sync(req);
  t.equal(ready(res).reason, 'InvalidSpec');
  t.same(
    res.children.map((c) => `${c.kind}/${c.metadata.name}`).sort(),
    ['NetworkPolicy/web-podset', 'Pod/web-pod-0', 'Pod/web-pod-1'],
    'every child kept, the policy among them',
  );
});

t.test("another owner's NetworkPolicy <name>-podset is not taken", async (t) => {
  const theirs = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'web-podset', namespace: 'ns', uid: 'uid-admins' },
    spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] },
  } as KubeObject;
  const req = named('web');
  req.related = objectMap([theirs]);
  const res = sync(req);
  t.match(ready(res), { status: 'False', reason: 'NetworkPolicyNameTaken', message: /NetworkPolicy web-podset/ });
  t.same(policiesOf(res), [], 'not answered: the holder keeps it');
});
