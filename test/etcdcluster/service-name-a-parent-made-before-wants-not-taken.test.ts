// An EtcdCluster's peer Service is `<name>`; a Memcached `x`'s Service is `x-memcached`. Memcached `x`, made first and
// serving, holds Service `x-memcached`; EtcdCluster `x-memcached` is made after it (or restored from a backup, which
// keeps no status) while that Service is gone for a moment (deleted by hand to change its type, a clean-up). Nothing
// records a holder in the EtcdCluster's status, but customize sends Memcached `x` whatever the status (lib/holders.ts
// holderRules: the Memcached's name shape makes `x-memcached`), and it wants the Service: the EtcdCluster must not
// answer it (Metacontroller would create it with the etcd selector, and the Memcached's clients would reach etcd).
import t from 'tap';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import '../../main/operators.js';
import { etcdParent, watchedEtcd } from '../fixtures/etcd.js';
import { NS, relatedFor, rulesOf } from '../fixtures/held-names.js';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const memcachedX = {
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  metadata: {
    name: 'x',
    namespace: NS,
    uid: 'uid-memcached-x',
    generation: 1,
    creationTimestamp: '2020-01-01T00:00:00Z',
  },
  spec: { size: 1 },
  status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }] },
} as unknown as KubeObject;

function etcdXMemcached(made: string) {
  const parent = etcdParent({ size: 1 });
  parent.metadata = {
    ...parent.metadata,
    name: 'x-memcached',
    namespace: NS,
    uid: 'uid-etcd-x-memcached',
    creationTimestamp: made,
  } as never;
  return parent;
}

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

t.test('an EtcdCluster made after a Memcached does not take its Service while it is gone for a moment', async (t) => {
  const rule = rulesOf(etcdcluster, etcdXMemcached('2020-01-01T01:00:00Z')).find((r) => r.resource === 'memcacheds');
  t.match(
    rule,
    { apiVersion: 'cache.example.com/v1alpha1', names: ['x'] },
    'customize asks for Memcached x, whatever the status',
  );
  const parent = etcdXMemcached('2020-01-01T01:00:00Z');
  const related = relatedFor(rulesOf(etcdcluster, parent), [memcachedX]);
  const res = await etcdSync(
    { controller: {}, parent, children: {}, related },
    { etcd: watchedEtcd(t), now: FIXED_NOW },
  );
  const names = res.children.map((c) => `${c.kind} ${c.metadata.name}`);
  t.notOk(names.includes('Service x-memcached'), `Service x-memcached not answered (answered: ${names.join(', ')})`);
  t.match(ready(res), {
    status: 'False',
    reason: 'ServiceNameTaken',
    message: /Service x-memcached belongs to Memcached x \(uid uid-memcached-x\), made before this EtcdCluster/,
  });
  t.same(res.children, [], 'no member pod either: nothing is made while held');
});

t.test('made before the Memcached, the EtcdCluster takes the free name (the first made keeps it)', async (t) => {
  const parent = etcdXMemcached('2019-12-31T00:00:00Z');
  const related = relatedFor(rulesOf(etcdcluster, parent), [memcachedX]);
  const res = await etcdSync(
    { controller: {}, parent, children: {}, related },
    { etcd: watchedEtcd(t), now: FIXED_NOW },
  );
  t.ok(
    res.children.some((c) => c.kind === 'Service' && c.metadata.name === 'x-memcached'),
    'its peer Service answered',
  );
});
