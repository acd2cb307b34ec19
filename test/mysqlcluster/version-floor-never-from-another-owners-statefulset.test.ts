// A MySQLCluster `db` made in a namespace where another owner already runs a StatefulSet named `db-mysql` (a Helm
// release `db` of a MySQL chart names its StatefulSet `<release>-mysql`, its pods `db-mysql-0..`; a MySQLCluster of
// the names before the suffix called `db-mysql`): its StatefulSet name is taken, and the cluster is held naming the
// holder (issue 31: a child that belongs to another parent is never taken or served). The other owner's pods are not
// the cluster's members: they hold none of its data, so the version they run is no floor of its spec.version
// (status.version is the record of the versions ITS members ran), neither while held nor once the other owner is
// gone. Otherwise the cluster is refused as a downgrade it never had, and, the record kept, stays refused for good
// after the name is free.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { shopPod } from '../fixtures/mysql-pods.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => ((res.status.conditions ?? []) as any[]).find((c) => c.type === 'Ready');

/** The other owner's StatefulSet `db-mysql` (made by Helm: no controller) and its pods, running MySQL `image`. */
function otherRelease(image: string): KubeObject[] {
  const sts = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: 'db-mysql',
      namespace: 'shop',
      uid: 'uid-helm-db-mysql',
      labels: { 'app.kubernetes.io/managed-by': 'Helm', 'app.kubernetes.io/instance': 'db' },
    },
    spec: { replicas: 2, template: { spec: { containers: [{ name: 'mysql', image }] } } },
    status: { replicas: 2, readyReplicas: 2 },
  } as unknown as KubeObject;
  const pods = [0, 1].map((i) =>
    shopPod(`db-mysql-${i}`, {
      image,
      labels: { 'app.kubernetes.io/instance': 'db', 'app.kubernetes.io/name': 'mysql' },
      owner: { kind: 'StatefulSet', name: 'db-mysql', uid: 'uid-helm-db-mysql' },
      containerStatuses: [
        {
          name: 'mysql',
          ready: true,
          restartCount: 0,
          image,
          imageID: `docker.io/bitnami/mysql@sha256:${'c'.repeat(64)}`,
          state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
        },
      ],
    }),
  );
  return [sts, ...pods];
}

function cluster(status?: Record<string, unknown>) {
  const r = request('mysqlcluster', { size: 1, version: '8.0.40' });
  r.parent.metadata = {
    ...r.parent.metadata,
    name: 'db',
    namespace: 'shop',
    uid: 'uid-db',
    creationTimestamp: '2026-01-01T00:00:00Z',
  };
  if (status) r.parent.status = status;
  return r;
}

t.test(
  "another owner's StatefulSet of the cluster's name: held for the name, its pods' version recorded nowhere",
  async (t) => {
    const held = mysqlSync(
      { ...cluster(), related: objectMap(otherRelease('docker.io/bitnami/mysql:9.1.0')) },
      FIXED_NOW,
    );
    t.not(
      ready(held).reason,
      'InvalidSpec',
      `a new cluster is not refused as a downgrade from the other owner's MySQL (${ready(held).reason}: ${ready(held).message})`,
    );
    t.match(
      ready(held),
      { status: 'False', reason: 'StatefulSetNameTaken', message: /StatefulSet db-mysql belongs to no controller/ },
      'held for the StatefulSet name, naming what holds it',
    );
    t.equal((held.status as any).version, undefined, 'no member of this cluster ran: status.version records none');

    // The other release is uninstalled: the name is free, and the cluster (spec unchanged) makes its StatefulSet.
    const freed = mysqlSync({ ...cluster(structuredClone(held.status) as Record<string, unknown>) }, FIXED_NOW);
    t.not(
      ready(freed)?.reason,
      'InvalidSpec',
      `once the name is free the cluster carries on (${ready(freed)?.reason}: ${ready(freed)?.message})`,
    );
    t.ok(
      freed.children.some((c: any) => c.kind === 'StatefulSet' && c.metadata.name === 'db-mysql'),
      'its StatefulSet is made',
    );
  },
);

t.test(
  'a MySQLCluster of the names before the suffix holds the StatefulSet: its version is no floor of this one',
  async (t) => {
    // MySQLCluster `db-mysql`, made by a metaops from before the `-mysql` suffix, runs 8.4.3 in StatefulSet `db-mysql`.
    const older = {
      apiVersion: 'database.example.com/v1',
      kind: 'MySQLCluster',
      metadata: { name: 'db-mysql', namespace: 'shop', uid: 'uid-db-mysql', creationTimestamp: '2025-01-01T00:00:00Z' },
      spec: { size: 2, version: '8.4.3' },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }], readyReplicas: 2, version: '8.4.3' },
    } as unknown as KubeObject;
    const [sts, ...pods] = otherRelease('mysql:8.4.3');
    (sts!.metadata as Record<string, unknown>)['ownerReferences'] = [
      {
        apiVersion: 'database.example.com/v1',
        kind: 'MySQLCluster',
        name: 'db-mysql',
        uid: 'uid-db-mysql',
        controller: true,
      },
    ];
    const held = mysqlSync({ ...cluster(), related: objectMap([older, sts!, ...pods]) }, FIXED_NOW);
    t.match(
      ready(held),
      {
        status: 'False',
        reason: 'StatefulSetNameTaken',
        message: /StatefulSet db-mysql belongs to MySQLCluster db-mysql/,
      },
      `held for the name (${ready(held).reason}: ${ready(held).message})`,
    );
    t.equal((held.status as any).version, undefined, 'no member of this cluster ran: status.version records none');
    // MySQLCluster db-mysql is deleted with its StatefulSet and pods: db makes its own.
    const freed = mysqlSync({ ...cluster(structuredClone(held.status) as Record<string, unknown>) }, FIXED_NOW);
    t.not(
      ready(freed)?.reason,
      'InvalidSpec',
      `then it carries on (${ready(freed)?.reason}: ${ready(freed)?.message})`,
    );
  },
);
