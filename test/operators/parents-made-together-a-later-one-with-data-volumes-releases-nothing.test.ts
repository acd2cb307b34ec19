// Two parents made together that want each other's names (MySQLCluster `shop`, EtcdCluster `shop-mysql`, as in
// parents-made-together-the-later-yields-only-when-it-never-served). The one made second yields only when it never
// served. A parent whose members hold data on their volumes did serve: its status lost and its pods down for a
// moment (recreated after a node drain, Pending), it must not release its StatefulSet and Services on that doubt.
import t from 'tap';
import type { EtcdClient } from '../../hooks/etcdcommon/etcd.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { etcdParent } from '../fixtures/etcd.js';
import { etcdSync, mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const now = FIXED_NOW;
const NS = 'shop';

const noEtcd: EtcdClient = {
  memberList: async () => ({ members: [] }),
  health: async () => ({ healthy: false, error: 'down' }),
  memberAdd: async () => {
    throw new Error('not reached');
  },
  memberRemove: async () => {
    throw new Error('not reached');
  },
  memberPromote: async () => {
    throw new Error('not reached');
  },
};

const ready = (res: CompositeSyncResponse) =>
  (res.status as any).conditions.find((c: any) => c.type === 'Ready') as {
    status: string;
    reason: string;
    message: string;
  };
const names = (r: CompositeSyncResponse) => r.children.map((c) => `${c.kind}/${c.metadata.name}`);
const heldBy = (r: CompositeSyncResponse) => ((r.status as any).heldBy ?? []) as Array<{ yieldsTo?: { uid: string } }>;

/** A child as the API server stores it, controlled by `owner` (a parent, or a StatefulSet). */
function created(child: KubeObject, owner: KubeObject, status?: Record<string, unknown>): KubeObject {
  const copy = structuredClone(child);
  copy.metadata = {
    ...copy.metadata,
    namespace: NS,
    uid: `uid-${child.kind}-${child.metadata.name}`,
    resourceVersion: '1',
    ownerReferences: [
      {
        apiVersion: owner.apiVersion,
        kind: owner.kind,
        name: owner.metadata.name!,
        uid: owner.metadata.uid!,
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  } as KubeObject['metadata'];
  if (status) (copy as Record<string, unknown>)['status'] = status;
  return copy;
}

interface Setup {
  mysqlCreated?: string;
  etcdCreated?: string;
  /** Replaces each parent's status before each round of syncs. */
  mysqlStatus?: (s: unknown) => unknown;
  etcdStatus?: (s: unknown) => unknown;
  /** The parent's status is lost before the first sync that sees the other. */
  etcdStatusLost?: boolean;
  mysqlStatusLost?: boolean;
  /** Pod status of the EtcdCluster's pods (a member whose etcd ran). */
  etcdPods?: Record<string, unknown>;
  /** Pods the MySQLCluster's StatefulSet made, besides (ordinals the EtcdCluster did not take), with a status. */
  mysqlPods?: Array<[string, Record<string, unknown>]>;
  /** Objects in the MySQLCluster's namespace it is sent besides (its data volumes). */
  mysqlExtra?: KubeObject[];
  /** The EtcdCluster's spec. */
  etcdSpec?: Record<string, unknown>;
  /** Children of the EtcdCluster besides those it made (its member claims). */
  etcdExtra?: (etcd: KubeObject) => KubeObject[];
}

async function collide(s: Setup) {
  const etcd = etcdParent({ size: 3, ...(s.etcdSpec ?? {}) });
  etcd.metadata = {
    ...etcd.metadata,
    name: 'shop-mysql',
    namespace: NS,
    uid: 'uid-etcd-shop-mysql',
    ...(s.etcdCreated ? { creationTimestamp: s.etcdCreated } : {}),
  };
  const mysqlReq = request('mysqlcluster', { size: 3, version: '8.0' });
  mysqlReq.parent.metadata = {
    ...mysqlReq.parent.metadata,
    name: 'shop',
    namespace: NS,
    uid: 'uid-mysql-shop',
    ...(s.mysqlCreated ? { creationTimestamp: s.mysqlCreated } : {}),
  };
  const etcdFirst = await etcdSync({ controller: {}, parent: etcd, children: {}, related: {} }, { etcd: noEtcd, now });
  const mysqlFirst = mysqlSync(mysqlReq, now);
  // The MySQLCluster's Service shop-mysql was created first; the EtcdCluster's pods before the StatefulSet's.
  const mysqlMade = mysqlFirst.children.map((c) => created(c, mysqlReq.parent));
  const sts = mysqlMade.find((c) => c.kind === 'StatefulSet')!;
  const stsPods = (s.mysqlPods ?? []).map(([name, status]) =>
    created({ apiVersion: 'v1', kind: 'Pod', metadata: { name } }, sts, status),
  );
  const etcdMade = etcdFirst.children
    .filter((c) => !(c.kind === 'Service' && c.metadata.name === 'shop-mysql'))
    .filter((c) => !(c.kind === 'Pod' && stsPods.some((p) => p.metadata.name === c.metadata.name)))
    .map((c) => created(c, etcd, c.kind === 'Pod' ? s.etcdPods : undefined));
  // Its member claims as the API server holds them (bound), in place of the ones its first answer asked for.
  const etcdExtra = (s.etcdExtra?.(etcd) ?? []).map((c) => created(c, etcd, c['status'] as Record<string, unknown>));
  etcdMade.splice(
    0,
    etcdMade.length,
    ...etcdMade.filter((c) => !etcdExtra.some((x) => x.kind === c.kind && x.metadata.name === c.metadata.name)),
    ...etcdExtra,
  );
  let etcdNow = { ...etcd, status: etcdFirst.status } as ParentObject;
  let mysqlNow = { ...mysqlReq.parent, status: mysqlFirst.status } as ParentObject;
  let etcdAgain = etcdFirst;
  let mysqlAgain = mysqlFirst;
  for (let round = 0; round < 3; round++) {
    if (s.etcdStatusLost && round === 0) etcdNow = { ...etcdNow, status: {} } as ParentObject;
    if (s.mysqlStatusLost && round === 0) mysqlNow = { ...mysqlNow, status: {} } as ParentObject;
    if (s.etcdStatus) etcdNow = { ...etcdNow, status: s.etcdStatus(etcdNow.status) } as ParentObject;
    if (s.mysqlStatus) mysqlNow = { ...mysqlNow, status: s.mysqlStatus(mysqlNow.status) } as ParentObject;
    etcdAgain = await etcdSync(
      {
        controller: {},
        parent: etcdNow,
        children: objectMap(etcdMade),
        related: objectMap([...mysqlMade, ...stsPods, mysqlNow as KubeObject]),
      },
      { etcd: noEtcd, now },
    );
    const again = request('mysqlcluster', { size: 3, version: '8.0' });
    again.parent = mysqlNow;
    again.children = objectMap(mysqlMade);
    again.related = objectMap([...etcdMade, ...stsPods, etcdNow as KubeObject, ...(s.mysqlExtra ?? [])]);
    mysqlAgain = mysqlSync(again, now);
    etcdNow = { ...etcdNow, status: etcdAgain.status } as ParentObject;
    mysqlNow = { ...mysqlNow, status: mysqlAgain.status } as ParentObject;
  }
  return { etcd: etcdAgain, mysql: mysqlAgain, etcdMade, mysqlMade };
}

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
