// Tenant A's EtcdCluster with TLS runs A's image in its members (spec.repository): A's members are the TLS servers the
// hook server's etcd client talks to, and A gives the client its key (TLS.static.operatorSecret; RSA up to 4096 bits).
// TLS 1.2 lets a server ask for a new handshake at any time (HelloRequest), and the client goes through every one:
// each is a full handshake, in which the client signs with the operator's key (and verifies the member's chain again,
// encrypted, where lib/tls-inspect.ts cannot read it), on the server's one JavaScript thread. The bounds that keep a
// member's cost to the server small (the key's size, the chain read before OpenSSL verifies it, the member's session
// resumed so that the key signs once per member: docs/operating.md) count one handshake per connection; a member that
// renegotiates for as long as a call waits on it (1.5 s) makes the client sign again and again. Measured on this
// loaded machine: one health read (3 connections) ~40 ms of the hook process's CPU with a member that answers nothing,
// ~250 ms with one that renegotiates (50 full handshakes, RSA 4096; 3,389 renegotiations and ~530-700 ms with an
// RSA 2048 key and tickets); a sync of a 9-member cluster holds ~30 such connections, two of A's syncs at a time.
//
// Must hold: the hook server's client makes one handshake per connection: a member's request for another is refused.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import t from 'tap';
import { etcdAt } from '../fixtures/etcd-tenant-tls.js';
import { Pki } from '../fixtures/pki.js';

const pki = new Pki();
// The operator key A gives the server: RSA 4096, the largest the server takes (etcd-client-key-bound); A's members
// sign with P-256, which costs them little.
const client = pki.issue('client', 'client', { key: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:4096'] });
pki.issue('srv', 'srv', {
  key: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  san: 'DNS:*.a.ns-a.svc,IP:127.0.0.1',
});

/**
 * A's members (one TLS 1.2 server in a child process, without tickets: every handshake in full): it never answers a
 * request and, with `renegotiate`, asks for a new handshake as soon as the last one ends. On SIGTERM it prints how many
 * of its renegotiations the client went through.
 */
const MEMBER = `
const tls = require('node:tls'), https = require('node:https'), fs = require('node:fs');
tls.CLIENT_RENEG_LIMIT = 1e9;
const [key, cert, renegotiate] = process.argv.slice(1);
let done = 0;
const a = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert), requestCert: true,
  rejectUnauthorized: false, maxVersion: 'TLSv1.2',
  secureOptions: require('node:crypto').constants.SSL_OP_NO_TICKET }, () => {});
a.on('secureConnection', (s) => {
  s.on('error', () => {});
  if (renegotiate !== 'yes') return;
  const again = () => { if (!s.destroyed) s.renegotiate({ requestCert: true, rejectUnauthorized: false }, (err) => { if (!err) { done++; setImmediate(again); } }); };
  again();
});
a.listen(0, '127.0.0.1', () => console.log(a.address().port));
process.on('SIGTERM', () => { console.log('renegotiated ' + done); process.exit(0); });
`;

interface Member {
  port: number;
  /** Stops the member: how many renegotiations the client went through. */
  stop(): Promise<number>;
}

async function memberOfA(t: { teardown(fn: () => void): void }, renegotiate: boolean): Promise<Member> {
  const args = [pki.path('srv.key'), pki.path('srv.crt'), renegotiate ? 'yes' : 'no'];
  const proc = spawn(process.execPath, ['-e', MEMBER, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => proc.kill('SIGKILL'));
  const lines = createInterface({ input: proc.stdout });
  const port = Number(await new Promise<string>((r) => lines.once('line', r)));
  return {
    port,
    stop: async () => {
      const last = new Promise<string>((r) => lines.once('line', r));
      proc.kill('SIGTERM');
      return Number(/renegotiated (\d+)/.exec(await last)![1]);
    },
  };
}

/** One health call to a member at `port`, and the CPU time this process spent on it (ms). */
async function healthCpu(port: number): Promise<number> {
  const etcd = etcdAt(() => port, {
    tls: { ca: pki.read('ca.crt').toString(), cert: client.cert.toString(), key: client.key.toString() },
  });
  const cpu = process.cpuUsage();
  await etcd.health('https://a-0.a.ns-a.svc:2379');
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}

t.test("the hook server's client makes one handshake a connection, whatever a member asks", async (t) => {
  const silent = await memberOfA(t, false);
  const quiet = await healthCpu(silent.port);
  await silent.stop();
  const member = await memberOfA(t, true);
  const renegotiating = await healthCpu(member.port);
  const renegotiated = await member.stop();
  t.comment(
    `one health read (3 connections): ${quiet.toFixed(0)} ms of CPU with a member that answers nothing, ` +
      `${renegotiating.toFixed(0)} ms with one that renegotiates (${renegotiated} renegotiations, each a full handshake ` +
      `signed with the operator's RSA 4096 key)`,
  );
  t.equal(renegotiated, 0, 'no renegotiation asked by the member is gone through');
});
