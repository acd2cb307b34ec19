// Where the namespace's own NetworkPolicies govern a parent's pods, metaops answers them no rule of its own for that
// direction (lib/network-policy.ts namespaceGovernance). The pods' policies metaops makes for its parents are
// NetworkPolicies of the namespace too, and one selects its parent's pods by labels, which another parent's pods may
// carry: counted as the namespace's, PodSet A's policy made PodSet B answer its pods no policy, and when A went (its
// policy with it) B's pods ran without any (issue 29).
//
// Must hold: a policy labelled `app.kubernetes.io/managed-by: metaops` AND controlled by a metaops kind (an
// ownerReference with controller: true, as Metacontroller sets) is not the namespace's governance; a policy short of
// either mark (a tenant labelling its policy as metaops', an owner of another kind, an owner that does not control
// it, metadata not of its type) still counts (never widen on doubt); the kinds recognised are those of the registry
// the server is built from (lib/hook.ts parentKindsOf: lib names no operator), an operator added to it included; the
// same observed state gives the same answer.
import t from 'tap';
import { buildApp } from '../../lib/app.js';
import { parentKindsOf, type HookDefinition } from '../../lib/hook.js';
import { anotherParentsPolicy, namespaceGovernance } from '../../lib/network-policy.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { operators } from '../../main/operators.js';
import { greeting } from '../toy/index.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';
const policies = (res: any): any[] => (res.children as any[]).filter((c) => c?.kind === 'NetworkPolicy');
const withRelated = (req: CompositeSyncRequest, objects: KubeObject[]): CompositeSyncRequest => ({
  ...req,
  related: { ...(req.related ?? {}), ...objectMap(objects, 'v1', [NP]) },
});
const PODSET_A = { apiVersion: 'apps.jicki.cn/v1alpha1', kind: 'PodSet', name: 'a', uid: 'uid-a' };

/** A pods' policy of PodSet `a` as Metacontroller makes it, selecting every PodSet's pods. */
function policyOfA(namespace: string, patch: { labels?: unknown; ownerReferences?: unknown } = {}): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: 'a-podset',
      namespace,
      labels:
        'labels' in patch
          ? patch.labels
          : {
              'app.kubernetes.io/name': 'podset',
              'app.kubernetes.io/instance': 'a',
              'app.kubernetes.io/component': 'network-policy',
              'app.kubernetes.io/managed-by': 'metaops',
            },
      ownerReferences:
        'ownerReferences' in patch
          ? patch.ownerReferences
          : [{ ...PODSET_A, controller: true, blockOwnerDeletion: true }],
    } as never,
    spec: { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'podset' } }, policyTypes: ['Egress'] },
  };
}

t.test("another PodSet's policy selecting these pods leaves them their own policy", async (t) => {
  const base = request('podset', { size: 2, image: 'busybox:1.36', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const plain = podsetSync(base, FIXED_NOW) as any;
  t.equal(policies(plain).length, 1, 'a namespace without policies: its policy');
  const beside = podsetSync(withRelated(base, [policyOfA(ns)]), FIXED_NOW) as any;
  t.same(policies(beside), policies(plain), "another parent's policy: its own policy all the same");
  t.same(
    JSON.stringify(podsetSync(withRelated(base, [policyOfA(ns)]), FIXED_NOW)),
    JSON.stringify(beside),
    'the same observed state: the same answer',
  );
});

t.test("a policy short of either mark is the namespace's, and governs", async (t) => {
  const base = request('podset', { size: 1, image: 'busybox:1.36', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const counted: Array<[string, KubeObject]> = [
    ['labelled as metaops, no owner', policyOfA(ns, { ownerReferences: undefined })],
    [
      'labelled as metaops, owned by a Deployment',
      policyOfA(ns, {
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: 'u', controller: true }],
      }),
    ],
    [
      'labelled as metaops, a PodSet owner that does not control it',
      policyOfA(ns, { ownerReferences: [{ ...PODSET_A }] }),
    ],
    [
      'labelled as metaops, controller: "true" (not a boolean)',
      policyOfA(ns, { ownerReferences: [{ ...PODSET_A, controller: 'true' }] }),
    ],
    [
      'a PodSet controls it, not labelled as metaops',
      policyOfA(ns, { labels: { 'app.kubernetes.io/managed-by': 'someone' } }),
    ],
    ['labels not a map', policyOfA(ns, { labels: 'managed-by=metaops' })],
    ['ownerReferences not a list', policyOfA(ns, { ownerReferences: { ...PODSET_A, controller: true } })],
    [
      'too many ownerReferences to read',
      policyOfA(ns, {
        ownerReferences: [
          ...Array.from({ length: 40 }, (_, i) => ({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: `c${i}`,
            uid: `u${i}`,
          })),
          { ...PODSET_A, controller: true },
        ],
      }),
    ],
    [
      'a kind of the same name in another group',
      policyOfA(ns, { ownerReferences: [{ ...PODSET_A, apiVersion: 'example.com/v1', controller: true }] }),
    ],
  ];
  for (const [what, policy] of counted) {
    const res = podsetSync(withRelated(base, [policy]), FIXED_NOW) as any;
    t.same(policies(res), [], `${what}: governs, no policy answered over it`);
  }
});

t.test('namespaceGovernance leaves out only another parent’s policy, for either direction', async (t) => {
  const base = request('podset', { size: 1, image: 'busybox:1.36', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const both = policyOfA(ns);
  (both as any).spec = { podSelector: {}, policyTypes: ['Ingress', 'Egress'] };
  const pods = [{ 'app.kubernetes.io/name': 'podset', 'app.kubernetes.io/instance': 'b' }];
  const parentKinds = ['apps.jicki.cn/PodSet'];
  const judged = namespaceGovernance(
    { parent: base.parent, related: objectMap([both], 'v1') },
    { pods, own: [], parentKinds },
  );
  t.same(judged, { egress: false, ingress: false, egressBy: [], ingressBy: [], complement: [] });
  const tenant = policyOfA(ns, { ownerReferences: [] });
  (tenant as any).spec = { podSelector: {}, policyTypes: ['Ingress', 'Egress'] };
  const counted = namespaceGovernance(
    { parent: base.parent, related: objectMap([tenant], 'v1') },
    { pods, own: [], parentKinds },
  );
  t.same(counted, {
    egress: true,
    ingress: true,
    egressBy: ['a-podset'],
    ingressBy: ['a-podset'],
    complement: [],
  });
  t.notOk(anotherParentsPolicy({}, parentKinds), 'no metadata: not another parent’s');
  t.notOk(
    anotherParentsPolicy({ labels: { toString: 1 }, ownerReferences: [{ toString: 1 }] }, parentKinds),
    'hostile: counts',
  );
  const none = namespaceGovernance(
    { parent: base.parent, related: objectMap([both], 'v1') },
    { pods, own: [], parentKinds: undefined },
  );
  t.same(none.egress, true, 'no kinds served: a PodSet’s policy is no other parent’s, and governs');
});

/** A server built from `registry`; its PodSet sync's answer to `req`. */
async function servedSync(registry: HookDefinition[], req: CompositeSyncRequest): Promise<any> {
  const app = buildApp({
    operators: registry,
    allowUnauthenticated: true,
    services: { now: () => FIXED_NOW },
    env: { TOY_LANGUAGE: 'nb' },
  });
  try {
    const res = await app.inject({ method: 'POST', url: '/hooks/podset/sync', payload: req as object });
    return res.json();
  } finally {
    await app.close();
  }
}

/** A policy of PodSet a's shape, controlled by a parent of `groupKind` (`<group>/<kind>`). */
function policyOf(namespace: string, groupKind: string): KubeObject {
  const slash = groupKind.indexOf('/');
  const owner = {
    apiVersion: `${groupKind.slice(0, slash)}/v1`,
    kind: groupKind.slice(slash + 1),
    name: 'o',
    uid: 'u',
  };
  return policyOfA(namespace, { ownerReferences: [{ ...owner, controller: true, blockOwnerDeletion: true }] });
}

t.test("a policy of any kind the server's registry serves is another parent's, an added operator's too", async (t) => {
  const base = request('podset', { size: 1, image: 'busybox:1.36', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const registry = [...operators, greeting];
  const kinds = parentKindsOf(registry);
  t.ok(kinds.includes('toy.metaops.dev/Greeting'), `the toy operator's kind is served: ${kinds.join(', ')}`);
  t.ok(kinds.length >= 8, 'every composite kind of the registry');
  const alone = policies(await servedSync(registry, base));
  t.equal(alone.length, 1, 'a namespace without policies: its own policy');
  for (const kind of kinds) {
    const res = await servedSync(registry, withRelated(base, [policyOf(ns, kind)]));
    t.same(policies(res), alone, `a policy controlled by a ${kind}: another parent's, its own policy all the same`);
  }
  // The same toy kind, on a server whose registry does not hold it: a policy the namespace's, which governs.
  const without = await servedSync(operators, withRelated(base, [policyOf(ns, 'toy.metaops.dev/Greeting')]));
  t.same(policies(without), [], "a kind the server does not serve: the namespace's policy, no policy over it");
  const other = await servedSync(registry, withRelated(base, [policyOf(ns, 'example.com/Other')]));
  t.same(policies(other), [], "a kind no registry holds: the namespace's policy");
});
