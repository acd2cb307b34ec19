// Tenant A writes its EtcdCluster's TLS.static.operatorSecret, whose `etcd-client-ca.crt` is the CA the hook server
// trusts for A's members, and runs A's image in A's members (spec.repository): A chooses the certificate chain every
// member presents to the hook server in every TLS handshake. The client key is bounded (etcd-client-key-bound), the
// chain is not: OpenSSL verifies every signature of it on the server's one JavaScript thread. An RSA public key of
// 3072 bits may carry a public exponent of 3071 bits (OpenSSL limits the exponent to 64 bits only above 3072 bits), so
// each verification is a full modular exponentiation (~6 ms here, not ~0.05 ms); a chain of 70 such certificates fits
// in the 100 KB a TLS client accepts and costs ~440 ms of the thread per handshake (measured with Node 26 on this
// machine). A's members refuse session resumption, so every call of every sync pays it again, and tenant B's
// EtcdCluster, synced at the same time, waits behind it: B's healthy members are read as down.
//
// Both tenants' etcd run in a child process, so that the only work on this process's thread is the hook's. The first
// test shows the effect (measured on this machine at a load below its cores: one of A's syncs, ~16 s of this thread's
// CPU, B's sync ~24 s and B QuorumLost); on a saturated machine A's member process is too slow to send its chain
// within a call's 1.5 s deadline and the handshakes are abandoned unverified, so the second test measures the cost of
// one handshake itself, against an ordinary one of the same run (~1.3 s of CPU for a health read, ~9 ms ordinarily).
import { execFileSync } from 'node:child_process';
import { createPrivateKey, generatePrimeSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import t from 'tap';
import { bBesideA, etcdAt, membersOfA, syncAt as sync, tenantA as tenantAOf } from '../fixtures/etcd-tenant-tls.js';
import { Pki } from '../fixtures/pki.js';

type Tap = { teardown(fn: () => void): void };

const pki = new Pki();
const client = pki.issue('client', 'tenant-a'); // RSA 2048: a client key well within the bound
const server = pki.issue('srv', 'etcd', { san: 'DNS:*.a.ns-a.svc,IP:127.0.0.1' });

/** An RSA key of 3072 bits whose public exponent has 3071 bits: every verification with it is a full exponentiation. */
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

/** A's CA and the chain A's members present: 70 intermediates, every key the big-exponent one. */
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

/** Tenant A's EtcdCluster (9 members over TLS): its operatorSecret's CA is A's, its client key RSA 2048. */
const tenantA = (name: string) =>
  tenantAOf(name, { clientCa: pki.read('a-ca.crt'), client, serverCa: pki.read('ca.crt'), server });

t.test("a tenant's member certificate chain does not make another tenant's healthy etcd read as down", async (t) => {
  const a = await membersOfA(t, pki.path('big-e.key'), pki.path('chain.pem'), 'a-noresume');
  await bBesideA(t, () => [sync(tenantA('a'), () => a)]);
});

/** The CPU time this process spends on one health call to a member serving `chain` with `key`, trusted by `ca`. */
async function handshakeCpu(t: Tap, key: string, chain: string, ca: Buffer): Promise<number> {
  const port = await membersOfA(t, pki.path(key), pki.path(chain), 'a-noresume');
  // A long deadline: what one handshake costs, however slowly the member (a process on a loaded machine) answers.
  const etcd = etcdAt(() => port, {
    timeoutMs: 60_000,
    tls: { ca: ca.toString(), cert: client.cert.toString(), key: client.key.toString() },
  });
  const cpu = process.cpuUsage();
  await etcd.health('https://a-0.a.ns-a.svc:2379');
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}

t.test("one TLS handshake with a tenant's member costs the server about what an ordinary one does", async (t) => {
  const ordinary = await handshakeCpu(t, 'srv.key', 'srv.crt', pki.read('ca.crt'));
  const hostile = await handshakeCpu(t, 'big-e.key', 'chain.pem', pki.read('a-ca.crt'));
  t.comment(
    `one handshake: ${ordinary.toFixed(1)} ms of CPU with an ordinary certificate, ${hostile.toFixed(1)} ms with A's chain`,
  );
  t.ok(
    hostile < Math.max(10 * ordinary, 50),
    `A's chain costs at most ten ordinary handshakes (${hostile.toFixed(1)} ms)`,
  );
});
