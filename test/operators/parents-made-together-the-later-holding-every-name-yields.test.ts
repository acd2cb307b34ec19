// Two parents made together (one `kubectl apply` of a List) whose children want the same names: MySQLCluster `shop`
// (made first) and EtcdCluster `shop-mysql` (made second). Each creates what it can at once; on the real control
// plane the one made second can get every name it wants first (the Service shop-mysql, the pods shop-mysql-<i>, before
// the StatefulSet's pod): it is held by nothing, while the first is held by it. The one made second never learned it
// should yield, and the first stayed held for good though the second never served. It reads the first's status.heldBy
// (held for its children) and yields as a held one would: when it never served; one that served carries on.
import t from 'tap';
import { collide as collideWith, heldBy, names, ready } from '../fixtures/parents-made-together.js';

/**
 * The EtcdCluster (made second) got every name first; three rounds of syncs, the MySQLCluster's first, each status
 * fed back.
 */
const collide = (etcdPods?: Record<string, unknown>) =>
  collideWith({
    etcdCreated: '2026-01-02T03:00:01Z',
    mysqlCreated: '2026-01-02T03:00:00Z',
    serviceTo: 'etcd',
    order: 'mysql-first',
    ...(etcdPods ? { etcdPods } : {}),
  });

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
  // The MySQLCluster got its Service shop-mysql, and its StatefulSet its pod shop-mysql-0 (Pending), first.
  const { etcd: etcdAgain, mysql: mysqlAgain } = await collideWith({
    etcdCreated: '2026-01-02T03:00:00Z',
    mysqlCreated: '2026-01-02T03:00:01Z',
    mysqlSize: 1,
    mysqlPods: [['shop-mysql-0', { phase: 'Pending' }]],
    order: 'etcd-first',
  });
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
