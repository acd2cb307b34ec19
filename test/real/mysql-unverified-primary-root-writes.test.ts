// An empty member 0 that stays read-only (PrimaryUnverified: a replica that holds data cannot be asked) must not take
// writes from the only credential the product hands out (the Secret's root password), at the name that reaches it
// while it is not Ready (the headless Service publishes not-ready addresses: <statefulset>-0.<headless>, the name
// the Kubernetes replicated-MySQL tutorial writes to). And one such write must not turn "empty" into "has data",
// after which the sidecar opens it without asking the replica that holds the cluster's data.
// Real MariaDB (test/fixtures/mysql-members.ts), as test/real/mysql-primary-peers-real.test.ts.
import t from 'tap';
import { PRIMARY_UNVERIFIED } from '../../hooks/mysqlcluster/scripts.js';
import {
  pairWithReplicaGone,
  resolveAs,
  sidecarOutcome,
  sql,
  startServer,
  stopMember,
  wipe,
  type Member,
} from '../fixtures/mysql-members.js';

let primary: Member;
let replica: Member;
let held = '';

t.before(async () => {
  // Member 0's volume is lost; member 1's pod is on a lost node: its name does not resolve.
  ({ primary, replica, held } = await pairWithReplicaGone());
  await wipe(primary);
});

t.teardown(async () => {
  for (const m of [primary, replica]) if (m) await stopMember(m);
});

async function start(): Promise<{ opened: boolean; message: string }> {
  const { opened, termination } = await sidecarOutcome(primary);
  return { opened, message: termination ?? primary.sidecarLog };
}

t.test('an unverified empty member 0 takes no write from the root credential, and never opens after one', async (t) => {
  const first = await start();
  t.notOk(first.opened, 'member 0 first refuses to open');
  t.ok(first.message.startsWith(PRIMARY_UNVERIFIED), first.message);
  let wrote = true;
  try {
    // A client with the Secret's root password, at member 0's headless name (it resolves while not Ready).
    await sql(primary, 'CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1);');
  } catch {
    wrote = false;
  }
  t.notOk(wrote, `the read-only, unverified empty member 0 refuses a write as root (member 1 holds ${held})`);
  const second = await start();
  t.notOk(
    second.opened,
    `member 0 stays read-only at its next start: it still lacks member 1's ${held}, which it still cannot ask (${second.message})`,
  );
});

t.test(
  'MariaDB: a wiped member 0 that took more root writes than a reachable replica holds is not taken for ahead',
  async (t) => {
    // Member 0 empty again; member 1 back at its own address, answering with the cluster's 0-100-N.
    if (primary.sidecar && primary.sidecar.exitCode === null) primary.sidecar.kill('SIGTERM');
    await wipe(primary);
    resolveAs(1, replica.ip);
    await startServer(replica, false);
    const theirs = await sql(replica, 'SELECT @@global.gtid_current_pos');
    // Writes as root to the read-only member 0 (as above), more of them than the replica's sequence number: the
    // same domain and server id (100) as the cluster's history, other transactions.
    await sql(primary, 'CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY)');
    for (let i = 0; i < 12; i++) await sql(primary, `INSERT INTO app.t VALUES (${i})`);
    const mine = await sql(primary, 'SELECT @@global.gtid_current_pos');
    const result = await start();
    t.notOk(
      result.opened,
      `member 0 (${mine}: none of the cluster's transactions) does not open over member 1's ${theirs}: ${result.message}`,
    );
  },
);

t.test('writes taken before the sidecar closed member 0 do not make it one that opens without asking', async (t) => {
  // Member 0 wiped again; root writes in the moment between the server's start and its sidecar's first query;
  // member 1 (which holds the cluster's data) cannot be asked.
  if (primary.sidecar && primary.sidecar.exitCode === null) primary.sidecar.kill('SIGTERM');
  await stopMember(replica);
  resolveAs(1);
  await wipe(primary);
  await sql(primary, 'CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
  const mine = await sql(primary, 'SELECT @@global.gtid_current_pos');
  t.not(mine, '', 'member 0 holds transactions of its own');
  const result = await start();
  t.notOk(result.opened, `member 0 (${mine}) stays read-only while member 1 cannot be asked`);
  t.ok(result.message.startsWith(PRIMARY_UNVERIFIED), result.message);
  let wrote = true;
  try {
    await sql(primary, 'INSERT INTO app.t VALUES (2)');
  } catch {
    wrote = false;
  }
  t.notOk(wrote, 'and takes no further write as root');
});
