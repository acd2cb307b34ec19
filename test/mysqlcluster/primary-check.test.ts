// Member 0's decision to open for writes (hooks/mysqlcluster/scripts.ts check_primary), fast: the very script, with a
// fake `mysql` client and a fake `getent` on its PATH standing for the servers and the cluster's DNS. Each case says
// what the other members answer and checks whether an empty (or not) member 0 opens or refuses, and with which words.
// The same cases on real MariaDB servers: test/real/mysql-primary-peers-real.test.ts.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { PRIMARY_BEHIND, PRIMARY_UNVERIFIED, REPLICATION_SCRIPT } from '../../hooks/mysqlcluster/scripts.js';

const base = mkdtempSync(join(tmpdir(), 'metaops-mysql-check-'));
t.teardown(() => rmSync(base, { recursive: true, force: true }));

// The client: -h <host> answers as that member's file says (`<server id>\t<position>`, `refuse`, or `hang`); without
// -h, the local server: MariaDB, read-only, holding the position in `own`; the statement that opens it is recorded.
const FAKE_MYSQL = String.raw`#!/bin/bash
host=''; query=''
while [ $# -gt 0 ]; do
  case "$1" in -h) host=$2; shift ;; -e) query=$2; shift ;; esac
  shift
done
if [ -n "$host" ]; then
  f="$FAKE/peer-$host"
  [ -f "$f" ] || { echo "ERROR 2002: Can't connect to '$host'" >&2; exit 1; }
  case "$(cat "$f")" in
    refuse) echo "ERROR 2002: Connection refused" >&2; exit 1 ;;
    hang) sleep 30; exit 1 ;;
  esac
  cat "$f"; exit 0
fi
[ -n "$query" ] || query=$(cat)
case "$query" in
  *'read_only = OFF'*) echo opened > "$FAKE/opened"; printf '%s\n' "$query" > "$FAKE/opening" ;;
  *'tx_read_only = ON'*) echo gated > "$FAKE/gated" ;;
  *table_comment*) cat "$FAKE/history" ;;
  *VERSION*) echo '10.11.6-MariaDB' ;;
  *gtid_current_pos*) cat "$FAKE/own" ;;
  *read_only*) echo 1 ;;
  *) echo 1 ;;
esac
`;
const FAKE_GETENT = String.raw`#!/bin/bash
[ -f "$FAKE/dns-$2" ] && echo "10.0.0.9 $2" && exit 0
exit 2
`;

const host = (i: number) => `db-mysql-${i}.db-mysql-headless`;

interface Case {
  /** Member 0's own position ('' for an empty data directory). */
  own: string;
  /**
   * Member 0's cluster history (the comment of metaops.history, written when a checked member 0 first opened):
   * 'cluster-a' by default when it has data, none when empty.
   */
  history?: string;
  /** The ordinals the hook lists (undefined: no file). */
  listed?: number[];
  /** What each member's name resolves to and answers: undefined does not resolve. */
  peers: Record<number, string>;
  tries?: number;
}

let n = 0;
async function decide(c: Case): Promise<{ opened: boolean; code: number | null; message: string; log: string }> {
  const dir = join(base, `case-${n++}`);
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'mysql'), FAKE_MYSQL);
  writeFileSync(join(bin, 'getent'), FAKE_GETENT);
  chmodSync(join(bin, 'mysql'), 0o755);
  chmodSync(join(bin, 'getent'), 0o755);
  writeFileSync(join(dir, 'own'), `${c.own}\n`);
  writeFileSync(join(dir, 'history'), `${c.history ?? (c.own ? 'cluster-a' : '')}\n`);
  for (const [i, answer] of Object.entries(c.peers)) {
    writeFileSync(join(dir, `dns-${host(Number(i))}`), '');
    if (answer !== 'unanswered') writeFileSync(join(dir, `peer-${host(Number(i))}`), answer);
  }
  const peersFile = join(dir, 'peers');
  if (c.listed) writeFileSync(peersFile, `${c.listed.join(' ')}\n`);
  const sidecar = spawn('bash', ['-c', REPLICATION_SCRIPT], {
    env: {
      PATH: `${bin}:${process.env['PATH']}`,
      FAKE: dir,
      POD_NAME: 'db-mysql-0',
      REPLICATION_PASSWORD: 'pw',
      PRIMARY_HOST: host(0),
      PRIMARY_PORT: '3306',
      PEER_HOST_FORMAT: 'db-mysql-%s.db-mysql-headless',
      PEERS_FILE: peersFile,
      PEER_TRIES: String(c.tries ?? 1),
      PEER_TIMEOUT: '1',
      TERMINATION_LOG: join(dir, 'termination-log'),
      CLIENT_DIR: dir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  sidecar.stdout.on('data', (d: Buffer) => (log += d.toString()));
  sidecar.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<number | null>((resolve) => sidecar.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (sidecar.exitCode === null && !existsSync(join(dir, 'opened')) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const opened = existsSync(join(dir, 'opened'));
  if (sidecar.exitCode === null) sidecar.kill('SIGTERM');
  const code = await exited;
  const message = existsSync(join(dir, 'termination-log')) ? readFileSync(join(dir, 'termination-log'), 'utf8') : '';
  return { opened, code: opened ? null : code, message: message.trim(), log };
}

t.test('an empty member 0 opens when every listed member answers as itself with no more data', async (t) => {
  t.ok((await decide({ own: '', listed: [], peers: {} })).opened, 'no member to ask (one member)');
  t.ok((await decide({ own: '', listed: [1, 2], peers: { 1: '101\t', 2: '102\t' } })).opened, 'two empty members');
  const r = await decide({ own: '0-100-5', listed: [1], peers: { 1: '101\t0-100-5' } });
  t.ok(r.opened, 'with data, a member that holds the same');
});

t.test('an empty member 0 never opens while a listed member cannot be asked', async (t) => {
  const cases: Array<[string, Case, RegExp]> = [
    ['its name does not resolve', { own: '', listed: [1], peers: {} }, / does not resolve \(its pod has no address\)/],
    ['it refuses', { own: '', listed: [1], peers: { 1: 'refuse' } }, / does not answer/],
    ['it is silent past the timeout', { own: '', listed: [1], peers: { 1: 'hang' } }, / does not answer/],
    ['nothing answers at its address', { own: '', listed: [1], peers: { 1: 'unanswered' } }, / does not answer/],
    [
      'another server answers at its address',
      { own: '', listed: [1], peers: { 1: '100\t' } },
      / answers as server id 100, not member 1 \(a stale address\)/,
    ],
    [
      'another member answers at its address',
      { own: '', listed: [1, 2], peers: { 1: '102\t', 2: '102\t' } },
      /db-mysql-1\.db-mysql-headless answers as server id 102, not member 1/,
    ],
    [
      'its position cannot be read',
      { own: '', listed: [1], peers: { 1: '101\tgarbage' } },
      / answers a position that cannot be read/,
    ],
    ['the list is missing: every member 1-8 may hold data', { own: '', peers: {} }, /db-mysql-8\.db-mysql-headless/],
  ];
  for (const [what, c, words] of cases) {
    const r = await decide(c);
    t.notOk(r.opened, `${what}: member 0 stays read-only`);
    t.equal(r.code, 3, `${what}: its sidecar exits (restarted by the kubelet, it asks again)`);
    t.ok(r.message.startsWith(PRIMARY_UNVERIFIED), `${what}: ${r.message}`);
    t.match(r.message, words, `${what}: named, and why`);
    t.match(r.log, /member 0 stays read-only: primary-unverified/, `${what}: said in its log`);
  }
  const two = await decide({ own: '', listed: [1, 2], peers: { 1: '101\t', 2: 'refuse' } });
  t.notOk(two.opened, 'one member of two that cannot be asked is enough');
  t.notMatch(two.message, /db-mysql-1\./, 'the one that answered is not named');
});

t.test('a member that holds more keeps member 0 read-only, listed or only resolving', async (t) => {
  const r = await decide({ own: '', listed: [1], peers: { 1: '101\t0-100-7' } });
  t.notOk(r.opened);
  t.ok(r.message.startsWith(PRIMARY_BEHIND), r.message);
  t.match(r.message, /db-mysql-1\.db-mysql-headless has 0-100-7/);
  const unlisted = await decide({ own: '0-100-3', listed: [], peers: { 3: '103\t0-100-9' } });
  t.notOk(unlisted.opened, 'a member not listed whose name resolves (still running after a scale-down) is asked');
  t.match(unlisted.message, /db-mysql-3\.db-mysql-headless has 0-100-9/);
  t.ok(
    (await decide({ own: '', listed: [], peers: { 4: 'refuse' } })).opened === false,
    'an unlisted member that resolves and cannot be asked is unknown too',
  );
});

t.test('member 0 with data opens without the members it cannot ask, and says which', async (t) => {
  const r = await decide({ own: '0-100-5', listed: [1, 2], peers: { 2: 'refuse' }, tries: 2 });
  t.ok(r.opened, 'it opens (a restart of the whole cluster may start it first)');
  t.match(r.log, /member 0 holds 0-100-5 and opens without asking:.*db-mysql-1\.\S+ does not resolve/);
  t.match(r.log, /db-mysql-2\.\S+ does not answer/);
});

t.test('a member whose name resolves in a later round is asked then', async (t) => {
  // Round one: member 1 does not resolve; the fake DNS learns it during the pause; round two asks it.
  const dir = join(base, `case-${n}`);
  const later = setTimeout(() => {
    writeFileSync(join(dir, `dns-${host(1)}`), '');
    writeFileSync(join(dir, `peer-${host(1)}`), '101\t0-100-2');
  }, 1500);
  t.teardown(() => clearTimeout(later));
  const r = await decide({ own: '', listed: [1], peers: {}, tries: 2 });
  t.notOk(r.opened);
  t.ok(r.message.startsWith(PRIMARY_BEHIND), `asked once it resolved: ${r.message}`);
});

t.test(
  'member 0 is closed to every client (root too) before it asks, and opens under the cluster history',
  async (t) => {
    const r = await decide({ own: '', listed: [1], peers: { 1: '101\t' } });
    t.ok(r.opened);
    const dir = join(base, `case-${n - 1}`);
    t.ok(existsSync(join(dir, 'gated')), 'read-only transactions for every account (MariaDB: tx_read_only)');
    const opening = readFileSync(join(dir, 'opening'), 'utf8');
    t.match(opening, /SET GLOBAL tx_read_only = OFF/, 'the gate is lifted when it opens');
    t.match(opening, /CREATE TABLE IF NOT EXISTS metaops\.history .* COMMENT = 'cluster-/, 'the history is written');
    t.ok(
      opening.indexOf('metaops.history') < opening.indexOf('SET GLOBAL read_only = OFF'),
      'before any client can write',
    );
  },
);

t.test(
  'member 0 with data but no cluster history is unverified: writes made while unverified do not count',
  async (t) => {
    const r = await decide({ own: '0-100-3', history: '', listed: [1], peers: {} });
    t.notOk(r.opened, 'it does not open without asking the member that may hold data');
    t.ok(r.message.startsWith(PRIMARY_UNVERIFIED), r.message);
    t.match(r.message, /member 0 has 0-100-3 but was never opened after a check/);
    t.match(r.message, /db-mysql-1\.db-mysql-headless does not resolve/);
    const asked = await decide({ own: '0-100-3', history: '', listed: [1], peers: { 1: '101\t0-100-3' } });
    t.ok(asked.opened, 'every member asked, none holding more: it opens (a cluster made by an earlier metaops)');
  },
);

t.test('a member of a history member 0 does not hold is ahead, whatever the sequence numbers', async (t) => {
  const wiped = await decide({ own: '0-100-14', history: '', listed: [1], peers: { 1: '101\t0-100-6\tcluster-a' } });
  t.notOk(wiped.opened, 'member 0 without the history, with more root writes than member 1 holds');
  t.ok(wiped.message.startsWith(PRIMARY_BEHIND), wiped.message);
  t.match(wiped.message, /has 0-100-6 of the cluster's history cluster-a, which member 0 does not hold/);
  const other = await decide({
    own: '0-100-14',
    history: 'cluster-b',
    listed: [1],
    peers: { 1: '101\t0-100-6\tcluster-a' },
  });
  t.notOk(other.opened, 'another history (a backup of another cluster restored into member 0)');
  const same = await decide({ own: '0-100-14', listed: [1], peers: { 1: '101\t0-100-6\tcluster-a' } });
  t.ok(same.opened, 'the same history, more transactions: member 0 is ahead');
});

t.test('MariaDB: a domain written by another server id is not held, whatever its sequence number', async (t) => {
  const r = await decide({ own: '0-100-14', listed: [1], peers: { 1: '101\t0-101-6' } });
  t.notOk(r.opened, '0-100-14 does not hold 0-101-6');
  t.ok(r.message.startsWith(PRIMARY_BEHIND), r.message);
  const two = await decide({ own: '0-100-14,1-100-2', listed: [1], peers: { 1: '101\t0-100-9,1-100-2' } });
  t.ok(two.opened, 'each domain held by the same server, as far');
});
