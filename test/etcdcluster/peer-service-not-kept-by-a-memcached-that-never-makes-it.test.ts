// A Memcached `x` names its Service `x-memcached`; only a Memcached made by a metaops from before the suffix (its
// observed Service or its status.serviceName says so) keeps the unsuffixed `x`. An EtcdCluster `x` in the same
// namespace, made after that Memcached, has peer Service `x`: a name the Memcached, serving under `x-memcached`, never
// makes. The free name is the EtcdCluster's, at its first sync and when its Service is gone for a moment (deleted by
// hand to change its type): held, the cluster would wait for good for a Service nobody makes, its members unable to
// find each other by their peer names.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import '../../main/operators.js';
import { etcdFirstSync, etcdRelated, laterEtcdCluster, memcachedX, NS } from '../fixtures/held-names.js';
import { running } from '../fixtures/etcd-loop.js';

/** Memcached `x`, made before the EtcdCluster, its Service x-memcached. */
const memcached = memcachedX('x-memcached');

const memcachedService = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: 'x-memcached',
    namespace: NS,
    uid: 'uid-svc-x-memcached',
    ownerReferences: [
      { apiVersion: memcached.apiVersion, kind: 'Memcached', name: 'x', uid: 'uid-memcached-x', controller: true },
    ],
  },
  spec: { selector: { 'memcached.metaops.io/instance': 'x' } },
} as unknown as KubeObject;

const etcdX = () => laterEtcdCluster('x', 1);

t.test('an EtcdCluster takes its peer Service name that an earlier Memcached of its name never makes', async (t) => {
  const parent = etcdX();
  const related = etcdRelated(parent, [memcached, memcachedService]);
  const res = await etcdFirstSync(t, parent, related);
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.notMatch(ready, { reason: /NameTaken$/ }, `not held for a name (Ready: ${JSON.stringify(ready)})`);
  t.ok(
    res.children.some((c) => c.kind === 'Service' && c.metadata.name === 'x'),
    `its peer Service x answered (answered: ${res.children.map((c) => `${c.kind} ${c.metadata.name}`).join(', ')})`,
  );
});

t.test('a running EtcdCluster whose peer Service is deleted by hand makes it again', async (t) => {
  const loop = await running({ size: 3 }, 'x');
  t.equal(loop.s()?.phase, 'Running', 'running');
  // Memcached x of the same namespace, made before the cluster, serving under x-memcached.
  loop.related = [
    { ...memcached, metadata: { ...memcached.metadata, namespace: 'ns' } } as KubeObject,
    { ...memcachedService, metadata: { ...memcachedService.metadata, namespace: 'ns' } } as KubeObject,
  ];
  await loop.step();
  t.ok(
    loop.children.some((c) => c.kind === 'Service' && c.metadata.name === 'x'),
    'the peer Service kept while it exists',
  );
  loop.children = loop.children.filter((c) => !(c.kind === 'Service' && c.metadata.name === 'x'));
  for (let i = 0; i < 3; i++) {
    const res = await loop.step();
    const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.notMatch(
      ready,
      { reason: /NameTaken$/ },
      `sync ${i + 1}: not held for a name (${ready?.reason}: ${ready?.message?.slice(0, 160)})`,
    );
  }
  t.ok(
    loop.children.some((c) => c.kind === 'Service' && c.metadata.name === 'x'),
    'its peer Service made again',
  );
  t.same(loop.pods(), ['x-0', 'x-1', 'x-2'], 'its members kept');
});
