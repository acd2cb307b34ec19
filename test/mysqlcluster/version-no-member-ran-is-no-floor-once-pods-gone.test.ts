// A MySQLCluster made with a version no registry has (a typo, `8.4.99`): its member pods wait on a pull that fails,
// and no member ever starts on anything. status.version records only versions a member started on; with none, it
// names what the pods were given (8.4.99), which the downgrade guard discounts while those pods are observed never
// having started on it. The user scales the cluster to 0 to stop the failing pods (or its pods are gone for any other
// reason: nothing is observed to discount the typo any more) and corrects the version to 8.4.3. No member ever ran
// anything: no data directory was written by 8.4.99, and 8.4.3 is no downgrade. It is taken, not refused as "older
// than 8.4.99, which the members ran" (which no member did), which would leave the cluster on a version it can never
// run until it is deleted.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { clusterMember } from '../fixtures/mysql-pods.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => (res.status.conditions as any[]).find((c) => c.type === 'Ready');
const image = (res: any) =>
  res.children.find((c: any) => c.kind === 'StatefulSet')?.spec.template.spec.containers[0].image;

function parent(spec: Record<string, unknown>, status?: Record<string, unknown>, generation = 1) {
  const r = request('mysqlcluster', spec);
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'default', uid: 'uid-db', generation };
  if (status) r.parent.status = status;
  return r;
}

/** Member `ordinal` of cluster db given `version`, waiting on a pull that fails: it never started. */
function waiting(ordinal: number, version: string): KubeObject {
  return clusterMember('db', ordinal, {
    image: `mysql:${version}`,
    status: {
      phase: 'Pending',
      conditions: [{ type: 'Ready', status: 'False' }],
      containerStatuses: ['mysql', 'replication'].map((c) => ({
        name: c,
        ready: false,
        restartCount: 0,
        image: `mysql:${version}`,
        imageID: '',
        state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "mysql:${version}"` } },
      })),
    },
  });
}

for (const size of [1, 3]) {
  t.test(`a new cluster of ${size} on a typo, scaled to 0, takes the corrected version`, async (t) => {
    const first = mysqlSync(parent({ size, version: '8.4.99' }), FIXED_NOW);
    const stuck = mysqlSync(
      {
        ...parent({ size, version: '8.4.99' }, first.status as Record<string, unknown>),
        children: objectMap(first.children.map((c) => asObserved(c))),
        related: objectMap(Array.from({ length: size }, (_, i) => waiting(i, '8.4.99'))),
      },
      FIXED_NOW,
    );
    t.comment(`status.version while every pod waits: ${JSON.stringify((stuck.status as any).version)}`);
    // Scaled to 0: the StatefulSet's pods go.
    const zero = mysqlSync(
      {
        ...parent({ size: 0, version: '8.4.99' }, stuck.status as Record<string, unknown>, 2),
        children: objectMap(stuck.children.map((c) => asObserved(c))),
        related: objectMap([]),
      },
      FIXED_NOW,
    );
    const children = objectMap(zero.children.map((c) => asObserved(c)));
    const fixed = mysqlSync(
      { ...parent({ size, version: '8.4.3' }, zero.status as Record<string, unknown>, 3), children, related: {} },
      FIXED_NOW,
    );
    t.equal(
      image(fixed),
      'mysql:8.4.3',
      `the StatefulSet is given mysql:8.4.3 (Ready: ${JSON.stringify(ready(fixed))})`,
    );
    t.notMatch(ready(fixed), { reason: 'InvalidSpec' }, 'not refused as a downgrade');
  });
}
