// The hook server has one etcd client for every cluster without TLS, whatever its namespace (hooks/etcdcommon/index.ts
// etcdClients: "the plain client is one for the server and always kept"), and that client remembers which gateway
// prefix each member serves (etcd.ts prefixByEndpoint: /v3alpha for the default version 3.2.13, which would otherwise
// cost two extra calls per call, every sync). It remembers MAX_KNOWN_PREFIXES (1,024) endpoints for all namespaces
// together, the least recently used forgotten first, with no share per namespace (the TLS clients got one:
// clientcache.ts NamespaceShares). Every member of every cluster is an endpoint, and a tenant's members run its own
// image, so they answer whatever is asked: tenant A's clusters without TLS (114 clusters of 9 members, or fewer
// clusters whose members are replaced: ordinals only grow, each a new name) push tenant B's members out of the
// memory, and B's next sync asks each of its 3.2 members under /v3 and /v3beta before /v3alpha again, for as long
// as A's members keep being dialled. A namespace's remembered prefixes are kept whatever members another namespace
// has, as its TLS clients are.
import { createServer, type Server } from 'node:http';
import t from 'tap';
import { HttpEtcdClient, MAX_KNOWN_PREFIXES } from '../../hooks/etcdcommon/etcd.js';
import { etcdClients } from '../../hooks/etcdcommon/index.js';
import { listening } from '../fixtures/net.js';

/** A fake etcd gateway serving the member list under `prefix` only (as etcd does), counting the POSTs it is sent. */
function gateway(prefix: string) {
  const posts: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST') posts.push(req.url!);
      if (req.method === 'POST' && req.url === `${prefix}/cluster/member/list`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ header: { cluster_id: '1' }, members: [{ ID: '1', name: 'm', peerURLs: [] }] }));
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
    });
  });
  return { server, posts };
}

t.test("a namespace's members' gateway prefixes are kept whatever members another namespace has", async (t) => {
  // The server's plain client is one for every namespace.
  const clients = etcdClients();
  t.equal(clients.etcd(undefined, 'tenant-a'), clients.etcd(undefined, 'tenant-b'), 'one plain client for A and B');

  // The same client as the server's plain one, each member name looked up on loopback (a sync's view pins it).
  const plain = new HttpEtcdClient({ dnsLookup: async () => ({ address: '127.0.0.1', family: 4 }) });
  const view = (tenant: string) =>
    plain.scoped({ signal: new AbortController().signal, allows: () => true, lookupName: (h) => h, tenant });

  // Tenant B: a cluster of the default version (3.2.13: /v3alpha), dialled by its syncs.
  const b = gateway('/v3alpha');
  const bPort = await listening(t, b.server);
  const bMember = `http://b-0.b.tenant-b.svc.cluster.local:${bPort}`;
  await view('tenant-b').memberList([bMember]);
  b.posts.length = 0;
  await view('tenant-b').memberList([bMember]);
  t.same(b.posts, ['/v3alpha/cluster/member/list'], "B's next sync asks its member once: the prefix is remembered");

  // Tenant A: its members (its image: they answer under /v3) under names of their own, A's syncs dialling each.
  const a = gateway('/v3');
  const aPort = await listening(t, a.server);
  for (let i = 0; i < MAX_KNOWN_PREFIXES; i++) {
    const cluster = `a${Math.floor(i / 9)}`;
    await view('tenant-a').memberList([`http://${cluster}-${i % 9}.${cluster}.tenant-a.svc.cluster.local:${aPort}`]);
  }

  // B's next sync.
  b.posts.length = 0;
  await view('tenant-b').memberList([bMember]);
  t.same(
    b.posts,
    ['/v3alpha/cluster/member/list'],
    `B's next sync asks its member once, whatever A's members (asked ${b.posts.length} times: ${b.posts.join(', ')})`,
  );
});
