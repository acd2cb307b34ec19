// What a TLS handshake with a member costs the hook server, and whose calls wait when a namespace's members are
// slow or costly: the session a member offered is resumed (no signature with the client key), the client offers
// only elliptic-curve key exchange (a member's finite-field prime is its choice, and its cost the server's), and a
// namespace's calls in flight are capped (TENANT_MAX_CALLS) apart from the server's.
import { createServer as createHttpServer } from 'node:http';
import type { ServerOptions } from 'node:https';
import type { Socket } from 'node:net';
import { constants } from 'node:crypto';
import t from 'tap';
import { HttpEtcdClient, Limiter, Shares, TENANT_MAX_CALLS, SERVER_MAX_CALLS } from '../../hooks/etcdcommon/etcd.js';
import { etcdClients } from '../../hooks/etcdcommon/index.js';
import { dialScope } from '../../hooks/etcdcluster/identity.js';
import { listening, type Teardown, tlsHealthMember } from '../fixtures/net.js';
import { Pki } from '../fixtures/pki.js';

const pki = new Pki();
const server = pki.issue('srv', 'etcd', { san: 'DNS:*.e.ns.svc,DNS:localhost,IP:127.0.0.1' });
const tls = pki.operatorTls();

/** A member serving TLS that asks for the client's certificate, with `options` of its own. */
const member = (t: Teardown, options: ServerOptions = {}): Promise<number> =>
  tlsHealthMember(t, { key: server.key, cert: server.cert, ca: pki.read('ca.crt') }, options);

const at = (port: number) => (url: string) => {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
};

/** A sync's view of a client with the operator's certificate: it pins addresses (its own connections). */
function syncView(etcd: HttpEtcdClient): HttpEtcdClient {
  return etcd.scoped({ signal: new AbortController().signal, allows: () => true, lookupName: (h) => h });
}
const loopback = async () => ({ address: '127.0.0.1', family: 4 });

t.test('the session a member offered is resumed: the client key signs once per member, not per call', async (t) => {
  const port = await member(t);
  const etcd = new HttpEtcdClient({ tls, dnsLookup: loopback });
  for (let i = 0; i < 4; i++) {
    const h = await syncView(etcd).health(`https://e-0.e.ns.svc:${port}`);
    t.equal(h.healthy, true, `sync ${i + 1}: the member answered`);
  }
  t.comment(JSON.stringify(etcd.handshakes));
  t.equal(etcd.handshakes.full, 3, 'the first sync (three calls at once) made the only full handshakes');
  t.equal(etcd.handshakes.resumed, 9, 'every later connection resumed a session');
});

t.test('a member that never resumes costs a full handshake each time, and still answers', async (t) => {
  // TLS 1.2 without tickets or a session cache: nothing to resume.
  const port = await member(t, { maxVersion: 'TLSv1.2', secureOptions: constants.SSL_OP_NO_TICKET });
  const etcd = new HttpEtcdClient({ tls, dnsLookup: loopback });
  for (let i = 0; i < 2; i++)
    t.equal((await syncView(etcd).health(`https://e-0.e.ns.svc:${port}`)).healthy, true, 'answered');
  t.comment(JSON.stringify(etcd.handshakes));
  t.equal(etcd.handshakes.full, 6, 'six connections, each in full');
});

t.test('a member that offers only finite-field Diffie-Hellman is not answered', async (t) => {
  // TLS 1.2 with a DHE suite only (the member picks the prime), and TLS 1.3 with finite-field groups only.
  const dhe = await member(t, { maxVersion: 'TLSv1.2', ciphers: 'DHE-RSA-AES128-GCM-SHA256', dhparam: 'auto' });
  const ffdhe = await member(t, { minVersion: 'TLSv1.3', ecdhCurve: 'ffdhe2048:ffdhe8192' });
  const old = await member(t, { maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
  for (const [what, port] of [
    ['DHE', dhe],
    ['ffdhe', ffdhe],
    ['TLS 1.1', old],
  ] as const) {
    const etcd = new HttpEtcdClient({ tls, resolve: at(port) });
    const h = await etcd.health('https://e-0.e.ns.svc:2379');
    t.equal(h.healthy, false, `${what}: no handshake (${h.error})`);
    t.equal(etcd.handshakes.full + etcd.handshakes.resumed, 0, `${what}: none completed`);
  }
  // The same member offering ECDHE is answered: the refusal is the key exchange's.
  const ecdhe = await member(t, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' });
  t.equal((await new HttpEtcdClient({ tls, resolve: at(ecdhe) }).health('https://e-0.e.ns.svc:2379')).healthy, true);
});

/** A plain member that never answers (its calls time out), counting connections open at once. */
async function silent(t: Teardown) {
  const seen = { open: 0, peak: 0 };
  const s = createHttpServer(() => {});
  s.on('connection', (c: Socket) => {
    seen.peak = Math.max(seen.peak, ++seen.open);
    c.on('close', () => seen.open--);
  });
  return { port: await listening(t, s), seen };
}

/** A plain healthy member. */
async function healthy(t: Teardown): Promise<number> {
  const s = createHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"health":"true"}');
  });
  return listening(t, s);
}

t.test("a namespace's calls are capped apart from another's: B is answered while A's members hang", async (t) => {
  const slow = await silent(t);
  const fast = await healthy(t);
  const clients = etcdClients();
  const shared = clients.etcd() as HttpEtcdClient;
  t.equal(shared.tenants.max, TENANT_MAX_CALLS);
  t.ok(TENANT_MAX_CALLS < SERVER_MAX_CALLS / 2, 'a namespace takes less than half the server');
  const view = (ns: string) =>
    new HttpEtcdClient({
      limiter: shared.limiter,
      tenants: shared.tenants,
      timeoutMs: 1500,
      dnsLookup: async () => ({ address: '127.0.0.1', family: 4 }),
    }).scoped({
      ...dialScope(
        { name: 'e', namespace: ns, domain: '', peerTLS: false, clientTLS: false },
        {},
        new AbortController().signal,
      ),
    });
  // Tenant A: four syncs of 9 members each (36 calls each at once), every member silent.
  const url = (ns: string, port: number, i: number) => `http://e-${i}.e.${ns}.svc:${port}`;
  const a = Array.from({ length: 4 }, () => view('ns-a'));
  const began = Date.now();
  const aCalls = a.flatMap((v) => Array.from({ length: 9 }, (_, i) => v.health(url('ns-a', slow.port, i))));
  await new Promise((r) => setTimeout(r, 100));
  const b = view('ns-b');
  const bHealth = await b.health(url('ns-b', fast, 0));
  const bTook = Date.now() - began;
  t.equal(bHealth.healthy, true, `B answered in ${bTook} ms while A's calls hang`);
  t.ok(bTook < 1000, "B did not wait for A's calls to time out");
  t.ok(slow.seen.peak <= TENANT_MAX_CALLS, `A had at most ${TENANT_MAX_CALLS} connections open (${slow.seen.peak})`);
  await Promise.all(aCalls);
  // A health read answers on its first failure; its other calls still run (or wait their turn) a while.
  for (let i = 0; i < 100 && shared.tenants.size > 0; i++) await new Promise((r) => setTimeout(r, 100));
  t.equal(shared.tenants.size, 0, 'no share kept once idle');
});

t.test('Shares: one cap per key, forgotten when idle', async (t) => {
  const shares = new Shares(2);
  let open = 0;
  let peak = 0;
  const task = async () => {
    peak = Math.max(peak, ++open);
    await new Promise((r) => setTimeout(r, 10));
    open--;
  };
  await Promise.all([...Array.from({ length: 6 }, () => shares.run('a', task)), shares.run('b', task)]);
  t.equal(peak, 3, "two of a's at once, and b's beside them");
  t.equal(shares.size, 0);
  const limiter = new Limiter(1);
  t.equal(limiter.max, 1);
});
