// A MySQLCluster that ran 8.4.3 (status.version records it: a version a member started on) loses its member pod
// (a node replaced); the pod is made again on the same image, mysql:8.4.3, on a node that cannot pull it (the
// registry down, a mirror's credentials expired, a rate limit: ErrImagePull / ImagePullBackOff). The pod waits, never
// started on 8.4.3 as far as this pod's status tells; but the data directory on its claim is the one 8.4.3 wrote.
//
// Spec 8.0.36 (a user who takes the pull failure for a bad release and goes back to what the node still has) is a
// downgrade: MySQL 8.0 cannot open a data directory 8.4 wrote. The guard must refuse it (InvalidSpec) and keep the
// StatefulSet on 8.4.3, as it does for a typo every member waits on (downgrade-refused-after-typo-every-member-waits-
// on): status.version names 8.4.3 as a version a member ran, and a pull failing now does not unsay that.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { image, member, members as membersOn, observed, parent, refusedBelow843 } from '../fixtures/mysql-versions.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

for (const size of [1, 2]) {
  t.test(`${size} member(s) that ran 8.4.3, made again and waiting on its pull: 8.0.36 is refused`, async (t) => {
    const members = (version: string, running: boolean) => membersOn(size, version, running);
    // Running 8.4.3 (an upgrade from 8.0.36 done long ago): status.version records it.
    const ran = mysqlSync({ ...parent({ size, version: '8.4.3' }), related: members('8.4.3', true) }, FIXED_NOW);
    t.equal((ran.status as any).version, '8.4.3', 'status.version records 8.4.3');
    const children = observed(ran);
    // The member pods are made again on mysql:8.4.3 on nodes that cannot pull it.
    const waiting = mysqlSync(
      {
        ...parent({ size, version: '8.4.3' }, ran.status as Record<string, unknown>),
        children,
        related: members('8.4.3', false),
      },
      FIXED_NOW,
    );
    t.equal((waiting.status as any).version, '8.4.3', 'status.version still records 8.4.3, which the members ran');
    const down = mysqlSync(
      {
        ...parent({ size, version: '8.0.36' }, waiting.status as Record<string, unknown>, 2),
        children,
        related: members('8.4.3', false),
      },
      FIXED_NOW,
    );
    refusedBelow843(t, down);
  });
}

t.test(
  'mid-upgrade, the one member that ran 8.4.3 made again and waiting on its pull: 8.0.36 is refused',
  async (t) => {
    const related = (m2: KubeObject) => objectMap([member(0, '8.0.36', true), member(1, '8.0.36', true), m2]);
    const ran = mysqlSync(
      {
        ...parent({ size: 3, version: '8.0.36' }),
        related: objectMap([0, 1, 2].map((i) => member(i, '8.0.36', true))),
      },
      FIXED_NOW,
    );
    // The upgrade to 8.4.3: the StatefulSet carries it; its controller moves member 2 first, which starts on it and
    // upgrades the data directory on its claim.
    const up = mysqlSync(
      {
        ...parent({ size: 3, version: '8.4.3' }, ran.status as Record<string, unknown>, 2),
        children: observed(ran),
        related: related(member(2, '8.4.3', true)),
      },
      FIXED_NOW,
    );
    t.equal(image(up), 'mysql:8.4.3', 'the StatefulSet was given mysql:8.4.3');
    t.match((up.status as any).version, /8\.4\.3/, `status.version names 8.4.3 (${(up.status as any).version})`);
    const children = observed(up);
    // Member 2 is made again (its node replaced) on a node that cannot pull mysql:8.4.3; the rollout waits on it.
    const waiting = mysqlSync(
      {
        ...parent({ size: 3, version: '8.4.3' }, up.status as Record<string, unknown>, 2),
        children,
        related: related(member(2, '8.4.3', false)),
      },
      FIXED_NOW,
    );
    t.comment(`status.version while member 2 waits: ${JSON.stringify((waiting.status as any).version)}`);
    const down = mysqlSync(
      {
        ...parent({ size: 3, version: '8.0.36' }, waiting.status as Record<string, unknown>, 3),
        children,
        related: related(member(2, '8.4.3', false)),
      },
      FIXED_NOW,
    );
    refusedBelow843(t, down, "member 2's data, which 8.4.3 wrote");
  },
);
