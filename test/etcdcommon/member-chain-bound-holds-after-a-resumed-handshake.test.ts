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
import { execFileSync, spawn } from 'node:child_process';
import { createPrivateKey, generatePrimeSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import t from 'tap';
import { HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { Pki } from '../fixtures/pki.js';

const pki = new Pki();
pki.issue('srv', 'etcd', { san: 'DNS:*.a.ns-a.svc,IP:127.0.0.1' });

/** An RSA key of 3072 bits whose public exponent has 3071 bits (as member-certificate-chain-bound.test.ts makes it). */
function bigExponentKey(): string {
  const egcd = (a: bigint, b: bigint): [bigint, bigint] => {
    let [x0, x1] = [1n, 0n];
    while (b) {
      const q = a / b;
      [a, b] = [b, a % b];
      [x0, x1] = [x1, x0 - q * x1];
    }
    return [a, x0];
  };
  const inverse = (a: bigint, m: bigint) => ((egcd(((a % m) + m) % m, m)[1] % m) + m) % m;
  let p: bigint, q: bigint, n: bigint;
  do {
    p = generatePrimeSync(1536, { bigint: true });
    q = generatePrimeSync(1536, { bigint: true });
    n = p * q;
  } while (n.toString(2).length !== 3072 || p === q);
  const phi = (p - 1n) * (q - 1n);
  let e: bigint;
  do e = (BigInt(`0x${randomBytes(384).toString('hex')}`) % n) | 1n;
  while (e.toString(2).length < 3070 || egcd(e, phi)[0] !== 1n);
  const d = inverse(e, phi);
  const b64u = (x: bigint) => {
    const hex = x.toString(16);
    return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
  };
  const jwk = { kty: 'RSA', n: b64u(n), e: b64u(e), d: b64u(d), p: b64u(p), q: b64u(q) } as Record<string, string>;
  Object.assign(jwk, { dp: b64u(d % (p - 1n)), dq: b64u(d % (q - 1n)), qi: b64u(inverse(q, p)) });
  return createPrivateKey({ key: jwk as never, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** A's CA and a chain of 70 intermediates under it, every key the big-exponent one. */
const CHAIN = 70;
writeFileSync(pki.path('big-e.key'), bigExponentKey());
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: 'pipe' });
writeFileSync(pki.path('ca.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=keyCertSign\n');
writeFileSync(pki.path('leaf.ext'), 'subjectAltName=DNS:*.a.ns-a.svc,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');
openssl('req', '-x509', '-new', '-key', 'big-e.key', '-subj', '/CN=tenant-a-ca', '-days', '1', '-out', 'a-ca.crt');
let issuer = 'a-ca';
for (let i = 1; i <= CHAIN + 1; i++) {
  const name = i > CHAIN ? 'leaf' : `i${i}`;
  openssl('req', '-new', '-key', 'big-e.key', '-subj', `/CN=${name}`, '-out', `${name}.csr`);
  const ext = i > CHAIN ? 'leaf.ext' : 'ca.ext';
  const args = ['-CA', `${issuer}.crt`, '-CAkey', 'big-e.key', '-set_serial', String(i), '-days', '1'];
  openssl('x509', '-req', '-in', `${name}.csr`, ...args, '-extfile', ext, '-out', `${name}.crt`);
  issuer = name;
}
writeFileSync(
  pki.path('chain.pem'),
  Buffer.concat([pki.read('leaf.crt'), ...Array.from({ length: CHAIN }, (_, i) => pki.read(`i${CHAIN - i}.crt`))]),
);

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
