// Parents side by side in one namespace (lib/ownership.ts, each kind's names): the children of two parents never
// share a name, whatever the kinds (but coreos's EtcdCluster names, below), and a child name another owner holds is
// never taken or served: the parent answers Ready=False `<Kind>NameTaken` naming the holder, creating nothing
// (no pod, no membership change, no IAM key) and changing nothing it has.
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { backupNameProblem, etcdbackup } from '../../hooks/etcdbackup/index.js';
import { etcdChildNames, etcdNameProblem } from '../../hooks/etcdcluster/index.js';
import { NAMES_AHEAD } from '../../hooks/etcdcluster/names.js';
import { memcached } from '../../hooks/memcached/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import { podset } from '../../hooks/podset/index.js';
import { ASK_ALL_BYTES } from '../../hooks/podset/sync.js';
import { s3 } from '../../hooks/s3/index.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import {
  controllerOf,
  heldForTakenNames,
  holderOf,
  namedRules,
  takenCondition,
  takenIn,
  takenNames,
} from '../../lib/ownership.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { etcdParent, watchedEtcd as watchedEtcdOf } from '../fixtures/etcd.js';
import { backupSync, etcdSync, memcachedSync, mysqlSync, podsetSync, s3Sync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';
import { etcdCluster as etcdClusterOf } from '../fixtures/backup.js';

const now = FIXED_NOW;
const NS = 'shop';

/** A parent of a kind, named `name`, in the namespace NS. */
function parentOf(kind: 'memcached' | 'podset' | 'mysqlcluster', name: string, spec: Record<string, unknown>) {
  const req = request(kind, spec);
  req.parent.metadata = { ...req.parent.metadata, name, namespace: NS, uid: `uid-${kind}-${name}` };
  return req;
}

/** The children a parent asks for first (nothing observed), each as `<Kind>/<name>`. */
function firstChildren(req: CompositeSyncRequest, sync: (r: CompositeSyncRequest) => CompositeSyncResponse): string[] {
  return sync(req).children.map((c) => `${c.kind}/${c.metadata.name}`);
}

const syncs = {
  memcached: (r: CompositeSyncRequest) => memcachedSync(r, now),
  podset: (r: CompositeSyncRequest) => podsetSync(r, now),
  mysqlcluster: (r: CompositeSyncRequest) => mysqlSync(r, now),
};
const specs = {
  memcached: { size: 1 },
  podset: { size: 3 },
  mysqlcluster: { size: 3, version: '8.0' },
};

/** What a MySQLCluster's StatefulSet makes, besides its children: pods and volumes, named by ordinal. */
function made(kind: string, children: string[], size: number): string[] {
  const found = children.find((c) => c.startsWith('StatefulSet/'));
  if (kind !== 'mysqlcluster' || !found) return children;
  const sts = found.slice('StatefulSet/'.length);
  return [
    ...children,
    ...Array.from({ length: size }, (_, i) => [`Pod/${sts}-${i}`, `PersistentVolumeClaim/data-${sts}-${i}`]).flat(),
  ];
}

t.test('the workloads issue case: MySQLCluster shop and shop-read no longer want the same Service', async (t) => {
  const shop = firstChildren(parentOf('mysqlcluster', 'shop', specs.mysqlcluster), syncs.mysqlcluster);
  const read = firstChildren(parentOf('mysqlcluster', 'shop-read', specs.mysqlcluster), syncs.mysqlcluster);
  t.same(
    shop.filter((c) => read.includes(c)),
    [],
    'no child of one is a child of the other',
  );
  t.ok(shop.includes('Service/shop-mysql-read'), "shop's reads: shop-mysql-read");
  t.ok(read.includes('Service/shop-read-mysql'), "shop-read's writes: shop-read-mysql");
});

t.test('a Memcached, a MySQLCluster, a PodSet and an EtcdCluster named x want no common child', async (t) => {
  const all: Array<[string, string[]]> = (['memcached', 'podset', 'mysqlcluster'] as const).map((kind) => [
    kind,
    made(kind, firstChildren(parentOf(kind, 'x', specs[kind]), syncs[kind]), 3),
  ]);
  // EtcdCluster keeps coreos's names: Services x and x-client, budget x, members x-<ordinal>.
  const etcd = etcdChildNames(etcdParent({ size: 3 }, undefined)).map((c) => `${c.kind}/${c.name.replace(/^e/, 'x')}`);
  all.push(['etcdcluster', etcd]);
  for (let i = 0; i < all.length; i++)
    for (let j = i + 1; j < all.length; j++) {
      const [a, as] = all[i]!;
      const [b, bs] = all[j]!;
      t.same(
        as.filter((c) => bs.includes(c)),
        [],
        `${a} x and ${b} x`,
      );
    }
});

t.test('no two parents of the kinds metaops names freely ever want one child, whatever their names', async (t) => {
  // Names made of the pieces the kinds' suffixes are made of, so that near misses are tried.
  const piece = fc.constantFrom('a', 'mysql', 'read', 'headless', 'memcached', 'pod', 'credentials', '0', '1', '10');
  const name = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => `a-${p.join('-')}`);
  const kind = fc.constantFrom('memcached', 'podset', 'mysqlcluster', 's3');
  const childrenOf = (k: string, n: string): string[] => {
    if (k === 's3') return [`Secret/${n}-credentials`];
    const key = k as keyof typeof syncs;
    return made(key, firstChildren(parentOf(key, n, { ...specs[key], size: 3 }), syncs[key]), 3);
  };
  const result = fc.check(
    fc.property(kind, name, kind, name, (k1, n1, k2, n2) => {
      if (k1 === k2 && n1 === n2) return true;
      const a = childrenOf(k1, n1);
      const b = childrenOf(k2, n2);
      const common = a.filter((c) => b.includes(c));
      if (common.length) throw new Error(`${k1} ${n1} and ${k2} ${n2} both want ${common.join(', ')}`);
      return true;
    }),
    { numRuns: 400 },
  );
  t.notOk(result.failed, result.failed ? String(result.errorInstance) : 'held for 400 pairs');
});

/** An object of `kind`/`name` in NS that another parent owns (its controller reference), or nobody. */
function held(
  kind: string,
  apiVersion: string,
  name: string,
  owner?: { kind: string; name: string; uid: string },
): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: {
      name,
      namespace: NS,
      uid: `uid-held-${name}`,
      ...(owner ? { ownerReferences: [{ apiVersion: 'x/v1', ...owner, controller: true }] } : {}),
    },
  } as KubeObject;
}
const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');

t.test(
  'lib/ownership: which objects of a wanted name are another owner\u2019s, and the rules that find them',
  async (t) => {
    const req = parentOf('memcached', 'x', specs.memcached);
    const mine = asObserved(held('Service', 'v1', 'mine'));
    req.children = objectMap([mine]);
    req.related = objectMap([
      held('Service', 'v1', 'mine'),
      held('Service', 'v1', 'owned', { kind: 'Memcached', name: 'x', uid: 'uid-memcached-x' }),
      held('Service', 'v1', 'theirs', { kind: 'MySQLCluster', name: 'y', uid: 'uid-y' }),
      held('Service', 'v1', 'handmade'),
      { ...held('Service', 'v1', 'elsewhere'), metadata: { name: 'elsewhere', namespace: 'other' } } as KubeObject,
      held('Secret', 'v1', 'theirs', { kind: 'S3', name: 'z', uid: 'uid-z' }),
    ]);
    const want = (...names: string[]) => names.map((name) => ({ apiVersion: 'v1', kind: 'Service', name }));
    const taken = takenNames(req, want('mine', 'owned', 'theirs', 'handmade', 'elsewhere', 'free'));
    t.same(
      taken.map((x) => [x.child.name, x.holder]),
      [
        ['theirs', 'MySQLCluster y (uid uid-y)'],
        ['handmade', 'no controller (made by hand, or left behind)'],
      ],
      'observed as a child, or controlled by the parent, is its own; another namespace, or nothing, is free',
    );
    t.same(
      takenNames(req, want('handmade'), () => true),
      [],
      'what `ours` accepts is the parent\u2019s',
    );
    const going = { ...held('Pod', 'v1', 'p'), metadata: { name: 'p', deletionTimestamp: '2026-01-01T00:00:00Z' } };
    t.equal(holderOf(going as KubeObject), 'no controller (made by hand, or left behind) (being deleted)');
    t.equal(
      controllerOf({ ...going, metadata: { ...going.metadata, ownerReferences: [null, 'x'] } } as never),
      undefined,
    );
    t.same(
      namedRules(NS, [
        { apiVersion: 'v1', kind: 'Service', name: 'b' },
        { apiVersion: 'v1', kind: 'Service', name: 'a' },
        { apiVersion: 'v1', kind: 'Service', name: 'a' },
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' },
      ]),
      [
        { apiVersion: 'apps/v1', resource: 'deployments', namespace: NS, names: ['d'] },
        { apiVersion: 'v1', resource: 'services', namespace: NS, names: ['a', 'b'] },
      ],
      'one rule per type, in the namespace, names sorted once',
    );
    t.throws(
      () => namedRules(NS, [{ apiVersion: 'v1', kind: 'Widget', name: 'w' }]),
      /no resource known for kind Widget/,
    );
    const many = Array.from({ length: 5 }, (_, i) => ({
      child: { apiVersion: 'v1', kind: 'Pod', name: `p-${i}` },
      holder: 'someone',
    }));
    const cond = takenCondition(req.parent, many);
    t.equal(cond.reason, 'PodNameTaken');
    t.match(
      cond.message,
      /^Pod p-0 belongs to someone; Pod p-1 belongs to someone; Pod p-2 belongs to someone \(and 2 more\): this Memcached/,
    );
    const answer = heldForTakenNames(req, many, now, { ready: '1/1', conditions: [null, { type: 'Available' }] });
    t.same(answer.children, [{ ...mine, metadata: { name: 'mine', namespace: NS, labels: mine.metadata.labels } }]);
    t.same(
      (answer.status as any).conditions.map((c: any) => c.type),
      ['Ready', 'Available'],
    );
    t.equal(answer.resyncAfterSeconds, 30);
  },
);

t.test('Memcached: a Service name another owner holds holds the Memcached; its owner keeps working', async (t) => {
  // A Memcached from before the suffix named x-memcached has the Service x-memcached.
  const holder = held('Service', 'v1', 'x-memcached', { kind: 'Memcached', name: 'x-memcached', uid: 'uid-old' });
  const req = parentOf('memcached', 'x', specs.memcached);
  req.related = objectMap([holder]);
  const res = memcachedSync(req, now);
  t.match(ready(res), {
    status: 'False',
    reason: 'ServiceNameTaken',
    message:
      /^Service x-memcached belongs to Memcached x-memcached \(uid uid-old\): this Memcached does not take or serve/,
  });
  t.same(res.children, [], 'nothing is created, not even the Deployment');
  t.equal(res.resyncAfterSeconds, 30, 'looked at again: the holder may go');
  // The owner: its own Service is observed as its child; nothing is held.
  const owner = parentOf('memcached', 'x-memcached', specs.memcached);
  owner.children = objectMap([asObserved(held('Service', 'v1', 'x-memcached'))]);
  owner.related = objectMap([holder]);
  const kept = memcachedSync(owner, now);
  t.not(ready(kept).reason, 'ServiceNameTaken');
  t.same(
    kept.children.map((c) => c.metadata.name),
    ['x-memcached', 'x-memcached', 'x-memcached-memcached'],
    "the older one keeps its Deployment and its Service x-memcached (and its pods' NetworkPolicy)",
  );
  // Once the holder is gone, the Memcached proceeds.
  req.related = objectMap([]);
  t.equal(memcachedSync(req, now).children.length, 3, 'its Deployment, Service and NetworkPolicy');
});

t.test('PodSet: pods whose names another owner holds: none is created, running ones are kept', async (t) => {
  const req = parentOf('podset', 'web', { size: 3 });
  const first = podsetSync(req, now);
  const running = first.children.slice(0, 2).map((c) => asObserved(c, readyPod));
  req.children = objectMap(running);
  // web-pod-2 was made by hand.
  req.related = objectMap([held('Pod', 'v1', 'web-pod-2')]);
  const res = podsetSync(req, now);
  t.match(ready(res), { status: 'False', reason: 'PodNameTaken', message: /^Pod web-pod-2 belongs to no controller/ });
  t.same(
    res.children.map((c) => c.metadata.name),
    ['web-pod-0', 'web-pod-1', 'web-podset'],
    'the running pods are kept as they are (their NetworkPolicy answered), the taken one is not asked for',
  );
});

t.test(
  'MySQLCluster: a write Service, a member pod or a data volume another owner holds holds the cluster',
  async (t) => {
    for (const [what, obj, reason] of [
      [
        'write Service',
        held('Service', 'v1', 'db-mysql', { kind: 'Memcached', name: 'db-mysql', uid: 'u' }),
        'ServiceNameTaken',
      ],
      ['member pod', held('Pod', 'v1', 'db-mysql-1', { kind: 'PodSet', name: 'db-mysql', uid: 'u' }), 'PodNameTaken'],
      [
        'data volume (another cluster\u2019s claim, or one made by hand)',
        held('PersistentVolumeClaim', 'v1', 'data-db-mysql-2'),
        'PersistentVolumeClaimNameTaken',
      ],
    ] as const) {
      const req = parentOf('mysqlcluster', 'db', specs.mysqlcluster);
      req.related = objectMap([obj]);
      const res = mysqlSync(req, now);
      t.match(ready(res), { status: 'False', reason }, what);
      t.same(res.children, [], `${what}: no StatefulSet, Service or Secret is created`);
    }
    // A volume labelled as the cluster's StatefulSet labels them is another MySQL's too (a Helm release `db` labels its
    // claims so, test/mysqlcluster/leftover-claims-not-taken.test.ts); one marked with the cluster's uid (made by its
    // StatefulSet, or an earlier cluster's adopted by the user) is its own: its data, not a collision.
    const req = parentOf('mysqlcluster', 'db', specs.mysqlcluster);
    const volume = held('PersistentVolumeClaim', 'v1', 'data-db-mysql-0');
    volume.metadata.labels = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'db' };
    req.related = objectMap([volume]);
    t.match(ready(mysqlSync(req, now)), { reason: 'PersistentVolumeClaimNameTaken' }, 'labelled only: held');
    volume.metadata.labels['mysqlcluster.metaops.io/uid'] = req.parent.metadata.uid!;
    req.related = objectMap([volume]);
    t.match(ready(mysqlSync(req, now)), { reason: 'CredentialsLost' }, 'a volume of an earlier cluster, adopted');
  },
);

t.test('S3: a secretName another S3 resource holds is SecretNameTaken; no key is ever made for it', async (t) => {
  const aws = new FakeAws();
  const parent = (name: string): ParentObject => ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name, namespace: NS, uid: `uid-${name}`, generation: 1 },
    spec: { bucketName: `bucket-${name}`, secretName: 'shared' },
  });
  // The first resource: Ready, its Secret `shared`.
  const first = await s3Sync({ controller: {}, parent: parent('first') }, aws, now);
  t.match(ready(first), { status: 'True' });
  const secret = { ...asObserved(first.children[0]!), metadata: { ...asObserved(first.children[0]!).metadata } };
  (secret.metadata as Record<string, unknown>)['ownerReferences'] = [
    { apiVersion: 'systek.no/v1', kind: 'S3', name: 'first', uid: 'uid-first', controller: true },
  ] as never;
  const calls = aws.calls.length;
  const firstKeys = aws.keyIds(`metaops-${NS}-first`.slice(0, 0) || [...aws.users.keys()][0]!);
  // The second, for as long as we watch: never a key, never a bucket, the same condition.
  let status: unknown;
  for (let i = 0; i < 5; i++) {
    const p = parent('second');
    if (status) p.status = status as never;
    const res = await s3Sync(
      { controller: {}, parent: p, children: {}, related: objectMap([secret]) },
      aws,
      new Date(now.getTime() + i * 600_000),
    );
    status = res.status;
    t.match(ready(res), {
      status: 'False',
      reason: 'SecretNameTaken',
      message: /^Secret shared belongs to S3 first \(uid uid-first\)/,
    });
    t.match(
      (res.status as any).conditions.find((c: any) => c.type === 'Synced'),
      { reason: 'SecretNameTaken' },
    );
    t.same(res.children, [], 'the other resource\u2019s Secret is not answered');
  }
  t.equal(aws.calls.length, calls, 'no AWS call that changes anything');
  t.notOk(
    [...aws.users.keys()].some((u) => u.includes('second')),
    'no IAM user, so no key, for the second',
  );
  t.equal(firstKeys.length, 1, 'the first keeps its one key');
  // The owner itself is not held by its own Secret.
  const again = await s3Sync(
    {
      controller: {},
      parent: { ...parent('first'), status: first.status as never },
      children: objectMap([secret]),
      related: objectMap([secret]),
    },
    aws,
    now,
  );
  t.match(ready(again), { status: 'True' });
  // customize asks for the Secret by name, in the namespace, and, once held, for its holder by name (a holder is
  // judged by it: test/s3/secret-name-held-while-holder-exists.test.ts).
  const rules = s3.customize!({ controller: {}, parent: parent('second') }, {} as never).relatedResources;
  t.same(rules, [{ apiVersion: 'v1', resource: 'secrets', namespace: NS, names: ['shared'] }]);
  const held = s3.customize!(
    { controller: {}, parent: { ...parent('second'), status: status as never } },
    {} as never,
  ).relatedResources;
  t.same(held, [
    { apiVersion: 'systek.no/v1', resource: 's3s', namespace: NS, names: ['first'] },
    { apiVersion: 'v1', resource: 'secrets', namespace: NS, names: ['shared'] },
  ]);
  const byDefault = s3.customize!(
    { controller: {}, parent: { ...parent('third'), spec: { bucketName: 'b-third' } } },
    {} as never,
  ).relatedResources;
  t.same(byDefault[0]!.names, ['third-credentials']);
});

/** An etcd client that fails the test if the hook changes membership. */
const watchedEtcd = (t: Test) => watchedEtcdOf(t, 'no member is added for a pod that cannot be created');

t.test('EtcdCluster: a Service another owner holds: no pod, no membership change, the reason names it', async (t) => {
  for (const taken of [
    held('Service', 'v1', 'e', { kind: 'Memcached', name: 'e', uid: 'u-mc' }),
    held('Service', 'v1', 'e-client', { kind: 'MySQLCluster', name: 'e-client', uid: 'u-db' }),
    held('Pod', 'v1', 'e-0', { kind: 'PodSet', name: 'e', uid: 'u-ps' }),
  ]) {
    taken.metadata.namespace = 'ns';
    const res = await etcdSync(
      { controller: {}, parent: etcdParent({ size: 3 }), children: {}, related: objectMap([taken]) },
      { etcd: watchedEtcd(t), now },
    );
    t.match(ready(res) ?? (res.status as any).conditions[0], {
      status: 'False',
      reason: `${taken.kind}NameTaken`,
      message: new RegExp(`^${taken.kind} ${taken.metadata.name} belongs to`),
    });
    t.same(res.children, [], `${taken.kind} ${taken.metadata.name}: nothing created`);
  }
});

t.test('names the children cannot carry: EtcdCluster names with dots or too long are InvalidSpec', async (t) => {
  const named = (name: string) => ({
    ...etcdParent({ size: 1 }),
    metadata: { name, namespace: 'ns', uid: 'u', generation: 1 },
  });
  t.equal(etcdNameProblem(named('e')), undefined);
  t.equal(etcdNameProblem(named('a'.repeat(56))), undefined, '56: x-client is 63');
  t.match(
    etcdNameProblem(named('a'.repeat(57))),
    /cannot name Service "a{57}-client": it must be at most 63 characters/,
  );
  t.match(etcdNameProblem(named('my.etcd')), /cannot name Service "my.etcd-client": it must start with a letter/);
  t.match(etcdNameProblem(named('1etcd')), /cannot name Service/);
  const res = await etcdSync({ controller: {}, parent: named('my.etcd'), children: {} }, { etcd: watchedEtcd(t), now });
  t.match((res.status as any).conditions[0], { reason: 'InvalidSpec', message: /metadata.name "my.etcd"/ });
  t.same(res.children, []);
  // The names customize asks for: Services, budget, members listed and the next ordinals, pods and claims, and a
  // restore's check pod with its policy.
  const names = etcdChildNames(
    etcdParent({ size: 3 }, { lastMemberIndex: 4, memberList: [{ name: 'e-3' }, { name: 'other-1' }, null] }),
  );
  t.same(
    names.filter((n) => n.kind === 'Pod').map((n) => n.name),
    ['e-3', ...Array.from({ length: NAMES_AHEAD }, (_, i) => `e-${5 + i}`), 'e-restore-check'],
  );
  t.equal(names.filter((n) => n.kind === 'PersistentVolumeClaim').length, NAMES_AHEAD + 1);
  t.same(
    names.filter((n) => n.kind !== 'Pod' && n.kind !== 'PersistentVolumeClaim').map((n) => `${n.kind}/${n.name}`),
    [
      'Service/e',
      'Service/e-client',
      'PodDisruptionBudget/e',
      'NetworkPolicy/e-members',
      'NetworkPolicy/e-restore-check',
    ],
  );
});

t.test('every kind with named children asks for them by name in customize', async (t) => {
  for (const [def, kind] of [
    [memcached, 'memcached'],
    [podset, 'podset'],
    [mysqlcluster, 'mysqlcluster'],
  ] as const) {
    const req = parentOf(kind, 'x', specs[kind]);
    const rules = def.customize!({ controller: {}, parent: req.parent }, {} as never).relatedResources;
    const named = rules.filter((r) => r.names);
    t.ok(named.length > 0, `${kind} asks by name`);
    for (const r of named) t.equal(r.namespace, NS, `${kind} ${r.resource}: in the parent's namespace`);
  }
});

t.test(
  'EtcdBackup: a Job name another owner holds is JobNameTaken; names too long for its Job or CronJob are InvalidSpec',
  async (t) => {
    const parent = (name: string, interval = 0): ParentObject =>
      ({
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdBackup',
        metadata: { name, namespace: 'ns', uid: `uid-${name}`, generation: 1 },
        spec: {
          clusterName: 'example-etcd-cluster',
          s3: { path: 'bucket/ns/key', awsSecret: 'aws' },
          ...(interval ? { backupPolicy: { backupIntervalInSecond: interval } } : {}),
        },
      }) as ParentObject;
    const job = held('Job', 'batch/v1', 'nightly-backup', { kind: 'EtcdBackup', name: 'nightly', uid: 'uid-old' });
    job.metadata.namespace = 'ns';
    const res = backupSync(
      {
        controller: {},
        parent: parent('nightly'),
        children: {},
        related: objectMap([job, etcdClusterOf('example-etcd-cluster', 'ns')]),
      },
      'img',
      now,
    );
    t.match(ready(res) ?? (res.status as any).conditions[0], {
      status: 'False',
      reason: 'JobNameTaken',
      message: /^Job nightly-backup belongs to EtcdBackup nightly \(uid uid-old\)/,
    });
    t.same(res.children, []);
    t.equal(backupNameProblem(parent('a'.repeat(56))), undefined, 'a one-off backup: its Job\u2019s pods label it, 63');
    t.match(
      backupNameProblem(parent('a'.repeat(57))),
      /cannot name label job-name "a{57}-backup": it must be at most 63/,
    );
    t.equal(backupNameProblem(parent('a'.repeat(45), 60)), undefined, 'a periodic one: its CronJob, 52');
    t.match(backupNameProblem(parent('a'.repeat(46), 60)), /cannot name CronJob "a{46}-backup": it must be at most 52/);
    const rules = etcdbackup.customize!({ controller: {}, parent: parent('nightly') }, {} as never).relatedResources;
    t.same(
      rules.filter((r) => r.names),
      [
        { apiVersion: 'batch/v1', resource: 'cronjobs', namespace: 'ns', names: ['nightly-backup'] },
        { apiVersion: 'batch/v1', resource: 'jobs', namespace: 'ns', names: ['nightly-backup'] },
      ],
    );
  },
);

t.test(
  'PodSet customize asks for every pod name whatever its status; past ASK_ALL_BYTES it leaves out the pods it lists',
  async (t) => {
    const ask = (status?: Record<string, unknown>, spec: Record<string, unknown> = { size: 3 }) => {
      const req = parentOf('podset', 'web', spec);
      if (status) req.parent.status = status as never;
      return podset.customize!({ controller: {}, parent: req.parent }, {} as never).relatedResources.find(
        (r) => r.names && r.resource === 'pods',
      )?.names;
    };
    const every = ['web-0', 'web-1', 'web-2', 'web-pod-0', 'web-pod-1', 'web-pod-2'];
    t.same(ask(), every, 'a new PodSet: every name');
    t.same(ask({ nodes: ['web-pod-0', 'web-pod-2'] }), every, 'pods listed: still every name');
    t.same(ask({ nodes: every }), every, 'a settled PodSet: every name');
    t.same(ask({ nodes: 'web-pod-0' })!.length, 6, 'a status that cannot be read: every name');
    // 700 pods of a long image would be sent twice past the body limit: the ones listed are left out.
    const big = { size: 700, image: 'i'.repeat(512), command: ['sleep', '3600'] };
    const listed = Array.from({ length: 700 }, (_, i) => `web-pod-${i}`);
    // Of the names not listed, at most ASK_ALL_BYTES' worth of each form, the lowest ordinals first: the answer kept
    // may be one asked while the status listed none of the pods that run now (the PodSet new, its status lost).
    const names = ask({ nodes: listed.slice(1) }, big)!;
    const legacy = names.filter((n) => !n.startsWith('web-pod-'));
    t.ok(names.includes('web-pod-0') && !names.includes('web-pod-1'), 'the one modern name not listed');
    t.equal(names.length, 1 + legacy.length, 'no modern name listed');
    t.ok(legacy.length > 0 && legacy.length < 700, `the legacy names of the lowest ordinals: ${legacy.length}`);
    t.ok(legacy.length * (4096 + 3 * 512) <= ASK_ALL_BYTES, "within ASK_ALL_BYTES' worth");
    t.same([...legacy].sort(), legacy.map((_, i) => `web-${i}`).sort(), 'the lowest ordinals first');
  },
);

t.test(
  'lib/ownership at its edges: no related objects, a parent without a uid, a holder that names nothing',
  async (t) => {
    const req = parentOf('memcached', 'x', specs.memcached);
    const want = [{ apiVersion: 'v1', kind: 'Service', name: 's' }];
    t.same(
      takenIn({ ...req, related: undefined as never }, { status: {}, children: [held('Service', 'v1', 's')] }),
      [],
    );
    t.same(takenNames(req, want), [], 'no related objects: nothing is known to be taken');
    // A parent without a uid (a hand-made request) owns nothing by reference, not even objects without one.
    const noUid = { ...req, parent: { ...req.parent, metadata: { ...req.parent.metadata, uid: undefined } } };
    noUid.related = objectMap([
      {
        ...held('Service', 'v1', 's'),
        metadata: { name: 's', namespace: NS, ownerReferences: [{ kind: 'K', name: 'k', controller: true }] },
      } as KubeObject,
    ]);
    t.same(
      takenNames(noUid as CompositeSyncRequest, want).map((x) => x.holder),
      ['K k (uid ?)'],
    );
    const odd = {
      ...held('Service', 'v1', 's'),
      metadata: { name: 's', ownerReferences: [{ kind: 7, name: '', controller: true }] },
    };
    t.equal(holderOf(odd as KubeObject), '? ? (uid ?)');
    const long = {
      ...odd,
      metadata: { name: 's', ownerReferences: [{ kind: 'K'.repeat(300), name: 'n', uid: 'u', controller: true }] },
    };
    t.equal(holderOf(long as KubeObject), `${'K'.repeat(253)} n (uid u)`);
    const nameless = { ...req.parent, kind: undefined } as unknown as ParentObject;
    t.match(takenCondition(nameless, [{ child: want[0]!, holder: 'h' }]).message, /: this parent does not take/);
    // The answer a hook computed is held with its own status; without one, with the parent's.
    const answer = heldForTakenNames(req, [{ child: want[0]!, holder: 'h' }], now);
    t.same(
      (answer.status as any).conditions.map((c: any) => c.reason),
      ['ServiceNameTaken'],
    );
    // Children without a name or kind are no names.
    req.related = objectMap([held('Service', 'v1', 's')]);
    t.same(
      takenIn(req, {
        status: {},
        children: [{ kind: 'Service', metadata: {} } as never, null as never, held('Service', 'v1', 's')],
      }).map((x) => x.child.name),
      ['s'],
    );
  },
);

t.test(
  'lib/ownership: every kind\u2019s resource, a parent without a namespace, the message whole, what a hold keeps',
  async (t) => {
    const kinds: Array<[string, string, string]> = [
      ['ConfigMap', 'v1', 'configmaps'],
      ['CronJob', 'batch/v1', 'cronjobs'],
      ['Deployment', 'apps/v1', 'deployments'],
      ['Job', 'batch/v1', 'jobs'],
      ['NetworkPolicy', 'networking.k8s.io/v1', 'networkpolicies'],
      ['PersistentVolumeClaim', 'v1', 'persistentvolumeclaims'],
      ['Pod', 'v1', 'pods'],
      ['PodDisruptionBudget', 'policy/v1', 'poddisruptionbudgets'],
      ['Secret', 'v1', 'secrets'],
      ['Service', 'v1', 'services'],
      ['StatefulSet', 'apps/v1', 'statefulsets'],
    ];
    for (const [kind, apiVersion, resource] of kinds)
      t.same(namedRules('n', [{ apiVersion, kind, name: 'x' }]), [
        { apiVersion, resource, namespace: 'n', names: ['x'] },
      ]);
    // A hand-made request without a namespace: objects without one are in it.
    const bare = parentOf('memcached', 'x', specs.memcached);
    delete (bare.parent.metadata as { namespace?: string }).namespace;
    bare.related = objectMap([{ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } } as KubeObject]);
    t.equal(takenNames(bare, [{ apiVersion: 'v1', kind: 'Service', name: 's' }]).length, 1);
    // The message whole; three names are all listed, with nothing more said.
    const three = ['a', 'b', 'c'].map((name) => ({ child: { apiVersion: 'v1', kind: 'Pod', name }, holder: 'h' }));
    t.equal(
      takenCondition(bare.parent, three).message,
      "Pod a belongs to h; Pod b belongs to h; Pod c belongs to h: this Memcached does not take or serve another owner's objects, and creates nothing that depends on them; rename this Memcached, or delete or rename what holds the name",
    );
    // A hold keeps the conditions other than Ready that are conditions, and none when there were none.
    const req = parentOf('memcached', 'x', specs.memcached);
    const kept = heldForTakenNames(req, three, now, {
      conditions: [null, 'x', { type: 'Ready', status: 'True' }, { type: 'Available', status: 'True' }],
    });
    t.same(
      (kept.status as any).conditions.map((c: any) => c.type),
      ['Ready', 'Available'],
    );
    t.same(
      (heldForTakenNames(req, three, now, { ready: '0/1' }).status as any).conditions.map((c: any) => c.type),
      ['Ready'],
    );
    // An answer without a status is held with the parent's.
    req.parent.status = { ready: '2/2' } as never;
    req.related = objectMap([held('Service', 'v1', 'x-memcached')]);
    const guarded = memcachedSync(req, now);
    t.equal((guarded.status as any).ready, '0/1', 'the hook\u2019s own status when it has one');
    const { guardAnswer } = await import('../../lib/ownership.js');
    const statusless = guardAnswer(req, { status: null, children: [held('Service', 'v1', 'x-memcached')] }, now);
    t.equal((statusless.status as any).ready, '2/2', 'else the parent\u2019s');
  },
);

t.test('PodSet customize: at most the maximum size of names, none for a size that is no number', async (t) => {
  const ask = (size: unknown) =>
    podset.customize!(
      { controller: {}, parent: { ...parentOf('podset', 'web', { size: 1 }).parent, spec: { size } } },
      {} as never,
    ).relatedResources.find((r) => r.names && r.resource === 'pods')?.names?.length ?? 0;
  t.equal(ask(5000), ask(1000), 'a hand-made request over the maximum: as the maximum');
  // Past ASK_ALL_BYTES of its pods (1000 of them), at most that many bytes' worth of names of each form.
  t.ok(ask(1000) > 0 && ask(1000) < 2000, `the maximum, no status: ${ask(1000)} names of the 2000`);
  // Below it (~360 pods: each counted as it comes back, with Metacontroller's last-applied copy of it), every name.
  t.equal(ask(300), 600, 'below it, every name in either form');
  t.equal(ask('x'), 0);
  t.equal(ask(undefined), 0);
  t.equal(ask(0), 0);
  t.equal(ask(2), 4);
});

t.test('MySQLCluster customize asks for every name its children may take, in both naming schemes', async (t) => {
  const req = parentOf('mysqlcluster', 'db', { size: 1, version: '8.0' });
  const rules = mysqlcluster.customize!({ controller: {}, parent: req.parent }, {} as never).relatedResources;
  const asked = (resource: string) =>
    rules
      .filter((r) => r.resource === resource && r.names)
      .flatMap((r) => r.names ?? [])
      .sort();
  const ordinals = (base: string) => Array.from({ length: 9 }, (_, i) => `${base}-${i}`);
  t.same(asked('statefulsets'), ['db', 'db-mysql'], 'the StatefulSet, new and older');
  t.same(
    asked('services'),
    ['db', 'db-headless', 'db-mysql', 'db-mysql-headless', 'db-mysql-read', 'db-read'],
    'the headless, write and read Services, new and older',
  );
  t.same(asked('pods'), [...ordinals('db'), ...ordinals('db-mysql')], 'every member the largest cluster has');
  t.same(
    asked('persistentvolumeclaims'),
    [...ordinals('data-db'), ...ordinals('data-db-mysql')],
    'and its data volume',
  );
  t.same(asked('secrets'), ['db-mysql'], 'the credentials Secret: one name');
  for (const r of rules.filter((r) => r.names)) t.equal(r.namespace, NS, `${r.resource}: in the parent's namespace`);
});
