// Where the namespace's own NetworkPolicies govern a parent's pods, metaops answers them no rule of its own for that
// direction (lib/network-policy.ts namespaceGovernance). The pods' policies metaops makes for its parents are
// NetworkPolicies of the namespace too, and one selects its parent's pods by labels, which another parent's pods may
// carry: counted as the namespace's, PodSet A's policy made PodSet B answer its pods no policy, and when A went (its
// policy with it) B's pods ran without any (issue 29).
//
// Must hold: a policy labelled `app.kubernetes.io/managed-by: metaops` AND controlled by a metaops kind (an
// ownerReference with controller: true, as Metacontroller sets) is not the namespace's governance; a policy short of
// either mark (a tenant labelling its policy as metaops', an owner of another kind, an owner that does not control
// it, metadata not of its type) still counts (never widen on doubt); the kinds recognised are exactly those the
// server serves; the same observed state gives the same answer.
import t from 'tap';
import { METAOPS_PARENT_KINDS, anotherParentsPolicy, namespaceGovernance } from '../../lib/network-policy.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { operators } from '../../main/operators.js';
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
  const judged = namespaceGovernance({ parent: base.parent, related: objectMap([both], 'v1') }, { pods, own: [] });
  t.same(judged, { egress: false, ingress: false, egressBy: [], ingressBy: [] });
  const tenant = policyOfA(ns, { ownerReferences: [] });
  (tenant as any).spec = { podSelector: {}, policyTypes: ['Ingress', 'Egress'] };
  const counted = namespaceGovernance({ parent: base.parent, related: objectMap([tenant], 'v1') }, { pods, own: [] });
  t.same(counted, { egress: true, ingress: true, egressBy: ['a-podset'], ingressBy: ['a-podset'] });
  t.notOk(anotherParentsPolicy({}), 'no metadata: not another parent’s');
  t.notOk(anotherParentsPolicy({ labels: { toString: 1 }, ownerReferences: [{ toString: 1 }] }), 'hostile: counts');
});

t.test('the kinds recognised are the kinds the server serves', async (t) => {
  const served = operators
    .filter((d) => d.type === 'composite')
    .map((d) => `${(d as any).resource.group}/${(d as any).resource.kind}`)
    .sort();
  t.same([...METAOPS_PARENT_KINDS].sort(), served);
});
