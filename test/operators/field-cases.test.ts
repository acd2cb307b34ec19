// Workloads and S3 in the field, through the hooks only (each kind's definition, as Metacontroller calls it): parents
// side by side in one namespace, two resources naming one Secret, a primary whose volume was lost, names and values
// the children cannot carry, versions that cannot work, a hook killed between two AWS calls, and what `kubectl
// describe` shows. The detailed tests of each are in collisions, values, s3-crash and workload-status.
import t from 'tap';
import type { AwsApi } from '../../hooks/s3/api.js';
import { memcached } from '../../hooks/memcached/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { runHook } from '../../lib/operator.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { etcdParent } from '../fixtures/etcd.js';
import { etcdSync, memcachedSync, mysqlSync, podsetSync, s3Sync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';
import { quietEtcd } from '../fixtures/etcd.js';

const now = FIXED_NOW;
const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');
const named = (res: CompositeSyncResponse) => res.children.map((c) => `${c.kind}/${c.metadata.name}`);
const inNamespace = (req: CompositeSyncRequest, name: string, uid: string) => {
  req.parent.metadata = { ...req.parent.metadata, name, namespace: 'shop', uid };
  return req;
};

t.test('1. children of parents side by side never collide, and one another owner holds is never taken', async (t) => {
  const shop = named(mysqlSync(inNamespace(request('mysqlcluster', { size: 3, version: '8.0' }), 'shop', 'u1'), now));
  const read = named(
    mysqlSync(inNamespace(request('mysqlcluster', { size: 3, version: '8.0' }), 'shop-read', 'u2'), now),
  );
  t.same(
    shop.filter((c) => read.includes(c)),
    [],
    "MySQLCluster shop's read Service is not MySQLCluster shop-read's write Service",
  );
  const x = [
    ...named(memcachedSync(inNamespace(request('memcached', { size: 1 }), 'x', 'u3'), now)),
    ...named(mysqlSync(inNamespace(request('mysqlcluster', { size: 1, version: '8.0' }), 'x', 'u4'), now)),
  ].filter((c) => c.startsWith('Service/'));
  t.notOk(x.includes('Service/x'), 'a Memcached and a MySQLCluster named x leave Service x to the EtcdCluster x');
  t.equal(new Set(x).size, x.length, 'and want no Service in common');
  // A Service of the name this MySQLCluster wants, held by another parent: not taken, not served, and said.
  const theirs = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'shop-mysql',
      namespace: 'shop',
      ownerReferences: [
        {
          apiVersion: 'cache.example.com/v1alpha1',
          kind: 'Memcached',
          name: 'shop-mysql',
          uid: 'u9',
          controller: true,
        },
      ],
    },
  } as KubeObject;
  const req = inNamespace(request('mysqlcluster', { size: 3, version: '8.0' }), 'shop', 'u1');
  req.related = objectMap([theirs]);
  const res = mysqlSync(req, now);
  t.match(ready(res), { status: 'False', reason: 'ServiceNameTaken', message: /Memcached shop-mysql/ });
  t.same(res.children, [], 'nothing that depends on it is created');
  // EtcdCluster: the same, before any membership change.
  theirs.metadata.name = 'e-client';
  theirs.metadata.namespace = 'ns';
  const etcd = await etcdSync(
    { controller: {}, parent: etcdParent({ size: 3 }), children: {}, related: objectMap([theirs]) },
    { etcd: quietEtcd as never, now },
  );
  t.match(ready(etcd) ?? (etcd.status as any).conditions[0], { status: 'False', reason: 'ServiceNameTaken' });
  t.same(etcd.children, []);
});

t.test('2. two S3 resources naming one secretName: the second is SecretNameTaken and never makes a key', async (t) => {
  const aws = new FakeAws();
  const parent = (name: string): ParentObject => ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, generation: 1 },
    spec: { bucketName: `bucket-${name}`, secretName: 'shared' },
  });
  const first = await s3Sync({ controller: {}, parent: parent('one') }, aws, now);
  const secret = asObserved(first.children[0]!);
  (secret.metadata as Record<string, unknown>)['ownerReferences'] = [
    { apiVersion: 'systek.no/v1', kind: 'S3', name: 'one', uid: 'uid-one', controller: true },
  ];
  const before = aws.calls.length;
  let status: unknown;
  for (let i = 0; i < 4; i++) {
    const p = parent('two');
    if (status) p.status = status as never;
    const res = await s3Sync(
      { controller: {}, parent: p, children: {}, related: objectMap([secret]) },
      aws,
      new Date(now.getTime() + i * 3600_000),
    );
    status = res.status;
    t.match(ready(res), { status: 'False', reason: 'SecretNameTaken', message: /S3 one/ }, `sync ${i + 1}`);
  }
  t.equal(aws.calls.length, before, 'no key created or rotated, nothing made in AWS for the second');
});

t.test('3. a primary whose data directory was lost stays read-only, and the status says so', async (t) => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'db-mysql-0',
      namespace: 'default',
      labels: {
        'app.kubernetes.io/name': 'mysql',
        'app.kubernetes.io/instance': 'db',
        'mysqlcluster.metaops.io/instance': 'db',
      },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db-mysql', uid: 'u-sts', controller: true },
      ],
    },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'replication',
          ready: false,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: {
            terminated: {
              exitCode: 3,
              message: 'primary-behind: member 0 has no transactions; db-mysql-1.db-mysql-headless has 0-100-57;',
            },
          },
        },
      ],
    },
  } as unknown as KubeObject;
  const req = request('mysqlcluster', { size: 3, version: '8.0' }, { related: objectMap([pod]) });
  req.parent.metadata.name = 'db';
  const res = mysqlSync(req, now);
  t.match(ready(res), {
    status: 'False',
    reason: 'PrimaryBehind',
    message: /db-mysql-0 holds fewer transactions than a replica.*stays read-only.*To recover/,
  });
  const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
  const sidecar = sts.spec.template.spec.containers.find((c: any) => c.name === 'replication');
  t.match(
    sidecar.env.find((e: any) => e.name === 'PEER_HOST_FORMAT'),
    { value: 'db-mysql-%s.db-mysql-headless' },
    'member 0 is told where the others are, to compare what they hold',
  );
});

t.test('4. names and values the children cannot carry are InvalidSpec, and nothing running is replaced', async (t) => {
  const dotted = {
    ...etcdParent({ size: 1 }),
    metadata: { name: 'my.etcd', namespace: 'ns', uid: 'u', generation: 1 },
  };
  const etcd = await etcdSync({ controller: {}, parent: dotted, children: {} }, { etcd: quietEtcd as never, now });
  t.match((etcd.status as any).conditions[0], { reason: 'InvalidSpec', message: /metadata\.name "my\.etcd"/ });
  const long = request('podset', { size: 1 });
  long.parent.metadata.name = 'p'.repeat(64);
  t.match(ready(podsetSync(long, now)), { reason: 'InvalidSpec', message: /metadata\.name/ });
  // The image edited to "busybox " (a trailing space the CRD accepts): the running pods stay as they are.
  const first = podsetSync(request('podset', { size: 2 }), now);
  const running = objectMap(first.children.map((c) => asObserved(c, readyPod)));
  const edited = podsetSync(request('podset', { size: 2, image: 'busybox ' }, { children: running }), now);
  t.match(ready(edited), { reason: 'InvalidSpec', message: /spec\.image "busybox "/ });
  t.same(
    edited.children.filter((c) => c.kind === 'Pod').map((c) => (c as any).spec.containers[0].image),
    ['busybox', 'busybox'],
    'no working pod is given up for a replacement the API server refuses',
  );
  const reverted = podsetSync(request('podset', { size: 2, image: 'busybox' }, { children: running }), now);
  t.same(reverted.children, first.children, 'reverted: healed at once, nothing to recreate');
});

t.test('5. MySQL versions its replication cannot run, and downgrades, are InvalidSpec', async (t) => {
  for (const version of ['5.7', '8.0.22'])
    t.match(ready(mysqlSync(request('mysqlcluster', { size: 1, version }), now)), { reason: 'InvalidSpec' }, version);
  const first = mysqlSync(request('mysqlcluster', { size: 1, version: '8.4' }), now);
  const observed = objectMap(first.children.map((c) => asObserved(c)));
  const down = mysqlSync(request('mysqlcluster', { size: 1, version: '8.0' }, { children: observed }), now);
  t.match(ready(down), { reason: 'InvalidSpec', message: /older than 8\.4/ });
});

t.test('6. an S3 sync killed between CreateBucket and PutBucketTagging: the next sync is Ready', async (t) => {
  const fake = new FakeAws();
  let killed = false;
  const aws = new Proxy(fake, {
    get(target, prop, receiver) {
      if (prop === 'withDeadline') return () => aws;
      if (prop === 'createBucket')
        return async (bucket: string, region: string) => {
          await target.createBucket(bucket, region);
          killed = true;
          throw new Error('killed');
        };
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function'
        ? (...args: unknown[]) => (killed ? Promise.reject(new Error('killed')) : value.apply(target, args))
        : value;
    },
  }) as unknown as AwsApi;
  const parent = {
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name: 'app', namespace: 'ns', uid: 'uid-app', generation: 1 },
    spec: { bucketName: 'half-made' },
  } as ParentObject;
  await s3Sync({ controller: {}, parent, children: {} }, aws, now);
  t.equal(fake.buckets.get('half-made')?.tags.size, 0, 'the bucket exists without its tags');
  const next = await s3Sync({ controller: {}, parent, children: {} }, fake, now);
  t.match(ready(next), { status: 'True' }, 'its own half-made bucket is finished, not refused');
});

/** A sync whose Events are recorded, as for an authenticated caller. */
async function events(def: CompositeHookDefinition, req: CompositeSyncRequest): Promise<string[]> {
  const told: EventSpec[] = [];
  await runHook(def, 'sync', req, {
    now,
    services: { randomSecret: () => 'pw', events: () => ({ record: async (_p, e) => void told.push(...e) }) },
  });
  return told.map((e) => `${e.type} ${e.reason}`);
}

t.test(
  '7. Memcached and MySQLCluster tell Events; Memcached is not Complete before its Deployment runs the spec',
  async (t) => {
    t.same(await events(memcached, request('memcached', { size: 3 })), ['Normal Created']);
    t.same(await events(mysqlcluster, request('mysqlcluster', { size: 3, version: '8.0' })), ['Normal Created']);
    const first = memcachedSync(request('memcached', { size: 3 }), now);
    const deploy = asObserved(
      first.children.find((c) => c.kind === 'Deployment')!,
      {
        replicas: 3,
        readyReplicas: 3,
        updatedReplicas: 3,
        observedGeneration: 1,
      },
    );
    deploy.metadata.generation = 1;
    deploy.metadata.annotations = { [LAST_APPLIED]: JSON.stringify(first.children[0]) };
    const scaled = memcachedSync(
      request(
        'memcached',
        { size: 4 },
        { children: objectMap([deploy, ...first.children.slice(1).map((c) => asObserved(c))]) },
      ),
      now,
    );
    t.match(
      (scaled.status as any).conditions.find((c: any) => c.type === 'Progressing'),
      { status: 'True' },
      'scaled to 4, its Deployment still at 3: not Complete',
    );
    t.ok(
      (scaled.status as any).conditions.some((c: any) => c.type === 'Degraded'),
      'a Degraded condition',
    );
  },
);
