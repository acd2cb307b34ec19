// Two parents of different kinds made together whose children want the same names (MySQLCluster `shop`: Service
// and pods `shop-mysql`, `shop-mysql-<i>`; EtcdCluster `shop-mysql`: the same), each holding some of the other's.
// The one made first (creationTimestamp, then uid) keeps working; the one made second yields only when it never
// served, judged from its status and, the status lost, from its children: it releases what the first wants and says
// why. One that served releases nothing: both stay held, and each names the other.
import t from 'tap';
import { collide, heldBy, names, ready, running } from '../fixtures/parents-made-together.js';

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
