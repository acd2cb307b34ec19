// Issue 29 (what tenants share): docs/operating.md ("Metacontroller's workers") says a namespace's EtcdCluster syncs
// take their room in the namespace's share before they dial, so that "at most 2 of a namespace's syncs dial at once,
// so at most 2 workers wait on its members" (TENANT_MAX_SYNCS), of the 5 Metacontroller gives the EtcdCluster
// controller for every namespace. The share lives in the memory of one hook server process (hooks/etcdcommon/etcd.ts,
// one Limiter per process), and the shipped Deployment runs two replicas behind one Service
// (manifests/deploy/deployment.yaml `replicas: 2`, charts/metaops/values.yaml `replicas: 2`): Metacontroller's five
// workers call the Service, whose connections kube-proxy spreads over both. Tenant A's clusters whose members accept
// connections and never answer (A's image) then hold 2 syncs dialling in each replica: 4 of the 5 workers wait on A's
// members, and every other namespace's EtcdCluster syncs share the one left (the same holds for the S3 hook's
// S3_TENANT_MAX_SYNCS, whose AWS-call budget docs/s3.md says is per replica, but whose 2 workers are not).
//
// The same for S3 (test/s3/namespace-syncs-waiting-on-silent-aws-hold-at-most-its-share.test.ts, one server): A's
// spec.region outside the restricted egress makes its bucket calls silent until their deadline, and each replica lets
// 2 of A's S3 syncs wait on them at once: 4 of the 5 S3 workers.
//
// Stand-in: two hook servers as the two replicas (each its own process state: its own etcd client), A's four syncs
// of single-member clusters sent at once, two to each, as the Service would spread them. Control: the same four syncs
// to one replica dial two at once (the other two are answered 429 at once).
import t, { type Test } from 'tap';
import { TENANT_MAX_SYNCS } from '../../hooks/etcdcommon/etcd.js';
import { testApp } from '../fixtures/app.js';
import { membersBehind, syncBody } from '../fixtures/etcd-workers.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { silentEtcd } from '../fixtures/net.js';
import { AwsError, type AwsApi } from '../../hooks/s3/api.js';
import { S3_TENANT_MAX_SYNCS, S3Tenants } from '../../hooks/s3/share.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Sync } from '../fixtures/hooks.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';

const TOKEN = 'etcd-replicas-share-token-0123456789abcdef';
const CLUSTER_ID = '1234567890123456789';

/** One replica of the Deployment: a hook server with its own etcd client (its own process state). */
function replica(t: Test, port: number) {
  const client = membersBehind(port, false);
  const app = testApp({
    auth: { bearer: TOKEN },
    services: { now: () => FIXED_NOW },
    clients: { etcdcluster: { etcd: () => client } },
  });
  t.teardown(() => app.close());
  return app;
}

/** A's sync of its single-member cluster `name` (its member silent), sent to `app`: the status answered. */
async function sync(app: ReturnType<typeof testApp>, name: string): Promise<number> {
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/etcdcluster/sync',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    payload: syncBody('ns-a', name, 1, { clusterID: CLUSTER_ID }),
  });
  return res.statusCode;
}

t.test(
  "a namespace's EtcdCluster syncs dialling at once stay within its share across the Deployment's two replicas",
  async (t) => {
    t.equal(TENANT_MAX_SYNCS, 2);
    const silent = await silentEtcd(t);

    // Control: one replica takes two of A's four syncs and answers the others 429 at once.
    const one = replica(t, silent.port);
    const alone = await Promise.all([0, 1, 2, 3].map((i) => sync(one, `c${i}`)));
    t.equal(alone.filter((s) => s === 429).length, 2, `one replica: two of A's four syncs told to retry (${alone})`);

    // The Deployment's two replicas, A's four syncs spread over them as the Service spreads connections.
    const first = replica(t, silent.port);
    const second = replica(t, silent.port);
    const spread = await Promise.all([0, 1, 2, 3].map((i) => sync(i % 2 ? second : first, `a${i}`)));
    const dialled = spread.filter((s) => s !== 429).length;
    t.ok(
      dialled <= TENANT_MAX_SYNCS,
      `A's syncs that dialled its silent members at once, each holding one of Metacontroller's 5 workers: ${dialled} ` +
        `(statuses ${spread}); the namespace's share allows ${TENANT_MAX_SYNCS}`,
    );
  },
);

/** A region whose endpoints the server's egress drops: A's calls about buckets there are silent until released. */
const DROPPED = 'ap-south-2';

/** A's four S3 syncs in the dropped region, spread over `replicas` (each its memory of the shares): how many wait at once. */
async function s3Waiting(replicas: S3Tenants[]): Promise<number> {
  const fake = new FakeAws();
  let pending = 0;
  const waiters: Array<() => void> = [];
  const aws: AwsApi = new Proxy(fake, {
    get(target, prop, receiver) {
      if (prop === 'withDeadline') return () => aws;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (prop === 'findBucket' && args[1] === DROPPED) {
          pending++;
          await new Promise<void>((resolve) => waiters.push(resolve));
          pending--;
          throw new AwsError('TimeoutError', 'no answer within 4000 ms', 'GetBucketTagging');
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const syncs = [0, 1, 2, 3].map((i) =>
    s3Sync(
      s3Request(
        { name: `r${i}`, namespace: 'tenant-a', uid: `uid-tenant-a-r${i}` },
        { ...S3_DEFAULTS, bucketName: `tenant-a-r${i}`, region: DROPPED },
      ),
      aws,
      fake.now,
      {},
      replicas[i % replicas.length],
    ),
  );
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
  const waiting = pending;
  waiters.splice(0).forEach((w) => w());
  await Promise.allSettled(syncs);
  return waiting;
}

t.test(
  "a namespace's S3 syncs waiting on silent AWS calls stay within its share across the two replicas",
  async (t) => {
    t.equal(S3_TENANT_MAX_SYNCS, 2);
    t.equal(await s3Waiting([new S3Tenants()]), S3_TENANT_MAX_SYNCS, "one replica: two of A's four syncs wait");
    const waiting = await s3Waiting([new S3Tenants(), new S3Tenants()]);
    t.ok(
      waiting <= S3_TENANT_MAX_SYNCS,
      `A's S3 syncs waiting on silent AWS calls at once, each holding one of Metacontroller's 5 S3 workers: ${waiting}; ` +
        `the namespace's share allows ${S3_TENANT_MAX_SYNCS}`,
    );
  },
);
