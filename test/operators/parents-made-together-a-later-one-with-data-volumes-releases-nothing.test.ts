// Two parents made together that want each other's names (MySQLCluster `shop`, EtcdCluster `shop-mysql`, as in
// parents-made-together-the-later-yields-only-when-it-never-served). The one made second yields only when it never
// served. A parent whose members hold data on their volumes did serve: its status lost and its pods down for a
// moment (recreated after a node drain, Pending), it must not release its StatefulSet and Services on that doubt.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { collide, heldBy, names, NS, ready } from '../fixtures/parents-made-together.js';

/** A data volume of the MySQLCluster's StatefulSet, bound for days: a member ran MySQL on it. */
function dataVolume(ordinal: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: `data-shop-mysql-${ordinal}`,
      namespace: NS,
      uid: `uid-claim-${ordinal}`,
      creationTimestamp: '2026-01-02T03:00:05Z',
      labels: {
        'app.kubernetes.io/name': 'mysql',
        'app.kubernetes.io/instance': 'shop',
        'mysqlcluster.metaops.io/uid': 'uid-mysql-shop',
      },
    },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: `pv-${ordinal}` },
    status: { phase: 'Bound', capacity: { storage: '1Gi' } },
  } as KubeObject;
}

t.test(
  'a later MySQLCluster whose members hold data volumes keeps its StatefulSet and Services, its status lost and its pods Pending',
  async (t) => {
    // Its status lost (a restore of the object without its status subresource), its pods recreated after a node
    // drain and not started yet: nothing of what it served shows but its bound data volumes.
    const r = await collide({
      mysqlStatusLost: true,
      mysqlPods: [['shop-mysql-2', { phase: 'Pending' }]],
      mysqlExtra: [dataVolume(0), dataVolume(1), dataVolume(2)],
    });
    t.comment(JSON.stringify(ready(r.mysql)));
    t.ok(names(r.mysql).includes('StatefulSet/shop-mysql'), 'the StatefulSet is kept');
    t.ok(names(r.mysql).includes('Service/shop-mysql'), 'the write Service is kept');
    t.notOk(
      heldBy(r.mysql).some((h) => h.yieldsTo),
      'it does not say it yields: its volumes hold data',
    );
  },
);

t.test(
  'a later EtcdCluster whose member claims are bound keeps its pods and Services, its status lost and its pods Pending',
  async (t) => {
    const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
    const memberClaim = (ordinal: number): KubeObject =>
      ({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: `shop-mysql-${ordinal}` },
        spec: { ...claimSpec, volumeName: `pv-etcd-${ordinal}` },
        status: { phase: 'Bound', capacity: { storage: '1Gi' } },
      }) as KubeObject;
    const r = await collide({
      mysqlCreated: '2026-01-02T03:00:00Z',
      etcdCreated: '2026-01-02T03:00:01Z',
      etcdStatusLost: true,
      etcdPods: { phase: 'Pending' },
      etcdSpec: { pod: { persistentVolumeClaimSpec: claimSpec } },
      etcdExtra: () => [memberClaim(0), memberClaim(1), memberClaim(2)],
    });
    t.comment(JSON.stringify(ready(r.etcd)));
    t.ok(names(r.etcd).includes('Pod/shop-mysql-0'), 'its member pod is kept');
    t.match(ready(r.etcd), { message: /because its member claim shop-mysql-0 is bound/ });
    t.notOk(
      heldBy(r.etcd).some((h) => h.yieldsTo),
      'it does not say it yields: its member claims hold data',
    );
  },
);

t.test(
  'a later MySQLCluster whose claim a WaitForFirstConsumer class bound when its pod was scheduled keeps its names: its init containers may have written there',
  async (t) => {
    // A claim of a `volumeBindingMode: WaitForFirstConsumer` class binds once a pod that mounts it is scheduled,
    // before any server ran: it may hold nothing. But an init container may have written on it already (and a pod
    // before this one may have run), which a sync cannot tell: a bound claim of its own counts as served (doubt:
    // keep). Both stay held, each naming the other; the message says which volume keeps it.
    const scheduled = {
      phase: 'Pending',
      initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: { running: {} } }],
    };
    const bound = dataVolume(2);
    bound.metadata.annotations = { 'volume.kubernetes.io/selected-node': 'node-1' };
    const r = await collide({
      mysqlStatusLost: true,
      mysqlPods: [['shop-mysql-2', scheduled]],
      mysqlExtra: [bound],
    });
    t.ok(names(r.mysql).includes('StatefulSet/shop-mysql'), 'the StatefulSet is kept');
    t.ok(names(r.mysql).includes('Service/shop-mysql'), 'the write Service is kept');
    t.match(ready(r.mysql), { message: /keeps what it holds because its data volume data-shop-mysql-2 is bound/ });
    t.notOk(
      heldBy(r.mysql).some((h) => h.yieldsTo),
      'it does not say it yields',
    );
  },
);
