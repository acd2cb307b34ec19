// An EtcdCluster's members run its tenant's image (spec.repository), so tenant A chooses every byte its members answer
// the hook server's etcd client, over plain HTTP too (no TLS needed). Node's HTTP client reads any number of
// informational answers (1xx) before the real one, and the client bounds only the real answer (64 KiB) and the call's
// time (1.5 s): a member that answers each request with `HTTP/1.1 102 P` over and over, as fast as it can, makes the
// client parse every one of them, a JavaScript callback each, on the server's one thread, until the deadline. Measured
// on this loaded machine: one health read (3 connections) parsed ~500,000 of them (8.6 MiB), ~540-670 ms of the hook
// process's CPU against ~100 ms for a member that answers nothing, and ended 0.4-0.6 s past its 1.5 s deadline (the
// thread too busy to run the timer); a sync dials ~30 such connections, two of a namespace's syncs at a time, and every
// tenant's hooks wait on that thread. Beside two of A's syncs of 9 such members (A's members in three processes),
// tenant B's sync of its three healthy members took 6-13 s and read all three down (Available=False); beside two of
// A's syncs whose members answer nothing, 35-170 ms and all three healthy.
//
// Must hold: what a member makes the client read in one call is bounded, informational answers included: the client
// stops reading a member whose informational answers pass a few times the answer bound (here, 4 x 64 KiB); B's
// healthy members, synced beside A's clusters whose members do so, are read as healthy.
import { spawn } from 'node:child_process';
import { ClientRequest } from 'node:http';
import { createInterface } from 'node:readline';
import t from 'tap';
import { HttpEtcdClient, MAX_ANSWER_BYTES } from '../../hooks/etcdcommon/etcd.js';
import { bBesideStandInsOfA, standInsOfA } from '../fixtures/etcd-tenant-tls.js';

/** The bytes of one informational answer the member sends. */
const INFORMATIONAL_BYTES = 'HTTP/1.1 102 P\r\n\r\n'.length;

/**
 * A's member (a child process, so that its work is not this process's): to every request it answers `102` without
 * end, as fast as the connection takes it. On SIGTERM it prints how many bytes the client took from it.
 */
const MEMBER = `
const net = require('node:net');
const burst = Buffer.from('HTTP/1.1 102 P\\r\\n\\r\\n'.repeat(4096));
const sockets = new Set();
const server = net.createServer((s) => {
  sockets.add(s);
  s.on('error', () => {});
  s.once('data', () => {
    const pump = () => { while (!s.destroyed && s.write(burst)); };
    s.on('drain', pump);
    pump();
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => {
  let sent = 0;
  for (const s of sockets) sent += s.bytesWritten - s.writableLength;
  console.log('sent ' + sent);
  process.exit(0);
});
`;

t.test('a member that answers only informational answers is read a bounded number of bytes', async (t) => {
  const proc = spawn(process.execPath, ['-e', MEMBER], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => proc.kill('SIGKILL'));
  const lines = createInterface({ input: proc.stdout });
  const port = Number(await new Promise<string>((r) => lines.once('line', r)));
  const etcd = new HttpEtcdClient({
    resolve: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
  });
  // The informational answers the client parsed: Node's HTTP client emits one 'information' event for each.
  let informational = 0;
  const emit = ClientRequest.prototype.emit;
  ClientRequest.prototype.emit = function (this: ClientRequest, event: string | symbol, ...args: unknown[]) {
    if (event === 'information') informational++;
    return emit.call(this, event, ...args);
  } as typeof emit;
  t.teardown(() => {
    ClientRequest.prototype.emit = emit;
  });
  const cpu = process.cpuUsage();
  const began = Date.now();
  const health = await etcd.health('http://a-0.a.ns-a.svc:2379');
  const took = Date.now() - began;
  const used = process.cpuUsage(cpu);
  ClientRequest.prototype.emit = emit;
  const last = new Promise<string>((r) => lines.once('line', r));
  proc.kill('SIGTERM');
  const sent = Number(/sent (\d+)/.exec(await last)![1]);
  t.comment(
    `one health read: ${took} ms, ${((used.user + used.system) / 1000).toFixed(0)} ms of CPU; ` +
      `the member's 3 connections sent ${(sent / 2 ** 20).toFixed(1)} MiB of 102 answers; the client parsed ` +
      `${informational} of them`,
  );
  t.equal(health.healthy, false, 'the member is not read as healthy');
  t.ok(
    informational * INFORMATIONAL_BYTES <= 4 * MAX_ANSWER_BYTES,
    `the client parsed at most ${(4 * MAX_ANSWER_BYTES) / 1024} KiB of informational answers in one call ` +
      `(${informational} answers, ${((informational * INFORMATIONAL_BYTES) / 2 ** 20).toFixed(1)} MiB)`,
  );
});

t.test("A's members answering only informational answers do not make B's healthy etcd read as down", async (t) => {
  await bBesideStandInsOfA(t, await standInsOfA(t, MEMBER, 3), 100);
});
