// Member 0's volume is rolled back to an older copy (a volume snapshot restored, the wrong backup): it holds fewer
// transactions than its replica (real MariaDB, as test/real/ runs the member scripts). The sidecar keeps it read-only
// (PRIMARY_BEHIND), and the replica, which holds every row, stays in the read Service although its IO thread asks for
// GTIDs past member 0's binary log and is stopped (1236): member 0 answers read-only at a position the replica holds
// all of (hooks/mysqlcluster/scripts.ts REPLICATION_PROBE, source_closed_behind). Beside
// mysql-replicas-keep-serving-reads-while-member-0-volume-lost.test.ts (there the IO thread is Connecting, refused with
// 1045).
import t from 'tap';
import {
  pairOfTheseTests,
  probe,
  readyWithin,
  replicaField,
  replicaStatus,
  rolledBack,
  sql,
  startSidecar,
  until,
  volumeCopy,
} from '../fixtures/mysql-members.js';

const pair = pairOfTheseTests();

t.test('a replica holding the newest data keeps serving reads while member 0 is rolled back', async (t) => {
  const { primary, replica } = pair;
  // A copy of member 0's volume, taken with its server stopped (2 orders).
  const backup = await volumeCopy(primary);
  await until('member 0 to open again', () => probe(primary));
  for (let i = 3; i <= 5; i++) await sql(primary, `INSERT INTO shop.orders VALUES (${i}, 'order-${i}')`);
  await until(
    'member 1 to hold every order',
    async () => (await sql(replica, 'SELECT COUNT(*) FROM shop.orders')) === '5' || undefined,
  );
  // Member 0's volume rolled back to the copy; its pod starts again on it.
  await rolledBack(primary, backup);
  startSidecar(primary);
  // Member 0 checks its peers and refuses (PRIMARY_BEHIND); the replica's IO thread reconnects meanwhile.
  await new Promise((r) => setTimeout(r, 40_000));
  t.equal(await sql(primary, 'SELECT @@global.read_only'), '1', 'member 0, rolled back, stays read-only');
  t.equal(await sql(replica, 'SELECT COUNT(*) FROM shop.orders'), '5', 'member 1 holds every order');
  const ready = await readyWithin(replica, 10_000);
  const status = await replicaStatus(replica).catch(() => '');
  const field = (name: string) => replicaField(status, name);
  t.ok(
    ready,
    `member 1 stays Ready for reads (Slave_IO_Running: ${field('Slave_IO_Running')}; Last_IO_Errno: ${field('Last_IO_Errno')}: ${field('Last_IO_Error').slice(0, 120)})`,
  );
});
