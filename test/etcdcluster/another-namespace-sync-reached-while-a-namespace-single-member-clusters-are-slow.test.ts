// Issue 29 (exhausting what tenants share): Metacontroller calls the EtcdCluster sync hook from 5 workers per
// controller, shared by every namespace's EtcdClusters; a worker is held until the hook answers. A namespace's share
// of calls to etcd in flight (TENANT_MAX_CALLS, 48) answers a sync that finds no room at once (429), so that one
// namespace's syncs never hold the workers waiting for one another. A sync takes 4 calls per member and one: a
// namespace's clusters of 9 members fit one at a time, but its clusters of one member fit 9 at a time, more than
// Metacontroller's 5 workers. Tenant A's single-member clusters whose member accepts connections and never answers
// (A's image, or A's own NetworkPolicy dropping the hook's packets) each hold a worker a full call deadline (1.5 s),
// never refused by the share: every worker is A's, and B's cluster waits behind all of them (N x 1.5 s / 5).
//
// The same with members that answer, each call just within the deadline (A's image: etcd behind a slow proxy): no
// call times out, so the syncs are not even counted silent (retried after 30 s), and each holds a worker for a member
// list and the version asked after it (~2.8 s): A's 25 clusters, as many as the 9-member case measured, keep B waiting
// past Metacontroller's webhook timeout.
//
// Stand-in: as another-namespace-sync-reached-while-a-namespace-members-are-silent.test.ts (5 workers taking keys in
// the order queued, A's clusters first, then B's), A's clusters of one member each.
import t, { type Test } from 'tap';
import { METACONTROLLER_TIMEOUT_MS } from '../fixtures/other-tenant.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WORKERS, membersBehind, reachB, syncBody } from '../fixtures/etcd-workers.js';
import { silentEtcd } from '../fixtures/net.js';

/** A's EtcdClusters of one member that never answers. */
const A_SILENT_CLUSTERS = 40;
/** A's EtcdClusters of one member that answers each call just within the deadline. */
const A_SLOW_CLUSTERS = 25;
/** The cluster and member ID A's slow members answer with (recorded in each cluster's status). */
const CLUSTER_ID = '1234567890123456789';
const MEMBER_ID = '987654321';

/** A's members behind one server that answers every call after `delayMs`, as the member its path names. */
async function slowEtcd(t: Test, delayMs: number): Promise<number> {
  const server: Server = createServer((req, res) => {
    // The path is /<host>/<etcd path> (the client's resolve below).
    const [, host = '', ...rest] = (req.url ?? '').split('/');
    const path = `/${rest.join('/')}`;
    const pod = host.split('.')[0]!;
    const peer = `http://${host}:2380`;
    const header = { cluster_id: CLUSTER_ID, member_id: MEMBER_ID, revision: '7', raft_term: '2' };
    const answers: Record<string, unknown> = {
      '/v3/cluster/member/list': {
        header,
        members: [{ ID: MEMBER_ID, name: pod, peerURLs: [peer], clientURLs: [`http://${host}:2379`] }],
      },
      '/version': { etcdserver: '3.5.0', etcdcluster: '3.5.0' },
      '/health': { health: 'true' },
      '/v3/maintenance/status': { header, version: '3.5.0', leader: MEMBER_ID, dbSize: '20480' },
    };
    req.resume();
    const timer = setTimeout(() => {
      const answer = answers[path];
      res.writeHead(answer ? 200 : 404, { 'content-type': answer ? 'application/json' : 'text/plain' });
      res.end(answer ? JSON.stringify(answer) : '404 page not found');
    }, delayMs);
    res.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}

t.test(
  "another namespace's EtcdCluster gets a worker while a namespace's many single-member clusters have silent members",
  async (t) => {
    // A's members, which accept every connection and never answer (A's image).
    const { port } = await silentEtcd(t);
    const bodies = Array.from({ length: A_SILENT_CLUSTERS }, (_, i) => syncBody('ns-a', `a${i}`, 1));
    const b = await reachB(t, membersBehind(port, false), bodies);
    t.equal(b?.status, 200, "B's sync answered");
    t.ok(
      b !== undefined && b.at < METACONTROLLER_TIMEOUT_MS,
      `B's sync, queued behind A's ${A_SILENT_CLUSTERS} single-member clusters of silent members in ${WORKERS} workers, is reached and answered within ${METACONTROLLER_TIMEOUT_MS} ms (${b?.at ?? 'never'})`,
    );
  },
);

t.test(
  "another namespace's EtcdCluster gets a worker while a namespace's single-member clusters' members answer slowly",
  async (t) => {
    const port = await slowEtcd(t, 1400);
    const bodies = Array.from({ length: A_SLOW_CLUSTERS }, (_, i) =>
      syncBody('ns-a', `a${i}`, 1, { clusterID: CLUSTER_ID }),
    );
    const b = await reachB(t, membersBehind(port, true), bodies);
    t.equal(b?.status, 200, "B's sync answered");
    t.ok(
      b !== undefined && b.at < METACONTROLLER_TIMEOUT_MS,
      `B's sync, queued behind A's ${A_SLOW_CLUSTERS} single-member clusters whose members answer within the deadline in ${WORKERS} workers, is reached and answered within ${METACONTROLLER_TIMEOUT_MS} ms (${b?.at ?? 'never'})`,
    );
  },
);
