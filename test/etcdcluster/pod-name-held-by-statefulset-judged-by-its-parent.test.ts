// A pod made by a StatefulSet is recorded as held by the StatefulSet (its controller), a kind no hook judges. The
// record is judged by the parent that makes that StatefulSet: MySQLCluster `db` wants StatefulSet `db-mysql` and its
// pods `db-mysql-<i>`, so EtcdCluster `db-mysql`, whose status records only the StatefulSet (every record a pod's),
// stays held while `db` exists and wants the pod name, even while the database's pods are gone for a moment. When no
// parent wants the StatefulSet and the name any more (the MySQLCluster deleted, or scaled below that member), the name
// is free. (Its other test, pod-name-held-by-mysql-statefulset-while-gone.test.ts, records the holders as the hook
// records them now: the first of each holder first.)
import t from 'tap';
import type { ParentObject } from '../../lib/metacontroller.js';
import { etcdDbMysql, mysqlDb, ready, syncDbMysql } from '../fixtures/db-mysql-held.js';

const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db-mysql', uid: 'uid-sts-db-mysql' };
/** EtcdCluster db-mysql, held before: its records name the StatefulSet for each of `pods`. */
const heldByStatefulSet = (pods: number[]): ParentObject =>
  etcdDbMysql({
    heldBy: pods.map((i) => ({ child: { apiVersion: 'v1', kind: 'Pod', name: `db-mysql-${i}` }, holder: sts })),
  });

t.test('a pod name recorded as held by a StatefulSet stays held while the parent that makes it wants it', async (t) => {
  const res = await syncDbMysql(t, heldByStatefulSet([0, 1, 2]), [mysqlDb(3)]);
  t.match(ready(res.status), {
    status: 'False',
    reason: 'PodNameTaken',
    message:
      /^Pod db-mysql-0 belongs to StatefulSet db-mysql \(uid uid-sts-db-mysql\) of MySQLCluster db \(uid uid-db\), which still exists and wants it/,
  });
  t.same(res.children, [], 'no etcd member under a database member name');
});

/** `parent` with its creationTimestamp at `time` (which of two parents was made first: lib/ownership.ts firstMade). */
const madeAt = <T extends ParentObject>(parent: T, time: string): T => {
  parent.metadata = { ...parent.metadata, creationTimestamp: time } as never;
  return parent;
};

t.test('the name is free once no parent wants the StatefulSet and the name', async (t) => {
  // The MySQLCluster scaled below those members still wants db-mysql-0: here it was made after the EtcdCluster (it
  // took the names it holds while they were free), so that name is not kept from the EtcdCluster (next test).
  for (const [what, related, pods] of [
    ['the MySQLCluster is gone', [], [0, 1, 2]],
    ['the MySQLCluster was scaled below those members', [madeAt(mysqlDb(1), '2020-01-01T01:00:00Z')], [1, 2]],
  ] as const) {
    const parent = madeAt(heldByStatefulSet([...pods]), '2020-01-01T00:00:00Z');
    const res = await syncDbMysql(t, parent, [...related]);
    t.not(ready(res.status)?.reason, 'PodNameTaken', `${what}: not held`);
    t.ok(
      res.children.some((c) => c.kind === 'Pod' && c.metadata.name === 'db-mysql-1'),
      `${what}: the EtcdCluster makes its member db-mysql-1`,
    );
  }
});

t.test(
  'a MySQLCluster made before the EtcdCluster, scaled below the recorded members, still keeps the name it wants',
  async (t) => {
    const mysql = madeAt(mysqlDb(1), '2020-01-01T00:00:00Z');
    const parent = madeAt(heldByStatefulSet([1, 2]), '2020-01-01T01:00:00Z');
    const res = await syncDbMysql(t, parent, [mysql]);
    t.match(ready(res.status), {
      status: 'False',
      reason: 'PodNameTaken',
      message:
        /^Pod db-mysql-0 belongs to MySQLCluster db \(uid uid-db\), made before this EtcdCluster, which wants it/,
    });
    t.notMatch(ready(res.status)?.message, /db-mysql-[12] belongs/, 'the names it no longer wants are not held');
    t.same(res.children, [], 'no etcd member under the database member name it still wants');
  },
);
