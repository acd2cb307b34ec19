// Member 0's open sidecar watching its server (hooks/mysqlcluster/scripts.ts, the loop after open_primary), fast:
// the very script with a fake `mysql` client standing for the local server. The kubelet restarts the mysql container
// alone (out of memory, a failed liveness probe); the server comes back read-only from its option file. Whenever
// that happens, even seconds after the server's previous start (so its start time alone cannot tell the two apart),
// the sidecar checks again and opens it; a server left alone is never checked again (quiet at rest).
// The same on real MariaDB: test/real/mysql-primary-server-restart-in-place.test.ts.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { REPLICATION_SCRIPT } from '../../hooks/mysqlcluster/scripts.js';

const base = mkdtempSync(join(tmpdir(), 'metaops-mysql-watch-'));
t.teardown(() => rmSync(base, { recursive: true, force: true }));

// The local server: MariaDB holding data of the cluster's history; `start` holds when it started (seconds since the
// epoch, its Uptime counted from there), `ro` its read_only; each statement that opens it is counted in `opens`,
// each gate in `gates`; a file `down` makes it refuse connections.
const FAKE_MYSQL = String.raw`#!/bin/bash
query=''
while [ $# -gt 0 ]; do
  case "$1" in -h) exit 1 ;; -e) query=$2; shift ;; esac
  shift
done
[ -f "$FAKE/down" ] && { echo "ERROR 2002: Can't connect" >&2; exit 1; }
[ -n "$query" ] || query=$(cat)
case "$query" in
  *'read_only = OFF'*) echo 0 > "$FAKE/ro"; echo open >> "$FAKE/opens" ;;
  *'tx_read_only = ON'*) echo gate >> "$FAKE/gates" ;;
  *Uptime*) printf 'Uptime\t%s\n' $(( $(date +%s) - $(cat "$FAKE/start") )) ;;
  *table_comment*) echo cluster-a ;;
  *VERSION*) echo '10.11.6-MariaDB' ;;
  *gtid_current_pos*) echo 0-100-5 ;;
  *UUID*) echo 6f1c2a9e-0000-4000-8000-000000000001 ;;
  *read_only*) cat "$FAKE/ro" ;;
  *) echo 1 ;;
esac
`;

interface Server {
  dir: string;
  opens: () => number;
  gates: () => number;
  log: () => string;
  stop: () => Promise<void>;
}

function serve(name: string): Server {
  const dir = join(base, name);
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'mysql'), FAKE_MYSQL);
  chmodSync(join(bin, 'mysql'), 0o755);
  writeFileSync(join(dir, 'start'), `${Math.floor(Date.now() / 1000) - 100}\n`);
  writeFileSync(join(dir, 'ro'), '1\n');
  writeFileSync(join(dir, 'peers'), '0\n');
  const sidecar = spawn('bash', ['-c', REPLICATION_SCRIPT], {
    env: {
      PATH: `${bin}:${process.env['PATH']}`,
      FAKE: dir,
      POD_NAME: 'db-mysql-0',
      REPLICATION_PASSWORD: 'pw',
      PRIMARY_HOST: 'db-mysql-0.db-mysql-headless',
      PRIMARY_PORT: '3306',
      PEER_HOST_FORMAT: 'db-mysql-%s.db-mysql-headless',
      PEERS_FILE: join(dir, 'peers'),
      PEER_TRIES: '1',
      PEER_TIMEOUT: '1',
      WATCH_SECONDS: '0.2',
      TERMINATION_LOG: join(dir, 'termination-log'),
      CLIENT_DIR: dir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  sidecar.stdout.on('data', (d: Buffer) => (log += d.toString()));
  sidecar.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const count = (f: string) =>
    existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8').trim().split('\n').filter(Boolean).length : 0;
  return {
    dir,
    opens: () => count('opens'),
    gates: () => count('gates'),
    log: () => log,
    stop: async () => {
      if (sidecar.exitCode !== null) return;
      const exited = new Promise((r) => sidecar.once('exit', r));
      sidecar.kill('SIGTERM');
      await exited;
    },
  };
}

async function until(what: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return what();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The mysql container restarted: the server starts again `after` seconds past its last start, read-only. */
function restart(s: Server, after: number): void {
  const last = Number(readFileSync(join(s.dir, 'start'), 'utf8'));
  writeFileSync(join(s.dir, 'start'), `${last + after}\n`);
  writeFileSync(join(s.dir, 'ro'), '1\n');
}

t.test('member 0 left alone after it opened is not checked again', async (t) => {
  const s = serve('quiet');
  t.teardown(s.stop);
  t.ok(await until(() => s.opens() === 1, 10_000), 'member 0 opens');
  await sleep(2000);
  t.equal(s.opens(), 1, 'opened once');
  t.equal(s.gates(), 1, 'gated once, before its first check');
});

t.test('member 0 whose server started again a second after its last start is checked again and opens', async (t) => {
  const s = serve('soon');
  t.teardown(s.stop);
  t.ok(await until(() => s.opens() === 1, 10_000), 'member 0 opens');
  restart(s, 1);
  t.ok(
    await until(() => s.opens() === 2, 10_000),
    `the restarted server, read-only from its option file, is gated, checked and opened again (log: ${s.log().trim()})`,
  );
  t.equal(s.gates(), 2, 'gated before the second check');
  t.equal(readFileSync(join(s.dir, 'ro'), 'utf8').trim(), '0', 'open');
});

t.test('member 0 whose server started again long after its last start is checked again and opens', async (t) => {
  const s = serve('later');
  t.teardown(s.stop);
  t.ok(await until(() => s.opens() === 1, 10_000), 'member 0 opens');
  restart(s, 60);
  t.ok(await until(() => s.opens() === 2, 10_000), 'opened again');
  t.equal(s.gates(), 2, 'gated before the second check');
});

t.test('member 0 whose server stopped answering for a while is checked again once it answers', async (t) => {
  const s = serve('down');
  t.teardown(s.stop);
  t.ok(await until(() => s.opens() === 1, 10_000), 'member 0 opens');
  writeFileSync(join(s.dir, 'down'), '');
  await sleep(600);
  rmSync(join(s.dir, 'down'));
  t.ok(await until(() => s.opens() === 2, 10_000), 'opened again after it answered');
  t.equal(s.gates(), 1, 'still open when it answered again: not gated (its read_only was never set again)');
});
