// What tenants share (issue 29): docs/operating.md ("Metacontroller's workers") says a namespace's EtcdCluster syncs
// take their room in the namespace's share before they dial, so that at most 2 of them dial at once
// (TENANT_MAX_SYNCS), of the 5 workers Metacontroller gives the EtcdCluster controller for every namespace; the S3
// hook's S3_TENANT_MAX_SYNCS (2) the same for its workers. The count lives in the memory of one hook server process,
// and the shipped Deployment runs two replicas behind one Service (manifests/deploy/deployment.yaml `replicas: 2`,
// charts/metaops/values.yaml `replicas: 2`), whose connections kube-proxy spreads over both: counted per process
// alone, tenant A's clusters whose members accept connections and never answer held 2 syncs in each replica, 4 of
// the 5 workers (A's S3 syncs in a region the egress drops: 4 of the 5 S3 workers). So the Deployment and the chart
// tell each replica how many serve (METAOPS_REPLICAS, from the same value as `replicas`), and each replica allows
// max(1, floor(cap / replicas)) (lib/server-replicas.ts): 1 each of 2, 2 in all.
//
// Stand-in: the Deployment's replicas as that many hook servers (each its own process state: its own etcd client,
// its own S3 shares, built from the Deployment's environment as the server builds them), A's syncs of
// single-member clusters sent at once, spread over them as the Service would. Control: a server told nothing
// counts itself alone and lets two of A's four syncs dial.
import t, { type Test } from 'tap';
import { TENANT_MAX_SYNCS } from '../../hooks/etcdcommon/etcd.js';
import { testApp } from '../fixtures/app.js';
import { syncBody } from '../fixtures/etcd-workers.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { silentEtcd } from '../fixtures/net.js';
import { AwsError, type AwsApi } from '../../hooks/s3/api.js';
import { S3_TENANT_MAX_SYNCS, type S3Tenants } from '../../hooks/s3/share.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Sync } from '../fixtures/hooks.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';
import { HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { tenantMaxSyncsOf } from '../../hooks/etcdcommon/index.js';
import { s3Clients } from '../../hooks/s3/sync.js';
import { perReplica, REPLICAS_ENV } from '../../lib/server-replicas.js';
import { settingsFromEnv, ConfigError } from '../../lib/config.js';
import { renderChart } from '../../scripts/render-chart.js';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';

const TOKEN = 'etcd-replicas-share-token-0123456789abcdef';
const CLUSTER_ID = '1234567890123456789';

/** The shipped Deployment: its replicas, and its container's environment (the values it sets). */
function shipped(): { replicas: number; env: NodeJS.ProcessEnv } {
  const deployment = YAML.parse(
    readFileSync(new URL('../../manifests/deploy/deployment.yaml', import.meta.url), 'utf8'),
  );
  const container = deployment.spec.template.spec.containers[0];
  const env = Object.fromEntries(
    (container.env as Array<{ name: string; value?: string }>).flatMap((e) =>
      e.value === undefined ? [] : [[e.name, e.value]],
    ),
  );
  return { replicas: deployment.spec.replicas, env };
}

/**
 * One replica of the Deployment: a hook server with its own etcd client (its own process state), counting a
 * namespace's syncs as the server does from `env` (etcdClients), its members' names mapped to the silent port.
 */
function replica(t: Test, port: number, env: NodeJS.ProcessEnv) {
  const client = new HttpEtcdClient({
    timeoutMs: 1500,
    resolve: (url) => `http://127.0.0.1:${port}${new URL(url).pathname}`,
    tenantMaxSyncs: tenantMaxSyncsOf(env),
  });
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

    // Control: a server told nothing counts itself alone: two of A's four syncs dial, the others 429 at once.
    const one = replica(t, silent.port, {});
    const alone = await Promise.all([0, 1, 2, 3].map((i) => sync(one, `c${i}`)));
    t.equal(alone.filter((s) => s === 429).length, 2, `one replica: two of A's four syncs told to retry (${alone})`);

    // The Deployment's replicas, A's syncs (two for each) spread over them as the Service spreads connections.
    const { replicas, env } = shipped();
    t.equal(replicas, 2, 'the Deployment runs two replicas');
    const servers = Array.from({ length: replicas }, () => replica(t, silent.port, env));
    const syncs = Array.from({ length: 2 * replicas }, (_, i) => i);
    const spread = await Promise.all(syncs.map((i) => sync(servers[i % replicas]!, `a${i}`)));
    const dialled = spread.filter((s) => s !== 429).length;
    t.ok(dialled > 0, `A's syncs dial in their share (${spread})`);
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
    t.equal(
      await s3Waiting([s3Clients().tenants]),
      S3_TENANT_MAX_SYNCS,
      "a server told nothing: two of A's four syncs wait",
    );
    const { replicas, env } = shipped();
    const waiting = await s3Waiting(Array.from({ length: replicas }, () => s3Clients({ env }).tenants));
    t.ok(waiting > 0, "A's S3 syncs call AWS in their share");
    t.ok(
      waiting <= S3_TENANT_MAX_SYNCS,
      `A's S3 syncs waiting on silent AWS calls at once, each holding one of Metacontroller's 5 S3 workers: ${waiting}; ` +
        `the namespace's share allows ${S3_TENANT_MAX_SYNCS}`,
    );
  },
);

t.test('the Deployment and the chart tell each replica how many serve, from the same value as replicas', async (t) => {
  const { replicas, env } = shipped();
  t.equal(env[REPLICAS_ENV], String(replicas), `manifests/deploy/deployment.yaml sets ${REPLICAS_ENV} to its replicas`);
  const chart = renderChart();
  const values = YAML.parse(chart.get('values.yaml')!);
  t.equal(values.replicas, replicas, 'the chart runs as many replicas by default');
  t.match(
    chart.get('templates/deployment.yaml')!,
    new RegExp(`- name: ${REPLICAS_ENV}\\n\\s+value: \\{\\{ \\.Values\\.replicas \\| quote \\}\\}`),
    `the chart sets ${REPLICAS_ENV} from .Values.replicas`,
  );
});

t.test("each replica allows max(1, floor(cap / replicas)) of a namespace's syncs at once", async (t) => {
  t.same(
    [1, 2, 3, 5].map((r) => perReplica(TENANT_MAX_SYNCS, r)),
    [2, 1, 1, 1],
    'of 2: 2 alone, 1 each of 2 replicas (2 in all), 1 each beyond (one worker a replica)',
  );
  t.equal(tenantMaxSyncsOf({ [REPLICAS_ENV]: '2' }), 1);
  t.equal(tenantMaxSyncsOf({}), TENANT_MAX_SYNCS, 'unset: the server counts itself alone');
  t.equal(s3Clients({ env: { [REPLICAS_ENV]: '2' } }).tenants.maxSyncs, 1);
  for (const wrong of ['0', '-1', '2.5', 'two', '3', '5', '101', '']) {
    const problems = (() => {
      try {
        settingsFromEnv({ [REPLICAS_ENV]: wrong });
        return [];
      } catch (err) {
        return err instanceof ConfigError ? err.problems : [String(err)];
      }
    })();
    t.ok(
      problems.some((p) => p.startsWith(`${REPLICAS_ENV}=`)),
      `${REPLICAS_ENV}=${JSON.stringify(wrong)} stops the server: ${problems}`,
    );
  }
  t.doesNotThrow(() => settingsFromEnv({ [REPLICAS_ENV]: '2' }));
});

t.test(
  'over every replica count the server starts with, a namespace holds at most its share of the workers',
  async (t) => {
    // Each replica allows perReplica(cap, replicas) of a namespace's calls waiting at once: over all of them,
    // replicas × that. With 5 replicas a namespace held all 5 of a controller's workers (1 each); now a count the caps
    // cannot hold over is refused at start-up, saying why.
    for (const cap of [TENANT_MAX_SYNCS, S3_TENANT_MAX_SYNCS])
      for (let replicas = 1; replicas <= 100; replicas++) {
        const starts = (() => {
          try {
            settingsFromEnv({ [REPLICAS_ENV]: String(replicas) });
            return true;
          } catch (err) {
            if (!(err instanceof ConfigError)) throw err;
            t.match(err.problems.join('\n'), /Metacontroller's workers/, `${replicas} replicas refused, saying why`);
            return false;
          }
        })();
        if (!starts) continue;
        const held = replicas * perReplica(cap, replicas);
        if (held > cap)
          t.fail(`${replicas} replicas start, and a namespace holds ${held} workers, more than its ${cap}`);
      }
    t.throws(() => settingsFromEnv({ [REPLICAS_ENV]: '5' }), ConfigError, 'five replicas do not start');
  },
);
