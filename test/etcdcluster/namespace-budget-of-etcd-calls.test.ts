// A namespace's budget of calls to etcd over time (issue 29, "bounded always"): every EtcdCluster sync dials its
// members (a member list and each member's health, version and status), and nothing bounded how many syncs a namespace
// makes: its many clusters, each resynced every 30 s, or its edits, each a sync, made calls without bound, through the
// server's connections every namespace shares. Each namespace now has a budget of calls per period
// (hooks/etcdcommon/etcd.ts ETCD_CALLS_PER_PERIOD, lib/namespace-calls.ts, as S3's): past it a sync is answered at
// once, nothing dialled, its status kept (Ready as it was) with Synced False saying why, asked again once the budget
// holds a sync's calls; another namespace's syncs dial as before.
//
// Stand-in: a member answering every call at once (counted), behind the hook server's own etcd client with a small
// budget (as the server's, smaller, so that the test sends few syncs); the clock fixed (no refill).
import t from 'tap';
import { createServer } from 'node:http';
import { ETCD_CALLS_PER_PERIOD, HttpEtcdClient, Shares, TENANT_MAX_CALLS } from '../../hooks/etcdcommon/etcd.js';
import { testApp } from '../fixtures/app.js';
import { syncBody } from '../fixtures/etcd-workers.js';
import { listening } from '../fixtures/net.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOKEN = 'etcd-budget-token-0123456789abcdef';
/** The budget of the stand-in: a few syncs of a cluster of 3 members (13 calls each at most). */
const BUDGET = 60;

/** The Ready condition a converged cluster has. */
const READY = {
  type: 'Ready',
  status: 'True',
  reason: 'ClusterReady',
  message: 'all 3 members are healthy',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

t.test("a namespace's EtcdCluster syncs make at most its budget of calls to etcd, however many", async (t) => {
  const calls: Record<string, number> = {};
  const member = createServer((req, res) => {
    const ns = /^\/([^/]+)\//.exec(req.url ?? '')?.[1] ?? '';
    calls[ns] = (calls[ns] ?? 0) + 1;
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(req.url?.endsWith('/health') ? '{"health":"true"}' : '{}');
  });
  const port = await listening(t, member);
  const client = new HttpEtcdClient({
    timeoutMs: 1500,
    // The namespace in the path: the member counts each namespace's calls.
    resolve: (url) => {
      const u = new URL(url);
      return `http://127.0.0.1:${port}/${u.hostname.split('.')[2] ?? ''}${u.pathname}`;
    },
    tenants: new Shares(TENANT_MAX_CALLS, undefined, BUDGET),
  });
  const app = testApp({
    auth: { bearer: TOKEN },
    services: { now: () => FIXED_NOW },
    clients: { etcdcluster: { etcd: () => client } },
  });
  t.teardown(() => app.close());
  const sync = async (namespace: string, name: string) => {
    const res = await app.inject({
      method: 'POST',
      url: '/hooks/etcdcluster/sync',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      payload: syncBody(namespace, name, 3, { conditions: [READY] }),
    });
    return { code: res.statusCode, body: res.json() };
  };

  const answers = [];
  for (let i = 0; i < 12; i++) answers.push(await sync('ns-a', `c${i}`));
  t.ok(
    answers.every((a) => a.code === 200),
    `every sync answered 200 (${answers.map((a) => a.code)})`,
  );
  t.ok((calls['ns-a'] ?? 0) > 0, `A's syncs dialled its members (${calls['ns-a']} calls)`);
  t.ok(
    (calls['ns-a'] ?? 0) <= BUDGET + 13,
    `A's 12 syncs of clusters of 3 members made ${calls['ns-a']} calls: at most its budget of ${BUDGET} and one sync`,
  );

  const held = answers.filter((a) =>
    a.body.status?.conditions?.some(
      (c: { type: string; reason: string }) => c.type === 'Synced' && c.reason === 'WaitingForNamespaceShare',
    ),
  );
  t.ok(held.length > 0, 'the syncs past the budget are answered, saying they wait for the namespace share');
  for (const a of held.slice(0, 1)) {
    const synced = a.body.status.conditions.find((c: { type: string }) => c.type === 'Synced');
    t.match(synced, { status: 'False', message: /share of calls to etcd.*nothing was dialled and nothing changed/ });
    t.match(
      a.body.status.conditions.find((c: { type: string }) => c.type === 'Ready'),
      { status: 'True', reason: 'ClusterReady' },
      'a converged cluster keeps its Ready as it was',
    );
    t.equal(a.body.status.phase, 'Running', 'and its status');
    t.same(Object.keys(a.body.children ?? []).length > 0, true, 'every observed child kept');
    t.ok(a.body.resyncAfterSeconds >= 10, `asked again once the budget holds a sync (${a.body.resyncAfterSeconds} s)`);
  }

  // Another namespace's syncs dial as before.
  const before = calls['ns-b'] ?? 0;
  const b = await sync('ns-b', 'b');
  t.equal(b.code, 200);
  t.ok((calls['ns-b'] ?? 0) > before, `B's sync dialled its members (${calls['ns-b']} calls)`);
});

t.test("the server's budget: 23 clusters of 3 members at rest, each synced every 30 s", async (t) => {
  // A sync of n members at rest makes at most 4n + 1 calls; the period is ten resyncs.
  t.ok(23 * (4 * 3 + 1) * 10 <= ETCD_CALLS_PER_PERIOD, `${ETCD_CALLS_PER_PERIOD} calls per period`);
});
