// A MySQLCluster made with a version no registry has (a typo, `8.4.99`): its member pods wait on a pull that fails,
// and no member ever starts on anything. status.version records only versions a member started on; with none, it
// names what the pods were given (8.4.99), which the downgrade guard discounts while those pods are observed never
// having started on it. The user scales the cluster to 0 to stop the failing pods (or its pods are gone for any other
// reason: nothing is observed to discount the typo any more) and corrects the version to 8.4.3. No member ever ran
// anything: no data directory was written by 8.4.99, and 8.4.3 is no downgrade. It is taken, not refused as "older
// than 8.4.99, which the members ran" (which no member did), which would leave the cluster on a version it can never
// run until it is deleted.
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { image, member, parent, ready } from '../fixtures/mysql-versions.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';

/** Member `ordinal` of cluster db given `version`, waiting on a pull that fails: it never started. */
const waiting = (ordinal: number, version: string) => member(ordinal, version, false);

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
