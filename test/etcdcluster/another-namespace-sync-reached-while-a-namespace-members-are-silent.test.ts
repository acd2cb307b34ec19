// Issue 29 (exhausting what tenants share): Metacontroller calls the EtcdCluster sync hook from a few workers
// (5 per controller, docs/operating.md), shared by every namespace's EtcdClusters; a worker is held until the hook
// answers. Tenant A's members run A's image (spec.repository): they can accept connections and never answer. Each of
// A's syncs then waits a call deadline (1.5 s) for its 36 calls (9 members: a member list and 3 calls each), and the
// namespace's share of calls in flight (TENANT_MAX_CALLS, 48) makes A's syncs wait for one another inside the hook,
// still holding their workers. B's EtcdCluster, queued behind A's in the same workers, waits for a worker until most
// of A's syncs have been answered one share at a time: tens of seconds, growing with how many clusters A has.
//
// Stand-in: one controller's 5 workers taking keys in the order queued (A's 25 clusters were due first, then B's),
// each posting the key's sync to the hook server and waiting for its answer; a 429 is requeued after its Retry-After,
// as Metacontroller v4.17 does. B's sync makes no etcd call (a new cluster): once a worker takes it, it is answered at
// once. Expected: B is reached within Metacontroller's own webhook timeout (10 s), whatever A's members do.
import t from 'tap';
import { METACONTROLLER_TIMEOUT_MS } from '../fixtures/other-tenant.js';
import { WORKERS, membersBehind, reachB, syncBody } from '../fixtures/etcd-workers.js';
import { silentEtcd } from '../fixtures/net.js';

/** A's EtcdClusters, each of 9 members that never answer. */
const A_CLUSTERS = 25;

t.test(
  "another namespace's EtcdCluster gets a worker while a namespace's many clusters have silent members",
  async (t) => {
    // A's members, which accept every connection and never answer (A's image).
    const { port } = await silentEtcd(t);
    const client = membersBehind(port, false);
    const bodies = Array.from({ length: A_CLUSTERS }, (_, i) => syncBody('ns-a', `a${i}`, 9));
    const bAnswered = await reachB(t, client, bodies);
    t.ok(bAnswered, "B's sync was reached");
    t.equal(bAnswered?.status, 200, "B's sync answered");
    t.ok(
      bAnswered !== undefined && bAnswered.at < METACONTROLLER_TIMEOUT_MS,
      `B's sync, queued behind A's ${A_CLUSTERS} clusters of silent members in ${WORKERS} workers, is reached and answered within ${METACONTROLLER_TIMEOUT_MS} ms (${bAnswered?.at ?? 'never'})`,
    );
  },
);
