// A MySQLCluster that ran 8.4.3 is given a version no registry has (a typo, `8.4.99`: an upgrade, so taken). Its member
// pods are made again on it (a one-member cluster's only pod is replaced at once) and
// wait on a pull that fails: none of them ever starts on 8.4.99, and the data directories on their claims are the
// ones 8.4.3 wrote. Reverting the typo (8.4.3) is no downgrade; but `8.0.36` is one: the guard must still see that the
// members ran 8.4.3 (status.version recorded it, and the pods' never-started image says nothing), and refuse it as
// InvalidSpec, rather than make a StatefulSet of mysql:8.0.36 over the data volumes 8.4.3 wrote.
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

/** Member `ordinal` of cluster db on `version`: running (it started on it), or waiting on a pull that fails. */
function member(ordinal: number, version: string, running: boolean): KubeObject {
  const state = running
    ? { running: { startedAt: '2026-01-01T00:00:00Z' } }
    : { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "mysql:${version}"` } };
  return clusterMember('db', ordinal, {
    image: `mysql:${version}`,
    status: {
      phase: running ? 'Running' : 'Pending',
      conditions: [{ type: 'Ready', status: running ? 'True' : 'False' }],
      containerStatuses: ['mysql', 'replication'].map((c) => ({
        name: c,
        ready: running,
        restartCount: 0,
        image: `mysql:${version}`,
        imageID: running ? `docker.io/library/mysql@sha256:${'a'.repeat(64)}` : '',
        state,
      })),
    },
  });
}

for (const size of [1]) {
  t.test(`${size} member(s) that ran 8.4.3, all waiting on a typo: 8.0.36 is refused, 8.4.3 taken`, async (t) => {
    const members = (version: string, running: boolean) =>
      objectMap(Array.from({ length: size }, (_, i) => member(i, version, running)));
    // Running 8.4.3: status.version records it.
    const ran = mysqlSync({ ...parent({ size, version: '8.4.3' }), related: members('8.4.3', true) }, FIXED_NOW);
    t.equal((ran.status as any).version, '8.4.3', 'status.version records 8.4.3');
    // Given the typo 8.4.99 (an upgrade: taken); the StatefulSet carries it.
    const typo = mysqlSync(
      {
        ...parent({ size, version: '8.4.99' }, ran.status as Record<string, unknown>, 2),
        children: objectMap(ran.children.map((c) => asObserved(c))),
        related: members('8.4.3', true),
      },
      FIXED_NOW,
    );
    t.equal(image(typo), 'mysql:8.4.99', 'the StatefulSet was given mysql:8.4.99');
    const children = objectMap(typo.children.map((c) => asObserved(c)));
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
    t.not(
      image(down),
      'mysql:8.0.36',
      `no StatefulSet of mysql:8.0.36 over the data 8.4.3 wrote (Ready: ${JSON.stringify(ready(down))})`,
    );
    t.match(ready(down), { status: 'False', reason: 'InvalidSpec', message: /older than 8\.4\.3/ }, 'refused');
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
