// a-tenant36: a Memcached judges whether the namespace's own NetworkPolicies govern its pods' egress on its
// Deployment's pod template and, only when customize asks for them (podsListed: a few hundred pods at most), on its
// pods' labels (hooks/memcached/sync.ts governanceOf). The pods as they run carry more: an admission webhook's labels
// (Istio's injector: security.istio.io/tlsMode=istio, service.istio.io/canonical-name...). An admin who keeps meshed
// pods' egress inside the mesh by a policy on such a label (podSelector security.istio.io/tlsMode=istio, Egress only
// to istio-system) governs those pods; a tenant who sets spec.size past what is listed (1000) has its Memcached judged
// on the template alone, and `<name>-memcached` answered with egress to every address but the metadata service: the
// admin's mesh-only egress is widened to the internet for the tenant's image.
//
// Must hold: a Memcached adds no egress for pods a namespace policy selects for Egress, whether or not it observes
// them (when it cannot see their labels, a policy whose selector could select them by labels it does not know is
// doubt, never widened).
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { podsListed } from '../../hooks/memcached/sync.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';

t.test("a Memcached too large to list its pods widens no admin's mesh egress policy", async (t) => {
  const spec = { size: 1000, image: 'memcached:1.6.38-alpine', port: 11211 };
  const base = request('memcached', spec);
  const ns = base.parent.metadata.namespace!;
  t.notOk(podsListed(base.parent, spec), 'its pods are not asked for');
  const meshOnly: KubeObject = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'meshed-pods-egress', namespace: ns, uid: 'uid-admin' },
    spec: {
      podSelector: { matchLabels: { 'security.istio.io/tlsMode': 'istio' } },
      policyTypes: ['Egress'],
      egress: [{ to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'istio-system' } } }] }],
    },
  };
  const first = memcachedSync(
    { ...base, related: { ...(base.related ?? {}), ...objectMap([meshOnly], 'v1', [NP]) } },
    FIXED_NOW,
  ) as any;
  const deployment = first.children.find((c: any) => c.kind === 'Deployment');
  // Its pods as they run: the template's labels, the ReplicaSet's hash, Istio's injected labels.
  const running = {
    ...deployment.spec.template.metadata.labels,
    'pod-template-hash': '6d5f7c9b8',
    'security.istio.io/tlsMode': 'istio',
    'service.istio.io/canonical-name': base.parent.metadata.name,
  };
  t.ok(
    Object.entries((meshOnly.spec as any).podSelector.matchLabels).every(([k, v]) => running[k] === v),
    "the admin's policy selects the running pods",
  );
  const observed = {
    ...base,
    children: objectMap([asObserved(deployment, { replicas: 1000, readyReplicas: 1000 })]),
    related: { ...(base.related ?? {}), ...objectMap([meshOnly], 'v1', [NP]) },
  };
  const res = memcachedSync(observed, FIXED_NOW) as any;
  const ours = (res.children as any[]).find((c) => c.kind === 'NetworkPolicy');
  t.notOk(ours, "no policy of its own adding egress past the admin's", { egress: ours?.spec?.egress });
});
