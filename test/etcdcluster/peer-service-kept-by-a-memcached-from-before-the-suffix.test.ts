// A Memcached `x` made by a metaops from before the suffix serves under the unsuffixed Service `x`, and its status
// says so (status.serviceName `x`); one made since serves under `x-memcached` (hooks/memcached/sync.ts currentNames).
// An EtcdCluster `x` of the same namespace, made after it, wants peer Service `x`: while no Service `x` is observed
// (deleted by hand, or not made yet), the Memcached from before the suffix keeps the name (it makes it again), and the
// cluster waits for it, naming it; a Memcached serving under `x-memcached` keeps nothing of it
// (peer-service-not-kept-by-a-memcached-that-never-makes-it.test.ts), nor one whose status names another Service.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import '../../main/operators.js';
import { etcdFirstSync, etcdRelated, laterEtcdCluster, memcachedX } from '../fixtures/held-names.js';

const etcdX = () => laterEtcdCluster('x', 1);

async function firstSync(t: Test, memcached: KubeObject) {
  const parent = etcdX();
  const related = etcdRelated(parent, [memcached]);
  const res = await etcdFirstSync(t, parent, related);
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  const names = res.children.map((c) => `${c.kind} ${c.metadata.name}`);
  return { ready, names };
}

t.test('an EtcdCluster x made after a Memcached x from before the suffix waits for its Service x', async (t) => {
  const { ready, names } = await firstSync(t, memcachedX('x'));
  t.match(
    ready,
    { status: 'False', reason: /NameTaken$/, message: /Service x.*Memcached x \(uid uid-memcached-x\), made before/ },
    'held for Service x, the Memcached named',
  );
  t.notOk(names.includes('Service x'), `its peer Service x not answered (answered: ${names.join(', ')})`);
});

for (const [what, serviceName] of [
  ['its status names no Service (lost: it takes the suffixed name)', undefined],
  ['its status names x-memcached', 'x-memcached'],
  ['its status names another Service', 'x-other'],
] as const) {
  t.test(`an EtcdCluster x made after a Memcached x whose ${what} takes Service x`, async (t) => {
    const { ready, names } = await firstSync(t, memcachedX(serviceName as string | undefined));
    t.notMatch(ready, { reason: /NameTaken$/ }, `not held for a name (Ready: ${JSON.stringify(ready)})`);
    t.ok(names.includes('Service x'), `its peer Service x answered (answered: ${names.join(', ')})`);
  });
}
