// The etcd client remembers the TLS session each member (host and port) last offered, so that the next connection
// resumes it (hooks/etcdcommon/etcd.ts tlsOptions): at most MAX_KNOWN_PREFIXES (1024) sessions per client, and the
// server keeps a client per TLS identity (64, hooks/etcdcommon/index.ts etcdClients), for the life of the process.
// The count is bounded, the bytes are not: a session as Node hands it over carries the member's certificate, which
// the member chooses (its image is the tenant's spec.repository, its certificate the tenant's CA signs), up to the
// 32 KiB the chain check lets through, and TLS 1.2 lets a member's ticket add up to 64 KiB more. A tenant whose members
// present a ~27 KiB certificate leaves ~27 MiB in one client after 1,024 member names, out of the JavaScript heap
// (Buffers: --max-old-space-size does not cap them), never given back while the server runs; 64 identities could keep
// 64 times that. The Deployment allows 512 MiB, and the worst requests measured already peak at 345.0 MiB
// (docs/operating.md): what the sessions of all 64 clients may keep must fit in the rest, ~2 MiB a client
// (MAX_SESSION_BYTES), the oldest forgotten first, the count bound kept, and a session too large not kept at all.
import { createServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import t from 'tap';
import {
  HttpEtcdClient,
  MAX_KNOWN_PREFIXES,
  MAX_SESSION_BYTES,
  MAX_SESSION_SIZE,
  Sessions,
} from '../../hooks/etcdcommon/etcd.js';
import { Pki } from '../fixtures/pki.js';

const pki = new Pki();
/** The member's certificate: its names, and 100 more that make it ~8 KiB of PEM (a size the chain check accepts). */
const padding = Array.from({ length: 100 }, (_, i) => `DNS:n${i}.a-long-name-that-fills-the-certificate.example`);
const server = pki.issue('srv', 'etcd', { san: ['DNS:*.e.ns.svc', 'IP:127.0.0.1', ...padding].join(',') });
const client = pki.issue('client', 'operator');
const tls = { ca: pki.read('ca.crt').toString(), cert: client.cert.toString(), key: client.key.toString() };

async function member(t: { teardown(fn: () => void): void }): Promise<number> {
  const s: HttpsServer = createServer(
    { key: server.key, cert: server.cert, ca: pki.read('ca.crt'), requestCert: true, rejectUnauthorized: true },
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"health":"true"}');
    },
  );
  const sockets = new Set<Socket>();
  s.on('connection', (c: Socket) => {
    sockets.add(c);
    c.on('close', () => sockets.delete(c));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const c of sockets) c.destroy();
    s.close();
  });
  return (s.address() as AddressInfo).port;
}

/** The most bytes of sessions one client may keep: the 64 clients' together within ~128 MiB. */
const MAX_SESSION_BYTES_PER_CLIENT = 2 * 1024 * 1024;

t.test("the TLS sessions a client remembers of a tenant's members are bounded in bytes", async (t) => {
  t.ok(server.cert.length > 6_000, `the member's certificate is ${server.cert.length} bytes of PEM`);
  const port = await member(t);
  const etcd = new HttpEtcdClient({ tls, dnsLookup: async () => ({ address: '127.0.0.1', family: 4 }) });
  const view = () => etcd.scoped({ signal: new AbortController().signal, allows: () => true, lookupName: (h) => h });
  // Member names of the tenant's clusters, as many as the client remembers: e-<i>.e.ns.svc, each a host of its own.
  for (let i = 0; i < MAX_KNOWN_PREFIXES; i += 32) {
    await Promise.all(Array.from({ length: 32 }, (_, j) => view().health(`https://e-${i + j}.e.ns.svc:${port}`)));
  }
  // The last member dialled once more on its own: one of 32 handshakes at once may run past the call's deadline on a
  // loaded machine, and a failed handshake forgets its session (what this test reads is the bound, not the deadline).
  const last = `e-${MAX_KNOWN_PREFIXES - 1}.e.ns.svc:${port}`;
  await view().health(`https://${last}`);
  // What the client keeps (its private memory of sessions, read as it is: nothing else measures it alone).
  const sessions = (etcd as unknown as { sessions: Map<string, Buffer> }).sessions;
  const bytes = [...sessions.values()].reduce((sum, b) => sum + b.length, 0);
  t.comment(
    `${sessions.size} sessions remembered, ${(bytes / 1048576).toFixed(1)} MiB; handshakes ${JSON.stringify(etcd.handshakes)}`,
  );
  t.ok(sessions.size > 0, 'the members offered sessions, and the client kept them');
  t.ok(sessions.size < MAX_KNOWN_PREFIXES, `fewer sessions kept than member names dialled (${sessions.size})`);
  t.ok(
    bytes <= MAX_SESSION_BYTES_PER_CLIENT,
    `the sessions kept weigh at most ${MAX_SESSION_BYTES_PER_CLIENT / 1048576} MiB (${(bytes / 1048576).toFixed(1)} MiB)`,
  );
  t.equal((sessions as Sessions).bytes, bytes, 'the bytes the client counts are the bytes it keeps');
  // The newest are kept, the oldest forgotten: the last member dialled resumes its session, the first does not.
  t.ok(sessions.has(last), 'the session of the member dialled last is kept');
  t.notOk(sessions.has(`e-0.e.ns.svc:${port}`), 'the session of the member dialled first is forgotten');
  const before = { ...etcd.handshakes };
  await view().health(`https://${last}`);
  t.equal(etcd.handshakes.full, before.full, 'the member dialled last costs no full handshake');
  t.ok(etcd.handshakes.resumed > before.resumed, 'the member dialled last resumes its session');
});

t.test('the sessions kept: oldest forgotten first, by count and by bytes; one too large is not kept', async (t) => {
  const s = new Sessions();
  const kib = (n: number, fill = 1) => Buffer.alloc(n * 1024, fill);
  for (let i = 0; i < MAX_KNOWN_PREFIXES + 10; i++) s.remember(`m${i}:2379`, Buffer.alloc(16));
  t.equal(s.size, MAX_KNOWN_PREFIXES, 'at most MAX_KNOWN_PREFIXES sessions');
  t.notOk(s.has('m9:2379'), 'the oldest forgotten');
  t.ok(s.has(`m${MAX_KNOWN_PREFIXES + 9}:2379`), 'the newest kept');
  t.equal(s.bytes, 16 * MAX_KNOWN_PREFIXES, 'their bytes counted');
  s.clear();
  t.equal(s.bytes, 0, 'none kept, no bytes');
  const each = 100;
  const fit = Math.floor(MAX_SESSION_BYTES / (each * 1024));
  for (let i = 0; i < fit + 5; i++) s.remember(`b${i}:2379`, kib(each));
  t.equal(s.size, fit, `sessions of ${each} KiB: as many as fit in MAX_SESSION_BYTES (${fit})`);
  t.ok(s.bytes <= MAX_SESSION_BYTES, 'within MAX_SESSION_BYTES');
  t.notOk(s.has('b4:2379'), 'the oldest forgotten');
  t.ok(s.has(`b${fit + 4}:2379`), 'the newest kept');
  // A member's newer session replaces its older one (and is the newest).
  s.remember('b5:2379', kib(1, 2));
  t.equal(s.get('b5:2379')!.length, 1024, "a member's newer session replaces its older one");
  t.equal(s.bytes, (fit - 1) * each * 1024 + 1024, 'the older one no longer counted');
  // A session larger than MAX_SESSION_SIZE is not kept, and the member's last one is forgotten.
  s.remember('b5:2379', kib(MAX_SESSION_SIZE / 1024 + 1));
  t.notOk(s.has('b5:2379'), 'a session larger than MAX_SESSION_SIZE is not kept');
  t.equal(s.size, fit - 1, 'nothing else forgotten for it');
  t.equal(s.bytes, (fit - 1) * each * 1024, 'its bytes not counted');
  s.delete(`b${fit + 4}:2379`);
  t.equal(s.bytes, (fit - 2) * each * 1024, 'a session forgotten (a failed handshake) is no longer counted');
});
