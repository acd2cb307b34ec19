// A MySQLCluster `m` made today names its members `m-mysql-<i>`, a PodSet `p` made today its pods `p-pod-<i>`: only
// one from before the suffixes (its observed StatefulSet or pods) makes `m-<i>` or `p-<i>`. A parent of another kind
// made after it whose pods are named `m-<i>` or `p-<i>` (a PodSet `m` whose pods are `m-pod-<i>` after a MySQLCluster
// `m-pod`; a MySQLCluster `p` whose members are `p-mysql-<i>` after a PodSet `p-mysql`) takes those free names: the
// earlier parent, serving under its suffix, never makes them. Held, it would wait for good for pods nobody makes.
import t from 'tap';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import { podset } from '../../hooks/podset/index.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import '../../main/operators.js';
import { NS, relatedFor, rulesOf } from '../fixtures/held-names.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';

const ready = [{ type: 'Ready', status: 'True', reason: 'Ready' }];
const madeEarlier = (name: string) => ({
  name,
  namespace: NS,
  uid: `uid-earlier-${name}`,
  generation: 1,
  creationTimestamp: '2020-01-01T00:00:00Z',
});

/** MySQLCluster `web-pod`, today's naming (StatefulSet web-pod-mysql, members web-pod-mysql-<i>). */
const mysqlWebPod = {
  apiVersion: 'database.example.com/v1alpha1',
  kind: 'MySQLCluster',
  metadata: madeEarlier('web-pod'),
  spec: { size: 3, version: '8.0.36' },
  status: { writeService: 'web-pod-mysql', observedGeneration: 1, conditions: ready },
} as unknown as KubeObject;

/** PodSet `shop-mysql`, today's naming (pods shop-mysql-pod-<i>). */
const podsetShopMysql = {
  apiVersion: 'apps.jicki.cn/v1alpha1',
  kind: 'PodSet',
  metadata: madeEarlier('shop-mysql'),
  spec: { size: 3 },
  status: { observedGeneration: 1, conditions: ready },
} as unknown as KubeObject;

const cases: [
  string,
  CompositeHookDefinition,
  'podset' | 'mysqlcluster',
  string,
  Record<string, unknown>,
  KubeObject,
  string,
][] = [
  ['a PodSet web after a MySQLCluster web-pod', podset, 'podset', 'web', { size: 3 }, mysqlWebPod, 'web-pod-0'],
  [
    'a MySQLCluster shop after a PodSet shop-mysql',
    mysqlcluster,
    'mysqlcluster',
    'shop',
    { size: 3, version: '8.0.36' },
    podsetShopMysql,
    'shop-mysql-0',
  ],
];

for (const [what, def, kind, name, spec, other, pod] of cases) {
  t.test(`${what} takes pod names the earlier parent never makes`, async (t) => {
    const req = request(kind, spec);
    req.parent.metadata = {
      ...req.parent.metadata,
      name,
      namespace: NS,
      uid: `uid-later-${name}`,
      creationTimestamp: '2020-01-01T01:00:00Z',
    } as never;
    const related = relatedFor(rulesOf(def, req.parent), [other]);
    t.ok(Object.keys(related ?? {}).length > 0, `customize asks for ${other.kind} ${other.metadata.name}`);
    const res = await runHook(def, 'sync', { ...req, related }, { now: FIXED_NOW });
    const r = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.notMatch(r, { reason: /NameTaken$/ }, `not held for ${pod} (${r?.reason}: ${r?.message?.slice(0, 200)})`);
    t.ok(
      res.children.some((c) => c.kind === 'Pod' || c.kind === 'StatefulSet'),
      `its pods or StatefulSet answered (answered: ${res.children.map((c) => `${c.kind} ${c.metadata.name}`).join(', ')})`,
    );
  });
}
