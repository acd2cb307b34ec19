// Two Memcacheds that want one Service: `a-memcached`, made before the `-memcached` suffix (its Service is
// `a-memcached`, status.serviceName says so), running; and `a`, made later, whose Service would be `a-memcached` too.
// The first keeps working (every child answered), the second creates nothing and says why (lib/ownership.ts
// keepsNote): holding none of the names, it says the first carries on, never "neither can carry on" (told that neither
// works, a user may delete the one that serves clients). A later parent that holds something of the first still says
// neither can: test/operators/parents-made-together-a-later-one-with-data-volumes-releases-nothing.test.ts.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const API = 'cache.example.com/v1alpha1';
const memcached = (name: string, uid: string, created: string, status?: unknown): ParentObject =>
  ({
    apiVersion: API,
    kind: 'Memcached',
    metadata: { name, namespace: 'ns', uid, generation: 1, creationTimestamp: created },
    spec: { size: 2 },
    ...(status ? { status } : {}),
  }) as ParentObject;
const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');

const first = memcached('a-memcached', 'uid-first', '2025-01-01T00:00:00Z', {
  serviceName: 'a-memcached',
  observedGeneration: 1,
  conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }],
});
const firstService = {
  ...asObserved({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'a-memcached', namespace: 'ns' },
    spec: { selector: { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'a-memcached' } },
  } as KubeObject),
};
(firstService.metadata as Record<string, unknown>)['ownerReferences'] = [
  { apiVersion: API, kind: 'Memcached', name: 'a-memcached', uid: 'uid-first', controller: true },
];

t.test('a Memcached made later that holds nothing does not say the one made first cannot carry on', async (t) => {
  const later = memcached('a', 'uid-later', '2026-01-01T00:00:00Z');
  const res = await memcachedSync(
    { ...request('memcached', {}), parent: later, children: {}, related: objectMap([first, firstService]) },
    FIXED_NOW,
  );
  t.match(ready(res), { status: 'False', reason: 'ServiceNameTaken' }, 'the later one is held and says for what');
  t.same(res.children, [], 'it creates nothing: it holds nothing');

  // The first, sent the later one, keeps every child.
  const kept = await memcachedSync(
    {
      ...request('memcached', {}),
      parent: first,
      children: objectMap([firstService]),
      related: objectMap([{ ...later, status: res.status } as KubeObject]),
    },
    FIXED_NOW,
  );
  t.ok(
    kept.children.some((c) => c.kind === 'Service' && c.metadata.name === 'a-memcached'),
    'the first keeps its Service',
  );

  const message = String(ready(res).message);
  t.notMatch(message, /neither can carry on/, 'the later one does not say that neither can carry on');
  t.match(
    message,
    /Memcached a-memcached \(uid [^)]+\), made before this Memcached, wants names this Memcached wants, and this Memcached holds none of them: it carries on, and this Memcached takes none of those names while they are wanted there\. To run both, rename this Memcached/,
    'it says the first carries on and what to do',
  );
  t.notMatch(message, /keeps what it holds/, 'nor that it keeps something: it holds nothing');
});
