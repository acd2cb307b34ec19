// A parent of another kind judges a parent made before it by the names that parent's answer may make now
// (lib/holders.ts holderWants), read from its stored object. Two edges, for every kind:
// - a parent whose name its kind refuses (too long, or a character its children cannot carry) is refused InvalidSpec
//   for good and makes nothing: it wants no name (EtcdCluster, S3, EtcdBackup: nameRefused; MySQLCluster, Memcached,
//   PodSet: no naming its name cannot make);
// - a kind that kept a naming from before a suffix (MySQLCluster, Memcached, PodSet), its status lost (nothing
//   recorded), may serve under either naming: it is judged as wanting both (never taken on doubt); a status that
//   records a sync and no naming is today's.
import t from 'tap';
import { holderWants } from '../../lib/holders.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { operators } from '../../main/operators.js';

/** A kind's API version, as its definition declares it. */
const api = (kind: string) => {
  const op = operators.find((o) => o.type === 'composite' && o.resource.kind === kind);
  if (!op || op.type !== 'composite') throw new Error(kind);
  return `${op.resource.group}/${op.resource.version}`;
};

const long = 'a'.repeat(64); // too long for every kind's children (a label value, a Service name)
const holder = (apiVersion: string, kind: string, name: string, spec: unknown, status?: unknown): KubeObject =>
  ({
    apiVersion,
    kind,
    metadata: { name, namespace: 'team-a', uid: `uid-${name}`, creationTimestamp: '2020-01-01T00:00:00Z' },
    spec,
    ...(status === undefined ? {} : { status }),
  }) as unknown as KubeObject;
const names = (h: KubeObject) => (holderWants(h) ?? []).map((c) => `${c.kind} ${c.name}`).sort();
const refusedStatus = {
  observedGeneration: 1,
  conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidSpec', message: 'metadata.name ...' }],
};

t.test('a parent refused for its name wants no name, for every kind', async (t) => {
  const kinds: Array<[string, string, unknown]> = [
    [api('EtcdCluster'), 'EtcdCluster', { size: 3 }],
    [api('S3'), 'S3', { bucketName: 'b' }],
    [api('EtcdBackup'), 'EtcdBackup', { backupPolicy: { backupIntervalInSecond: 60 } }],
    [api('MySQLCluster'), 'MySQLCluster', { size: 3 }],
    [api('Memcached'), 'Memcached', { size: 3 }],
    [api('PodSet'), 'PodSet', { size: 3 }],
  ];
  for (const [apiVersion, kind, spec] of kinds) {
    t.same(names(holder(apiVersion, kind, long, spec, refusedStatus)), [], `${kind}: refused for its name`);
    t.same(names(holder(apiVersion, kind, long, spec)), [], `${kind}: refused for its name, its status lost`);
    t.not(names(holder(apiVersion, kind, 'web', spec, refusedStatus)).length, 0, `${kind} web: wants its names`);
  }
});

t.test('a MySQLCluster whose name fits only the naming before the suffix wants that naming alone', async (t) => {
  const name = 'orders-archive-eu-west-replica-primary-cluster1'; // 47: `<name>-mysql` is no StatefulSet name
  const lost = names(holder(api('MySQLCluster'), 'MySQLCluster', name, { size: 1 }));
  t.ok(lost.includes(`Service ${name}-read`), 'its status lost: the names before the suffix (it may have served so)');
  t.notOk(lost.includes(`Service ${name}-mysql`), 'never the names it cannot make');
  t.same(
    names(holder(api('MySQLCluster'), 'MySQLCluster', name, { size: 1 }, refusedStatus)),
    [],
    'refused at a sync of today (no naming recorded): nothing',
  );
});

t.test('a parent whose status is lost wants the names of both namings; one that records a sync, today`s', async (t) => {
  const cases: Array<[string, string, string[], string[]]> = [
    [
      'database.example.com/v1alpha1',
      'MySQLCluster',
      ['Service shop-read', 'Pod shop-0'],
      ['Service shop-mysql-read', 'Pod shop-mysql-0'],
    ],
    [api('Memcached'), 'Memcached', ['Service shop'], ['Service shop-memcached']],
    [api('PodSet'), 'PodSet', ['Pod shop-0'], ['Pod shop-pod-0']],
  ];
  for (const [apiVersion, kind, before, today] of cases) {
    const lost = names(holder(apiVersion, kind, 'shop', { size: 1 }));
    for (const n of [...before, ...today]) t.ok(lost.includes(n), `${kind}, status lost: ${n}`);
    const synced = names(
      holder(
        apiVersion,
        kind,
        'shop',
        { size: 1 },
        { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] },
      ),
    );
    for (const n of today) t.ok(synced.includes(n), `${kind}, a sync recorded: ${n}`);
    for (const n of before) t.notOk(synced.includes(n), `${kind}, a sync recorded: not ${n}`);
  }
});
