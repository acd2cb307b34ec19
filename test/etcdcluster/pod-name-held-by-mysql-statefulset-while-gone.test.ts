// MySQLCluster `db`'s members are `db-mysql-<i>`, and so are EtcdCluster `db-mysql`'s; the EtcdCluster's peer Service
// `db-mysql` is also the MySQLCluster's write Service. The MySQLCluster came first: the EtcdCluster is held
// (PodNameTaken, ServiceNameTaken) and remembers who holds the names (status.heldBy, at most three records). A member
// pod is not the MySQLCluster's child: its controller is the StatefulSet `db-mysql`, and that is the holder recorded,
// a holder of no kind that declares names, which nothing judges (lib/ownership.ts stillHeld). With three members, the
// three records kept are the pods' (the Service's is cut). When the cluster's pods and Services are gone for a moment
// (`kubectl delete pods,services -l app.kubernetes.io/instance=db` to restart the database, or the Services deleted by
// hand while the members' nodes are drained: the StatefulSet and the MySQLCluster make them again within seconds), the
// EtcdCluster must stay held: the MySQLCluster still exists and wants every one of those names. Otherwise the
// EtcdCluster creates its own members `db-mysql-<i>` and Service `db-mysql` in that window, the StatefulSet can no
// longer make the database's members (the names are taken), and the MySQLCluster's write Service name is etcd's.
// (A PodSet or an EtcdCluster holding a pod name is recorded and judged by its own object:
// test/podset/pod-names-held-while-gone.test.ts.)
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { etcdDbMysql, mysqlDb, ready, syncDbMysql } from '../fixtures/db-mysql-held.js';

/** Member `i` of MySQLCluster db, as its StatefulSet `db-mysql` makes it. */
function member(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `db-mysql-${i}`,
      namespace: 'shop',
      uid: `uid-db-mysql-${i}`,
      labels: {
        'app.kubernetes.io/name': 'mysql',
        'app.kubernetes.io/instance': 'db',
        'mysqlcluster.metaops.io/instance': 'db',
        'statefulset.kubernetes.io/pod-name': `db-mysql-${i}`,
      },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db-mysql', uid: 'uid-sts-db-mysql', controller: true },
      ],
    },
  } as KubeObject;
}

/** MySQLCluster db's write Service, its own child. */
function writeService(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'db-mysql',
      namespace: 'shop',
      uid: 'uid-svc-db-mysql',
      ownerReferences: [
        {
          apiVersion: 'database.example.com/v1alpha1',
          kind: 'MySQLCluster',
          name: 'db',
          uid: 'uid-db',
          controller: true,
        },
      ],
    },
  } as KubeObject;
}

t.test(
  "EtcdCluster db-mysql held by MySQLCluster db stays held while the database's pods and Services are made again",
  async (t) => {
    // MySQLCluster db runs its three members, behind its write Service db-mysql: the EtcdCluster is held.
    const first = await syncDbMysql(t, etcdDbMysql(), [mysqlDb(3), member(0), member(1), member(2), writeService()]);
    t.match(ready(first.status), { status: 'False', reason: 'PodNameTaken', message: /^Pod db-mysql-0 belongs to/ });
    t.same(first.children, [], 'no member pod, no Service');
    t.comment(`recorded: ${JSON.stringify((first.status as Record<string, unknown>)['heldBy'])}`);

    // The database's pods and Services are gone for a moment; the MySQLCluster exists, with the same uid and size:
    // it still wants db-mysql-0..2 and Service db-mysql (its StatefulSet and its next sync make them again).
    const again = await syncDbMysql(t, etcdDbMysql(first.status as Record<string, unknown>), [mysqlDb(3)]);
    t.match(
      ready(again.status),
      { status: 'False', reason: /NameTaken$/, message: /belongs to .*which still exists and wants it/ },
      'still held: MySQLCluster db still exists and wants the names',
    );
    t.same(
      again.children.map((c) => `${c.kind} ${c.metadata.name}`),
      [],
      "no etcd member under a database member's name, no Service under its write Service's",
    );
  },
);
