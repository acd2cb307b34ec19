// MySQLCluster's member scripts (hooks/mysqlcluster/scripts.ts), the very texts the pods run, against real
// MySQL-compatible servers: Debian's MariaDB, installed by e2e/mariadb.sh, started by this test on loopback with data
// directories under /tmp, and stopped by it. Member 0 is the primary; the others replicate from it. What differs from
// MySQL 8 is said in scripts.ts and the README (the CHANGE statement, GTID options).
//
// Each member has its own loopback address and a DNS name in /etc/hosts (marked with this process's id, removed
// again) as a pod has through the headless Service, so that member 0 can ask the others what they hold, and a member
// that does not exist does not resolve.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import {
  CONFIG_SCRIPT,
  PRIMARY_BEHIND,
  REPLICATION_PROBE,
  REPLICATION_SCRIPT,
  SERVER_PROBE,
} from '../../hooks/mysqlcluster/scripts.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { freePort } from '../fixtures/net.js';
import { FIXED_NOW, objectMap, request, root } from '../fixtures/requests.js';

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

/** The members' DNS names, as the headless Service gives them: <statefulset>-<ordinal>.<headless>. */
const NAME_FORMAT = `my-mysql-mysql-%s.m${process.pid}.metaops-mysql.test`;
const hostOf = (ordinal: number) => NAME_FORMAT.replace('%s', String(ordinal));
/** Each member's own loopback address (one port for all, as in a pod network). */
const IP_BASE = 20 + Math.floor(Math.random() * 200);
const ipOf = (ordinal: number) => `127.0.${IP_BASE}.${10 + ordinal}`;
const PORT = await freePort();

const HOSTS = process.env['METAOPS_HOSTS_FILE'] ?? '/etc/hosts';
const MARK = '# metaops-mysql-test pid=';
function cleanHosts(): void {
  if (!existsSync(HOSTS)) return;
  const text = readFileSync(HOSTS, 'utf8');
  const kept = text.split('\n').filter((line) => {
    const at = line.indexOf(MARK);
    if (at < 0) return true;
    const pid = Number(line.slice(at + MARK.length));
    if (pid === process.pid) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  writeFileSync(HOSTS, kept.join('\n'));
}
cleanHosts();
process.on('exit', cleanHosts);

interface Member {
  ordinal: number;
  ip: string;
  port: number;
  dir: string;
  env: NodeJS.ProcessEnv;
  server?: ChildProcess;
  sidecar?: ChildProcess;
  sidecarLog: string;
  /** The sidecar's termination message (what the kubelet reports), once it exited. */
  terminationLog: string;
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
    `[client]\nuser=${user}\npassword="${password.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"\nhost=${m.ip}\nport=${m.port}\nprotocol=TCP\n`,
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

/** A member's data directory, initialised the way the official image's entrypoint does (root, binary log off). */
async function initialise(m: Member): Promise<void> {
  rmSync(join(m.dir, 'data'), { recursive: true, force: true });
  mkdirSync(join(m.dir, 'data'), { recursive: true });
  await run(
    'mariadb-install-db',
    [`--defaults-file=${join(m.dir, 'my.cnf')}`, '--auth-root-authentication-method=normal', '--skip-test-db'],
    { env: { PATH: process.env['PATH'] } },
  );
}

/**
 * The member's server, started and answering; on a new data directory (`fresh`), root's password set as the
 * entrypoint sets it.
 */
async function startServer(m: Member, fresh: boolean): Promise<void> {
  m.server = spawn(join(serverDir, 'mariadbd'), [`--defaults-file=${join(m.dir, 'my.cnf')}`], { stdio: 'ignore' });
  const socket = join(m.dir, 'mysqld.sock');
  const local = (statement: string) => run('mysql', ['--no-defaults', '-uroot', `--socket=${socket}`, '-e', statement]);
  const answers = fresh ? () => local('SELECT 1') : () => sql(m, 'SELECT 1');
  await until(`member ${m.ordinal} to start`, async () => (await answers(), true), 60_000);
  if (!fresh) return;
  const pw = ROOT_PASSWORD.replace(/\\/g, '\\\\').replace(/'/g, "''");
  await local(
    `SET sql_log_bin = 0; ALTER USER 'root'@'localhost' IDENTIFIED BY '${pw}'; CREATE USER 'root'@'%' IDENTIFIED BY '${pw}'; GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;`,
  );
}

/** The replication sidecar, as the kubelet starts it (again after it exits). */
function startSidecar(m: Member): void {
  rmSync(m.terminationLog, { force: true });
  m.sidecarLog = '';
  m.sidecar = spawn('bash', ['-c', REPLICATION_SCRIPT], { env: m.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = (d: Buffer) => (m.sidecarLog = (m.sidecarLog + d.toString()).slice(-4000));
  m.sidecar.stdout!.on('data', log);
  m.sidecar.stderr!.on('data', log);
}

/** Stops a member's sidecar and server, as a pod deleted; its data directory stays. */
async function stopMember(m: Member): Promise<void> {
  m.sidecar?.kill('SIGTERM');
  await exited(m.sidecar, 5000);
  m.server?.kill('SIGTERM');
  await exited(m.server, 30_000);
}

/**
 * One member as its pod runs it: its DNS name, the config init script, then the server (initialised the way the
 * official image's entrypoint does: root's password set with the binary log off), then the replication sidecar.
 */
async function startMember(ordinal: number): Promise<Member> {
  const dir = join(base, `member-${ordinal}`);
  for (const d of ['data', 'conf.d', 'client']) mkdirSync(join(dir, d), { recursive: true });
  const ip = ipOf(ordinal);
  appendFileSync(HOSTS, `${ip} ${hostOf(ordinal)} ${MARK}${process.pid}\n`);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    POD_NAME: `my-mysql-mysql-${ordinal}`,
    MYSQL_ROOT_PASSWORD: ROOT_PASSWORD,
    REPLICATION_PASSWORD,
    PRIMARY_HOST: hostOf(0),
    PRIMARY_PORT: String(PORT),
    PEER_HOST_FORMAT: NAME_FORMAT,
    TERMINATION_LOG: join(dir, 'termination-log'),
    MYSQL_HOST: ip,
    MYSQL_PORT: String(PORT),
    CONF_DIR: join(dir, 'conf.d'),
    CLIENT_DIR: join(dir, 'client'),
  };
  const m: Member = { ordinal, ip, port: PORT, dir, env, sidecarLog: '', terminationLog: env['TERMINATION_LOG']! };
  members.push(m);
  await run('bash', ['-c', CONFIG_SCRIPT], { env });
  writeFileSync(
    join(dir, 'my.cnf'),
    [
      '[mysqld]',
      `datadir=${join(dir, 'data')}`,
      `socket=${join(dir, 'mysqld.sock')}`,
      `pid-file=${join(dir, 'mysqld.pid')}`,
      `log-error=${join(dir, 'error.log')}`,
      `port=${PORT}`,
      `bind-address=${ip}`,
      'user=root',
      `!includedir ${join(dir, 'conf.d')}`,
      '',
    ].join('\n'),
  );
  await initialise(m);
  await startServer(m, true);
  startSidecar(m);
  return m;
}

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
  await stopMember(replica);
  await initialise(replica);
  await startServer(replica, true);
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
    await stopMember(primary);
    await initialise(primary);
    await startServer(primary, true);
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
      t.equal(await sql(primary, 'SELECT @@global.read_only'), '1', 'member 0 stays read-only');
      t.notOk(await probe(primary), 'and is not Ready: the write Service sends no client there');
      t.equal(
        await sql(primary, "SELECT COUNT(*) FROM mysql.user WHERE user = 'replication'"),
        '0',
        'nothing was written to it: no replication user',
      );
    }
    t.equal(await position(replica), held, 'the replica keeps every transaction');
    t.equal(await sql(replica, 'SELECT COUNT(*) FROM shop.orders'), '3', 'and every row');
    // The status says so: the pod as the kubelet reports it, with the sidecar's termination message.
    const message = readFileSync(primary.terminationLog, 'utf8');
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'my-mysql-mysql-0',
        namespace: 'default',
        labels: { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'my-mysql' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'my-mysql-mysql', uid: 'u', controller: true },
        ],
      },
      spec: { containers: [{ name: 'mysql', image: 'mysql:8.0' }] },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'mysql', ready: true },
          {
            name: 'replication',
            ready: false,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 3, message } },
          },
        ],
      },
    } as unknown as KubeObject;
    const res = mysqlSync(
      request('mysqlcluster', { size: 3, version: '8.0' }, { related: objectMap([pod]) }),
      FIXED_NOW,
    );
    const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.equal(ready.reason, 'PrimaryBehind');
    t.match(ready.message, new RegExp(`holds fewer transactions than a replica.*${held}.*stays read-only`));
  },
);
