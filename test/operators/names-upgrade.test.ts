// Parents made by an older metaops, whose children have the names before the suffixes (Memcached's Service `<name>`,
// MySQLCluster's StatefulSet `<name>` and Services `<name>`, `<name>-read`, `<name>-headless`, PodSet's pods
// `<name>-<ordinal>`): an upgraded metaops answers those same names, so that Metacontroller deletes nothing their
// clients use (a child left out of an answer is deleted), and a parent that never had them gets the new ones.
import t from 'tap';
import { legacyNames as memcachedLegacy } from '../../hooks/memcached/sync.js';
import { legacyNames as mysqlLegacy, namesOf } from '../../hooks/mysqlcluster/sync.js';
import { legacyNames as podsetLegacy } from '../../hooks/podset/sync.js';
import { TEMPLATE_HASH_LABEL } from '../../hooks/podset/rollout.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { memcachedSync, mysqlSync, podsetSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const now = FIXED_NOW;
// The children named before and after the suffixes; the pods' NetworkPolicy (new, one name: pods-network-policy tests) aside.
const names = (res: CompositeSyncResponse) =>
  res.children
    .filter((c) => c.kind !== 'NetworkPolicy')
    .map((c) => `${c.kind}/${c.metadata.name}`)
    .sort();
const obj = (kind: string, apiVersion: string, name: string, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion, kind, metadata: { name, namespace: 'default', ...extra } }) as KubeObject;

t.test(
  'Memcached: its Service keeps the name it has; the status remembers it; a new one gets -memcached',
  async (t) => {
    const fresh = memcachedSync(request('memcached', { size: 2 }), now);
    t.same(names(fresh), ['Deployment/memcached-sample', 'Service/memcached-sample-memcached']);
    t.equal((fresh.status as any).serviceName, 'memcached-sample-memcached');
    // The children of an older metaops, as Metacontroller observes them.
    const old = [
      asObserved(obj('Deployment', 'apps/v1', 'memcached-sample', { labels: {} }), { replicas: 2, readyReplicas: 2 }),
      asObserved(obj('Service', 'v1', 'memcached-sample')),
    ];
    const upgraded = memcachedSync(request('memcached', { size: 2 }, { children: objectMap(old) }), now);
    t.same(names(upgraded), ['Deployment/memcached-sample', 'Service/memcached-sample'], 'nothing to delete');
    t.equal((upgraded.status as any).serviceName, 'memcached-sample');
    // Its Service deleted by hand: the status says which name its clients use, and it comes back under it.
    const lost = request('memcached', { size: 2 }, { children: objectMap(old.slice(0, 1)) });
    lost.parent.status = upgraded.status as never;
    t.same(names(memcachedSync(lost, now)), ['Deployment/memcached-sample', 'Service/memcached-sample']);
    // A status naming something else is not believed; the new Service, once it exists, decides.
    const forged = request('memcached', { size: 2 });
    forged.parent.status = { serviceName: 'someone-elses' };
    t.equal(memcachedLegacy(forged), false);
    const both = request(
      'memcached',
      { size: 2 },
      {
        children: objectMap([...old, asObserved(obj('Service', 'v1', 'memcached-sample-memcached'))]),
      },
    );
    t.equal(memcachedLegacy(both), false, 'the new name observed: the new names');
  },
);

t.test(
  'MySQLCluster: an older cluster keeps its StatefulSet, Services and volumes; a new one gets -mysql',
  async (t) => {
    const spec = { size: 2, version: '8.0' };
    t.same(names(mysqlSync(request('mysqlcluster', spec), now)), [
      'Secret/my-mysql-mysql',
      'Service/my-mysql-mysql',
      'Service/my-mysql-mysql-headless',
      'Service/my-mysql-mysql-read',
      'StatefulSet/my-mysql-mysql',
    ]);
    const before = namesOf('my-mysql', true);
    t.same(
      [
        before.statefulSet,
        before.client,
        before.read,
        before.headless,
        before.secret,
        before.member(1),
        before.volume(1),
      ],
      ['my-mysql', 'my-mysql', 'my-mysql-read', 'my-mysql-headless', 'my-mysql-mysql', 'my-mysql-1', 'data-my-mysql-1'],
    );
    const legacyChildren = [
      asObserved(obj('StatefulSet', 'apps/v1', 'my-mysql'), { replicas: 2, readyReplicas: 2 }),
      asObserved(obj('Service', 'v1', 'my-mysql')),
      asObserved(obj('Service', 'v1', 'my-mysql-read')),
      asObserved(obj('Service', 'v1', 'my-mysql-headless')),
      asObserved({
        ...obj('Secret', 'v1', 'my-mysql-mysql'),
        data: { 'root-password': 'cm9vdA==', 'replication-password': 'cmVwbA==' },
      }),
    ];
    const upgraded = mysqlSync(request('mysqlcluster', spec, { children: objectMap(legacyChildren) }), now);
    t.same(
      names(upgraded),
      legacyChildren.map((c) => `${c.kind}/${c.metadata.name}`).sort(),
      'exactly the children it has: nothing deleted, nothing new',
    );
    const sts = upgraded.children.find((c) => c.kind === 'StatefulSet') as any;
    t.equal(sts.spec.serviceName, 'my-mysql-headless');
    t.equal(sts.spec.podManagementPolicy, undefined, 'a field a StatefulSet cannot change is not asked of it');
    const env = sts.spec.template.spec.containers.find((c: any) => c.name === 'replication').env;
    t.match(
      env.find((e: any) => e.name === 'PEER_HOST_FORMAT'),
      { value: 'my-mysql-%s.my-mysql-headless' },
    );
    t.match((upgraded.status as any).writeService, 'my-mysql');
    // Each thing that says "older": the StatefulSet, a Service, the data volumes, the status; and the new names win.
    const labelled = { labels: { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'my-mysql' } };
    const cases: Array<[string, Partial<Parameters<typeof request>[2]> & { status?: unknown }, boolean]> = [
      ['nothing', {}, false],
      ['the old StatefulSet', { children: objectMap([asObserved(obj('StatefulSet', 'apps/v1', 'my-mysql'))]) }, true],
      [
        'the old headless Service',
        { children: objectMap([asObserved(obj('Service', 'v1', 'my-mysql-headless'))]) },
        true,
      ],
      ['the old write Service', { children: objectMap([asObserved(obj('Service', 'v1', 'my-mysql'))]) }, true],
      ['the old read Service', { children: objectMap([asObserved(obj('Service', 'v1', 'my-mysql-read'))]) }, true],
      [
        'the new StatefulSet beside an old Service',
        {
          children: objectMap([
            asObserved(obj('StatefulSet', 'apps/v1', 'my-mysql-mysql')),
            asObserved(obj('Service', 'v1', 'my-mysql-read')),
          ]),
        },
        false,
      ],
      [
        'the new headless Service',
        { children: objectMap([asObserved(obj('Service', 'v1', 'my-mysql-mysql-headless'))]) },
        false,
      ],
      [
        'volumes of an older cluster of this name',
        { related: objectMap([obj('PersistentVolumeClaim', 'v1', 'data-my-mysql-0', labelled)]) },
        true,
      ],
      [
        'volumes of both',
        {
          related: objectMap([
            obj('PersistentVolumeClaim', 'v1', 'data-my-mysql-0', labelled),
            obj('PersistentVolumeClaim', 'v1', 'data-my-mysql-mysql-0', labelled),
          ]),
        },
        false,
      ],
      [
        'an old volume that is not this cluster\u2019s',
        { related: objectMap([obj('PersistentVolumeClaim', 'v1', 'data-my-mysql-0')]) },
        false,
      ],
      ['the status', { status: { writeService: 'my-mysql' } }, true],
      ['a status naming the new', { status: { writeService: 'my-mysql-mysql' } }, false],
    ];
    for (const [what, patch, legacy] of cases) {
      const { status, ...rest } = patch;
      const req = request('mysqlcluster', spec, rest);
      if (status) req.parent.status = status as never;
      t.equal(mysqlLegacy(req), legacy, what);
    }
  },
);

t.test('PodSet: an older PodSet keeps its pods <name>-<ordinal>; once it has none, the new names', async (t) => {
  // As a metaops from before `-pod-` (and before the template hash) made them: the spec's container, no hash label.
  const made = podsetSync(request('podset', { size: 3 }), now).children;
  const old = made.map((p, i) => {
    const labels = { ...p.metadata.labels };
    delete labels[TEMPLATE_HASH_LABEL];
    return asObserved({ ...p, metadata: { ...p.metadata, name: `podset-sample-${i}`, labels } }, readyPod);
  });
  const upgraded = podsetSync(request('podset', { size: 3 }, { children: objectMap(old) }), now);
  t.same(names(upgraded), ['Pod/podset-sample-0', 'Pod/podset-sample-1', 'Pod/podset-sample-2'], 'no pod replaced');
  t.same((upgraded.status as any).nodes, ['podset-sample-0', 'podset-sample-1', 'podset-sample-2']);
  // Scaled up: the new pods take the same form.
  const grown = podsetSync(request('podset', { size: 4 }, { children: objectMap(old) }), now);
  t.same(names(grown).slice(-1), ['Pod/podset-sample-3']);
  // A pod of another form among them is not a reason: only <name>-<ordinal>.
  t.equal(
    podsetLegacy(request('podset', { size: 1 }, { children: objectMap([obj('Pod', 'v1', 'podset-sample-x')]) })),
    false,
  );
  t.equal(
    podsetLegacy(request('podset', { size: 1 }, { children: objectMap([obj('Pod', 'v1', 'podset-sample-pod-0')]) })),
    false,
  );
  t.equal(
    podsetLegacy(request('podset', { size: 1 }, { children: objectMap([obj('Pod', 'v1', 'podset-sample-7')]) })),
    true,
  );
  t.same(names(podsetSync(request('podset', { size: 1 }), now)), ['Pod/podset-sample-pod-0']);
});
