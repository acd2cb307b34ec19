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
import { execFileSync, spawn } from 'node:child_process';
import { createPrivateKey as createPrivateKeyOf } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';

type Tap = any;
import { HttpEtcdClient, type TlsFiles } from '../hooks/etcdcommon/etcd.js';
import { clusterIdOf, initialMemberId } from '../hooks/etcdcommon/identity.js';
import { etcdcluster } from '../hooks/etcdcluster/index.js';
import { hookContext } from './fixtures/app.js';
import { Pki } from './fixtures/pki.js';
import { objectMap } from './fixtures/requests.js';

/** A 15360-bit RSA key (made once with openssl genpkey: making one takes minutes). A test key, of no one. */
const BIG_KEY = join(import.meta.dirname, 'fixtures', 'tenant-tls', 'tenant-a-client-15360.key');

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

/** Tenant B's cluster `b` in `ns-b`: three members, IDs and cluster ID as etcd computes them from its UID. */
const B_UID = 'uid-b';
const bPeer = (i: number) => `http://b-${i}.b.ns-b.svc:2380`;
const bIds = [0, 1, 2].map((i) => initialMemberId([bPeer(i)], B_UID));
const bCluster = clusterIdOf(bIds);

/**
 * The stand-ins, each tenant's in its own process (as their pods are elsewhere): `a`, A's members (one TLS server
 * that asks for a client certificate and answers `{}`); `b`, B's members (three
 * plain servers answering as B's healthy etcd). Prints the ports.
 */
const CHILD = `
const http = require('node:http'), https = require('node:https'), fs = require('node:fs');
const [role, key, cert, clusterId, ...ids] = process.argv.slice(1);
const listen = (s) => new Promise((r) => s.listen(0, '127.0.0.1', () => r(s.address().port)));
(async () => {
  if (role === 'a' || role === 'a-noresume') {
    // a-noresume: TLS 1.2 without tickets or a session cache, so that every handshake is made in full.
    const never = role === 'a-noresume' ? { maxVersion: 'TLSv1.2', secureOptions: require('node:crypto').constants.SSL_OP_NO_TICKET } : {};
    const a = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert), requestCert: true, rejectUnauthorized: false, ...never },
      (req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{}'); });
    return console.log(JSON.stringify([await listen(a)]));
  }
  const members = ids.map((id, i) => ({ ID: id, name: 'b-' + i, peerURLs: ['http://b-' + i + '.b.ns-b.svc:2380'], clientURLs: ['http://b-' + i + '.b.ns-b.svc:2379'] }));
  const b = ids.map((id) => http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const header = { cluster_id: clusterId, member_id: id };
    if (req.url === '/health') return res.end('{"health":"true"}');
    if (req.url === '/version') return res.end('{"etcdserver":"3.5.0","etcdcluster":"3.5.0"}');
    if (req.url.endsWith('/cluster/member/list')) return res.end(JSON.stringify({ header, members }));
    if (req.url.endsWith('/maintenance/status')) return res.end(JSON.stringify({ header, leader: ids[0], version: '3.5.0' }));
    res.end('{}');
  }));
  console.log(JSON.stringify(await Promise.all(b.map(listen))));
})();
`;

async function child(t: { teardown(fn: () => void): void }, args: string[]): Promise<number[]> {
  const proc = spawn(process.execPath, ['-e', CHILD, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => proc.kill());
  const line = await new Promise<string>((resolve) => createInterface({ input: proc.stdout }).once('line', resolve));
  return JSON.parse(line) as number[];
}

async function standIns(t: { teardown(fn: () => void): void }, role = 'a'): Promise<{ a: number; b: number[] }> {
  const [a] = await child(t, [role, pki.path('srv.key'), pki.path('srv.crt')]);
  const b = await child(t, ['b', 'none', 'none', bCluster, ...bIds]);
  return { a: a!, b };
}

const b64 = (b: Buffer) => b.toString('base64');
const pod = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, uid: `uid-${namespace}-${name}` },
  spec: { containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.0' }] },
  status: { phase: 'Running' },
});

/** Tenant A's EtcdCluster `a` (its namespace holds several; one per Metacontroller worker): 9 members over TLS. */
function tenantA(name: string, client: { cert: Buffer; key: Buffer }) {
  const secrets = [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'op', namespace: 'ns-a' },
      data: {
        'etcd-client-ca.crt': b64(pki.read('ca.crt')),
        'etcd-client.crt': b64(client.cert),
        'etcd-client.key': b64(client.key),
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'server', namespace: 'ns-a' },
      data: { 'server-ca.crt': b64(pki.read('ca.crt')), 'server.crt': b64(server.cert), 'server.key': b64(server.key) },
    },
  ];
  const pods = Array.from({ length: 9 }, (_, i) => pod(`${name}-${i}`, 'ns-a'));
  return {
    controller: {},
    parent: {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdCluster',
      metadata: { name, namespace: 'ns-a', uid: `uid-${name}`, generation: 1 },
      spec: {
        size: 9,
        version: '3.5.0',
        TLS: { static: { member: { serverSecret: 'server' }, operatorSecret: 'op' } },
      },
      status: { phase: 'Running', lastMemberIndex: 8 },
    },
    children: objectMap(pods as any, 'v1', ['Pod.v1', 'Service.v1']),
    related: objectMap(secrets as any, 'v1', ['Secret.v1']),
  };
}

/** Tenant B's EtcdCluster `b`: three members, running, its cluster ID recorded. */
const tenantB = {
  controller: {},
  parent: {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'b', namespace: 'ns-b', uid: B_UID, generation: 1 },
    spec: { size: 3, version: '3.5.0' },
    status: {
      phase: 'Running',
      lastMemberIndex: 2,
      clusterID: bCluster,
      memberList: bIds.map((id, i) => ({ name: `b-${i}`, id, healthy: true })),
    },
  },
  children: objectMap([0, 1, 2].map((i) => pod(`b-${i}`, 'ns-b')) as any, 'v1', ['Pod.v1', 'Service.v1']),
};

/** A sync as the server runs it: the real etcd client, the member names mapped to the stand-ins' ports. */
function sync(request: any, port: (host: string) => number) {
  const ctx = hookContext({
    now: new Date(),
    settings: { image: 'metaops' },
    clients: {
      etcd: (tls?: TlsFiles) =>
        new HttpEtcdClient({
          ...(tls ? { tls } : {}),
          resolve: (url) => {
            const u = new URL(url);
            u.port = String(port(u.hostname));
            u.hostname = '127.0.0.1';
            return u.toString();
          },
        }),
    },
  });
  return etcdcluster.sync(request, ctx as any) as Promise<any>;
}

const ready = (res: any) => res.status.members.ready as string[];

async function beside(t: Tap, client: { cert: Buffer; key: Buffer }, role = 'a'): Promise<void> {
  const ports = await standIns(t, role);
  const bPort = (host: string) => ports.b[Number(/^b-(\d+)\./.exec(host)![1])]!;
  const alone = await sync(tenantB, bPort);
  t.same(ready(alone), ['b-0', 'b-1', 'b-2'], 'alone, B reads its three members healthy');

  const cpu = process.cpuUsage();
  const began = Date.now();
  // A's syncs start (their handshakes under way), then B's, as a worker picks it up a moment later.
  const a = ['a', 'c', 'd', 'f'].map((name) => sync(tenantA(name, client), () => ports.a));
  await new Promise((r) => setTimeout(r, 100));
  const bBegan = Date.now();
  const b = await sync(tenantB, bPort);
  const bTook = Date.now() - bBegan;
  await Promise.all(a);
  const used = process.cpuUsage(cpu);
  t.comment(
    `with four of A's clusters synced beside it: ${Date.now() - began} ms (B's sync ${bTook} ms), ` +
      `${Math.round((used.user + used.system) / 1000)} ms of CPU; B ready: ${JSON.stringify(ready(b))}; ` +
      `Available: ${JSON.stringify(b.status.conditions.find((c: any) => c.type === 'Available'))}`,
  );
  t.same(ready(b), ['b-0', 'b-1', 'b-2'], "B's members are still read as healthy");
  t.equal(b.status.conditions.find((c: any) => c.type === 'Available')?.status, 'True', 'B is still Available');
}

t.test("a tenant's client key does not make another tenant's healthy etcd read as down", async (t) => {
  await beside(t, big);
});

t.test('the client key a tenant gives the hook server is bounded like every other field', async (t) => {
  // What the server's check of TLS.static.operatorSecret says of a 15360-bit RSA key.
  const { checkSecret } = await import('../hooks/etcdcluster/tls.js');
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
  t.equal(res.status.conditions.find((c: any) => c.type === 'Available')?.status, 'Unknown', 'not reported down');
});

t.test('the client keys the hook server signs with: RSA 2048 to 4096 bits, P-256, P-384, P-521, Ed25519', async (t) => {
  const { clientKeyProblem } = await import('../hooks/etcdcluster/tls.js');
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
