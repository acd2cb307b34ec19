// A replica's volume lost under it: its pod comes back on an empty data directory (initialised again by the
// entrypoint), the sidecar points it at member 0 and it copies the cluster's whole history again through replication.
// Until it holds what member 0 holds it must not be Ready: the read Service (`<name>-mysql-read`) sends clients to every
// Ready member, and a member that has not copied the data yet answers them with missing databases and empty tables.
//
// The copy of a large data set takes minutes to hours; here its apply is held back by a global read lock on the
// replica (a session of root's, as a backup tool takes one), so that the window in which the replica has received
// member 0's transactions and not applied them lasts as long as the test looks. Real MariaDB
// (test/fixtures/mysql-members.ts), as test/real/mysqlcluster-real.test.ts.
import type { ChildProcess } from 'node:child_process';
import t from 'tap';
import {
  exited,
  pairOfTheseTests,
  probe,
  readLock,
  readyWithin,
  replicaStatus,
  sql,
  startSidecar,
  until,
  wipe,
} from '../fixtures/mysql-members.js';

let lock: ChildProcess | undefined;
const pair = pairOfTheseTests(() => lock?.kill('SIGKILL'));

t.test('a replica whose volume was lost is not Ready for reads until it holds what member 0 holds', async (t) => {
  const { primary, replica } = pair;
  await sql(primary, "INSERT INTO shop.orders VALUES (3, 'milk')");
  const held = await sql(primary, 'SELECT @@global.gtid_current_pos');

  // Member 1's volume is lost: its pod is made again on an empty data directory.
  await wipe(replica);
  t.equal(
    await sql(replica, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'shop'"),
    '0',
    'member 1 holds none of the data',
  );

  // Its apply is held back (the stand-in for a long copy), then its pod's sidecar starts as the kubelet starts it.
  await sql(replica, 'SELECT 1'); // writes the member's client option file
  lock = await readLock(replica);
  startSidecar(replica);
  // The replica has received member 0's transactions (its IO thread runs and holds them) and applied none.
  const status = await until(
    "member 1 to receive member 0's transactions",
    async () => {
      const s = await replicaStatus(replica);
      return /Slave_IO_Running: Yes/.test(s) && /Gtid_IO_Pos: \S/.test(s) ? s : undefined;
    },
    60_000,
  );
  t.match(status, /Slave_SQL_Running: Yes/, 'its SQL thread runs (it has the transactions to apply)');
  t.equal(
    await sql(replica, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'shop'"),
    '0',
    `member 1 still holds none of member 0's data (member 0 holds ${held})`,
  );
  // Give the kubelet's probe a few rounds (every 5 s in the pod).
  await new Promise((r) => setTimeout(r, 6000));
  t.notOk(
    await probe(replica),
    'member 1 is not Ready while it lacks the data member 0 holds: the read Service sends no client to an empty member',
  );

  // Once it has copied everything, it is Ready again (the probe is not simply failing).
  lock.kill('SIGKILL');
  await exited(lock, 5000);
  lock = undefined;
  await until(
    'the rows on member 1',
    async () => (await sql(replica, 'SELECT COUNT(*) FROM shop.orders')) === '3' || undefined,
  );
  t.ok(await readyWithin(replica, 30_000), 'member 1 is Ready once it holds every row');
});
