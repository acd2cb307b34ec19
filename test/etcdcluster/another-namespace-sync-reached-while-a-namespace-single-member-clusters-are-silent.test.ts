// Issue 29 (exhausting what tenants share): Metacontroller calls the EtcdCluster sync hook from 5 workers per
// controller, shared by every namespace's EtcdClusters; a worker is held until the hook answers. A namespace's share
// of calls to etcd in flight (TENANT_MAX_CALLS, 48) answers a sync that finds no room at once (429), so that one
// namespace's syncs never hold the workers waiting for one another. A sync takes 4 calls per member and one: a
// namespace's clusters of 9 members fit one at a time, but its clusters of one member fit 9 at a time, more than
// Metacontroller's 5 workers. Tenant A's single-member clusters whose member accepts connections and never answers
// (A's image, or A's own NetworkPolicy dropping the hook's packets) each hold a worker a full call deadline (1.5 s),
// never refused by the share: every worker is A's, and B's cluster waits behind all of them (N x 1.5 s / 5).
//
// Stand-in: as another-namespace-sync-reached-while-a-namespace-members-are-silent.test.ts (5 workers taking keys in
// the order queued, A's 40 clusters first, then B's), A's clusters of one member each.
import t from 'tap';
import { HttpEtcdClient, TENANT_MAX_CALLS } from '../../hooks/etcdcommon/etcd.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent } from '../fixtures/etcd.js';
import { METACONTROLLER_TIMEOUT_MS } from '../fixtures/other-tenant.js';
import { silentEtcd } from '../fixtures/net.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOKEN = 'etcd-workers-token-0123456789abcdef';
/** Metacontroller's workers per controller (its default). */
const WORKERS = 5;
/** A's EtcdClusters, each of one member that never answers. */
const A_CLUSTERS = 40;
/** How long the stand-in runs at most. */
const GIVE_UP_MS = 45_000;

/** The sync request of EtcdCluster `name` in `namespace`, with `members` member pods (none: a new cluster). */
function syncBody(namespace: string, name: string, members: number) {
  const pods: Record<string, KubeObject> = {};
  for (let i = 0; i < members; i++) {
    const pod = `${name}-${i}`;
    pods[pod] = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace, labels: { app: 'etcd', etcd_cluster: name } },
      spec: { containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.0' }] },
      status: { phase: 'Running' },
    };
  }
  return JSON.stringify({
    controller: {},
    parent: {
      ...etcdParent({ size: members || 9 }, members ? { phase: 'Running', lastMemberIndex: members - 1 } : undefined),
      metadata: { name, namespace, uid: `uid-${namespace}-${name}`, generation: 1 },
    },
    children: { 'Pod.v1': pods, 'Service.v1': {} },
    related: {},
    finalizing: false,
  });
}

t.test(
  "another namespace's EtcdCluster gets a worker while a namespace's many single-member clusters have silent members",
  async (t) => {
    // A's members, which accept every connection and never answer (A's image).
    const { port } = await silentEtcd(t);
    const client = new HttpEtcdClient({
      timeoutMs: 1500,
      resolve: (url) => `http://127.0.0.1:${port}${new URL(url).pathname}`,
    });
    const app = testApp({ auth: { bearer: TOKEN }, deps: { now: () => FIXED_NOW, etcdClient: () => client } });
    t.teardown(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });

    const queue: Array<{ key: string; body: string }> = [];
    for (let i = 0; i < A_CLUSTERS; i++) queue.push({ key: `ns-a/a${i}`, body: syncBody('ns-a', `a${i}`, 1) });
    queue.push({ key: 'ns-b/b', body: syncBody('ns-b', 'b', 0) });

    const began = Date.now();
    let bAnswered: { at: number; status: number } | undefined;
    const held: number[] = [];
    const statuses: Record<string, number> = {};
    const stop = new AbortController();
    const later: NodeJS.Timeout[] = [];
    t.teardown(() => {
      stop.abort();
      for (const timer of later) clearTimeout(timer);
    });

    const worker = async () => {
      while (!bAnswered && !stop.signal.aborted && Date.now() - began < GIVE_UP_MS) {
        const item = queue.shift();
        if (!item) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        const at = Date.now();
        const r = await fetch(`${base}/hooks/etcdcluster/sync`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          body: item.body,
          signal: AbortSignal.any([stop.signal, AbortSignal.timeout(METACONTROLLER_TIMEOUT_MS)]),
        }).then(
          async (res) => {
            await res.arrayBuffer();
            return { status: res.status, retryAfter: Number(res.headers.get('retry-after') ?? 0) };
          },
          () => ({ status: 0, retryAfter: 0 }),
        );
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (item.key.startsWith('ns-a/')) held.push(Date.now() - at);
        if (item.key === 'ns-b/b') bAnswered = { at: Date.now() - began, status: r.status };
        // Metacontroller requeues a key told to retry after Retry-After (v4.17), or with its backoff on an error.
        else if (r.status !== 200) later.push(setTimeout(() => queue.push(item), (r.retryAfter || 1) * 1000));
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    stop.abort();

    const mean = held.length ? held.reduce((a, b) => a + b, 0) / held.length : 0;
    t.comment(
      `A's ${held.length} syncs answered held a worker ${Math.round(mean)} ms on average (longest ${Math.max(0, ...held)} ms; ` +
        `one call deadline is 1500 ms; the namespace's share ${TENANT_MAX_CALLS} calls); statuses ${JSON.stringify(statuses)}; ` +
        `B ${bAnswered ? `answered ${bAnswered.status} after ${bAnswered.at} ms` : `not reached in ${GIVE_UP_MS} ms`}`,
    );
    t.ok(bAnswered, "B's sync was reached");
    t.equal(bAnswered?.status, 200, "B's sync answered");
    t.ok(
      bAnswered !== undefined && bAnswered.at < METACONTROLLER_TIMEOUT_MS,
      `B's sync, queued behind A's ${A_CLUSTERS} clusters of silent members in ${WORKERS} workers, is reached and answered within ${METACONTROLLER_TIMEOUT_MS} ms (${bAnswered?.at ?? 'never'})`,
    );
  },
);
