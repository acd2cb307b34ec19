// Two parents made together (one `kubectl apply` of a List) whose children want the same names: MySQLCluster `shop`
// (made first) and EtcdCluster `shop-mysql` (made second). Each creates what it can at once; on the real control
// plane the one made second can get every name it wants first (the Service shop-mysql, the pods shop-mysql-<i>, before
// the StatefulSet's pod): it is held by nothing, while the first is held by it. The one made second never learned it
// should yield, and the first stayed held for good though the second never served. It reads the first's status.heldBy
// (held for its children) and yields as a held one would: when it never served; one that served carries on.
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
  (res.status as any).conditions.find((c: any) => c.type === 'Ready') as { reason: string; message: string };
const names = (r: CompositeSyncResponse) => r.children.map((c) => `${c.kind}/${c.metadata.name}`);
const heldBy = (r: CompositeSyncResponse) => ((r.status as any).heldBy ?? []) as Array<{ yieldsTo?: { uid: string } }>;

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

/** The EtcdCluster got every name first; three rounds of syncs, each status fed back. */
async function collide(etcdPods?: Record<string, unknown>) {
  const etcd = etcdParent({ size: 3 });
  etcd.metadata = {
    ...etcd.metadata,
    name: 'shop-mysql',
    namespace: NS,
    uid: 'uid-etcd-shop-mysql',
    creationTimestamp: '2026-01-02T03:00:01Z',
  };
  const mysqlReq = request('mysqlcluster', { size: 3, version: '8.0' });
  mysqlReq.parent.metadata = {
    ...mysqlReq.parent.metadata,
    name: 'shop',
    namespace: NS,
    uid: 'uid-mysql-shop',
    creationTimestamp: '2026-01-02T03:00:00Z',
  };
  const etcdFirst = await etcdSync({ controller: {}, parent: etcd, children: {}, related: {} }, { etcd: noEtcd, now });
  const mysqlFirst = mysqlSync(mysqlReq, now);
  const etcdMade = etcdFirst.children.map((c) => created(c, etcd, c.kind === 'Pod' ? etcdPods : undefined));
  const mysqlMade = mysqlFirst.children
    .filter((c) => !(c.kind === 'Service' && c.metadata.name === 'shop-mysql'))
    .map((c) => created(c, mysqlReq.parent));
  let etcdNow = { ...etcd, status: etcdFirst.status } as ParentObject;
  let mysqlNow = { ...mysqlReq.parent, status: mysqlFirst.status } as ParentObject;
  let etcdAgain = etcdFirst;
  let mysqlAgain = mysqlFirst;
  for (let round = 0; round < 3; round++) {
    const again = request('mysqlcluster', { size: 3, version: '8.0' });
    again.parent = mysqlNow;
    again.children = objectMap(mysqlMade);
    again.related = objectMap([...etcdMade, etcdNow as KubeObject]);
    mysqlAgain = mysqlSync(again, now);
    mysqlNow = { ...mysqlNow, status: mysqlAgain.status } as ParentObject;
    etcdAgain = await etcdSync(
      {
        controller: {},
        parent: etcdNow,
        children: objectMap(etcdMade),
        related: objectMap([...mysqlMade, mysqlNow as KubeObject]),
      },
      { etcd: noEtcd, now },
    );
    etcdNow = { ...etcdNow, status: etcdAgain.status } as ParentObject;
  }
  return { etcd: etcdAgain, mysql: mysqlAgain };
}

t.test(
  'the later EtcdCluster, held by nothing but holding what the first waits for, yields when it never served',
  async (t) => {
    const r = await collide();
    t.comment(JSON.stringify(ready(r.etcd)));
    t.comment(JSON.stringify(ready(r.mysql)));
    t.notOk(names(r.etcd).includes('Service/shop-mysql'), 'it releases the Service shop-mysql the MySQLCluster wants');
    t.notOk(names(r.etcd).includes('Pod/shop-mysql-0'), 'and its pod shop-mysql-0');
    t.match(ready(r.etcd), {
      reason: /NameTaken$/,
      message: /MySQLCluster shop \(uid uid-mysql-shop\), made before this EtcdCluster.*never served, so it yields/,
    });
    t.ok(
      heldBy(r.etcd).some((h) => h.yieldsTo?.uid === 'uid-mysql-shop'),
      'status.heldBy says it yields to it',
    );
    t.match(ready(r.mysql), { reason: /NameReleasing$/, message: /EtcdCluster shop-mysql .*made after/ });
  },
);

t.test('a later EtcdCluster whose member ran keeps working; the first stays held naming it', async (t) => {
  const running = {
    phase: 'Running',
    containerStatuses: [
      { name: 'c', ready: false, restartCount: 0, state: { running: { startedAt: '2026-01-02T03:00:05Z' } } },
    ],
  };
  const r = await collide(running);
  t.ok(names(r.etcd).includes('Service/shop-mysql'), 'it keeps its Service');
  const reasons = ((r.etcd.status as any).conditions ?? []).map((c: any) => String(c.reason));
  t.notOk(
    reasons.some((x: string) => /NameTaken|NameReleasing/.test(x)),
    `not held: ${reasons.join(', ')}`,
  );
  t.match(ready(r.mysql), {
    reason: /NameTaken$/,
    message: /EtcdCluster shop-mysql .*made after.*does not say it releases them/,
  });
});

t.test('a later MySQLCluster that got every name first yields to the EtcdCluster made before it', async (t) => {
  const etcd = etcdParent({ size: 3 });
  etcd.metadata = {
    ...etcd.metadata,
    name: 'shop-mysql',
    namespace: NS,
    uid: 'uid-etcd-shop-mysql',
    creationTimestamp: '2026-01-02T03:00:00Z',
  };
  const mysqlReq = request('mysqlcluster', { size: 1, version: '8.0' });
  mysqlReq.parent.metadata = {
    ...mysqlReq.parent.metadata,
    name: 'shop',
    namespace: NS,
    uid: 'uid-mysql-shop',
    creationTimestamp: '2026-01-02T03:00:01Z',
  };
  const etcdFirst = await etcdSync({ controller: {}, parent: etcd, children: {}, related: {} }, { etcd: noEtcd, now });
  const mysqlFirst = mysqlSync(mysqlReq, now);
  // The MySQLCluster got its Service shop-mysql, and its StatefulSet its pod shop-mysql-0 (Pending), first.
  const mysqlMade = mysqlFirst.children.map((c) => created(c, mysqlReq.parent));
  const sts = mysqlMade.find((c) => c.kind === 'StatefulSet')!;
  const stsPod = created({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'shop-mysql-0' } }, sts, {
    phase: 'Pending',
  });
  const etcdMade = etcdFirst.children
    .filter((c) => !(c.kind === 'Service' && c.metadata.name === 'shop-mysql'))
    .filter((c) => !(c.kind === 'Pod' && c.metadata.name === 'shop-mysql-0'))
    .map((c) => created(c, etcd));
  let etcdNow = { ...etcd, status: etcdFirst.status } as ParentObject;
  let mysqlNow = { ...mysqlReq.parent, status: mysqlFirst.status } as ParentObject;
  let etcdAgain = etcdFirst;
  let mysqlAgain = mysqlFirst;
  for (let round = 0; round < 3; round++) {
    etcdAgain = await etcdSync(
      {
        controller: {},
        parent: etcdNow,
        children: objectMap(etcdMade),
        related: objectMap([...mysqlMade, stsPod, mysqlNow as KubeObject]),
      },
      { etcd: noEtcd, now },
    );
    etcdNow = { ...etcdNow, status: etcdAgain.status } as ParentObject;
    const again = request('mysqlcluster', { size: 1, version: '8.0' });
    again.parent = mysqlNow;
    again.children = objectMap(mysqlMade);
    again.related = objectMap([...etcdMade, stsPod, etcdNow as KubeObject]);
    mysqlAgain = mysqlSync(again, now);
    mysqlNow = { ...mysqlNow, status: mysqlAgain.status } as ParentObject;
  }
  t.comment(JSON.stringify(ready(mysqlAgain)));
  t.notOk(names(mysqlAgain).includes('Service/shop-mysql'), 'it releases its Service shop-mysql');
  // The EtcdCluster is held for its Service first; once it has it, its member shop-mysql-0 is held by the StatefulSet's
  // pod, and the MySQLCluster, held then, releases the StatefulSet too (parents-made-together-the-later-yields-...).
  t.ok(
    heldBy(mysqlAgain).some((h) => h.yieldsTo?.uid === 'uid-etcd-shop-mysql'),
    'status.heldBy says it yields',
  );
  t.match(ready(etcdAgain), { reason: /NameReleasing$/ });
});
