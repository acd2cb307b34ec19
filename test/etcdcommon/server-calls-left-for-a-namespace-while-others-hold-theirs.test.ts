// The server's calls to etcd in flight (SERVER_MAX_CALLS, 256) are shared by every namespace, and each namespace's
// syncs may hold up to its own share of them (TENANT_MAX_CALLS, 48). Six namespaces whose members accept and never
// answer, each dialling all it may (6 x 48 > 256), held every one of the server's calls until their deadline: another
// namespace's sync, whose members answer at once, waited for them (a call deadline, holding one of Metacontroller's
// workers) and, while they kept it so, for every round of theirs. Now a namespace takes of the server's calls at
// most as much as it leaves free (lib/shares.ts fairTake): the sixth finds less than its share, and the seventh still
// finds room at once.
import { createServer } from 'node:http';
import t from 'tap';
import {
  HttpEtcdClient,
  Limiter,
  SERVER_MAX_CALLS,
  Shares,
  TENANT_MAX_CALLS,
  type DialScope,
} from '../../hooks/etcdcommon/etcd.js';
import { listening, silentEtcd } from '../fixtures/net.js';

const loopback = async () => ({ address: '127.0.0.1', family: 4 });

/** A sync's view of namespace `tenant` dialling `members` members (a member list and three calls each). */
function view(client: HttpEtcdClient, tenant: string, members: number): HttpEtcdClient {
  const scope: DialScope = {
    signal: new AbortController().signal,
    allows: () => true,
    lookupName: (host) => host,
    tenant,
    maxCalls: 4 * members + 1,
  };
  return client.scoped(scope);
}

t.test("a namespace's sync dials at once while six other namespaces hold all the calls they may", async (t) => {
  t.ok(6 * TENANT_MAX_CALLS > SERVER_MAX_CALLS, "six namespaces' shares are more than the server's calls");
  const silent = await silentEtcd(t);
  const answering = await listening(
    t,
    createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"health":"true"}');
    }),
  );
  const limiter = new Limiter(SERVER_MAX_CALLS);
  const tenants = new Shares(TENANT_MAX_CALLS);
  const client = new HttpEtcdClient({ limiter, tenants, timeoutMs: 3000, dnsLookup: loopback });
  // Six namespaces, each a sync of the most pods a sync dials (12: 49 calls, its whole share of 48 at once), every
  // member silent: 16 health reads each (three calls a member), 48 calls each.
  const held: boolean[] = [];
  const hanging: Array<Promise<unknown>> = [];
  for (let n = 0; n < 6; n++) {
    const v = view(client, `ns-${n}`, 12);
    held.push(v.hold());
    for (let i = 0; i < 16; i++) hanging.push(v.health(`http://e-${i}.e.ns-${n}.svc:${silent.port}`));
  }
  t.same(held, [true, true, true, true, true, true], 'each of the six namespaces dials');
  await new Promise((r) => setTimeout(r, 200));
  t.comment(`the six namespaces' calls in flight: ${silent.open.size}`);
  // Namespace B: a sync of one member, which answers at once.
  const began = Date.now();
  const b = view(client, 'ns-b', 1);
  t.ok(b.hold(), "B's sync finds room to dial");
  const health = await b.health(`http://e-0.e.ns-b.svc:${answering}`);
  const took = Date.now() - began;
  b.release();
  t.equal(health.healthy, true, `B's member answered, in ${took} ms`);
  t.ok(took < 1500, "B did not wait for the other namespaces' calls to end");
  t.ok(limiter.peak <= SERVER_MAX_CALLS, `the server's calls in flight at most ${SERVER_MAX_CALLS} (${limiter.peak})`);
  await Promise.all(hanging);
});
