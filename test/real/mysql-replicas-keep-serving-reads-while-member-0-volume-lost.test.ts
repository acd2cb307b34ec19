// Member 0's volume is lost and its pod comes back on an empty, initialised data directory (real MariaDB, as test/real/
// runs the member scripts). The sidecar keeps it read-only (PRIMARY_BEHIND: the replica holds the cluster's history),
// and the replica, which holds every row, stays in the read Service although member 0 refuses its IO thread (Access
// denied, 1045: the emptied member 0 has no `replication` user): member 0 answers read-only at a position the replica
// holds all of (hooks/mysqlcluster/scripts.ts REPLICATION_PROBE, source_closed_behind), so nothing newer exists to be
// missed. Losing one volume takes writes down, not reads, for as long as the recovery by hand takes
// (docs/mysqlcluster.md "A primary with less data than its replicas"). The limits of that rule:
// test/real/mysql-replica-refused-by-member-0-serves-reads-only-while-nothing-newer-exists.test.ts.
import t from 'tap';
import {
  exited,
  pairOfTheseTests,
  probe,
  readyWithin,
  replicaField,
  replicaStatus,
  sql,
  startSidecar,
  until,
  wipe,
} from '../fixtures/mysql-members.js';

const pair = pairOfTheseTests();

t.test('a replica holding all the data keeps serving reads while member 0 comes back empty', async (t) => {
  const { primary, replica } = pair;
  t.ok(await probe(replica), 'member 1 is Ready before');
  // Member 0's volume is lost: its pod comes back on an empty data directory, initialised by the image's entrypoint.
  await wipe(primary);
  startSidecar(primary);
  // Member 0 stays read-only (its sidecar refuses: member 1 holds what it lacks) and the sidecar restarts, as the
  // kubelet restarts it; the replica's IO thread reconnects to it meanwhile.
  const refused = await until(
    'member 0 to refuse',
    async () => (primary.sidecar?.exitCode !== null ? true : undefined),
    120_000,
  ).then(
    () => true,
    () => false,
  );
  t.ok(refused, `member 0, emptied, does not open (sidecar: ${primary.sidecarLog.trim().split('\n').pop()})`);
  await exited(primary.sidecar, 5000);
  startSidecar(primary);
  await new Promise((r) => setTimeout(r, 15_000));
  t.equal(await sql(replica, 'SELECT COUNT(*) FROM shop.orders'), '2', 'member 1 holds every row member 0 had');
  const ready = await readyWithin(replica, 10_000);
  const status = await replicaStatus(replica).catch(() => '');
  const field = (name: string) => replicaField(status, name);
  t.ok(
    ready,
    `member 1 stays Ready for reads (Slave_IO_Running: ${field('Slave_IO_Running')}; Last_IO_Errno: ${field('Last_IO_Errno')}; Last_IO_Error: ${field('Last_IO_Error').slice(0, 120)})`,
  );
});
