// A MySQLCluster deleted and created again over its volumes (docs/mysqlcluster.md, "The passwords"): the Secret went
// with the cluster; the user gives the root password back with the documented command
// (`kubectl create secret generic <name>-mysql --from-literal=root-password=<password>` + the controller-uid label),
// which holds no `replication-password`. The hook keeps the root password and makes a new replication password
// (hooks/mysqlcluster/sync.ts passwords: `observedKey(..., REPLICATION_KEY) ?? encode()`); member 0's sidecar sets
// the replication user to it when it opens. The replicas' volumes still hold the source configuration made with the
// old password. The cluster must replicate again: the replicas hold the cluster's data and must keep up with member 0.
// Real MariaDB (test/fixtures/mysql-members.ts), as test/real/mysqlcluster-real.test.ts.
import t from 'tap';
import {
  pairOfTheseTests,
  probe,
  sql,
  startServer,
  startSidecar,
  stopMember,
  until,
} from '../fixtures/mysql-members.js';

const pair = pairOfTheseTests();

t.test(
  'a cluster created again over its volumes with the documented Secret (root password only): its replicas replicate again',
  async (t) => {
    const { primary, replica } = pair;
    // kubectl delete mysqlcluster: the pods (and the Secret) go, the volumes stay.
    await stopMember(replica);
    await stopMember(primary);
    // Created again; the Secret made by the documented command has the root password only, so the hook's answer
    // carries a replication password of its own making, which every pod now reads from the Secret.
    for (const m of [primary, replica]) m.env = { ...m.env, REPLICATION_PASSWORD: 'a-new-replication-password' };
    await startServer(primary, false);
    startSidecar(primary);
    await startServer(replica, false);
    startSidecar(replica);
    await until('member 0 to open again (it kept its data)', () => probe(primary), 90_000);
    // Later, member 0's pod is restarted (a node drained, a rollout): each replica connects to it again.
    await stopMember(primary);
    await startServer(primary, false);
    startSidecar(primary);
    await until('member 0 to open again after its restart', () => probe(primary), 90_000);
    await sql(primary, "INSERT INTO shop.orders VALUES (3, 'milk')");
    const replicated = await until(
      'the new row on member 1',
      async () => (await sql(replica, 'SELECT COUNT(*) FROM shop.orders')) === '3' || undefined,
      60_000,
    ).then(
      () => true,
      () => false,
    );
    const status = await sql(replica, 'SHOW REPLICA STATUS').catch((e) => String(e));
    const error = /Access denied[^\t]*|error [^\t]*/i.exec(status)?.[0] ?? '';
    t.ok(replicated, `member 1 receives member 0's new writes (its IO thread: ${error || 'no error'})`);
    t.ok(await probe(replica), 'member 1 is Ready again: it replicates, so the read Service has it');
  },
);
