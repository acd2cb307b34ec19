// The server's calls to etcd in flight (256) are shared by every namespace's EtcdCluster syncs, and a sync of a
// cluster whose pods fill the member window (12 pods named as members) dials 48 at once, its namespace's whole share.
// Six namespaces' syncs of members that accept and never answer (their image) held every one of the server's calls
// until the call deadline, and another namespace's sync waited for them inside the hook, holding one of
// Metacontroller's workers. Now a namespace takes no more of the server's calls than it leaves free (lib/shares.ts
// fairTake): that sync dials at once. Here B's member refuses connections, so its sync is answered as soon as its calls
// are made.
import { createServer, type Server } from 'node:net';
import t from 'tap';
import { HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent } from '../fixtures/etcd.js';
import { silentEtcd } from '../fixtures/net.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOKEN = 'server-calls-share-token-0123456789abcdef';

/** The sync request of EtcdCluster `name` of size 9 in `namespace`, with member pods at ordinals 0 .. pods - 1. */
function body(namespace: string, name: string, pods: number): string {
  const children: Record<string, unknown> = {};
  for (let i = 0; i < pods; i++)
    children[`${name}-${i}`] = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${name}-${i}`, namespace, labels: { app: 'etcd', etcd_cluster: name } },
      spec: { containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.0' }] },
      status: { phase: 'Running' },
    };
  return JSON.stringify({
    controller: {},
    parent: {
      ...etcdParent({ size: 9 }, { phase: 'Running', lastMemberIndex: pods - 1 }),
      metadata: { name, namespace, uid: `uid-${namespace}-${name}`, generation: 1 },
    },
    children: { 'Pod.v1': children, 'Service.v1': {} },
    related: {},
    finalizing: false,
  });
}

/** A loopback port nothing listens on (a member that refuses connections). */
async function refusingPort(): Promise<number> {
  const s: Server = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

t.test("a namespace's EtcdCluster sync dials at once while six namespaces' silent members hold theirs", async (t) => {
  const silent = await silentEtcd(t);
  const refusing = await refusingPort();
  // Namespace ns-b's members refuse connections; every other namespace's members never answer.
  const client = new HttpEtcdClient({
    timeoutMs: 1500,
    resolve: (url) => {
      const u = new URL(url);
      const port = u.hostname.includes('.ns-b.') ? refusing : silent.port;
      return `http://127.0.0.1:${port}${u.pathname}`;
    },
  });
  const app = testApp({
    auth: { bearer: TOKEN },
    services: { now: () => FIXED_NOW },
    clients: { etcdcluster: { etcd: () => client } },
  });
  t.teardown(() => app.close());
  const sync = (payload: string) =>
    app.inject({
      method: 'POST',
      url: '/hooks/etcdcluster/sync',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      payload,
    });
  const others = Array.from({ length: 6 }, (_, n) => sync(body(`ns-${n}`, `c${n}`, 12)));
  let othersDone = 0;
  for (const o of others) void o.then(() => othersDone++);
  // The six namespaces' syncs dialling their silent members (however loaded the machine: no fixed wait).
  for (let i = 0; i < 200 && client.tenants.held === 0; i++) await new Promise((r) => setTimeout(r, 25));
  t.ok(client.tenants.held > 0, `the six namespaces' views hold ${client.tenants.held} of the server's calls`);
  const began = Date.now();
  const b = await sync(body('ns-b', 'b', 1));
  const took = Date.now() - began;
  t.equal(b.statusCode, 200, `B's sync answered (${took} ms): ${b.body.slice(0, 300)}`);
  // Answered while every other namespace's sync still waits on its silent members (each call until its 1500 ms
  // deadline): B did not wait for their calls to end.
  t.equal(othersDone, 0, "B's sync did not wait for the other namespaces' calls to end");
  for (const r of await Promise.all(others)) t.equal(r.statusCode, 200, "another namespace's sync answered");
});
