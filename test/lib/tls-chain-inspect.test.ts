// The chain a TLS server presents is read before OpenSSL verifies it (lib/tls-inspect.ts): more certificates than
// MAX_CHAIN_CERTS, a Certificate message over MAX_CHAIN_BYTES, or a key whose verification costs more than an
// ordinary one's is refused without a signature verified; an ordinary chain, and a resumed session (no Certificate
// message), pass through untouched.
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { call } from '../../lib/http.js';
import { tlsFailure } from '../../hooks/etcdcommon/etcd.js';
import {
  HANDSHAKE_RESET,
  ChainReader,
  ChainRefusedError,
  chainProblem,
  MAX_CHAIN_BYTES,
  MAX_CHAIN_CERTS,
  verifyKeyProblem,
} from '../../lib/tls-inspect.js';
import { Pki } from '../fixtures/pki.js';

const pki = new Pki();
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: 'pipe' });
const ec = (name: string) => openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`);
writeFileSync(pki.path('ca.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=keyCertSign\n');
writeFileSync(pki.path('leaf.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');

/** A chain of `n` intermediates under the Pki's CA, EC keys: `<name>.pem` (leaf first) and `<name>-leaf.key`. */
function chain(name: string, n: number): void {
  let issuer = 'ca';
  const files: string[] = [];
  for (let i = 1; i <= n + 1; i++) {
    const cert = i > n ? `${name}-leaf` : `${name}-i${i}`;
    ec(cert);
    openssl('req', '-new', '-key', `${cert}.key`, '-subj', `/CN=${cert}`, '-out', `${cert}.csr`);
    const ext = i > n ? 'leaf.ext' : 'ca.ext';
    openssl(
      'x509',
      '-req',
      '-in',
      `${cert}.csr`,
      '-CA',
      `${issuer}.crt`,
      '-CAkey',
      `${issuer}.key`,
      '-set_serial',
      String(i),
      '-days',
      '1',
      '-extfile',
      ext,
      '-out',
      `${cert}.crt`,
    );
    files.unshift(`${cert}.crt`);
    issuer = cert;
  }
  writeFileSync(pki.path(`${name}.pem`), Buffer.concat(files.map((f) => readFileSync(pki.path(f)))));
}

async function serve(t: { teardown(fn: () => void): void }, name: string): Promise<number> {
  const server = createServer(
    { key: readFileSync(pki.path(`${name}-leaf.key`)), cert: readFileSync(pki.path(`${name}.pem`)) },
    (_req, res) => res.end('{}'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return (server.address() as AddressInfo).port;
}

const get = (port: number, session?: Buffer) => {
  let offered: Buffer | undefined;
  let reused = false;
  return call(new URL(`https://127.0.0.1:${port}/health`), {
    method: 'GET',
    timeoutMs: 5000,
    timeoutError: () => new Error('timeout'),
    tls: { ca: pki.read('ca.crt'), ...(session ? { session } : {}) },
    tlsSessions: { connected: (r) => (reused = r), offered: (s) => (offered = s) },
    inspectChain: chainProblem,
  }).then((res) => ({ ...res, offered, reused }));
};

t.test('an ordinary chain is verified and answered, and its session resumed', async (t) => {
  chain('ok', 1);
  const port = await serve(t, 'ok');
  const first = await get(port);
  t.equal(first.status, 200);
  t.ok(first.offered, 'a session offered');
  const again = await get(port, first.offered);
  t.equal(again.status, 200);
  t.ok(again.reused, 'resumed: no Certificate message, passed through');
});

t.test('a chain longer than the bound is refused before it is verified', async (t) => {
  chain('long', MAX_CHAIN_CERTS);
  const port = await serve(t, 'long');
  const err = await get(port).catch((e: unknown) => e);
  t.type(err, ChainRefusedError);
  t.match((err as Error).message, `a chain of ${MAX_CHAIN_CERTS + 1} certificates, more than the ${MAX_CHAIN_CERTS}`);
});

t.test('a chain the CA did not sign is still refused by OpenSSL (the inspection only adds)', async (t) => {
  const other = new Pki('another-ca');
  const leaf = other.issue('srv', 'x', { san: 'IP:127.0.0.1' });
  const server = createServer({ key: leaf.key, cert: leaf.cert }, (_q, s) => s.end('{}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const err = await get((server.address() as AddressInfo).port).catch((e: unknown) => e);
  t.match((err as { code?: string }).code, /UNABLE_TO_VERIFY|SELF_SIGNED|UNABLE_TO_GET_ISSUER/);
});

t.test("a server's alert (it refuses the client certificate) reaches the caller as OpenSSL reads it", async (t) => {
  chain('mtls', 0);
  const server = createServer(
    {
      key: readFileSync(pki.path('mtls-leaf.key')),
      cert: readFileSync(pki.path('mtls.pem')),
      ca: pki.read('ca.crt'),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (_q, s) => s.end('{}'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const stranger = new Pki('stranger-ca').issue('client', 'someone');
  const err = await call(new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}/`), {
    method: 'GET',
    timeoutMs: 5000,
    timeoutError: () => new Error('timeout'),
    tls: { ca: pki.read('ca.crt'), cert: stranger.cert, key: stranger.key },
    inspectChain: chainProblem,
  }).catch((e: unknown) => e);
  // The alert itself, or (the server's close a reset that discarded it) a reset said to come after the chain.
  const e = err as { code?: string; tlsStage?: string };
  if (e.code === 'ECONNRESET') t.equal(e.tlsStage, HANDSHAKE_RESET);
  else t.match(e.code, /ALERT_UNKNOWN_CA|ALERT_BAD_CERTIFICATE/);
  t.ok(tlsFailure(err)?.startsWith('etcd refused the client certificate etcd-client.crt'), String(tlsFailure(err)));
});

t.test('keys whose verification costs more than an ordinary one are refused', async (t) => {
  const b64u = (b: Buffer) => b.toString('base64url');
  const n = randomBytes(384);
  n[0]! |= 0x80;
  n[383]! |= 1;
  const bigE = randomBytes(384);
  bigE[0] = 0x40;
  bigE[383]! |= 1;
  const rsa = (e: Buffer) => createPublicKey({ key: { kty: 'RSA', n: b64u(n), e: b64u(e) }, format: 'jwk' });
  t.match(verifyKeyProblem(rsa(bigE)), 'public exponent has 3071 bits');
  t.equal(verifyKeyProblem(rsa(Buffer.from([1, 0, 1]))), undefined, 'RSA 3072, e = 65537');
  t.match(verifyKeyProblem(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey), 'an RSA key of 1024 bits');
  t.equal(verifyKeyProblem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey), undefined);
  t.match(verifyKeyProblem(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey), 'an EC key on secp256k1');
  t.equal(verifyKeyProblem(generateKeyPairSync('ed25519').publicKey), undefined);
  t.equal(chainProblem([]), undefined);
  t.match(chainProblem([Buffer.from('not a certificate')]), 'certificate 0 of the server');
});

t.test('a Certificate message over the byte bound is refused as soon as its length is read', async (t) => {
  const reader = new ChainReader(() => undefined);
  const length = MAX_CHAIN_BYTES + 1;
  const message = Buffer.from([11, length >> 16, (length >> 8) & 0xff, length & 0xff]);
  const record = Buffer.concat([Buffer.from([22, 3, 3, 0, message.length]), message]);
  t.throws(() => reader.push(record), ChainRefusedError);
  // Not a handshake record first (a fatal alert): everything passes on.
  const alert = Buffer.from([21, 3, 3, 0, 2, 2, 40]);
  t.same(new ChainReader(() => 'never').push(alert), alert);
  // A warning alert (which OpenSSL reads past) is read past too: the Certificate message after it is checked, and
  // held back until then, the alert with it; a warning alert split across pushes too.
  const warning = Buffer.from([21, 3, 3, 0, 2, 1, 90]);
  const afterWarning = new ChainReader(() => undefined);
  t.same(afterWarning.push(warning.subarray(0, 6)), undefined, 'half an alert: held back');
  t.same(afterWarning.push(warning.subarray(6)), undefined, 'a warning alert: held back, the reading goes on');
  t.same(afterWarning.push(warning), undefined, 'a second one too');
  t.throws(() => afterWarning.push(record), ChainRefusedError, 'the Certificate message after them is checked');
  const passes = new ChainReader(() => undefined);
  const done = Buffer.from([22, 3, 3, 0, 4, 14, 0, 0, 0]);
  t.same(passes.push(Buffer.concat([warning, done])), Buffer.concat([warning, done]), 'passed on whole, alert too');
  // A handshake that grows without a Certificate message (one message declared of 60,000 bytes, sent in records of
  // 16 KiB) is refused past the bound, not read to its end.
  const big = new ChainReader(() => undefined);
  const record16 = (body: Buffer) =>
    Buffer.concat([Buffer.from([22, 3, 3, body.length >> 8, body.length & 0xff]), body]);
  t.same(big.push(record16(Buffer.concat([Buffer.from([12, 0, 0xea, 0x60]), Buffer.alloc(16380)]))), undefined);
  t.same(big.push(record16(Buffer.alloc(16384))), undefined, 'held back, not passed on');
  t.throws(() => big.push(record16(Buffer.alloc(16384))), ChainRefusedError);
});

t.test('an alert OpenSSL reports as a write error (EPROTO) is read by its number', async (t) => {
  const eproto = (n: number) =>
    Object.assign(new Error(`write EPROTO 40F3:error:0A000418:SSL routines:ssl3_read_bytes:x:SSL alert number ${n}`), {
      code: 'EPROTO',
    });
  for (const n of [42, 43, 45, 46, 48, 49, 116])
    t.match(tlsFailure(eproto(n)), /^etcd refused the client certificate etcd-client.crt/, `alert ${n}`);
  t.equal(tlsFailure(eproto(40)), undefined, 'a handshake failure is no refusal of the certificate');
  t.equal(tlsFailure(Object.assign(new Error('write EPROTO'), { code: 'EPROTO' })), undefined, 'no number');
});
