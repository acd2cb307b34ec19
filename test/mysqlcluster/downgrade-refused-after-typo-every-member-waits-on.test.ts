// A MySQLCluster that ran 8.4.3 is given a version no registry has (a typo, `8.4.99`: an upgrade, so taken). Its member
// pods are made again on it (a one-member cluster's only pod is replaced at once) and
// wait on a pull that fails: none of them ever starts on 8.4.99, and the data directories on their claims are the
// ones 8.4.3 wrote. Reverting the typo (8.4.3) is no downgrade; but `8.0.36` is one: the guard must still see that the
// members ran 8.4.3 (status.version recorded it, and the pods' never-started image says nothing), and refuse it as
// InvalidSpec, rather than make a StatefulSet of mysql:8.0.36 over the data volumes 8.4.3 wrote.
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { image, members as membersOn, observed, parent, refusedBelow843 } from '../fixtures/mysql-versions.js';
import { FIXED_NOW } from '../fixtures/requests.js';

for (const size of [1]) {
  t.test(`${size} member(s) that ran 8.4.3, all waiting on a typo: 8.0.36 is refused, 8.4.3 taken`, async (t) => {
    const members = (version: string, running: boolean) => membersOn(size, version, running);
    // Running 8.4.3: status.version records it.
    const ran = mysqlSync({ ...parent({ size, version: '8.4.3' }), related: members('8.4.3', true) }, FIXED_NOW);
    t.equal((ran.status as any).version, '8.4.3', 'status.version records 8.4.3');
    // Given the typo 8.4.99 (an upgrade: taken); the StatefulSet carries it.
    const typo = mysqlSync(
      {
        ...parent({ size, version: '8.4.99' }, ran.status as Record<string, unknown>, 2),
        children: observed(ran),
        related: members('8.4.3', true),
      },
      FIXED_NOW,
    );
    t.equal(image(typo), 'mysql:8.4.99', 'the StatefulSet was given mysql:8.4.99');
    const children = observed(typo);
    // Every member pod is made again on 8.4.99 and waits on its pull.
    const waiting = mysqlSync(
      {
        ...parent({ size, version: '8.4.99' }, typo.status as Record<string, unknown>, 2),
        children,
        related: members('8.4.99', false),
      },
      FIXED_NOW,
    );
    t.comment(`status.version while they wait: ${JSON.stringify((waiting.status as any).version)}`);
    const down = mysqlSync(
      {
        ...parent({ size, version: '8.0.36' }, waiting.status as Record<string, unknown>, 3),
        children,
        related: members('8.4.99', false),
      },
      FIXED_NOW,
    );
    refusedBelow843(t, down);
    // Reverting the typo itself is taken.
    const back = mysqlSync(
      {
        ...parent({ size, version: '8.4.3' }, waiting.status as Record<string, unknown>, 3),
        children,
        related: members('8.4.99', false),
      },
      FIXED_NOW,
    );
    t.equal(image(back), 'mysql:8.4.3', 'the revert to 8.4.3 is taken');
  });
}
