// A replica that has caught up with member 0 once stays Ready while it lags behind ordinary writes: its readiness asks
// that it still holds the position of member 0's its sidecar last recorded it reached (scripts.ts catch_up), not
// member 0's position now, so a replica a few transactions behind does not flap out of the read Service. (A replica
// whose data directory was lost is not Ready until it has copied that far again:
// mysql-replica-volume-lost-not-ready-until-caught-up.test.ts.) Its apply is held back by a global read lock (a
// session of root's, as a backup tool takes one) while member 0 takes writes. Real MariaDB
// (test/fixtures/mysql-members.ts).
import type { ChildProcess } from 'node:child_process';
import t from 'tap';
import { exited, pairOfTheseTests, probe, readLock, sql, until } from '../fixtures/mysql-members.js';

let lock: ChildProcess | undefined;
const pair = pairOfTheseTests(() => lock?.kill('SIGKILL'));

t.test('a caught-up replica lagging behind new writes stays Ready, and applies them', async (t) => {
  const { primary, replica } = pair;
  t.ok(await probe(replica), 'member 1 is Ready: it holds what member 0 held');
  lock = await readLock(replica);
  await sql(primary, "INSERT INTO shop.orders VALUES (3, 'milk'), (4, 'bread')");
  // Several of the sidecar's rounds (2 s before it first caught up, 10 s after) and of the kubelet's probe (5 s).
  await new Promise((r) => setTimeout(r, 12_000));
  t.equal(
    await sql(replica, 'SELECT COUNT(*) FROM shop.orders'),
    '2',
    'member 1 lags: it has not applied the new rows',
  );
  t.ok(await probe(replica), 'and stays Ready: it holds everything it was Ready with');

  lock.kill('SIGKILL');
  await exited(lock, 5000);
  lock = undefined;
  await until(
    'the rows on member 1',
    async () => (await sql(replica, 'SELECT COUNT(*) FROM shop.orders')) === '4' || undefined,
  );
  t.ok(await probe(replica), 'Ready with every row');
});
