// Tenant A writes its EtcdCluster's TLS.static.operatorSecret: the client key the hook server signs with in every
// TLS handshake to A's members (about 36 per sync of 9 members, no session reuse). The key's size is A's choice: an
// RSA key of 15360 bits costs ~190 ms of the server's one JavaScript thread per handshake (RSA signing is done where
// the TLS handshake runs), and A's members (A's image, spec.repository) ask for the client certificate. Tenant B's
// EtcdCluster, synced at the same time (Metacontroller runs several workers), shares that thread: its calls to its
// own healthy etcd wait behind A's signatures until their deadline (CALL_TIMEOUT_MS), and B is read as down.
// Measured here (2 cores, shared): with A's key of 15360 bits, 8-11 s of this process's CPU for A's four syncs,
// B's sync 15-40 s, B QuorumLost; the same scenario with an RSA 2048 (4096) key: ~0.4 (0.7) s of CPU, B's sync
// 0.5-1.5 s, B healthy.
//
// Both tenants' etcd run in a child process, so that the only work on this process's thread is the hook's.
import { execFileSync } from 'node:child_process';
import { createPrivateKey as createPrivateKeyOf } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { available, bBesideA, membersOfA, syncAt as sync, tenantA as tenantAOf } from '../fixtures/etcd-tenant-tls.js';
import { Pki } from '../fixtures/pki.js';
import { objectMap } from '../fixtures/requests.js';

/** A 15360-bit RSA key (made once with openssl genpkey: making one takes minutes). A test key, of no one. */
const BIG_KEY = join(import.meta.dirname, '..', 'fixtures', 'tenant-tls', 'tenant-a-client-15360.key');

const pki = new Pki();
const server = pki.issue('srv', 'etcd', { san: 'DNS:*.a.ns-a.svc,IP:127.0.0.1' });
copyFileSync(BIG_KEY, pki.path('big.key'));
execFileSync('openssl', ['req', '-new', '-key', 'big.key', '-out', 'big.csr', '-subj', '/CN=tenant-a'], {
  cwd: pki.dir,
  stdio: 'pipe',
});
execFileSync(
  'openssl',
  ['x509', '-req', '-in', 'big.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-out', 'big.crt', '-days', '1'],
  { cwd: pki.dir, stdio: 'pipe' },
);

/** A's client certificate, for the key of 15360 bits. */
const big = { cert: pki.read('big.crt'), key: pki.read('big.key') };

/** A client certificate for a key at the bound: RSA 4096. */
execFileSync(
  'openssl',
  ['req', '-newkey', 'rsa:4096', '-nodes', '-keyout', 'k4096.key', '-out', 'k4096.csr', '-subj', '/CN=tenant-a'],
  {
    cwd: pki.dir,
    stdio: 'pipe',
  },
);
execFileSync(
  'openssl',
  ['x509', '-req', '-in', 'k4096.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-out', 'k4096.crt', '-days', '1'],
  { cwd: pki.dir, stdio: 'pipe' },
);
const atBound = { cert: pki.read('k4096.crt'), key: pki.read('k4096.key') };

const b64 = (b: Buffer) => b.toString('base64');

/** Tenant A's EtcdCluster `name`, the hook server signing with `client`. */
const tenantA = (name: string, client: { cert: Buffer; key: Buffer }) =>
  tenantAOf(name, { clientCa: pki.read('ca.crt'), client, serverCa: pki.read('ca.crt'), server });

async function beside(t: any, client: { cert: Buffer; key: Buffer }, role = 'a'): Promise<void> {
  const aPort = await membersOfA(t, pki.path('srv.key'), pki.path('srv.crt'), role);
  await bBesideA(t, () => ['a', 'c', 'd', 'f'].map((name) => sync(tenantA(name, client), () => aPort)));
}

t.test("a tenant's client key does not make another tenant's healthy etcd read as down", async (t) => {
  await beside(t, big);
});

t.test('the client key a tenant gives the hook server is bounded like every other field', async (t) => {
  // What the server's check of TLS.static.operatorSecret says of a 15360-bit RSA key.
  const { checkSecret } = await import('../../hooks/etcdcluster/tls.js');
  const data = {
    'etcd-client-ca.crt': b64(pki.read('ca.crt')),
    'etcd-client.crt': b64(pki.read('big.crt')),
    'etcd-client.key': b64(readFileSync(pki.path('big.key'))),
  };
  const related = objectMap(
    [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'op', namespace: 'ns-a' }, data }] as any,
    'v1',
    ['Secret.v1'],
  );
  const check = checkSecret(related, 'ns-a', 'operatorSecret', 'op', new Date());
  t.ok(check.problem, `a 15360-bit client key is refused before it is used (${check.problem ?? 'accepted'})`);
});

t.test(
  "with a client key at the bound (RSA 4096) and members that never resume a session, another tenant's etcd still reads healthy",
  async (t) => {
    await beside(t, atBound, 'a-noresume');
  },
);

t.test("a refused client key is said in the cluster's conditions, and nothing is dialled with it", async (t) => {
  let dialled = 0;
  const res = await sync(tenantA('a', big), () => {
    dialled++;
    return 1;
  });
  t.equal(dialled, 0, 'no member was dialled');
  const synced = res.status.conditions.find((c: any) => c.type === 'Synced');
  t.match(synced, { status: 'False', reason: 'TLSFailed' }, 'Synced=False TLSFailed');
  t.match(synced.message, 'Secret ns-a/op (TLS.static.operatorSecret): etcd-client.key is an RSA key of 15360 bits');
  t.match(synced.message, 'RSA keys of 2048 to 4096 bits, EC keys on P-256, P-384 or P-521, and Ed25519 keys');
  t.match(synced.message, 'no change is made until this is fixed');
  t.equal(available(res)?.status, 'Unknown', 'not reported down');
});

t.test('the client keys the hook server signs with: RSA 2048 to 4096 bits, P-256, P-384, P-521, Ed25519', async (t) => {
  const { clientKeyProblem } = await import('../../hooks/etcdcluster/tls.js');
  const { generateKeyPairSync, createPrivateKey } = await import('node:crypto');
  const rsa = (bits: number) => generateKeyPairSync('rsa', { modulusLength: bits }).privateKey;
  const ec = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve }).privateKey;
  for (const [what, key] of [
    ['RSA 2048', rsa(2048)],
    ['RSA 4096', atBoundKey()],
    ['RSA-PSS 2048', generateKeyPairSync('rsa-pss', { modulusLength: 2048 }).privateKey],
    ['P-256', ec('prime256v1')],
    ['P-384', ec('secp384r1')],
    ['P-521', ec('secp521r1')],
    ['Ed25519', generateKeyPairSync('ed25519').privateKey],
  ] as const)
    t.equal(clientKeyProblem(key), undefined, `${what} is taken`);
  for (const [what, key, said] of [
    ['RSA 1024', rsa(1024), 'an RSA key of 1024 bits'],
    ['RSA 4104', rsa(4104), 'an RSA key of 4104 bits'],
    ['RSA 15360', createPrivateKey(big.key), 'an RSA key of 15360 bits'],
    ['secp256k1', ec('secp256k1'), 'an EC key on secp256k1'],
    ['Ed448', generateKeyPairSync('ed448').privateKey, 'a key of type ed448'],
    ['X25519', generateKeyPairSync('x25519').privateKey, 'a key of type x25519'],
  ] as const) {
    const problem = clientKeyProblem(key);
    t.match(problem, said, `${what} is refused: ${problem}`);
    t.match(problem, 'the hook server signs with it in every TLS handshake with a member');
  }
});

function atBoundKey() {
  return createPrivateKeyOf(atBound.key);
}
