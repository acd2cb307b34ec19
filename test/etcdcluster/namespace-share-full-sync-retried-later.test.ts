// A namespace's calls to etcd share one cap (TENANT_MAX_CALLS). A sync takes its room in that share before it dials
// anything, or not at all: with no room now (the namespace's other syncs hold it, their members slow or silent), it
// is answered at once with 429 and Retry-After, which Metacontroller honours, and nothing is dialled or changed, so
// that it never waits in the hook holding one of the workers every namespace shares. A cluster none of whose members
// answered, some silent until their deadline, is looked at again after ETCD_SILENT_RETRY_SECONDS, not every step.
import t from 'tap';
import { RETRY_AFTER_SECONDS } from '../../lib/app.js';
import { HttpEtcdClient, Shares, TENANT_MAX_CALLS } from '../../hooks/etcdcommon/etcd.js';
import { ETCD_SILENT_RETRY_SECONDS, ETCD_STEP_SECONDS } from '../../hooks/etcdcluster/sync.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent } from '../fixtures/etcd.js';
import { silentEtcd } from '../fixtures/net.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOKEN = 'etcd-share-token-0123456789abcdef';

/** The sync request of a running EtcdCluster of three members in namespace ns-a. */
function syncBody(): string {
  const pods: Record<string, KubeObject> = {};
  for (let i = 0; i < 3; i++)
    pods[`e-${i}`] = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `e-${i}`, namespace: 'ns-a', labels: { app: 'etcd', etcd_cluster: 'e' } },
      spec: { containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.0' }] },
      status: { phase: 'Running' },
    };
  return JSON.stringify({
    controller: {},
    parent: {
      ...etcdParent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }),
      metadata: { name: 'e', namespace: 'ns-a', uid: 'uid-e', generation: 1 },
    },
    children: { 'Pod.v1': pods, 'Service.v1': {} },
    related: {},
    finalizing: false,
  });
}

t.test("a sync without room in its namespace's share is answered 429 at once, nothing dialled", async (t) => {
  // Members that accept every connection and never answer, counting the connections made.
  const members = await silentEtcd(t);
  const tenants = new Shares(TENANT_MAX_CALLS);
  const client = new HttpEtcdClient({
    timeoutMs: 300,
    tenants,
    resolve: (url) => `http://127.0.0.1:${members.port}${new URL(url).pathname}`,
  });
  const app = testApp({
    auth: { bearer: TOKEN },
    services: { now: () => FIXED_NOW },
    clients: { etcdcluster: { etcd: () => client } },
  });
  t.teardown(() => app.close());
  const sync = () =>
    app.inject({
      method: 'POST',
      url: '/hooks/etcdcluster/sync',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      payload: syncBody(),
    });

  // The namespace's other syncs hold its whole share.
  const others = tenants.tryTake('ns-a', TENANT_MAX_CALLS);
  t.ok(others, "the namespace's other syncs took its share");
  const refused = await sync();
  t.equal(refused.statusCode, 429, 'told to come back later');
  t.equal(refused.headers['retry-after'], String(RETRY_AFTER_SECONDS), 'with Retry-After');
  t.match(refused.body, /no call to etcd free for namespace ns-a: its share is held/, 'and why');
  t.notMatch(refused.body, /"status"|"children"/, 'no status and no children answered: nothing changed');
  t.equal(members.seen.total, 0, 'no member was dialled');

  // Another namespace's share is its own.
  const b = tenants.tryTake('ns-b', TENANT_MAX_CALLS);
  t.ok(b, "another namespace's share has room");
  b?.();

  // Once the others are done, the sync dials; its members are silent: it comes back after the longer wait.
  others!();
  const answered = await sync();
  t.equal(answered.statusCode, 200, 'answered');
  t.ok(members.seen.total > 0, 'the members were dialled');
  const res = answered.json() as { resyncAfterSeconds?: number };
  t.ok(ETCD_SILENT_RETRY_SECONDS > ETCD_STEP_SECONDS, 'the wait after silent members is longer than a step');
  t.equal(res.resyncAfterSeconds, ETCD_SILENT_RETRY_SECONDS, 'not one member answered: looked at again later');

  // The sync gave its room back (once its last call ended: a read answers on its first failure, the others still run
  // to their deadline): the whole share is free again.
  for (let i = 0; i < 100 && tenants.size > 0; i++) await new Promise((r) => setTimeout(r, 50));
  t.equal(tenants.size, 0, 'no share kept once idle');
  const again = tenants.tryTake('ns-a', TENANT_MAX_CALLS);
  t.ok(again, "the namespace's whole share is free once its sync answered");
  again?.();
});
