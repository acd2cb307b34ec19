// Tenant A may create pods in its own namespace, and Metacontroller adopts every pod that carries an EtcdCluster's
// selector label (`controller-uid: <the cluster's UID>`, generateSelector; v4.17.2 composite/controller.go L756-758,
// ClaimChildren): they reach A's sync as observed children. The sync dials at most a dozen of them (issue 29.4), but
// its plan is quadratic in them on the server's one JavaScript thread (upgrade.ts othersOutage builds a Map of every
// pod for every pod; phaseOf and etcdNotRunning follow in the profile): 2,000 pods take ~0.7 s, 5,000 (1.1 MiB of
// request) ~15 s, 8,000 (2 MiB) ~33 s, 20,000 (4.5 MiB, within the 8 MiB body limit) ~330 s (this machine). The server's
// 8.5 s hook deadline cannot fire while the thread is held, and tenant B's syncs, sent meanwhile by another
// Metacontroller worker, wait behind it, past Metacontroller's 10 s webhook timeout.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent, unreachableEtcd } from '../fixtures/etcd.js';
import { METACONTROLLER_TIMEOUT_MS, otherTenantSyncs } from '../fixtures/other-tenant.js';

const TOKEN = 'etcd-sync-cost-token-0123456789abcdef';

/** An etcd that is down: every call fails at once (the cost measured is the hook's own). */
const etcd = unreachableEtcd;

/** `n` small pods A made with its cluster's labels (not named as members), adopted by Metacontroller as children. */
const pods = (n: number): Record<string, KubeObject> =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => {
      const name = `p${i}`;
      return [
        name,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: 'ns', labels: { 'controller-uid': 'uid-e', app: 'etcd', etcd_cluster: 'e' } },
          spec: { containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.0' }] },
          status: { phase: 'Running' },
        },
      ];
    }),
  );

t.test(
  "a tenant's pods carrying its cluster's selector do not hold another tenant's syncs past Metacontroller's timeout",
  async (t) => {
    const app = testApp({ auth: { bearer: TOKEN }, clients: { etcdcluster: { etcd: () => etcd } } });
    t.teardown(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const body = JSON.stringify({
      controller: {},
      parent: etcdParent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }),
      children: { 'Pod.v1': pods(8000), 'Service.v1': {} },
    });
    const b = otherTenantSyncs(t, base, TOKEN);
    await new Promise((r) => setTimeout(r, 500));
    const began = Date.now();
    const a = await fetch(`${base}/hooks/etcdcluster/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body,
    });
    const aTook = Date.now() - began;
    const { slowest, statuses } = await b;
    t.comment(
      `A's sync (${(body.length / 1048576).toFixed(1)} MiB) answered ${a.status} in ${aTook} ms; ` +
        `B's syncs: ${JSON.stringify(statuses)}, the slowest in ${slowest} ms`,
    );
    t.same(Object.keys(statuses), ['200'], "every one of B's syncs is answered");
    t.ok(
      slowest < METACONTROLLER_TIMEOUT_MS,
      `each within Metacontroller's 10 s webhook timeout (the slowest ${slowest} ms)`,
    );
  },
);
