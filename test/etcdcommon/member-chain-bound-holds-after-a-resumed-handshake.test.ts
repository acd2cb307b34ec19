// The hook server reads a member's certificate chain before OpenSSL verifies it and refuses one over the bounds
// (lib/tls-inspect.ts: at most 5 certificates, keys of ordinary verification cost): a tenant's member once presented 70
// certificates whose RSA keys have 3,071-bit public exponents, ~440 ms of the server's one thread per verification
// (test/etcdcluster/member-certificate-chain-bound.test.ts). The reader reads only a connection's first handshake, in
// the clear. A member that has once served an ordinary certificate holds the client's TLS session (the client resumes
// it at its next call: hooks/etcdcommon/etcd.ts Sessions), so its next connection starts with a resumed handshake, with
// no Certificate message to read (the reader lets everything through at the ChangeCipherSpec); then it asks for a new
// handshake (TLS 1.2 renegotiation, never resumed: SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION) and presents the
// refused chain, encrypted, which OpenSSL verifies on the server's thread. The member's image is its tenant's
// (spec.repository), and its TLS session key may outlive a restart of its process (ticketKeys), so it can serve the
// ordinary certificate first and the hostile chain after.
//
// Measured on this loaded machine: the renegotiation with the 71 certificates went through, and the health read took
// 3.1 s against its 1.5 s deadline (the thread held by the verification), ~540 ms of CPU against ~100 ms.
//
// Must hold: a chain the reader refuses is never verified, on any handshake of a connection: the member's renegotiation
// with it does not go through.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import t from 'tap';
import { HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { Pki } from '../fixtures/pki.js';
import { CHAIN, writeHostileChain } from '../fixtures/hostile-chain.js';

const pki = new Pki();
pki.issue('srv', 'etcd', { san: 'DNS:*.a.ns-a.svc,IP:127.0.0.1' });

writeHostileChain(pki);

/**
 * A's member (a child process): a TLS 1.2 server with session tickets under one key. It serves the ordinary
 * certificate until told `hostile` on stdin; from then on the chain, and it asks for a new, never resumed, handshake on
 * every connection as soon as the last one ends. On SIGTERM it prints how many of those the client went through.
 */
const MEMBER = `
const tls = require('node:tls'), https = require('node:https'), fs = require('node:fs'), crypto = require('node:crypto');
tls.CLIENT_RENEG_LIMIT = 1e9;
const [key, cert, bigKey, chain] = process.argv.slice(1);
const ticketKeys = crypto.randomBytes(48);
const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert), maxVersion: 'TLSv1.2', ticketKeys }, () => {});
let hostile = false, done = 0;
server.on('secureConnection', (s) => {
  s.on('error', () => {});
  if (!hostile) return;
  const again = () => { if (!s.destroyed) s.renegotiate({}, (err) => { if (!err) { done++; setImmediate(again); } }); };
  again();
});
require('node:readline').createInterface({ input: process.stdin }).on('line', () => {
  hostile = true;
  server.setSecureContext({ key: fs.readFileSync(bigKey), cert: fs.readFileSync(chain), maxVersion: 'TLSv1.2',
    secureOptions: crypto.constants.SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION });
  server.setTicketKeys(ticketKeys);
  console.log('hostile');
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => { console.log('renegotiated ' + done); process.exit(0); });
`;

t.test("the chain reader's bound holds on a member's renegotiation after a resumed handshake", async (t) => {
  const args = [pki.path('srv.key'), pki.path('srv.crt'), pki.path('big-e.key'), pki.path('chain.pem')];
  const proc = spawn(process.execPath, ['-e', MEMBER, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.teardown(() => proc.kill('SIGKILL'));
  const lines = createInterface({ input: proc.stdout });
  const next = () => new Promise<string>((r) => lines.once('line', r));
  const port = Number(await next());
  // The operator's CAs, as A's operatorSecret gives them: the CA of the ordinary certificate and A's own.
  const operator = pki.operatorTls();
  const etcd = new HttpEtcdClient({
    tls: { ...operator, ca: operator.ca + pki.read('a-ca.crt').toString() },
    resolve: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
  });
  const cpuOf = async () => {
    const cpu = process.cpuUsage();
    const began = Date.now();
    await etcd.health('https://a-0.a.ns-a.svc:2379');
    const used = process.cpuUsage(cpu);
    return { cpu: (used.user + used.system) / 1000, wall: Date.now() - began };
  };
  const first = await cpuOf(); // ordinary: the member's sessions are remembered
  proc.stdin!.write('hostile\n');
  await next();
  const second = await cpuOf(); // resumed, then renegotiated with the chain
  const last = next();
  proc.kill('SIGTERM');
  const renegotiated = Number(/renegotiated (\d+)/.exec(await last)![1]);
  t.comment(
    `health read with the ordinary certificate: ${first.cpu.toFixed(0)} ms of CPU; resumed and renegotiated with ` +
      `${CHAIN + 1} certificates: ${second.cpu.toFixed(0)} ms of CPU, ${second.wall} ms (deadline 1,500 ms); ` +
      `handshakes ${JSON.stringify(etcd.handshakes)}; ${renegotiated} renegotiations went through`,
  );
  t.equal(renegotiated, 0, 'no handshake with the refused chain goes through');
});
