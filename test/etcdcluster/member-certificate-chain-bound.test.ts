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
import t from 'tap';
import { bBesideA, etcdAt, membersOfA, syncAt as sync, tenantA as tenantAOf } from '../fixtures/etcd-tenant-tls.js';
import { Pki } from '../fixtures/pki.js';
import { writeHostileChain } from '../fixtures/hostile-chain.js';

type Tap = { teardown(fn: () => void): void };

const pki = new Pki();
const client = pki.issue('client', 'tenant-a'); // RSA 2048: a client key well within the bound
const server = pki.issue('srv', 'etcd', { san: 'DNS:*.a.ns-a.svc,IP:127.0.0.1' });

writeHostileChain(pki);

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
