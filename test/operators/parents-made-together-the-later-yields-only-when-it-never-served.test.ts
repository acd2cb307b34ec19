// Two parents of different kinds made together whose children want the same names (MySQLCluster `shop`: Service
// and pods `shop-mysql`, `shop-mysql-<i>`; EtcdCluster `shop-mysql`: the same), each holding some of the other's.
// The one made first (creationTimestamp, then uid) keeps working; the one made second yields only when it never
// served, judged from its status and, the status lost, from its children: it releases what the first wants and says
// why. One that served releases nothing: both stay held, and each names the other.
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

const running = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'False' }],
  containerStatuses: [
    { name: 'c', ready: false, restartCount: 0, state: { running: { startedAt: '2026-01-02T03:00:00Z' } } },
  ],
};

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
}

async function collide(s: Setup) {
  const etcd = etcdParent({ size: 3 });
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
    again.related = objectMap([...etcdMade, ...stsPods, etcdNow as KubeObject]);
    mysqlAgain = mysqlSync(again, now);
    etcdNow = { ...etcdNow, status: etcdAgain.status } as ParentObject;
    mysqlNow = { ...mysqlNow, status: mysqlAgain.status } as ParentObject;
  }
  return { etcd: etcdAgain, mysql: mysqlAgain, etcdMade, mysqlMade };
}

t.test('the MySQLCluster made first keeps working; the EtcdCluster made after it, never served, yields', async (t) => {
  const r = await collide({ mysqlCreated: '2026-01-02T03:00:00Z', etcdCreated: '2026-01-02T03:00:01Z' });
  t.comment(JSON.stringify(ready(r.etcd)));
  t.comment(JSON.stringify(ready(r.mysql)));
  t.match(ready(r.etcd), { status: 'False', reason: 'ServiceNameTaken', message: /MySQLCluster shop .*made before/ });
  t.match(ready(r.etcd).message, /releases Pod shop-mysql-0/, 'the EtcdCluster says what it releases');
  t.notOk(
    names(r.etcd).includes('Pod/shop-mysql-0'),
    'its pod shop-mysql-0, which the MySQLCluster wants, is released',
  );
  t.ok(
    heldBy(r.etcd).some((h) => h.yieldsTo?.uid === 'uid-mysql-shop'),
    'status.heldBy says it yields to the MySQLCluster',
  );
  t.match(ready(r.mysql), {
    status: 'False',
    reason: 'PodNameReleasing',
    message: /EtcdCluster shop-mysql .*made after/,
  });
  t.same(
    names(r.mysql).sort(),
    r.mysqlMade.map((c) => `${c.kind}/${c.metadata.name}`).sort(),
    'the MySQLCluster keeps its children and creates nothing on a name not free yet',
  );
});

t.test(
  'the same second: the lower uid is first (the EtcdCluster here); the MySQLCluster releases its Service',
  async (t) => {
    const r = await collide({ mysqlCreated: '2026-01-02T03:00:00Z', etcdCreated: '2026-01-02T03:00:00Z' });
    t.match(ready(r.etcd), { reason: 'ServiceNameReleasing' });
    t.match(ready(r.mysql), {
      reason: 'PodNameTaken',
      message: /never served, so it yields: it releases Service shop-mysql/,
    });
    t.notOk(names(r.mysql).includes('Service/shop-mysql'), 'the MySQLCluster releases Service shop-mysql');
    t.ok(names(r.etcd).includes('Pod/shop-mysql-0'), 'the EtcdCluster keeps its pod');
    t.notOk((r.mysql.status as any).writeService, 'the MySQLCluster no longer names the Service it released');
  },
);

t.test('the later one yields with its status lost too, when its children show nothing served', async (t) => {
  const r = await collide({
    mysqlCreated: '2026-01-02T03:00:00Z',
    etcdCreated: '2026-01-02T03:00:01Z',
    etcdStatusLost: true,
  });
  t.notOk(names(r.etcd).includes('Pod/shop-mysql-0'), 'the EtcdCluster releases its pod');
  t.match(ready(r.mysql), { reason: 'PodNameReleasing' });
});

t.test(
  'a later EtcdCluster whose member ran etcd keeps it, its status lost: both held, each names the other',
  async (t) => {
    const r = await collide({
      mysqlCreated: '2026-01-02T03:00:00Z',
      etcdCreated: '2026-01-02T03:00:01Z',
      etcdStatusLost: true,
      etcdPods: running,
    });
    t.ok(names(r.etcd).includes('Pod/shop-mysql-0'), 'the member that ran is kept');
    t.match(ready(r.etcd), {
      reason: 'ServiceNameTaken',
      message:
        /MySQLCluster shop .*made before this EtcdCluster.*keeps what it holds because its member pod shop-mysql-0 ran etcd.*delete or rename one of the two/,
    });
    t.notOk(
      heldBy(r.etcd).some((h) => h.yieldsTo),
      'it does not say it yields',
    );
    t.match(ready(r.mysql), { reason: 'PodNameTaken', message: /EtcdCluster shop-mysql .*made after/ });
  },
);

t.test('a later MySQLCluster that served keeps its Service: both held', async (t) => {
  const served = (s: unknown) => ({ ...(s as object), readyReplicas: 1 });
  const r = await collide({ mysqlStatus: served });
  t.ok(names(r.mysql).includes('Service/shop-mysql'), 'the Service is kept');
  t.match(ready(r.mysql), { reason: 'PodNameTaken', message: /keeps what it holds because its status counts 1 Ready/ });
  t.match(ready(r.etcd), { reason: 'ServiceNameTaken' }, 'the EtcdCluster is not told it is released');
});

t.test('a later MySQLCluster whose StatefulSet pod ran, its status lost, releases nothing', async (t) => {
  const r = await collide({ mysqlStatusLost: true, mysqlPods: [['shop-mysql-2', running]] });
  t.ok(names(r.mysql).includes('Service/shop-mysql'), 'the Service is kept');
  t.ok(names(r.mysql).includes('StatefulSet/shop-mysql'), 'the StatefulSet is kept');
  t.match(ready(r.mysql), { message: /because its member shop-mysql-2 ran/ });
});

t.test(
  'a later MySQLCluster that never served releases its StatefulSet whose pod takes a member name of the first',
  async (t) => {
    // The EtcdCluster, adding its member shop-mysql-2, is held for that name by the StatefulSet's pod (its heldBy).
    const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'shop-mysql', uid: 'uid-StatefulSet-shop-mysql' };
    const record = { child: { apiVersion: 'v1', kind: 'Pod', name: 'shop-mysql-2' }, holder: sts };
    const r = await collide({
      mysqlPods: [['shop-mysql-2', { phase: 'Pending' }]],
      etcdStatus: (s) => ({ ...(s as object), heldBy: [record] }),
    });
    t.notOk(
      names(r.mysql).includes('StatefulSet/shop-mysql'),
      'the StatefulSet that made pod shop-mysql-2 is released',
    );
    t.ok(
      names(r.mysql).some((n) => n.startsWith('Secret/')),
      'what the first does not want is kept',
    );
  },
);
