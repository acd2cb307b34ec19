// MySQLCluster's member scripts (hooks/mysqlcluster/scripts.ts), the very texts the pods run, against real
// MySQL-compatible servers: Debian's MariaDB, installed by e2e/mariadb.sh, started by this test on loopback on free
// ports with data directories under /tmp, and stopped by it. Member 0 is the primary; the others replicate
// from it. What differs from MySQL 8 is said in scripts.ts and the README (the CHANGE statement, GTID options).
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import {
  CONFIG_SCRIPT,
  REPLICATION_PROBE,
  REPLICATION_SCRIPT,
  SERVER_PROBE,
} from '../../hooks/mysqlcluster/scripts.js';
import { freePort } from '../fixtures/net.js';
import { root } from '../fixtures/requests.js';

const run = promisify(execFile);

let serverDir: string;
try {
  serverDir = execFileSync('bash', [join(root, 'e2e', 'mariadb.sh')], { stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim()
    .split('\n')
    .pop()!;
} catch (err) {
  const reason = (err as { stderr?: Buffer }).stderr?.toString().trim() || String(err);
  console.error(`SKIPPED: no MySQL-compatible server could be installed (${reason})`);
  t.plan(0, `SKIPPED LOUDLY: MariaDB could not be installed by e2e/mariadb.sh: ${reason}`);
  process.exit(0);
}

// Passwords with every character the option file and SQL quoting must survive.
const ROOT_PASSWORD = `ro'ot"pa\\ss word`;
const REPLICATION_PASSWORD = `re'pl"i\\cation`;
const base = mkdtempSync(join(tmpdir(), 'metaops-mysql-'));

interface Member {
  ordinal: number;
  port: number;
  dir: string;
  env: NodeJS.ProcessEnv;
  server?: ChildProcess;
  sidecar?: ChildProcess;
  sidecarLog: string;
}
const members: Member[] = [];

async function exited(p: ChildProcess | undefined, ms: number): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  await Promise.race([new Promise((r) => p.once('exit', r)), new Promise((r) => setTimeout(r, ms))]);
}

t.teardown(async () => {
  for (const m of members) m.sidecar?.kill('SIGTERM');
  for (const m of members) m.server?.kill('SIGTERM');
  for (const m of members) {
    await exited(m.sidecar, 5000);
    await exited(m.server, 20000);
    if (m.server && m.server.exitCode === null && m.server.signalCode === null) m.server.kill('SIGKILL');
    m.sidecar?.stdout?.destroy();
    m.sidecar?.stderr?.destroy();
  }
  rmSync(base, { recursive: true, force: true });
});

/** A client on the member's port as `user`, SQL on stdin. */
async function sql(m: Member, statement: string, user = 'root', password = ROOT_PASSWORD): Promise<string> {
  const cnf = join(m.dir, `client-${user}.cnf`);
  writeFileSync(
    cnf,
    `[client]\nuser=${user}\npassword="${password.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"\nhost=127.0.0.1\nport=${m.port}\nprotocol=TCP\n`,
    { mode: 0o600 },
  );
  const { stdout } = await run('mysql', [`--defaults-extra-file=${cnf}`, '-N', '-B', '-e', statement]);
  return stdout.trim();
}

async function until<T>(what: string, check: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last).split('\n')[0]}` : ''}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function probe(m: Member): Promise<boolean> {
  try {
    await run('bash', ['-c', REPLICATION_PROBE], { env: m.env });
    return true;
  } catch {
    return false;
  }
}

/**
 * One member as its pod runs it: the config init script, then the server (initialised the way the official
 * image's entrypoint does: root's password set with the binary log off), then the replication sidecar.
 */
async function startMember(ordinal: number, primaryPort: number | undefined): Promise<Member> {
  const port = await freePort();
  const dir = join(base, `member-${ordinal}`);
  for (const d of ['data', 'conf.d', 'client']) mkdirSync(join(dir, d), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    POD_NAME: `my-mysql-${ordinal}`,
    MYSQL_ROOT_PASSWORD: ROOT_PASSWORD,
    REPLICATION_PASSWORD,
    PRIMARY_HOST: '127.0.0.1',
    PRIMARY_PORT: String(primaryPort ?? port),
    MYSQL_PORT: String(port),
    CONF_DIR: join(dir, 'conf.d'),
    CLIENT_DIR: join(dir, 'client'),
  };
  const m: Member = { ordinal, port, dir, env, sidecarLog: '' };
  members.push(m);
  await run('bash', ['-c', CONFIG_SCRIPT], { env });
  const cnf = join(dir, 'my.cnf');
  writeFileSync(
    cnf,
    [
      '[mysqld]',
      `datadir=${join(dir, 'data')}`,
      `socket=${join(dir, 'mysqld.sock')}`,
      `pid-file=${join(dir, 'mysqld.pid')}`,
      `log-error=${join(dir, 'error.log')}`,
      `port=${port}`,
      'bind-address=127.0.0.1',
      'user=root',
      `!includedir ${join(dir, 'conf.d')}`,
      '',
    ].join('\n'),
  );
  await run(
    'mariadb-install-db',
    [`--defaults-file=${cnf}`, '--auth-root-authentication-method=normal', '--skip-test-db'],
    {
      env: { PATH: process.env['PATH'] },
    },
  );
  const bin = join(serverDir, 'mariadbd');
  m.server = spawn(bin, [`--defaults-file=${cnf}`], { stdio: 'ignore' });
  const socket = join(dir, 'mysqld.sock');
  const local = (statement: string) => run('mysql', ['--no-defaults', '-uroot', `--socket=${socket}`, '-e', statement]);
  await until(`member ${ordinal} to start`, async () => (await local('SELECT 1'), true), 60_000);
  const pw = ROOT_PASSWORD.replace(/\\/g, '\\\\').replace(/'/g, "''");
  await local(
    `SET sql_log_bin = 0; ALTER USER 'root'@'localhost' IDENTIFIED BY '${pw}'; CREATE USER 'root'@'%' IDENTIFIED BY '${pw}'; GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;`,
  );
  m.sidecar = spawn('bash', ['-c', REPLICATION_SCRIPT], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = (d: Buffer) => (m.sidecarLog = (m.sidecarLog + d.toString()).slice(-4000));
  m.sidecar.stdout!.on('data', log);
  m.sidecar.stderr!.on('data', log);
  return m;
}

t.test('member 0 is a writable primary, the others replicate from it with GTIDs', async (t) => {
  const primary = await startMember(0, undefined);
  await until('the primary to be ready', () => probe(primary));
  t.equal(await sql(primary, 'SELECT @@global.read_only'), '0', 'the primary takes writes');
  // Data written before the replicas exist: a new member catches up from the binary log.
  await sql(
    primary,
    "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, item VARCHAR(20)); INSERT INTO shop.orders VALUES (1, 'tea');",
  );
  await sql(primary, "CREATE USER 'app'@'%' IDENTIFIED BY 'app-pw'; GRANT ALL ON shop.* TO 'app'@'%';");
  const replicas = [await startMember(1, primary.port), await startMember(2, primary.port)];
  for (const r of replicas) {
    await until(`member ${r.ordinal} to replicate`, () => probe(r)).catch(async (err) => {
      const status = await sql(r, 'SHOW REPLICA STATUS\\G').catch((e) => String(e));
      throw new Error(`${err.message}; sidecar: ${r.sidecarLog}; status: ${status}`);
    });
    t.match(r.sidecarLog, /replicates from 127\.0\.0\.1/, `member ${r.ordinal}'s sidecar pointed it at the primary`);
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
