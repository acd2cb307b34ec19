// Member 0 on an empty data directory (its volume lost) asks every member that may hold data what it holds before it
// opens for writes (hooks/mysqlcluster/scripts.ts check_primary), on real MariaDB servers (test/fixtures/mysql-members.ts).
// A member it cannot ask is unknown, whatever the reason: its name does not resolve (its pod has no IP yet: Pending
// on a lost node, no room), its address refuses, it accepts and never answers, or the address its name resolves to
// is another server's (a stale DNS answer). While one is unknown, the empty member 0 stays read-only and says so.
import { createServer, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { PRIMARY_BEHIND, PRIMARY_UNVERIFIED } from '../../hooks/mysqlcluster/scripts.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import {
  hostOf,
  initialise,
  ipOf,
  PEER_TRIES,
  PORT,
  probe,
  resolveAs,
  sql,
  startMember,
  startServer,
  startSidecar,
  stopMember,
  until,
  type Member,
} from '../fixtures/mysql-members.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

let primary: Member;
let replica: Member;
let held = '';

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
  held = await sql(replica, 'SELECT @@global.gtid_current_pos');
  // Member 0's volume is lost; member 1's pod is rescheduled and has no IP yet (its name does not resolve).
  await stopMember(replica);
  resolveAs(1);
});

/**
 * Member 0 on an empty data directory, as its pod comes back after its volume was lost (before each test, so that
 * one that opened does not carry its data into the next).
 */
t.beforeEach(async () => {
  await stopMember(primary);
  await initialise(primary);
  await startServer(primary, true);
});

/** Member 0's sidecar, started as the kubelet starts it: whether it opened, or its exit code and message. */
async function start(): Promise<{ opened: boolean; code?: number | null; message: string; ms: number }> {
  const began = Date.now();
  startSidecar(primary);
  const sidecar = primary.sidecar!;
  const exit = new Promise<number | null>((resolve) => sidecar.once('exit', (c) => resolve(c)));
  const outcome = await until(
    'member 0 to open or refuse',
    async () => {
      if (sidecar.exitCode !== null) return 'refused';
      return (await sql(primary, 'SELECT @@global.read_only')) === '0' ? 'opened' : undefined;
    },
    120_000,
  );
  if (outcome === 'opened') return { opened: true, message: primary.sidecarLog, ms: Date.now() - began };
  const code = await exit;
  let message = '';
  try {
    message = readFileSync(primary.terminationLog, 'utf8').trim();
  } catch {
    // no termination message
  }
  return { opened: false, code, message, ms: Date.now() - began };
}

async function staysEmpty(t: Test): Promise<void> {
  t.equal(await sql(primary, 'SELECT @@global.read_only'), '1', 'member 0 stays read-only');
  t.notOk(await probe(primary), 'and is not Ready: the write Service sends no client there');
  t.equal(
    await sql(primary, "SELECT COUNT(*) FROM mysql.user WHERE user = 'replication'"),
    '0',
    'nothing was written to it',
  );
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

t.test('an empty member 0 whose replica does not resolve yet stays read-only', async (t) => {
  const result = await start();
  t.not(result.opened ? 'opened' : 'refused', 'opened', `member 0 with no transactions, while member 1 holds ${held}`);
  t.equal(result.code, 3, 'its sidecar exits (the kubelet restarts it and it asks again)');
  t.ok(result.message.startsWith(PRIMARY_UNVERIFIED), result.message);
  t.match(result.message, new RegExp(`${escaped(hostOf(1))} does not resolve`), 'it names the member it cannot ask');
  t.match(primary.sidecarLog, /member 0 stays read-only: primary-unverified/, 'and says so in its log');
  await staysEmpty(t);
  // The status says so: the pod as the kubelet reports it, with the sidecar's termination message.
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
          lastState: { terminated: { exitCode: 3, message: result.message } },
        },
      ],
    },
  } as unknown as KubeObject;
  const res = mysqlSync(request('mysqlcluster', { size: 2, version: '8.0' }, { related: objectMap([pod]) }), FIXED_NOW);
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.equal(ready.reason, 'PrimaryUnverified');
  t.match(ready.message, new RegExp(`cannot ask every replica.*${escaped(hostOf(1))} does not resolve`));
});

t.test('a name that resolves to another server (a stale address) is not that member', async (t) => {
  // Member 1's old address now belongs to member 0 itself: a server that answers, empty, with server id 100.
  resolveAs(1, ipOf(0));
  const result = await start();
  t.notOk(result.opened, `member 0 did not open: ${result.message}`);
  t.ok(result.message.startsWith(PRIMARY_UNVERIFIED), result.message);
  t.match(result.message, new RegExp(`${escaped(hostOf(1))} answers as server id 100, not member 1`));
  await staysEmpty(t);
});

t.test('a name whose address refuses connections is unknown', async (t) => {
  resolveAs(1, ipOf(40));
  const result = await start();
  t.notOk(result.opened, `member 0 did not open: ${result.message}`);
  t.ok(result.message.startsWith(PRIMARY_UNVERIFIED), result.message);
  t.match(result.message, new RegExp(`${escaped(hostOf(1))} does not answer`));
  await staysEmpty(t);
});

t.test('an address that accepts and never answers is unknown, and member 0 says so in bounded time', async (t) => {
  const sockets = new Set<Socket>();
  const silent = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => silent.listen(PORT, ipOf(41), resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  resolveAs(1, ipOf(41));
  const result = await start();
  t.notOk(result.opened, `member 0 did not open: ${result.message}`);
  t.ok(result.message.startsWith(PRIMARY_UNVERIFIED), result.message);
  t.match(result.message, new RegExp(`${escaped(hostOf(1))} does not answer`));
  t.ok(sockets.size >= 1, 'member 0 did connect to the silent address');
  // PEER_TRIES rounds of at most PEER_TIMEOUT (5 s here) and a 5 s pause: not a hang.
  t.ok(result.ms < PEER_TRIES * 15_000 + 30_000, `refused after ${result.ms} ms`);
  await staysEmpty(t);
});

t.test(
  'once the replica answers at its own address, member 0 sees it is behind and still stays read-only',
  async (t) => {
    resolveAs(1, replica.ip);
    await startServer(replica, false);
    const result = await start();
    t.notOk(result.opened, `member 0 did not open: ${result.message}`);
    t.ok(result.message.startsWith(PRIMARY_BEHIND), result.message);
    t.match(result.message, new RegExp(`${escaped(hostOf(1))} has ${escaped(held)}`));
    await staysEmpty(t);
    t.equal(await sql(replica, 'SELECT COUNT(*) FROM shop.orders'), '2', 'the replica keeps every row');
  },
);
