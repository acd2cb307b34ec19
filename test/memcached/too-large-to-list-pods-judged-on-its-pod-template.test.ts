// A Memcached judges whether the namespace's own NetworkPolicies govern its pods' egress on its Deployment's pod
// template and, only when customize asks for them (podsListed: a few hundred pods at most), on its pods' labels
// (hooks/memcached/sync.ts governanceOf). The pods as they run carry more: an admission webhook's labels (Istio's
// injector: security.istio.io/tlsMode=istio, service.istio.io/canonical-name...). A Memcached too large to list its
// pods (spec.size 1000) does not see them: an admin's policy that selects the pods only by such a label (mesh-only
// egress) is not seen to govern them, and `<name>-memcached` is answered, which keeps the instance metadata service
// out and adds egress to everything else. No sound rule tells such a policy from one meant for other pods without the
// pods' labels, and counting every policy on a label the template lacks as governing would take the metadata block
// from every large Memcached beside an `app: frontend` egress policy: the documented limit (docs/operating.md,
// Tenants; docs/memcached.md), pinned here, and said in the PodsListed condition.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { podsListed } from '../../hooks/memcached/sync.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';

t.test('a Memcached too large to list its pods is judged on its pod template alone', async (t) => {
  const spec = { size: 1000, image: 'memcached:1.6.38-alpine', port: 11211, progressDeadlineSeconds: 600 };
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
  t.ok(ours, 'judged on its pod template: its policy answered');
  t.same(
    ours?.spec?.egress?.[0]?.to?.[0],
    { ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.169.254/32', '168.63.129.16/32', '169.254.0.23/32'] } },
    'the metadata service kept out, every other address reachable',
  );
  const listed = (res.status.conditions as any[]).find((c) => c.type === 'PodsListed');
  t.match(listed, { status: 'False', reason: 'RequestTooLarge' }, 'its pods not listed');
  t.match(
    listed?.message,
    /NetworkPolicies are judged on the pod template's labels alone \(not those an admission webhook adds\)/,
    'the condition says what the judgement sees',
  );
  const byTemplate: KubeObject = {
    ...meshOnly,
    metadata: { ...meshOnly.metadata, name: 'memcached-egress', uid: 'uid-admin-2' },
    spec: { ...(meshOnly.spec as any), podSelector: { matchLabels: { 'app.kubernetes.io/name': 'memcached' } } },
  };
  const seen = memcachedSync(
    { ...observed, related: { ...(base.related ?? {}), ...objectMap([meshOnly, byTemplate], 'v1', [NP]) } },
    FIXED_NOW,
  ) as any;
  t.notOk(
    (seen.children as any[]).find((c) => c.kind === 'NetworkPolicy'),
    "a policy on a label the template carries: seen, no policy of its own adding to the admin's",
  );
});
