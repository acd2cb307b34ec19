// Issue 29.4: the EtcdCluster sync's fan-out has a bound. A tenant's namespace may hold any number of pods carrying
// its cluster's labels (3,000 froze the server for 6-20 s with 12,000 sockets): one sync dials at most
// MAX_DIALLED_PODS pods, at most SYNC_MAX_CALLS calls of it are in flight, and every sync of the server shares
// SERVER_MAX_CALLS; the server keeps answering /healthz. Against a silent etcd (it accepts and never answers), the
// worst case: every call holds its socket until its deadline.
import t from 'tap';
import { HttpEtcdClient, Limiter, SERVER_MAX_CALLS, SYNC_MAX_CALLS } from '../../hooks/etcdcommon/etcd.js';
import { etcdClients } from '../../hooks/etcdcommon/index.js';
import { MAX_DIALLED_PODS, podsToDial } from '../../hooks/etcdcluster/observe.js';
import { MAX_SIZE } from '../../hooks/etcdcluster/schema.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent } from '../fixtures/etcd.js';
import { silentEtcd } from '../fixtures/net.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOKEN = 'etcd-dials-token-0123456789abcdef';

/** `n` pods named as members of EtcdCluster e, carrying its labels, as a tenant could make them. */
const pods = (n: number, from = 0): Record<string, KubeObject> =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => {
      const name = `e-${from + i}`;
      return [
        name,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: 'ns', labels: { app: 'etcd', etcd_cluster: 'e' } },
          spec: { containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.0' }] },
          status: { phase: 'Running' },
        },
      ];
    }),
  );

const syncBody = (name: string, children: Record<string, KubeObject>, namespace = 'ns') => ({
  controller: {},
  parent: {
    ...etcdParent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }),
    metadata: { name, namespace, uid: `uid-${name}`, generation: 1 },
  },
  children: { 'Pod.v1': children, 'Service.v1': {} },
});

t.test(
  '3,000 pods carrying the cluster’s labels: a dozen dialled, sockets bounded, /healthz answered throughout',
  async (t) => {
    const etcd = await silentEtcd(t);
    const client = new HttpEtcdClient({
      timeoutMs: 1500,
      resolve: (url) => `http://127.0.0.1:${etcd.port}${new URL(url).pathname}`,
    });
    const app = testApp({
      auth: { bearer: TOKEN },
      services: { now: () => FIXED_NOW },
      clients: { etcdcluster: { etcd: () => client } },
    });
    t.teardown(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const body = JSON.stringify(syncBody('e', pods(3000)));
    t.comment(`request: ${(body.length / 1024 / 1024).toFixed(1)} MiB`);
    let done = false;
    const began = Date.now();
    const sync = fetch(`${base}/hooks/etcdcluster/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body,
    }).then(async (r) => {
      done = true;
      return { status: r.status, body: (await r.json()) as any };
    });
    const probes: number[] = [];
    while (!done) {
      const at = Date.now();
      const r = await fetch(`${base}/healthz`);
      t.equal(r.status, 200);
      probes.push(Date.now() - at);
      await new Promise((r) => setTimeout(r, 25));
    }
    const res = await sync;
    t.equal(res.status, 200);
    t.comment(
      `sync answered in ${Date.now() - began} ms; /healthz answered ${probes.length} times meanwhile, slowest ${Math.max(...probes)} ms; ` +
        `${etcd.seen.total} connections to etcd, at most ${etcd.seen.peak} open at once`,
    );
    t.ok(probes.length >= 3, '/healthz answered while the sync ran');
    t.ok(etcd.seen.peak <= SYNC_MAX_CALLS, `at most ${SYNC_MAX_CALLS} sockets at once (${etcd.seen.peak})`);
    t.ok(etcd.seen.total <= MAX_DIALLED_PODS * 4, `about four calls per dialled pod (${etcd.seen.total})`);
    t.ok(etcd.seen.hosts.size <= MAX_DIALLED_PODS, `at most ${MAX_DIALLED_PODS} members dialled`);
    const status = res.body.status;
    t.match(
      status.conditions.find((c: any) => c.type === 'Available'),
      { status: 'False' },
      'etcd did not answer',
    );
  },
);

// Each cluster in a namespace of its own: a namespace's syncs share its own cap (TENANT_MAX_CALLS), and one that has no
// room in it is answered 429 at once (test/etcdcluster/namespace-share-full-sync-retried-later.test.ts).
t.test('syncs at once share the server’s cap on calls in flight', async (t) => {
  const etcd = await silentEtcd(t);
  const limiter = new Limiter(40);
  const client = new HttpEtcdClient({
    timeoutMs: 800,
    limiter,
    resolve: (url) => `http://127.0.0.1:${etcd.port}${new URL(url).pathname}`,
  });
  const app = testApp({
    auth: { bearer: TOKEN },
    services: { now: () => FIXED_NOW },
    clients: { etcdcluster: { etcd: () => client } },
  });
  t.teardown(() => app.close());
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      app.inject({
        method: 'POST',
        url: '/hooks/etcdcluster/sync',
        headers: { authorization: `Bearer ${TOKEN}` },
        payload: syncBody(`c${i}`, pods(0), `ns-${i}`),
      }),
    ),
  );
  // Each cluster's own pods: 9 members each, all silent.
  const own = (name: string, namespace: string) =>
    Object.fromEntries(
      Object.entries(pods(9)).map(([k, p]) => [
        k.replace('e-', `${name}-`),
        { ...p, metadata: { ...p.metadata, name: k.replace('e-', `${name}-`), namespace } },
      ]),
    );
  const busy = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      app.inject({
        method: 'POST',
        url: '/hooks/etcdcluster/sync',
        headers: { authorization: `Bearer ${TOKEN}` },
        payload: syncBody(`c${i}`, own(`c${i}`, `ns-${i}`), `ns-${i}`),
      }),
    ),
  );
  for (const r of [...answers, ...busy]) t.equal(r.statusCode, 200);
  t.comment(`6 syncs of 9 silent members: ${etcd.seen.total} connections, at most ${etcd.seen.peak} at once`);
  t.ok(etcd.seen.total >= 6 * 9, 'every member of every cluster was asked');
  t.equal(limiter.peak, 40, 'the server’s cap held, and was reached');
  // A call's slot is free once it failed; its socket closes a moment later (a few may still be closing).
  t.ok(etcd.seen.peak <= 40 + 6, `sockets open at once: ${etcd.seen.peak} for a cap of 40`);
});

t.test('the server’s etcd clients share one cap; a sync’s view has its own', async (t) => {
  const clients = etcdClients();
  const plain = clients.etcd() as HttpEtcdClient;
  const tls = clients.etcd({ ca: 'CA', cert: 'C', key: 'K' }) as HttpEtcdClient;
  t.equal(plain.limiter, tls.limiter, 'one Limiter for every identity');
  t.equal(plain.limiter.max, SERVER_MAX_CALLS);
  t.not((etcdClients().etcd() as HttpEtcdClient).limiter, plain.limiter, 'per server');
  t.ok(SYNC_MAX_CALLS >= MAX_DIALLED_PODS * 4, 'a sync’s reads fit in one round of its cap');
  t.ok(MAX_DIALLED_PODS > MAX_SIZE, 'every member of the largest cluster is dialled');
});

t.test(
  'the pods dialled: members the status knows first, then the newest ordinals given out, names only',
  async (t) => {
    const list = Object.values({ ...pods(30), x: { ...pods(1)['e-0']!, metadata: { name: 'x', namespace: 'ns' } } });
    const names = (status: Record<string, unknown>) => podsToDial('e', list, status).map((p) => p.metadata.name);
    t.same(
      names({}),
      Array.from({ length: MAX_DIALLED_PODS }, (_, i) => `e-${i}`),
      'no record: the lowest ordinals',
    );
    t.same(names({ lastMemberIndex: 20, memberList: [{ name: 'e-25' }, { name: 'e-3' }] }), [
      'e-3',
      'e-25',
      'e-20',
      'e-19',
      'e-18',
      'e-17',
      'e-16',
      'e-15',
      'e-14',
      'e-13',
      'e-12',
      'e-11',
    ]);
    t.notOk(names({}).includes('x'), 'a pod not named as a member is never dialled');
  },
);

t.test('Limiter: at most max at once, in order; a waiting task whose signal aborts leaves the queue', async (t) => {
  const l = new Limiter(2);
  const order: string[] = [];
  const gate: Array<() => void> = [];
  const task = (name: string) => () =>
    new Promise<string>((resolve) => {
      order.push(`start ${name}`);
      gate.push(() => resolve(name));
    });
  const a = l.run(task('a'));
  const b = l.run(task('b'));
  const abort = new AbortController();
  const c = l.run(task('c'), abort.signal);
  const d = l.run(task('d'));
  await new Promise((r) => setTimeout(r, 10));
  t.same(order, ['start a', 'start b']);
  abort.abort(new Error('deadline'));
  await t.rejects(c, /deadline/);
  gate.shift()!();
  t.equal(await a, 'a');
  await new Promise((r) => setTimeout(r, 10));
  t.same(order, ['start a', 'start b', 'start d'], 'c never started');
  gate.shift()!();
  gate.shift()!();
  t.same(await Promise.all([b, d]), ['b', 'd']);
  t.equal(l.peak, 2);
  const aborted = new AbortController();
  aborted.abort(new Error('gone'));
  await t.rejects(l.run(task('e'), aborted.signal), /gone/);
  t.same(order.length, 3, 'an aborted task does not start');
});
