// Two parents of different kinds created together (one `kubectl apply` of a folder) whose children want the same
// names: MySQLCluster `shop` wants Service `shop-mysql` (its write Service) and its StatefulSet makes pods
// `shop-mysql-<i>`; EtcdCluster `shop-mysql` wants Service `shop-mysql` (its peer Service) and member pods
// `shop-mysql-<i>`. Neither name exists when both first sync, so both answer both. Metacontroller creates the
// Service for whichever parent it gets to first, and the EtcdCluster's member pod at once (the StatefulSet's pod comes
// later, from its controller). From then on each holds a name the other wants. Issue 31: the first keeps working,
// the second says why it does not; never both held, each waiting for the other for good.
import t from 'tap';
import { collide, names, ready } from '../fixtures/parents-made-together.js';

t.test('MySQLCluster shop and EtcdCluster shop-mysql created together: one of them keeps working', async (t) => {
  // Both first syncs, nothing existing yet; then what Metacontroller makes of the two answers: the MySQLCluster's
  // Service shop-mysql was created first (the EtcdCluster's create of it failed, AlreadyExists), every other child
  // of each as answered; the EtcdCluster's member pod shop-mysql-0 exists before the StatefulSet's controller gets to
  // make its pod of that name. Each syncs again, and again (with the status its last answer wrote), with its own
  // children observed and everything else of the namespace (and the other parent) sent as related objects (a superset
  // of what its customize asks for by name). Nothing else changes meanwhile: the StatefulSet cannot make pod
  // shop-mysql-0.
  const { etcdFirst, mysqlFirst, etcd: etcdAgain, mysql: mysqlAgain } = await collide();
  t.ok(names(etcdFirst).includes('Service/shop-mysql'), `EtcdCluster answers Service shop-mysql (${names(etcdFirst)})`);
  t.ok(names(etcdFirst).includes('Pod/shop-mysql-0'), 'and its first member pod shop-mysql-0');
  t.ok(
    names(mysqlFirst).includes('Service/shop-mysql'),
    `MySQLCluster answers Service shop-mysql (${names(mysqlFirst)})`,
  );
  t.ok(names(mysqlFirst).includes('StatefulSet/shop-mysql'), 'and StatefulSet shop-mysql (pods shop-mysql-<i>)');
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
