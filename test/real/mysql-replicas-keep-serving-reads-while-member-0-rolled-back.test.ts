// Member 0's volume is rolled back to an older copy (a volume snapshot restored, the wrong backup): it holds fewer
// transactions than its replica (real MariaDB, as test/real/ runs the member scripts). The sidecar keeps it read-only
// (PRIMARY_BEHIND), and the replica, which holds every row, stays in the read Service although its IO thread asks for
// GTIDs past member 0's binary log and is stopped (1236): member 0 answers read-only at a position the replica holds
// all of (hooks/mysqlcluster/scripts.ts REPLICATION_PROBE, source_closed_behind). Beside
// mysql-replicas-keep-serving-reads-while-member-0-volume-lost.test.ts (there the IO thread is Connecting, refused with
// 1045).
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import {
  probe,
  replicatedPair,
  run,
  sql,
  startServer,
  startSidecar,
  stopMember,
  until,
  type Member,
} from '../fixtures/mysql-members.js';

let primary: Member;
let replica: Member;

t.before(async () => {
  ({ primary, replica } = await replicatedPair());
});

t.teardown(async () => {
  for (const m of [primary, replica]) if (m) await stopMember(m);
});

t.test('a replica holding the newest data keeps serving reads while member 0 is rolled back', async (t) => {
  // A copy of member 0's volume, taken with its server stopped (2 orders).
  await stopMember(primary);
  const backup = join(primary.dir, 'backup');
  cpSync(join(primary.dir, 'data'), backup, { recursive: true });
  await startServer(primary, false);
  startSidecar(primary);
  await until('member 0 to open again', () => probe(primary));
  for (let i = 3; i <= 5; i++) await sql(primary, `INSERT INTO shop.orders VALUES (${i}, 'order-${i}')`);
  await until(
    'member 1 to hold every order',
    async () => (await sql(replica, 'SELECT COUNT(*) FROM shop.orders')) === '5' || undefined,
  );
  // Member 0's volume rolled back to the copy; its pod starts again on it.
  await stopMember(primary);
  rmSync(join(primary.dir, 'data'), { recursive: true, force: true });
  cpSync(backup, join(primary.dir, 'data'), { recursive: true });
  await startServer(primary, false);
  startSidecar(primary);
  // Member 0 checks its peers and refuses (PRIMARY_BEHIND); the replica's IO thread reconnects meanwhile.
  await new Promise((r) => setTimeout(r, 40_000));
  t.equal(await sql(primary, 'SELECT @@global.read_only'), '1', 'member 0, rolled back, stays read-only');
  t.equal(await sql(replica, 'SELECT COUNT(*) FROM shop.orders'), '5', 'member 1 holds every order');
  const ready = await until('member 1 Ready', async () => (await probe(replica)) || undefined, 10_000).then(
    () => true,
    () => false,
  );
  const status = await run('mysql', [
    `--defaults-extra-file=${join(replica.dir, 'client-root.cnf')}`,
    '-e',
    'SHOW REPLICA STATUS\\G',
  ])
    .then((r) => r.stdout)
    .catch(() => '');
  const field = (name: string) => new RegExp(`${name}: ([^\\n]*)`).exec(status)?.[1]?.trim() ?? '?';
  t.ok(
    ready,
    `member 1 stays Ready for reads (Slave_IO_Running: ${field('Slave_IO_Running')}; Last_IO_Errno: ${field('Last_IO_Errno')}: ${field('Last_IO_Error').slice(0, 120)})`,
  );
});
