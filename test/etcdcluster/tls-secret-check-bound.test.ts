// Tenant A writes the Secrets its EtcdCluster's TLS.static names (peerSecret, serverSecret, operatorSecret): they are
// A's ordinary objects, up to the API server's 1 MiB each. The hook checks each one at the start of every sync, on
// the server's one JavaScript thread, before any bound applies: its CA file is split into PEM blocks with a regular
// expression whose lazy body (`[\s\S]*?`) runs to the end of the text from every `-----BEGIN x-----` that has no END.
// A CA file of `-----BEGIN A-----` repeated is quadratic in its length: ~700 KB (a 1 MiB Secret, base64) holds the
// thread ~10-15 s per Secret per sync (3 s at 340 KB, measured with Node 26 on this machine), and any of tenant B's
// hook, synced meanwhile by another Metacontroller worker, is answered only after it: past Metacontroller's 10 s
// webhook timeout (the server's own 8.5 s deadline cannot fire while the thread is held), so B's syncs fail.
import t from 'tap';
import { HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { testApp } from '../fixtures/app.js';
import { METACONTROLLER_TIMEOUT_MS, otherTenantSyncs } from '../fixtures/other-tenant.js';
import { objectMap } from '../fixtures/requests.js';

/** A's peer Secret: a CA file of ~700 KB of PEM headers without an END (1 MiB as base64, the API server's limit). */
const HOSTILE_CA = '-----BEGIN A-----'.repeat(41_000);
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Tenant A's EtcdCluster `a`: one member, peer TLS from A's Secret `peer`. */
const tenantA = {
  controller: {},
  parent: {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'a', namespace: 'ns-a', uid: 'uid-a', generation: 1 },
    spec: { size: 1, version: '3.5.0', TLS: { static: { member: { peerSecret: 'peer' } } } },
  },
  children: objectMap([], 'v1', ['Pod.v1', 'Service.v1']),
  related: objectMap(
    [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'peer', namespace: 'ns-a' },
        data: { 'peer-ca.crt': b64(HOSTILE_CA), 'peer.crt': b64('x'), 'peer.key': b64('x') },
      },
    ] as any,
    'v1',
    ['Secret.v1'],
  ),
};

t.test(
  "while a tenant's TLS Secret is checked, another tenant's sync is answered within Metacontroller's timeout",
  async (t) => {
    const TOKEN = 'tls-secret-check-token-0123456789';
    const app = testApp({
      auth: { bearer: TOKEN },
      clients: { etcdcluster: { etcd: () => new HttpEtcdClient({ resolve: () => 'http://127.0.0.1:1/' }) } },
    });
    t.teardown(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const b = otherTenantSyncs(t, base, TOKEN);
    await new Promise((r) => setTimeout(r, 500));
    const a = await fetch(`${base}/hooks/etcdcluster/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(tenantA),
    });
    const { slowest, statuses } = await b;
    t.comment(`A's sync answered ${a.status}; B's syncs: ${JSON.stringify(statuses)}, the slowest in ${slowest} ms`);
    t.same(Object.keys(statuses), ['200'], "every one of B's syncs is answered");
    t.ok(
      slowest < METACONTROLLER_TIMEOUT_MS,
      `each within Metacontroller's 10 s webhook timeout (the slowest ${slowest} ms)`,
    );
  },
);
