// Member 0's mysql container restarted in place: the kubelet restarts a container that was OOM-killed or failed its
// liveness probe, and only that container; the pod's replication sidecar keeps running. The server comes back with
// the option file's read_only=ON and none of the runtime settings the sidecar made (read_only=OFF once open, the
// gate that binds root while unverified). What the pod runs must still hold:
// - member 0 restarted with all its data opens for writes again (it did before the restart), and
// - member 0 whose data directory was lost under it (initialised again by the entrypoint) takes no write from the
//   root credential while a replica holds the cluster's data, and says why (PrimaryBehind, in its sidecar's
//   termination message, which the hook reads into the status).
// Real MariaDB (test/fixtures/mysql-members.ts), as test/real/mysqlcluster-real.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import { PRIMARY_BEHIND } from '../../hooks/mysqlcluster/scripts.js';
import {
  exited,
  initialise,
  probe,
  sql,
  startMember,
  startServer,
  stopMember,
  until,
  type Member,
} from '../fixtures/mysql-members.js';

let primary: Member;
let replica: Member;

t.before(async () => {
  primary = await startMember(0);
  await until('the primary to be ready', () => probe(primary));
  await sql(
    primary,
    "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, item VARCHAR(20)); INSERT INTO shop.orders VALUES (1, 'tea'), (2, 'coffee');",
  );
  replica = await startMember(1);
  await until('member 1 to replicate', () => probe(replica));
  await until(
    'the rows on member 1',
    async () => (await sql(replica, 'SELECT COUNT(*) FROM shop.orders')) === '2' || undefined,
  );
});

t.teardown(async () => {
  for (const m of [primary, replica]) if (m) await stopMember(m);
});

/** The mysql container killed and restarted by the kubelet; the sidecar container is left running. */
async function restartServerOnly(m: Member, wipe: boolean): Promise<void> {
  m.server?.kill('SIGKILL');
  await exited(m.server, 30_000);
  if (wipe) await initialise(m);
  await startServer(m, wipe);
}

/** Waits up to `ms` for member 0 to be open (read_only 0, its probe passing); false when it is not by then. */
async function opens(m: Member, ms: number): Promise<boolean> {
  return until('member 0 to open', async () => (await probe(m)) || undefined, ms).then(
    () => true,
    () => false,
  );
}

t.test('member 0 whose server restarted in place with all its data opens for writes again', async (t) => {
  t.equal(await sql(primary, 'SELECT @@global.read_only'), '0', 'member 0 is open before the restart');
  t.equal(primary.sidecar?.exitCode, null, 'its sidecar runs');
  await restartServerOnly(primary, false);
  t.equal(primary.sidecar?.exitCode, null, 'the sidecar container was not restarted (only the mysql container)');
  // The sidecar asks every member (one, answering) and opens within seconds when started; a minute is generous.
  const open = await opens(primary, 60_000);
  t.ok(
    open,
    `member 0 holds every transaction the replica holds and opens again (read_only ${await sql(primary, 'SELECT @@global.read_only')}; sidecar: ${primary.sidecarLog.trim().split('\n').slice(-2).join(' | ')})`,
  );
});

t.test(
  'member 0 whose data directory was lost under its running sidecar takes no root write and says PrimaryBehind',
  async (t) => {
    const held = await sql(replica, 'SELECT @@global.gtid_current_pos');
    t.match(held, /^0-100-\d+$/, `the replica holds ${held}`);
    await restartServerOnly(primary, true);
    t.equal(await sql(primary, 'SELECT @@global.gtid_current_pos'), '', 'member 0 holds no transaction');
    // A client with the Secret's root password, at member 0's headless name (it resolves while not Ready), a few
    // seconds after the server is back (past the moment the docs allow before the sidecar's gate).
    await new Promise((r) => setTimeout(r, 5000));
    let wrote = true;
    try {
      await sql(primary, 'CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
    } catch {
      wrote = false;
    }
    t.notOk(wrote, `the wiped member 0 refuses a write as root (member 1 holds ${held})`);
    // The sidecar says why (its termination message, read by the hook into Ready=False PrimaryBehind).
    const said = await until(
      'member 0 to say why it stays read-only',
      async () => (existsSync(primary.terminationLog) ? readFileSync(primary.terminationLog, 'utf8') : undefined),
      60_000,
    ).catch(() => '');
    t.ok(said.startsWith(PRIMARY_BEHIND), `member 0 says PrimaryBehind (termination message: ${JSON.stringify(said)})`);
    t.equal(await sql(replica, 'SELECT @@global.gtid_current_pos'), held, 'the replica keeps every transaction');
  },
);
