// Tenant A may create PersistentVolumeClaims in its own namespace, and Metacontroller adopts every claim that carries
// an EtcdCluster's selector label (`controller-uid: <the cluster's UID>`, generateSelector; v4.17.2
// composite/controller.go L756-758, ClaimChildren): they reach A's sync as observed children. A claim named as a
// member (`<cluster>-<i>`) with no pod is read as a member to restart: the hook answers a pod for every one of them,
// and every such pod's command lists every one of them as a peer. The answer budget (lib/budget.ts) is an estimate
// from the spec alone, so nothing bounds it: for a cluster of `size: 3`, 1,000 claims (0.2 MiB of request) are
// answered with 2,003 children, 33.6 MiB, and the server's peak RSS is ~480 MiB; 2,000 claims make an answer past
// what V8 can make a string of (the sync throws RangeError: Invalid string length after ~2.9 GB of RSS). The
// Deployment allows 512 MiB: one object restarts the server every tenant shares, at every resync.
import t from 'tap';
import { MAX_DIALLED_PODS } from '../../hooks/etcdcluster/observe.js';
import { MAX_ANSWER_BYTES } from '../../lib/budget.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent, unreachableEtcd } from '../fixtures/etcd.js';

const TOKEN = 'etcd-answer-bound-token-0123456789abcdef';

/** An etcd that is down: every call fails at once (the cost measured is the hook's own). */
const etcd = unreachableEtcd;

/** `n` claims A made under its cluster's member names, with its selector label: adopted as children. */
const claims = (n: number) =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `e-${i}`,
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: `e-${i}`, namespace: 'ns', labels: { 'controller-uid': 'uid-e' } },
        spec: { resources: { requests: { storage: '1Gi' } } },
        status: { phase: 'Bound' },
      },
    ]),
  );

t.test(
  "claims a tenant made under its cluster's member names make no answer beyond the kind's budget, nor more members than the cluster has",
  async (t) => {
    const app = testApp({ auth: { bearer: TOKEN }, clients: { etcdcluster: { etcd: () => etcd } } });
    t.teardown(() => app.close());
    const storage = {
      persistentVolumeClaimSpec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    };
    const payload = JSON.stringify({
      controller: {},
      parent: etcdParent({ size: 3, pod: storage }, { phase: 'Running', lastMemberIndex: 2 }),
      children: { 'Pod.v1': {}, 'Service.v1': {}, 'PersistentVolumeClaim.v1': claims(1000) },
    });
    const res = await app.inject({
      method: 'POST',
      url: '/hooks/etcdcluster/sync',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      payload,
    });
    t.equal(res.statusCode, 200);
    const answer = res.json() as { children: Array<{ kind: string }> };
    const bytes = Buffer.byteLength(JSON.stringify(answer.children));
    const pods = answer.children.filter((c) => c.kind === 'Pod').length;
    t.comment(
      `request ${(payload.length / 1048576).toFixed(2)} MiB; answered ${answer.children.length} children ` +
        `(${pods} pods), ${(bytes / 1048576).toFixed(1)} MiB; RSS now ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`,
    );
    t.ok(bytes <= MAX_ANSWER_BYTES, `the children answered fit in ${MAX_ANSWER_BYTES / 1048576} MiB (${bytes} bytes)`);
    t.ok(pods <= MAX_DIALLED_PODS, `at most ${MAX_DIALLED_PODS} member pods for a cluster of 3 (${pods})`);
  },
);
