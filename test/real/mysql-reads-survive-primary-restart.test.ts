// Member 0 (the primary) restarted: its pod deleted and made again (a node drained, a rollout), or its server killed
// (OOM) while its volume keeps its data. The read Service (`<name>-mysql-read`) sends clients to every Ready member;
// a replica is Ready while its replication sidecar's probe passes (hooks/mysqlcluster/scripts.ts REPLICATION_PROBE).
// A replica that holds every transaction member 0 had is as current as any member while member 0 is away: a primary
// with read replicas serves reads while one member, the primary, restarts (the developers' guide: "a container crashes
// and restarts (one, a majority, all at once)"). Real MariaDB (test/fixtures/mysql-members.ts).
import t from 'tap';
import { exited, pairOfTheseTests, probe, readyWithin, sql } from '../fixtures/mysql-members.js';

const pair = pairOfTheseTests();

t.test('a replica that holds all the data stays Ready for reads while member 0 restarts', async (t) => {
  const { primary, replica } = pair;
  t.ok(await probe(replica), 'member 1 is Ready before');
  // Member 0's server goes away (its pod being made again); the replica's IO thread tries to reconnect.
  primary.sidecar?.kill('SIGTERM');
  await exited(primary.sidecar, 5000);
  primary.server?.kill('SIGKILL');
  await exited(primary.server, 30_000);
  // Give the replica's IO thread time to notice (as kubelet probes every 5 s).
  await new Promise((r) => setTimeout(r, 15_000));
  const rows = await sql(replica, 'SELECT COUNT(*) FROM shop.orders');
  t.equal(rows, '2', 'member 1 holds every row member 0 had');
  const ready = await readyWithin(replica, 10_000);
  const status = await sql(replica, 'SHOW REPLICA STATUS').catch(() => '');
  t.ok(
    ready,
    `member 1 stays Ready while member 0 restarts, so the read Service keeps a member (IO thread: ${/\t(Connecting|Yes|No)\t/.exec(status)?.[1] ?? '?'})`,
  );
});
