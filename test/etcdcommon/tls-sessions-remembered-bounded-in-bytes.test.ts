// The etcd client remembers the TLS session each member (host and port) last offered, so that the next connection
// resumes it (hooks/etcdcommon/etcd.ts tlsOptions): at most MAX_KNOWN_PREFIXES (1024) sessions per client, and the
// server keeps a client per TLS identity (64, hooks/etcdcommon/index.ts etcdClients), for the life of the process.
// The count is bounded, the bytes are not: a session as Node hands it over carries the member's certificate, which
// the member chooses (its image is the tenant's spec.repository, its certificate the tenant's CA signs), up to the
// 32 KiB the chain check lets through, and TLS 1.2 lets a member's ticket add up to 64 KiB more. A tenant whose members
// present a ~27 KiB certificate leaves ~27 MiB in one client after 1,024 member names, out of the JavaScript heap
// (Buffers: --max-old-space-size does not cap them), never given back while the server runs; 64 identities could keep
// 64 times that. The Deployment allows 512 MiB, and the worst request measured already peaks at 341.5 MiB
// (docs/operating.md): what the sessions of all 64 clients may keep must fit in the rest, ~2 MiB a client.
import t from 'tap';
import { HttpEtcdClient, MAX_KNOWN_PREFIXES } from '../../hooks/etcdcommon/etcd.js';
import { type Teardown, tlsHealthMember } from '../fixtures/net.js';
import { Pki } from '../fixtures/pki.js';

// Kept as a todo until fixed (found by an independent attack, 2026-11-27).
const GAP =
  "open (issue 29): the etcd client's remembered TLS sessions are bounded in number, not in bytes (each carries the member's certificate)";

const pki = new Pki();
/** The member's certificate: its names, and 100 more that make it ~8 KiB of PEM (a size the chain check accepts). */
const padding = Array.from({ length: 100 }, (_, i) => `DNS:n${i}.a-long-name-that-fills-the-certificate.example`);
const server = pki.issue('srv', 'etcd', { san: ['DNS:*.e.ns.svc', 'IP:127.0.0.1', ...padding].join(',') });
const tls = pki.operatorTls();

const member = (t: Teardown): Promise<number> =>
  tlsHealthMember(t, { key: server.key, cert: server.cert, ca: pki.read('ca.crt') });

/** The most bytes of sessions one client may keep: the 64 clients' together within ~128 MiB. */
const MAX_SESSION_BYTES_PER_CLIENT = 2 * 1024 * 1024;

t.test("the TLS sessions a client remembers of a tenant's members are bounded in bytes", { todo: GAP }, async (t) => {
  t.ok(server.cert.length > 6_000, `the member's certificate is ${server.cert.length} bytes of PEM`);
  const port = await member(t);
  const etcd = new HttpEtcdClient({ tls, dnsLookup: async () => ({ address: '127.0.0.1', family: 4 }) });
  const view = () => etcd.scoped({ signal: new AbortController().signal, allows: () => true, lookupName: (h) => h });
  // Member names of the tenant's clusters, as many as the client remembers: e-<i>.e.ns.svc, each a host of its own.
  for (let i = 0; i < MAX_KNOWN_PREFIXES; i += 32) {
    await Promise.all(Array.from({ length: 32 }, (_, j) => view().health(`https://e-${i + j}.e.ns.svc:${port}`)));
  }
  // What the client keeps (its private memory of sessions, read as it is: nothing else measures it alone).
  const sessions = (etcd as unknown as { sessions: Map<string, Buffer> }).sessions;
  const bytes = [...sessions.values()].reduce((sum, b) => sum + b.length, 0);
  t.comment(
    `${sessions.size} sessions remembered, ${(bytes / 1048576).toFixed(1)} MiB; handshakes ${JSON.stringify(etcd.handshakes)}`,
  );
  t.ok(sessions.size > 0, 'the members offered sessions, and the client kept them');
  t.ok(
    bytes <= MAX_SESSION_BYTES_PER_CLIENT,
    `the sessions kept weigh at most ${MAX_SESSION_BYTES_PER_CLIENT / 1048576} MiB (${(bytes / 1048576).toFixed(1)} MiB)`,
  );
});
