// A parent held for a child name finds the parent of another kind that holds it by the shapes that kind declares
// (lib/holders.ts nameShapes): a child name a kind makes without declaring its shape would never be judged, and the
// parent held for it would take it the moment its object is gone. Each kind's every non-pod child name (pods are
// declared by podNames, lib/podholders.ts) has a shape, and each kind that records holders has status.heldBy.
import t from 'tap';
import { backupChildNames } from '../../hooks/etcdbackup/index.js';
import { etcdChildNames } from '../../hooks/etcdcluster/index.js';
import { childNames as memcachedNames } from '../../hooks/memcached/sync.js';
import { childNames as mysqlNames } from '../../hooks/mysqlcluster/sync.js';
import { childNames as podsetNames } from '../../hooks/podset/sync.js';
import { childNames as s3Names } from '../../hooks/s3/sync.js';
import { holderRules, holderWants, shapeMakes, shapesOf } from '../../lib/holders.js';
import type { ChildName } from '../../lib/ownership.js';
import type { ParentObject } from '../../lib/metacontroller.js';
import { operators } from '../../main/operators.js';

const parent = (apiVersion: string, kind: string, name: string, spec: Record<string, unknown> = {}) =>
  ({
    apiVersion,
    kind,
    metadata: { name, namespace: 'ns', uid: `uid-${name}` },
    spec,
    status: { lastMemberIndex: 2, memberList: [{ name: `${name}-0` }] },
  }) as unknown as ParentObject;

const kinds: Array<[string, string, (p: ParentObject) => ChildName[], Record<string, unknown>]> = [
  ['cache.example.com/v1alpha1', 'Memcached', memcachedNames, { size: 2 }],
  ['database.example.com/v1alpha1', 'MySQLCluster', mysqlNames, { size: 3 }],
  ['etcd.database.coreos.com/v1beta2', 'EtcdCluster', etcdChildNames, { size: 3 }],
  ['etcd.database.coreos.com/v1beta2', 'EtcdBackup', backupChildNames, {}],
  ['systek.no/v1', 'S3', s3Names, { secretName: 'any-name' }],
  ['systek.no/v1', 'S3', s3Names, {}],
  ['apps.jicki.cn/v1alpha1', 'PodSet', podsetNames, { size: 2 }],
];

t.test('every non-pod child name of each kind has a shape its definition declares', async (t) => {
  for (const [apiVersion, kind, names, spec] of kinds) {
    const shapes = shapesOf(apiVersion, kind);
    t.ok(shapes, `${kind} declares its shapes`);
    for (const name of ['web', 'a-b-1']) {
      for (const child of names(parent(apiVersion, kind, name, spec)).filter((c) => c.kind !== 'Pod')) {
        t.ok(
          shapes!.some((s) => shapeMakes(s, name, child)),
          `${kind} ${name}: ${child.kind} ${child.name} has a shape`,
        );
      }
    }
  }
});

t.test('each composite kind that declares child names keeps status.heldBy (the record that holds it)', async (t) => {
  for (const def of operators) {
    if (def.type !== 'composite') continue;
    const apiVersion = `${def.resource.group}/${def.resource.version}`;
    if (!shapesOf(apiVersion, def.resource.kind)) continue;
    const props = (def.resource.status as { properties?: Record<string, unknown> }).properties ?? {};
    t.ok('heldBy' in props, `${def.resource.kind} status has heldBy`);
  }
});

t.test('the holder of each shape is asked for by name, and judged by what it wants', async (t) => {
  // Memcached `x` wants Service `x-memcached`, EtcdCluster `x-memcached`'s peer Service; MySQLCluster `shop` wants
  // Secret `shop-mysql`, which any S3 resource may name; S3 `pay` naming Secret `shop-mysql` finds MySQLCluster `shop`.
  const memcached = parent('cache.example.com/v1alpha1', 'Memcached', 'x', { size: 1 });
  const rules = holderRules(memcached);
  t.ok(
    rules.some((r) => r.resource === 'etcdclusters' && r.namespace === 'ns' && r.names?.includes('x-memcached')),
    `EtcdCluster x-memcached asked for by name (${JSON.stringify(rules)})`,
  );
  // Memcached x-memcached (its Service before the suffix), MySQLCluster x (its write Service before the suffix).
  t.ok(rules.some((r) => r.resource === 'memcacheds' && r.names?.includes('x-memcached')));
  t.ok(rules.some((r) => r.resource === 'mysqlclusters' && r.names?.includes('x')));
  t.ok(
    rules.every((r) => r.names !== undefined),
    'none of its names is one a spec chooses',
  );
  const mysql = parent('database.example.com/v1alpha1', 'MySQLCluster', 'shop', { size: 3 });
  // Any S3 resource may choose its Secret name: never all of them (the request would grow with the namespace), only
  // the ones it recorded as holders when it found the name taken, by name.
  t.notOk(
    holderRules(mysql).some((r) => r.resource === 's3s'),
    'no S3 resource asked for while none is recorded as a holder',
  );
  const held = structuredClone(mysql);
  held.status = {
    heldBy: [
      {
        child: { apiVersion: 'v1', kind: 'Secret', name: 'shop-mysql' },
        holder: { apiVersion: 'systek.no/v1', kind: 'S3', name: 'pay', uid: 'uid-pay' },
      },
    ],
  };
  t.same(
    holderRules(held).filter((r) => r.resource === 's3s'),
    [{ apiVersion: 'systek.no/v1', resource: 's3s', namespace: 'ns', names: ['pay'] }],
    'the recorded S3 holder, by name',
  );
  const s3 = parent('systek.no/v1', 'S3', 'pay', { secretName: 'shop-mysql' });
  t.ok(holderRules(s3).some((r) => r.resource === 'mysqlclusters' && r.names?.includes('shop')));
  t.ok(holderWants(mysql)!.some((c) => c.kind === 'Secret' && c.name === 'shop-mysql'));
  t.ok(holderWants(s3)!.some((c) => c.kind === 'Secret' && c.name === 'shop-mysql'));
  t.equal(holderWants({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } as never), undefined);
  // A kind is never its own candidate under its own name.
  t.notOk(holderRules(mysql).some((r) => r.resource === 'mysqlclusters' && r.names?.includes('shop')));
});
