// PodSet's and Memcached's complement egress policies (hooks/podset/sync.ts and hooks/memcached/sync.ts
// complementPolicies, called directly): where the namespace's egress policies select some of the parent's pods, one
// policy per conjunction of the complement, `<name>-<kind>-egress-<i>`, in the parent's namespace, selecting the
// parent's pods (a Memcached's own instance label too, once its pods carry it) and the conjunction, Egress only, with
// the way out of the pods' own policy; none when the server's setting turns the pods' policies off, none where the
// namespace governs none of their egress. The setting is read from settings that may be absent.
import t from 'tap';
import type { ParentObject } from '../../lib/metacontroller.js';
import type { NamespaceGovernance } from '../../lib/network-policy.js';
import { workloadEgress } from '../../lib/network-policy.js';
import { complementPolicies as podsetComplement } from '../../hooks/podset/sync.js';
import { complementPolicies as memcachedComplement } from '../../hooks/memcached/sync.js';

const parent = (kind: string, name: string) =>
  ({
    apiVersion: 'metaops.io/v1alpha1',
    kind,
    metadata: { name, namespace: 'team-a', uid: 'uid-1' },
    spec: {},
  }) as ParentObject;

const governance = (egress: boolean): NamespaceGovernance =>
  ({
    egress,
    ingress: false,
    egressBy: egress ? ['team-a-deny-db'] : [],
    ingressBy: [],
    complement: egress
      ? [[{ key: 'tier', operator: 'NotIn', values: ['db'] }], [{ key: 'tier', operator: 'DoesNotExist' }]]
      : [],
  }) as unknown as NamespaceGovernance;

function expected(app: string, name: string, i: number, pods: Record<string, string>, term: unknown[]) {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: `${name}-${app}-egress-${i}`,
      namespace: 'team-a',
      labels: {
        'app.kubernetes.io/name': app,
        'app.kubernetes.io/instance': name,
        'app.kubernetes.io/component': 'network-policy',
        'app.kubernetes.io/managed-by': 'metaops',
      },
    },
    spec: {
      podSelector: { matchLabels: pods, matchExpressions: term },
      policyTypes: ['Egress'],
      egress: workloadEgress(),
    },
  };
}

const selector = (app: string, name: string) => ({
  'app.kubernetes.io/name': app,
  'app.kubernetes.io/instance': name,
});

t.test("PodSet: one policy per conjunction of the complement, selecting the PodSet's pods", async (t) => {
  const want = [
    expected('podset', 'web', 0, selector('podset', 'web'), [{ key: 'tier', operator: 'NotIn', values: ['db'] }]),
    expected('podset', 'web', 1, selector('podset', 'web'), [{ key: 'tier', operator: 'DoesNotExist' }]),
  ];
  t.match(podsetComplement(parent('PodSet', 'web'), undefined, governance(true)), want, 'no settings');
  t.equal(podsetComplement(parent('PodSet', 'web'), undefined, governance(true)).length, 2);
  t.match(podsetComplement(parent('PodSet', 'web'), { workloadNetworkPolicy: true }, governance(true)), want, 'on');
  t.same(podsetComplement(parent('PodSet', 'web'), { workloadNetworkPolicy: false }, governance(true)), [], 'off');
  t.same(podsetComplement(parent('PodSet', 'web'), {}, governance(false)), [], 'the namespace governs no egress');
  t.same(podsetComplement(parent('PodSet', 'web'), {}, undefined), [], 'governance not known');
  t.match(podsetComplement(parent('PodSet', 'db'), {}, governance(true))[0], {
    metadata: { name: 'db-podset-egress-0' },
  });
});

t.test('Memcached: the same, selecting its pods by its instance label once they carry it', async (t) => {
  const term = [{ key: 'tier', operator: 'NotIn', values: ['db'] }];
  const plain = memcachedComplement(parent('Memcached', 'cache'), false, undefined, governance(true));
  t.match(plain, [expected('memcached', 'cache', 0, selector('memcached', 'cache'), term)], 'no settings');
  t.equal(plain.length, 2);
  t.same(
    Object.keys((plain[0] as any).spec.podSelector.matchLabels).sort(),
    ['app.kubernetes.io/instance', 'app.kubernetes.io/name'],
    'the selector labels alone before its pods carry its own',
  );
  const own = memcachedComplement(parent('Memcached', 'cache'), true, {}, governance(true));
  t.ok(
    Object.keys((own[0] as any).spec.podSelector.matchLabels).length > 2,
    'its own instance label too once its pods carry it',
  );
  t.same(
    memcachedComplement(parent('Memcached', 'cache'), true, { workloadNetworkPolicy: false }, governance(true)),
    [],
  );
  t.same(memcachedComplement(parent('Memcached', 'cache'), true, {}, governance(false)), []);
  t.match(memcachedComplement(parent('Memcached', 'db'), false, {}, governance(true))[0], {
    metadata: { name: 'db-memcached-egress-0' },
  });
});
