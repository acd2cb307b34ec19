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
import { execFileSync, spawn } from 'node:child_process';
import { createPrivateKey, generatePrimeSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import t from 'tap';
import { HttpEtcdClient, type TlsFiles } from '../hooks/etcdcommon/etcd.js';
import { clusterIdOf, initialMemberId } from '../hooks/etcdcommon/identity.js';
import { etcdcluster } from '../hooks/etcdcluster/index.js';
import { hookContext } from './fixtures/app.js';
import { Pki } from './fixtures/pki.js';
import { objectMap } from './fixtures/requests.js';

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

/** Tenant B's cluster `b` in `ns-b`: three members, IDs and cluster ID as etcd computes them from its UID. */
const B_UID = 'uid-b';
const bPeer = (i: number) => `http://b-${i}.b.ns-b.svc:2380`;
const bIds = [0, 1, 2].map((i) => initialMemberId([bPeer(i)], B_UID));
const bCluster = clusterIdOf(bIds);

/**
 * The stand-ins, each tenant's in its own process: `a`, A's members (one TLS server presenting A's chain, TLS 1.2
 * without tickets or a session cache, so that every handshake is made in full, answering `{}`); `b`, B's members
 * (three plain servers answering as B's healthy etcd). Prints the ports.
 */
const CHILD = `
const http = require('node:http'), https = require('node:https'), fs = require('node:fs');
const [role, key, cert, clusterId, ...ids] = process.argv.slice(1);
const listen = (s) => new Promise((r) => s.listen(0, '127.0.0.1', () => r(s.address().port)));
(async () => {
  if (role === 'a') {
    const never = { maxVersion: 'TLSv1.2', secureOptions: require('node:crypto').constants.SSL_OP_NO_TICKET };
    const a = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert), ...never },
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

const b64 = (b: Buffer) => b.toString('base64');
const pod = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, uid: `uid-${namespace}-${name}` },
  spec: { containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.0' }] },
  status: { phase: 'Running' },
});

/** Tenant A's EtcdCluster (9 members over TLS): its operatorSecret's CA is A's, its client key RSA 2048. */
function tenantA(name: string) {
  const secrets = [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'op', namespace: 'ns-a' },
      data: {
        'etcd-client-ca.crt': b64(pki.read('a-ca.crt')),
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

t.test("a tenant's member certificate chain does not make another tenant's healthy etcd read as down", async (t) => {
  const [a] = await child(t, ['a', pki.path('big-e.key'), pki.path('chain.pem')]);
  const b = await child(t, ['b', 'none', 'none', bCluster, ...bIds]);
  const bPort = (host: string) => b[Number(/^b-(\d+)\./.exec(host)![1])]!;
  const alone = await sync(tenantB, bPort);
  t.same(ready(alone), ['b-0', 'b-1', 'b-2'], 'alone, B reads its three members healthy');

  const cpu = process.cpuUsage();
  const began = Date.now();
  // One sync of A's cluster starts (its handshakes under way), then B's, as a worker picks it up a moment later.
  const syncsOfA = [sync(tenantA('a'), () => a!)];
  await new Promise((r) => setTimeout(r, 100));
  const bBegan = Date.now();
  const res = await sync(tenantB, bPort);
  const bTook = Date.now() - bBegan;
  await Promise.all(syncsOfA);
  const used = process.cpuUsage(cpu);
  t.comment(
    `with one of A's clusters synced beside it: ${Date.now() - began} ms (B's sync ${bTook} ms), ` +
      `${Math.round((used.user + used.system) / 1000)} ms of CPU; B ready: ${JSON.stringify(ready(res))}; ` +
      `Available: ${JSON.stringify(res.status.conditions.find((c: any) => c.type === 'Available'))}`,
  );
  t.same(ready(res), ['b-0', 'b-1', 'b-2'], "B's members are still read as healthy");
  t.equal(res.status.conditions.find((c: any) => c.type === 'Available')?.status, 'True', 'B is still Available');
});

/** The CPU time this process spends on one health call to a member serving `chain` with `key`, trusted by `ca`. */
async function handshakeCpu(t: Tap, key: string, chain: string, ca: Buffer): Promise<number> {
  const [port] = await child(t, ['a', pki.path(key), pki.path(chain)]);
  // A long deadline: what one handshake costs, however slowly the member (a process on a loaded machine) answers.
  const etcd = new HttpEtcdClient({
    timeoutMs: 60_000,
    tls: { ca: ca.toString(), cert: client.cert.toString(), key: client.key.toString() },
    resolve: (url) => {
      const u = new URL(url);
      u.port = String(port);
      u.hostname = '127.0.0.1';
      return u.toString();
    },
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
