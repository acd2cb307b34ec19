// Member 0 on an empty data directory (its volume lost) asks every member that may hold data what it holds before it
// opens for writes (hooks/mysqlcluster/scripts.ts check_primary), on real MariaDB servers (test/fixtures/mysql-members.ts).
// A member it cannot ask is unknown, whatever the reason: its name does not resolve (its pod has no IP yet: Pending
// on a lost node, no room), its address refuses, it accepts and never answers, or the address its name resolves to
// is another server's (a stale DNS answer). While one is unknown, the empty member 0 stays read-only and says so.
import { createServer, type Socket } from 'node:net';
import t from 'tap';
import { PRIMARY_BEHIND, PRIMARY_UNVERIFIED } from '../../hooks/mysqlcluster/scripts.js';
import { mysqlSync } from '../fixtures/hooks.js';
import {
  hostOf,
  ipOf,
  PEER_TRIES,
  PORT,
  pairWithReplicaGone,
  resolveAs,
  sidecarOutcome,
  sql,
  startServer,
  staysEmpty,
  wipe,
  type Member,
} from '../fixtures/mysql-members.js';
import { crashLoopingMember0 } from '../fixtures/mysql-pods.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

let primary: Member;
let replica: Member;
let held = '';

t.before(async () => {
  // Member 1's pod is rescheduled and has no IP yet (its name does not resolve); member 0's volume is lost (below).
  ({ primary, replica, held } = await pairWithReplicaGone());
});

/**
 * Member 0 on an empty data directory, as its pod comes back after its volume was lost (before each test, so that
 * one that opened does not carry its data into the next).
 */
t.beforeEach(() => wipe(primary));

/** Member 0's sidecar, started as the kubelet starts it: whether it opened, or its exit code and message. */
async function start(): Promise<{ opened: boolean; code?: number | null; message: string; ms: number }> {
  const { opened, code, termination, ms } = await sidecarOutcome(primary);
  if (opened) return { opened, message: primary.sidecarLog, ms };
  return { opened, code, message: termination ?? '', ms };
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

t.test('an empty member 0 whose replica does not resolve yet stays read-only', async (t) => {
  const result = await start();
  t.not(result.opened ? 'opened' : 'refused', 'opened', `member 0 with no transactions, while member 1 holds ${held}`);
  t.equal(result.code, 3, 'its sidecar exits (the kubelet restarts it and it asks again)');
  t.ok(result.message.startsWith(PRIMARY_UNVERIFIED), result.message);
  t.match(result.message, new RegExp(`${escaped(hostOf(1))} does not resolve`), 'it names the member it cannot ask');
  t.match(primary.sidecarLog, /member 0 stays read-only: primary-unverified/, 'and says so in its log');
  await staysEmpty(t, primary);
  // The status says so: the pod as the kubelet reports it, with the sidecar's termination message.
  const pod = crashLoopingMember0(result.message);
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
  await staysEmpty(t, primary);
});

t.test('a name whose address refuses connections is unknown', async (t) => {
  resolveAs(1, ipOf(40));
  const result = await start();
  t.notOk(result.opened, `member 0 did not open: ${result.message}`);
  t.ok(result.message.startsWith(PRIMARY_UNVERIFIED), result.message);
  t.match(result.message, new RegExp(`${escaped(hostOf(1))} does not answer`));
  await staysEmpty(t, primary);
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
  await staysEmpty(t, primary);
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
    await staysEmpty(t, primary);
    t.equal(await sql(replica, 'SELECT COUNT(*) FROM shop.orders'), '2', 'the replica keeps every row');
  },
);
