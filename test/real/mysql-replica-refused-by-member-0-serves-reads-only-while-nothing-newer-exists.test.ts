// A replica whose IO thread member 0 refuses (Access denied, 1045) or stops (1236) stays in the read Service only
// while nothing newer than what it holds can exist (hooks/mysqlcluster/scripts.ts REPLICATION_PROBE,
// source_closed_behind): member 0 answers as the primary, read-only, at a position the replica holds all of. A member
// 0 that is writable may take writes the replica never gets (a replication password changed under the cluster), and
// one that holds a transaction the replica lacks has newer data: either way the replica is not Ready. Real MariaDB, as
// test/real/ runs the member scripts (test/fixtures/mysql-members.ts). Member 0's sidecar is stopped so that nothing
// but the test sets its read-only flag or its replication user.
import t from 'tap';
import { probe, replicatedPair, sql, stopMember, until, type Member } from '../fixtures/mysql-members.js';

let primary: Member;
let replica: Member;

t.before(async () => {
  ({ primary, replica } = await replicatedPair());
  primary.sidecar?.kill('SIGTERM');
});

t.teardown(async () => {
  for (const m of [primary, replica]) if (m) await stopMember(m);
});

const replicaStatus = () => sql(replica, 'SHOW REPLICA STATUS');

t.test('refused by a writable member 0: not Ready, even holding everything member 0 has', async (t) => {
  t.ok(await probe(replica), 'member 1 is Ready before');
  await sql(primary, "ALTER USER 'replication'@'%' IDENTIFIED BY 'another password'; FLUSH PRIVILEGES");
  await sql(replica, 'STOP REPLICA IO_THREAD; START REPLICA IO_THREAD');
  await until('member 0 to refuse member 1', async () => /\b1045\b/.test(await replicaStatus()) || undefined);
  t.equal(await sql(primary, 'SELECT @@global.read_only'), '0', 'member 0 takes writes');
  t.notOk(await probe(replica), 'member 1 leaves the read Service: member 0 may take writes it never gets');
});

t.test('refused by a read-only member 0 it holds everything of: Ready for reads', async (t) => {
  await sql(primary, 'SET GLOBAL read_only = 1');
  const ready = await until('member 1 Ready', async () => (await probe(replica)) || undefined, 15_000).then(
    () => true,
    () => false,
  );
  t.ok(ready, 'member 1 serves reads: nothing takes writes, and it holds all member 0 holds');
});

t.test('refused by a read-only member 0 that holds a transaction it lacks: not Ready', async (t) => {
  // Root writes past read_only (MariaDB's SUPER): member 0 holds an order member 1 never got.
  await sql(primary, "INSERT INTO shop.orders VALUES (3, 'cocoa')");
  t.equal(await sql(primary, 'SELECT @@global.read_only'), '1', 'member 0 is read-only');
  t.equal(await sql(replica, 'SELECT COUNT(*) FROM shop.orders'), '2', 'member 1 lacks the third order');
  t.notOk(await probe(replica), 'member 1 leaves the read Service: member 0 has newer data');
});
