// An answer that keeps the observed children as they are (every InvalidSpec and failure answer, a held answer, an
// EtcdCluster's member pods at every sync) answers each child in the shape of its last-applied annotation with the
// child's own values (lib/objects.ts keepObserved). Tenant A writes both sides: pods it makes with its cluster's
// selector label (`controller-uid: <its cluster's UID>`; Metacontroller adopts them as children) and their
// `metacontroller.k8s.io/last-applied-configuration` annotation (metadata is A's to write). keepListShape matches a
// list of objects by its merge key (`name` for env), each element of the annotation taking the first element of
// the pod's with that key not taken yet (`indexes.find((i) => !used[i])`): with 19,500 env entries all named `a`
// on both sides (the API server keeps duplicate env names, with a warning), element i scans the i taken before it,
// ~190 million steps a pod. Thirteen such pods (7.3 MiB of request, within the 8 MiB body limit) and a spec the hook
// refuses (spec.pod.clusterDomain not allowed: every observed child kept) held the server's one JavaScript thread
// 11-14 s a sync on this machine, at every sync, and tenant B's syncs wait behind it past Metacontroller's timeout.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent, unreachableEtcd } from '../fixtures/etcd.js';
import { METACONTROLLER_TIMEOUT_MS, otherTenantSyncs } from '../fixtures/other-tenant.js';

const TOKEN = 'etcd-kept-pods-cost-token-0123456789ab';
/** Pods A made with its cluster's selector label, and env entries of each (its annotation within 256 KiB). */
const PODS = 13;
const N = 19_500;
const ENTRY = { name: 'a' };

/** Pod p<i>: an env of N entries named `a`, and the last-applied annotation A wrote with the same list. */
function pod(i: number): KubeObject {
  const name = `p${i}`;
  const env = () => Array.from({ length: N }, () => ({ ...ENTRY }));
  const annotation = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns' },
    spec: { containers: [{ name: 'c', env: env() }] },
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ns',
      labels: { 'controller-uid': 'uid-e' },
      annotations: { [LAST_APPLIED]: annotation },
    },
    spec: { containers: [{ name: 'c', image: 'busybox', env: env() }] },
    status: { phase: 'Pending' },
  };
}

t.test(
  "a tenant's children, whatever lists they and their last-applied annotations hold, do not hold another tenant's syncs",
  async (t) => {
    const app = testApp({ auth: { bearer: TOKEN }, clients: { etcdcluster: { etcd: () => unreachableEtcd } } });
    t.teardown(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const body = JSON.stringify({
      controller: {},
      // A spec the hook refuses (a cluster domain the server does not dial): every observed child is kept.
      parent: etcdParent({ size: 3, pod: { clusterDomain: 'example.org' } }, { phase: 'Running', lastMemberIndex: 2 }),
      children: {
        'Pod.v1': Object.fromEntries(Array.from({ length: PODS }, (_, i) => [`p${i}`, pod(i)])),
        'Service.v1': {},
      },
    });
    const annotation = (JSON.parse(body) as any).children['Pod.v1'].p0.metadata.annotations[LAST_APPLIED] as string;
    t.ok(
      annotation.length < 256 * 1024,
      `each pod's annotation is one the API server keeps (${annotation.length} bytes)`,
    );
    t.ok(
      body.length < 8 * 1024 * 1024,
      `A's sync is within the body limit (${(body.length / 1048576).toFixed(1)} MiB)`,
    );
    const b = otherTenantSyncs(t, base, TOKEN, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    const began = Date.now();
    const a = await fetch(`${base}/hooks/etcdcluster/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body,
    });
    const aTook = Date.now() - began;
    t.equal(a.status, 200, "A's sync is answered");
    const { slowest, statuses } = await b;
    t.comment(
      `A's sync answered ${a.status} in ${aTook} ms; B's syncs: ${JSON.stringify(statuses)}, the slowest in ${slowest} ms`,
    );
    t.same(Object.keys(statuses), ['200'], "every one of B's syncs is answered");
    t.ok(
      slowest < METACONTROLLER_TIMEOUT_MS,
      `each within Metacontroller's 10 s webhook timeout (the slowest ${slowest} ms)`,
    );
  },
);
