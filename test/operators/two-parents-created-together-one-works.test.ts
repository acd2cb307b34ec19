// Two parents of different kinds created together (one `kubectl apply` of a folder) whose children want the same
// names: MySQLCluster `shop` wants Service `shop-mysql` (its write Service) and its StatefulSet makes pods
// `shop-mysql-<i>`; EtcdCluster `shop-mysql` wants Service `shop-mysql` (its peer Service) and member pods
// `shop-mysql-<i>`. Neither name exists when both first sync, so both answer both. Metacontroller creates the
// Service for whichever parent it gets to first, and the EtcdCluster's member pod at once (the StatefulSet's pod comes
// later, from its controller). From then on each holds a name the other wants. Issue 31: the first keeps working,
// the second says why it does not; never both held, each waiting for the other for good.
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
  (res.status as any).conditions.find((c: any) => c.type === 'Ready') as { status: string; reason: string };

/** A child of an answer as the API server stores it: controlled by the parent that answered it. */
function created(child: KubeObject, owner: ParentObject): KubeObject {
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
  return copy;
}

t.test('MySQLCluster shop and EtcdCluster shop-mysql created together: one of them keeps working', async (t) => {
  const etcd = etcdParent({ size: 3 });
  etcd.metadata = { ...etcd.metadata, name: 'shop-mysql', namespace: NS, uid: 'uid-etcd-shop-mysql' };
  const mysqlReq = request('mysqlcluster', { size: 3, version: '8.0' });
  mysqlReq.parent.metadata = { ...mysqlReq.parent.metadata, name: 'shop', namespace: NS, uid: 'uid-mysql-shop' };
  const mysql = mysqlReq.parent;

  // Both first syncs: nothing exists yet.
  const etcdFirst = await etcdSync({ controller: {}, parent: etcd, children: {}, related: {} }, { etcd: noEtcd, now });
  const mysqlFirst = mysqlSync(mysqlReq, now);
  const names = (r: CompositeSyncResponse) => r.children.map((c) => `${c.kind}/${c.metadata.name}`);
  t.ok(names(etcdFirst).includes('Service/shop-mysql'), `EtcdCluster answers Service shop-mysql (${names(etcdFirst)})`);
  t.ok(names(etcdFirst).includes('Pod/shop-mysql-0'), 'and its first member pod shop-mysql-0');
  t.ok(
    names(mysqlFirst).includes('Service/shop-mysql'),
    `MySQLCluster answers Service shop-mysql (${names(mysqlFirst)})`,
  );
  t.ok(names(mysqlFirst).includes('StatefulSet/shop-mysql'), 'and StatefulSet shop-mysql (pods shop-mysql-<i>)');

  // What Metacontroller makes of the two answers: the MySQLCluster's Service shop-mysql was created first (the
  // EtcdCluster's create of it failed, AlreadyExists), every other child of each as answered; the EtcdCluster's
  // member pod shop-mysql-0 exists before the StatefulSet's controller gets to make its pod of that name.
  const etcdNow: ParentObject = { ...etcd, status: etcdFirst.status } as ParentObject;
  const mysqlNow: ParentObject = { ...mysql, status: mysqlFirst.status } as ParentObject;
  const mysqlMade = mysqlFirst.children.map((c) => created(c, mysqlNow));
  const etcdMade = etcdFirst.children
    .filter((c) => !(c.kind === 'Service' && c.metadata.name === 'shop-mysql'))
    .map((c) => created(c, etcdNow));

  // Each syncs again, and again (with the status its last answer wrote), with its own children observed and
  // everything else of the namespace (and the other parent) sent as related objects (a superset of what its
  // customize asks for by name). Nothing else changes meanwhile: the StatefulSet cannot make pod shop-mysql-0.
  let etcdAgain = etcdFirst;
  let mysqlAgain = mysqlFirst;
  let etcdParentNow = etcdNow;
  let mysqlParentNow = mysqlNow;
  for (let round = 0; round < 3; round++) {
    etcdAgain = await etcdSync(
      {
        controller: {},
        parent: etcdParentNow,
        children: objectMap(etcdMade),
        related: objectMap([...mysqlMade, mysqlParentNow as KubeObject]),
      },
      { etcd: noEtcd, now },
    );
    const mysqlAgainReq = request('mysqlcluster', { size: 3, version: '8.0' });
    mysqlAgainReq.parent = mysqlParentNow;
    mysqlAgainReq.children = objectMap(mysqlMade);
    mysqlAgainReq.related = objectMap([...etcdMade, etcdParentNow as KubeObject]);
    mysqlAgain = mysqlSync(mysqlAgainReq, now);
    etcdParentNow = { ...etcdParentNow, status: etcdAgain.status } as ParentObject;
    mysqlParentNow = { ...mysqlParentNow, status: mysqlAgain.status } as ParentObject;
  }
  t.ok(
    etcdAgain.children.some((c) => c.kind === 'Pod' && c.metadata.name === 'shop-mysql-0'),
    'the EtcdCluster keeps its pod shop-mysql-0 (the name the StatefulSet needs)',
  );

  const etcdReady = ready(etcdAgain);
  const mysqlReady = ready(mysqlAgain);
  t.comment(`EtcdCluster shop-mysql: ${JSON.stringify(etcdReady)}`);
  t.comment(`MySQLCluster shop: ${JSON.stringify(mysqlReady)}`);
  const heldByName = (c: { reason: string }) => /NameTaken$/.test(c.reason);
  t.notOk(
    heldByName(etcdReady) && heldByName(mysqlReady),
    `not both held, each by a name the other holds (EtcdCluster: ${etcdReady.reason}, MySQLCluster: ${mysqlReady.reason})`,
  );
});
