// The member certificate chain check (lib/tls-inspect.ts ChainReader) reads the server's TLS 1.2 handshake records
// until the Certificate message. A TLS 1.2 client (OpenSSL) reads past a warning alert during the handshake (up to a
// few in a row): a member (tenant A's image) that sends one warning alert before its ServerHello made the inspector
// stop reading and let everything through, and OpenSSL verified A's chain of RSA certificates with 3,071-bit exponents
// on the server's one thread as before the check (test/etcdcluster/member-certificate-chain-bound.test.ts: ~440 ms a
// handshake, 1,044-1,085 ms through the alert, measured 2026-11-30; tenant B's healthy etcd read as down beside A's
// syncs). Now the reading goes on past warning alerts, and the chain is refused by the check, with or without them,
// and under a CA of an ordinary key too (the operatorSecret's CA passes the server's check of its key; the chain's
// intermediates carry the big exponents). The CPU each call took is printed, not asserted.
//
// Stand-in: A's member as that suite runs it (a child process serving the hostile chain, never resuming), behind a
// proxy that writes one warning alert record (user_canceled, level 1) to the hook server before the member's first
// byte, as A's image would.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import t from 'tap';
import { etcdAt, membersOfA } from '../fixtures/etcd-tenant-tls.js';
import { Pki } from '../fixtures/pki.js';
import { CHAIN, writeHostileChain } from '../fixtures/hostile-chain.js';

const pki = new Pki();
const client = pki.issue('client', 'tenant-a');
writeHostileChain(pki);

/**
 * The same chain under a CA of an ordinary key (o-ca.crt, RSA 2048: the operatorSecret's CA passes the server's check
 * of its keys), its first intermediate signed by that CA, the rest and the leaf by the big-exponent key as before:
 * ochain.pem. Verifying it still takes every big-exponent key but the CA's.
 */
function writeChainUnderOrdinaryCa(): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: 'pipe' });
  openssl('genrsa', '-out', 'o-ca.key', '2048');
  openssl(
    'req',
    '-x509',
    '-new',
    '-key',
    'o-ca.key',
    '-subj',
    '/CN=tenant-a-ordinary-ca',
    '-days',
    '1',
    '-out',
    'o-ca.crt',
  );
  let issuer = 'o-ca';
  let issuerKey = 'o-ca.key';
  for (let i = 1; i <= CHAIN + 1; i++) {
    const name = i > CHAIN ? 'oleaf' : `o${i}`;
    openssl('req', '-new', '-key', 'big-e.key', '-subj', `/CN=${name}`, '-out', `${name}.csr`);
    const ext = i > CHAIN ? 'leaf.ext' : 'ca.ext';
    const args = ['-CA', `${issuer}.crt`, '-CAkey', issuerKey, '-set_serial', String(1000 + i), '-days', '1'];
    openssl('x509', '-req', '-in', `${name}.csr`, ...args, '-extfile', ext, '-out', `${name}.crt`);
    issuer = name;
    issuerKey = 'big-e.key';
  }
  writeFileSync(
    pki.path('ochain.pem'),
    Buffer.concat([pki.read('oleaf.crt'), ...Array.from({ length: CHAIN }, (_, i) => pki.read(`o${CHAIN - i}.crt`))]),
  );
}
writeChainUnderOrdinaryCa();

/** A TLS 1.2 warning alert record: type 21, version 3.3, length 2, level 1 (warning), user_canceled (90). */
const WARNING_ALERT = Buffer.from([21, 3, 3, 0, 2, 1, 90]);

/** A proxy (on a free port, returned) to the member on `member` that sends `first` to the client before the member's bytes. */
async function alertingProxy(t: { teardown(fn: () => void): void }, member: number, first: Buffer): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((down) => {
    sockets.add(down);
    down.write(first);
    const up = connect(member, '127.0.0.1');
    sockets.add(up);
    down.pipe(up).pipe(down);
    const end = () => (down.destroy(), up.destroy());
    down.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}

/** CPU time of this process for one health call through `port`, and what the call said. */
async function healthCpu(port: number, ca = 'a-ca.crt'): Promise<{ ms: number; said: string }> {
  const etcd = etcdAt(() => port, {
    timeoutMs: 60_000,
    tls: { ca: pki.read(ca).toString(), cert: client.cert.toString(), key: client.key.toString() },
  });
  const cpu = process.cpuUsage();
  const health = await etcd.health('https://a-0.a.ns-a.svc:2379');
  const used = process.cpuUsage(cpu);
  return { ms: (used.user + used.system) / 1000, said: String(health.error ?? 'healthy').slice(0, 200) };
}

t.test("a member's chain is refused unverified whatever warning alerts its handshake carries", async (t) => {
  const member = await membersOfA(t, pki.path('big-e.key'), pki.path('chain.pem'), 'a-noresume');
  const plain = await healthCpu(await alertingProxy(t, member, Buffer.alloc(0)));
  const alerted = await healthCpu(await alertingProxy(t, member, WARNING_ALERT));
  t.comment(`without the alert: ${plain.ms.toFixed(1)} ms of CPU (${plain.said})`);
  t.comment(`with one warning alert first: ${alerted.ms.toFixed(1)} ms of CPU (${alerted.said})`);
  t.match(plain.said, /certificate chain/i, 'without the alert the chain is refused by the check');
  t.match(alerted.said, /certificate chain/i, 'with a warning alert before it, the chain is refused by the check');
  // The chain under a CA of an ordinary key, which the operatorSecret may hold (the server checks the CA's key).
  const ordinaryMember = await membersOfA(t, pki.path('big-e.key'), pki.path('ochain.pem'), 'a-noresume');
  const ordinary = await healthCpu(await alertingProxy(t, ordinaryMember, WARNING_ALERT), 'o-ca.crt');
  t.comment(
    `under an ordinary CA, with one warning alert first: ${ordinary.ms.toFixed(1)} ms of CPU (${ordinary.said})`,
  );
  t.match(ordinary.said, /certificate chain/i, 'under an ordinary CA too, the chain is refused by the check');
});
