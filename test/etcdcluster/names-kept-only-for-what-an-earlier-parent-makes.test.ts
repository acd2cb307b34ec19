// A parent made before an EtcdCluster keeps a free name from it only when its own answer makes that name now (read
// from its stored object: lib/holders.ts holderWants, the kind's currentNames and podNames), never for every name its
// kind may take. A MySQLCluster `x` serving under `x-mysql` (its status.writeService) and a PodSet `x` whose pods are
// `x-pod-<i>` (its status.nodes) do not make Service `x` or pod `x-0`, names only a parent of theirs from before the
// suffixes uses: an EtcdCluster `x` made after them takes its peer Service and bootstraps its first member. A
// MySQLCluster from before the suffix (status.writeService `x`) makes Service `x` and member `x-0`: the EtcdCluster
// waits for it, naming it.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import '../../main/operators.js';
import { etcdFirstSync, etcdRelated, laterEtcdCluster, NS } from '../fixtures/held-names.js';

const EARLY = '2020-01-01T00:00:00Z';

function mysqlX(writeService: string): KubeObject {
  return {
    apiVersion: 'database.example.com/v1alpha1',
    kind: 'MySQLCluster',
    metadata: { name: 'x', namespace: NS, uid: 'uid-mysql-x', generation: 1, creationTimestamp: EARLY },
    spec: { size: 3, version: '8.0' },
    status: { writeService: writeService, conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }] },
  } as unknown as KubeObject;
}

const podsetX = {
  apiVersion: 'apps.jicki.cn/v1alpha1',
  kind: 'PodSet',
  metadata: { name: 'x', namespace: NS, uid: 'uid-podset-x', generation: 1, creationTimestamp: EARLY },
  spec: { size: 2, image: 'busybox' },
  status: { nodes: ['x-pod-0', 'x-pod-1'], conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }] },
} as unknown as KubeObject;

const etcdX = () => laterEtcdCluster('x', 1);

async function firstSync(t: Test, earlier: KubeObject) {
  const parent = etcdX();
  const related = etcdRelated(parent, [earlier]);
  t.ok(
    Object.values(related ?? {}).some((m) => Object.values(m).some((o) => o.metadata.uid === earlier.metadata.uid)),
    `customize asks for ${earlier.kind} x`,
  );
  const res = await etcdFirstSync(t, parent, related);
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  const names = res.children.map((c) => `${c.kind} ${c.metadata.name}`);
  return { ready, names };
}

for (const [what, earlier] of [
  ['a MySQLCluster x serving under x-mysql', mysqlX('x-mysql')],
  ['a PodSet x whose pods are x-pod-<i>', podsetX],
] as const) {
  t.test(`an EtcdCluster x made after ${what} takes Service x and member x-0`, async (t) => {
    const { ready, names } = await firstSync(t, earlier);
    t.notMatch(ready, { reason: /NameTaken$/ }, `not held for a name (Ready: ${JSON.stringify(ready)})`);
    t.ok(names.includes('Service x'), `its peer Service x answered (answered: ${names.join(', ')})`);
    t.ok(names.includes('Pod x-0'), 'its first member x-0 answered');
  });
}

t.test('an EtcdCluster x made after a MySQLCluster x from before the suffix waits for it', async (t) => {
  const { ready, names } = await firstSync(t, mysqlX('x'));
  t.match(ready, { status: 'False', reason: /NameTaken$/, message: /MySQLCluster x \(uid uid-mysql-x\), made before/ });
  t.notOk(names.includes('Service x'), 'its peer Service x not answered');
  t.notOk(names.includes('Pod x-0'), 'no member made');
});
