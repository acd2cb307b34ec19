// MySQLCluster's member scripts (hooks/mysqlcluster/scripts.ts), the very texts the pods run, against real
// MySQL-compatible servers: Debian's MariaDB, installed by e2e/mariadb.sh, started by this test on loopback with data
// directories under /tmp, and stopped by it. Member 0 is the primary; the others replicate from it. What differs from
// MySQL 8 is said in scripts.ts and the README (the CHANGE statement, GTID options).
//
// Each member has its own loopback address and a DNS name in /etc/hosts (marked with this process's id, removed
// again) as a pod has through the headless Service, so that member 0 can ask the others what they hold, and a member
// that does not exist does not resolve.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { CONFIG_SCRIPT, PRIMARY_BEHIND, SERVER_PROBE } from '../../hooks/mysqlcluster/scripts.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import {
  hostOf,
  members,
  probe,
  sql,
  startMember,
  startServer,
  startSidecar,
  staysEmpty,
  stopMember,
  until,
  run,
  wipe,
  type Member,
} from '../fixtures/mysql-members.js';
import { crashLoopingMember0 } from '../fixtures/mysql-pods.js';

t.test('member 0 is a writable primary, the others replicate from it with GTIDs', async (t) => {
  const primary = await startMember(0);
  await until('the primary to be ready', () => probe(primary));
  t.equal(await sql(primary, 'SELECT @@global.read_only'), '0', 'the primary takes writes');
  // Data written before the replicas exist: a new member catches up from the binary log.
  await sql(
    primary,
    "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, item VARCHAR(20)); INSERT INTO shop.orders VALUES (1, 'tea');",
  );
  await sql(primary, "CREATE USER 'app'@'%' IDENTIFIED BY 'app-pw'; GRANT ALL ON shop.* TO 'app'@'%';");
  const replicas = [await startMember(1), await startMember(2)];
  for (const r of replicas) {
    await until(`member ${r.ordinal} to replicate`, () => probe(r)).catch(async (err) => {
      const status = await sql(r, 'SHOW REPLICA STATUS\\G').catch((e) => String(e));
      throw new Error(`${err.message}; sidecar: ${r.sidecarLog}; status: ${status}`);
    });
    t.match(
      r.sidecarLog,
      /replicates from my-mysql-mysql-0\./,
      `member ${r.ordinal}'s sidecar pointed it at the primary`,
    );
  }
  await sql(primary, "INSERT INTO shop.orders VALUES (2, 'coffee');");
  for (const r of replicas) {
    const rows = await until(`rows on member ${r.ordinal}`, async () => {
      const out = await sql(r, 'SELECT GROUP_CONCAT(item ORDER BY id) FROM shop.orders');
      return out === 'tea,coffee' ? out : undefined;
    });
    t.equal(rows, 'tea,coffee', `member ${r.ordinal} has the primary's rows`);
    t.equal(await sql(r, 'SELECT @@global.read_only'), '1', `member ${r.ordinal} is read-only`);
    await t.rejects(
      sql(r, "INSERT INTO shop.orders VALUES (9, 'diverged')", 'app', 'app-pw'),
      /read-only|READ.ONLY/i,
      `a client writing to member ${r.ordinal} is refused, so data cannot diverge`,
    );
    t.equal(
      await sql(r, 'SELECT COUNT(*) FROM mysql.user WHERE user = "replication"'),
      '1',
      'the replication user came through the binary log',
    );
  }
  t.match(
    await sql(replicas[0]!, 'SELECT @@gtid_slave_pos'),
    /^0-100-\d+$/,
    'the replica follows the primary (server id 100) by GTID',
  );
});

t.test('a replica whose replication stops is not Ready, and its sidecar restarts it', async (t) => {
  const replica = members.find((m) => m.ordinal === 1)!;
  t.ok(await probe(replica), 'replicating: Ready');
  await sql(replica, 'STOP REPLICA');
  t.notOk(await probe(replica), 'stopped: the probe fails, so the member leaves the read Service');
  await until('the sidecar to restart replication', () => probe(replica), 30_000);
  t.ok(await probe(replica), 'replicating again: Ready');
});

t.test('the server probe fails on an authentication error, where mysqladmin ping did not', async (t) => {
  const m = members[0]!;
  const [cmd, optionFile, ...rest] = SERVER_PROBE;
  t.equal(optionFile, '--defaults-extra-file=/etc/mysql-client/root.cnf', 'the password is read from the option file');
  t.notOk(
    SERVER_PROBE.some((a) => a.includes('PASSWORD') || a.startsWith('-p')),
    'no password on the command line',
  );
  const probeWith = (cnfDir: string) => run(cmd!, [`--defaults-extra-file=${join(cnfDir, 'root.cnf')}`, ...rest]);
  await t.resolves(probeWith(m.env['CLIENT_DIR']!), 'the option file the config script wrote authenticates');
  const wrong = join(m.dir, 'wrong');
  mkdirSync(wrong, { recursive: true });
  await run('bash', ['-c', CONFIG_SCRIPT], {
    env: { ...m.env, MYSQL_ROOT_PASSWORD: 'not-the-password', CLIENT_DIR: wrong, CONF_DIR: wrong },
  });
  await t.rejects(probeWith(wrong), /Access denied/, 'a wrong password fails the probe');
  // The old probe: `mysqladmin ping` exits 0 on "Access denied", so a member with a wrong password looked Ready.
  await t.resolves(
    run('mysqladmin', [`--defaults-extra-file=${join(wrong, 'root.cnf')}`, 'ping']),
    'mysqladmin ping succeeds regardless',
  );
});

/** The transactions a member holds, as MariaDB writes them (domain-server-seq per domain). */
const position = (m: Member) => sql(m, 'SELECT @@global.gtid_current_pos');

t.test('member 0 restarted with its data opens for writes again', async (t) => {
  const primary = members.find((m) => m.ordinal === 0)!;
  await stopMember(primary);
  await startServer(primary, false);
  t.equal(await sql(primary, 'SELECT @@global.read_only'), '1', 'every server starts read-only');
  startSidecar(primary);
  await until('the primary to open again', () => probe(primary), 60_000).catch((err) => {
    throw new Error(`${err.message}; sidecar: ${primary.sidecarLog}`);
  });
  t.equal(await sql(primary, 'SELECT @@global.read_only'), '0', 'it holds all the replicas hold: it opens');
  await sql(primary, "INSERT INTO shop.orders VALUES (3, 'juice');");
  for (const r of members.filter((m) => m.ordinal > 0))
    await until(`member ${r.ordinal} to replicate the new row`, async () =>
      (await sql(r, 'SELECT COUNT(*) FROM shop.orders')) === '3' ? true : undefined,
    );
});

t.test('a replica whose data directory was wiped copies the primary again, and stays read-only', async (t) => {
  const primary = members.find((m) => m.ordinal === 0)!;
  const replica = members.find((m) => m.ordinal === 2)!;
  await wipe(replica);
  startSidecar(replica);
  const rows = await until('the wiped replica to have every row again', async () => {
    const out = await sql(replica, 'SELECT COUNT(*) FROM shop.orders').catch(() => '');
    return out === '3' ? out : undefined;
  });
  t.equal(rows, '3', 'every row, from the primary\u2019s binary log');
  t.equal(await position(replica), await position(primary), 'the same transactions as the primary');
  await until('its sidecar to report it replicating', () => probe(replica));
  t.equal(await sql(replica, 'SELECT @@global.read_only'), '1', 'read-only');
});

t.test(
  'member 0 whose data directory was wiped stays read-only while a replica holds more transactions, and says so',
  async (t) => {
    const primary = members.find((m) => m.ordinal === 0)!;
    const replica = members.find((m) => m.ordinal === 1)!;
    const held = await position(replica);
    t.match(held, /^0-100-\d+$/, `the replica holds ${held}`);
    // The volume is lost: the pod comes back on an empty data directory, which the entrypoint initialises.
    await wipe(primary);
    t.equal(await position(primary), '', 'member 0 holds no transaction');
    for (let restart = 1; restart <= 2; restart++) {
      startSidecar(primary);
      const code = await new Promise<number | null>((resolve) => primary.sidecar!.once('exit', (c) => resolve(c)));
      t.equal(code, 3, `start ${restart}: the sidecar exits (the kubelet restarts it and it checks again)`);
      const message = readFileSync(primary.terminationLog, 'utf8').trim();
      t.ok(message.startsWith(PRIMARY_BEHIND), `start ${restart}: ${message}`);
      t.match(
        message,
        new RegExp(`${hostOf(1).replace(/\./g, '\\.')} has ${held}`),
        'it names the replica and what it holds',
      );
      await staysEmpty(t, primary, 'nothing was written to it: no replication user');
    }
    t.equal(await position(replica), held, 'the replica keeps every transaction');
    t.equal(await sql(replica, 'SELECT COUNT(*) FROM shop.orders'), '3', 'and every row');
    // The status says so: the pod as the kubelet reports it, with the sidecar's termination message.
    const message = readFileSync(primary.terminationLog, 'utf8');
    const pod = crashLoopingMember0(message);
    const res = mysqlSync(
      request('mysqlcluster', { size: 3, version: '8.0' }, { related: objectMap([pod]) }),
      FIXED_NOW,
    );
    const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.equal(ready.reason, 'PrimaryBehind');
    t.match(ready.message, new RegExp(`holds fewer transactions than a replica.*${held}.*stays read-only`));
  },
);
