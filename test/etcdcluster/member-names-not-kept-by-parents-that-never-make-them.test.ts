// A MySQLCluster `x` made today names its members `x-mysql-<i>`, and a PodSet `x` made today `x-pod-<i>`: only one
// from before the suffixes (its observed StatefulSet, its status) makes pods `x-<i>`. An EtcdCluster `x` in the same
// namespace, made after either, names its members `x-<i>`: names the other parent, serving under its suffix, never
// makes. The free member names are the EtcdCluster's: held, the cluster would wait for good for pods nobody makes.
import t from 'tap';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import '../../main/operators.js';
import { etcdFirstSync, laterEtcdCluster, NS, relatedFor, rulesOf } from '../fixtures/held-names.js';

const earlier = { creationTimestamp: '2020-01-01T00:00:00Z', generation: 1 };
const ready = [{ type: 'Ready', status: 'True', reason: 'Ready' }];

const mysqlX = {
  apiVersion: 'mysql.metaops.io/v1alpha1',
  kind: 'MySQLCluster',
  metadata: { name: 'x', namespace: NS, uid: 'uid-mysql-x', ...earlier },
  spec: { size: 3, version: '8.0.36', storage: { size: '1Gi' } },
  status: { writeService: 'x-mysql', observedGeneration: 1, conditions: ready },
} as unknown as KubeObject;

const podsetX = {
  apiVersion: 'apps.metaops.io/v1alpha1',
  kind: 'PodSet',
  metadata: { name: 'x', namespace: NS, uid: 'uid-podset-x', ...earlier },
  spec: { size: 3, image: 'busybox' },
  status: { observedGeneration: 1, conditions: ready },
} as unknown as KubeObject;

const etcdX = () => laterEtcdCluster('x', 3);

for (const [what, other] of [
  ['MySQLCluster', mysqlX],
  ['PodSet', podsetX],
] as const) {
  t.test(`an EtcdCluster takes member names that an earlier ${what} of its name never makes`, async (t) => {
    const parent = etcdX();
    const rules = rulesOf(etcdcluster, parent);
    const kinds = rules.map((r) => r.resource);
    t.ok(
      kinds.some((k) => k === `${what.toLowerCase()}s`),
      `customize asks for the ${what} (${kinds.join(', ')})`,
    );
    const related = relatedFor(rules, [fixApiVersion(other, rules)]);
    t.ok(Object.keys(related ?? {}).length > 0, `the ${what} is sent`);
    const res = await etcdFirstSync(t, parent, related);
    const r = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.notMatch(r, { reason: /NameTaken$/ }, `not held for a name (Ready: ${JSON.stringify(r)})`);
    t.ok(
      res.children.some((c) => c.kind === 'Pod' && c.metadata.name === 'x-0'),
      `its first member x-0 answered (answered: ${res.children.map((c) => `${c.kind} ${c.metadata.name}`).join(', ')})`,
    );
  });
}

/** The other parent with the apiVersion customize asks for its kind (the group of the CRD as registered). */
function fixApiVersion(obj: KubeObject, rules: { apiVersion: string; resource: string }[]): KubeObject {
  const rule = rules.find((r) => r.resource === `${obj.kind.toLowerCase()}s`);
  return rule ? ({ ...obj, apiVersion: rule.apiVersion } as KubeObject) : obj;
}
