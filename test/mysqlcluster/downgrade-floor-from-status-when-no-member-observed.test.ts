// A MySQLCluster scaled to 0 keeps its data volumes (a StatefulSet scaled down keeps its claims) and its StatefulSet,
// whose template still names the version the members ran; but no member pod is left, and a template no member is
// observed on says nothing (runningNumbers: with replicas 0 it is read as a version no member ever started on, so that
// a typo made while scaled to 0 can be reverted). What the members ran is then only in status.version: the sync at 0
// keeps it (no pod to read it from), and a spec.version older than it, given with the size back, is refused as the
// downgrade it is: mysql:8.0.36 on the data directories 8.4 wrote crash-loops every member, for good.
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { clusterMember } from '../fixtures/mysql-pods.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => (res.status.conditions as any[]).find((c) => c.type === 'Ready');
const image = (res: any) =>
  res.children.find((c: any) => c.kind === 'StatefulSet')?.spec.template.spec.containers[0].image;

function parent(spec: Record<string, unknown>, status?: Record<string, unknown>, generation = 1, namespace = 'shop') {
  const r = request('mysqlcluster', spec);
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace, uid: 'uid-db', generation };
  if (status) r.parent.status = status;
  return r;
}

t.test('a cluster that ran 8.4, scaled to 0, is not given 8.0.36 with its size back', async (t) => {
  // It ran 8.4 with three members (status.version says so); it is scaled to 0: the StatefulSet, replicas 0, keeps its
  // template of mysql:8.4, and the pods are gone.
  const ran = { observedGeneration: 1, version: '8.4', replicas: 3, readyReplicas: 3 };
  const first = mysqlSync(parent({ size: 3, version: '8.4' }, ran), FIXED_NOW);
  const children = objectMap(
    first.children.map((c) => {
      const o = asObserved(c);
      if (o.kind === 'StatefulSet') (o['spec'] as any).replicas = 0;
      return o;
    }),
  );
  const atZero = mysqlSync({ ...parent({ size: 0, version: '8.4' }, ran, 2), children }, FIXED_NOW);
  t.equal((atZero.status as any).version, '8.4', 'status.version keeps what the members ran while none is observed');
  t.equal(image(atZero), 'mysql:8.4');

  const back = mysqlSync(
    { ...parent({ size: 3, version: '8.0.36' }, atZero.status as Record<string, unknown>, 3), children },
    FIXED_NOW,
  );
  t.comment(`Ready: ${JSON.stringify(ready(back))}`);
  t.not(image(back), 'mysql:8.0.36', 'no StatefulSet of mysql:8.0.36 mounts the data volumes 8.4 wrote');
  t.match(ready(back), { status: 'False', reason: 'InvalidSpec', message: /older than 8\.4/ }, 'refused');
});

t.test('a status lost gives no floor: with nothing observed the version asked is taken', async (t) => {
  const r = parent({ size: 3, version: '8.0.36' });
  const res = mysqlSync(r, FIXED_NOW);
  t.not(ready(res)?.reason, 'InvalidSpec', 'no evidence, no refusal (docs/mysqlcluster.md: the gap)');
  t.equal(image(res), 'mysql:8.0.36');
});

t.test('a new cluster on a typo every member waits on is reverted: status.version names no version', async (t) => {
  // A new cluster given mysql:8.0.99 (no such tag): its members never start, so no version ran and status.version
  // names none (a version no member ran is no floor).
  const typo = mysqlSync(parent({ size: 3, version: '8.0.99' }, undefined, 1, 'default'), FIXED_NOW);
  const children = objectMap(typo.children.map((c) => asObserved(c)));
  const waiting = (i: number) =>
    clusterMember('db', i, {
      image: 'mysql:8.0.99',
      status: {
        phase: 'Pending',
        containerStatuses: ['mysql', 'replication'].map((name) => ({
          name,
          ready: false,
          restartCount: 0,
          image: 'mysql:8.0.99',
          imageID: '',
          state: { waiting: { reason: 'ImagePullBackOff' } },
        })),
      },
    });
  const related = objectMap([waiting(0), waiting(1), waiting(2)]);
  const seen = mysqlSync(
    {
      ...parent({ size: 3, version: '8.0.99' }, typo.status as Record<string, unknown>, 1, 'default'),
      children,
      related,
    },
    FIXED_NOW,
  );
  t.equal((seen.status as any).version, undefined, 'status.version names no version: no member started on one');
  const reverted = mysqlSync(
    {
      ...parent({ size: 3, version: '8.0.36' }, seen.status as Record<string, unknown>, 2, 'default'),
      children,
      related,
    },
    FIXED_NOW,
  );
  t.not(ready(reverted)?.reason, 'InvalidSpec', `the revert is taken (${ready(reverted)?.message})`);
  t.equal(image(reverted), 'mysql:8.0.36');
});
