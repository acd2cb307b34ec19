// An EtcdCluster's members run its tenant's image (spec.repository), so tenant A chooses how its members' answers are
// framed. The etcd client bounds an answer's bytes (MAX_ANSWER_BYTES, 64 KiB) and its time (1.5 s), not its pieces: an
// answer sent with `transfer-encoding: chunked` in chunks of one byte (~60,000 chunks, 360 KB on the wire, sent at
// once) is a JavaScript callback and a 'data' event per byte on the server's one thread, however the bytes arrive (TCP
// coalescing does not merge chunks). Measured on this loaded machine: one health read (3 connections) ~250-330 ms of
// the hook process's CPU against ~40 ms for a member that answers nothing; beside two of A's syncs of 9 such members
// (three processes), tenant B's sync of its three healthy members took 1.6-4.3 s and read all three down, against 80
// ms and healthy beside A's silent members. Within the answer bound, so a bound on informational answers or on bytes
// does not cover it.
//
// Must hold: an answer is read in a bounded number of pieces (here at most 1,024 'data' events, where etcd's own
// answers come in a few); B's healthy members, synced beside A's clusters whose members answer so, read as healthy.
import { IncomingMessage } from 'node:http';
import t from 'tap';
import { HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { bBesideStandInsOfA, standInsOfA } from '../fixtures/etcd-tenant-tls.js';

/** A's member (a child process): to every request, 200 with a 60,000-byte body in chunks of one byte. */
const MEMBER = `
const net = require('node:net');
const body = '1\\r\\nx\\r\\n'.repeat(60000) + '0\\r\\n\\r\\n';
const server = net.createServer((s) => {
  s.on('error', () => {});
  s.once('data', () => s.write('HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ntransfer-encoding: chunked\\r\\n\\r\\n' + body));
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

t.test("a member's answer cut into one-byte chunks is read in a bounded number of pieces", async (t) => {
  const [port] = await standInsOfA(t, MEMBER, 1);
  const etcd = new HttpEtcdClient({
    resolve: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
  });
  // The pieces of answers the client read: Node's HTTP client emits one 'data' event for each.
  let pieces = 0;
  const emit = IncomingMessage.prototype.emit;
  IncomingMessage.prototype.emit = function (this: IncomingMessage, event: string | symbol, ...args: unknown[]) {
    if (event === 'data') pieces++;
    return emit.call(this, event, ...args);
  } as typeof emit;
  t.teardown(() => {
    IncomingMessage.prototype.emit = emit;
  });
  const cpu = process.cpuUsage();
  const health = await etcd.health('http://a-0.a.ns-a.svc:2379');
  const used = process.cpuUsage(cpu);
  IncomingMessage.prototype.emit = emit;
  t.comment(
    `one health read (3 answers): ${pieces} pieces read, ${((used.user + used.system) / 1000).toFixed(0)} ms of CPU; ` +
      JSON.stringify(health).slice(0, 100),
  );
  t.ok(pieces <= 3 * 1024, `at most 1,024 pieces an answer (${pieces} for three)`);
});

t.test("A's members answering in one-byte chunks do not make B's healthy etcd read as down", async (t) => {
  await bBesideStandInsOfA(t, await standInsOfA(t, MEMBER, 3), 50);
});
