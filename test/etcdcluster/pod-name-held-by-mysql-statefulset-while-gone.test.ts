// MySQLCluster `db`'s members are `db-mysql-<i>`, and so are EtcdCluster `db-mysql`'s. The MySQLCluster came first:
// its StatefulSet `db-mysql` made pod `db-mysql-0` (member 0, the primary), so the EtcdCluster is held
// (PodNameTaken). A member pod is not the MySQLCluster's child: its controller is the StatefulSet, and that is what the
// EtcdCluster sees as the pod's owner. When member 0 is gone for a moment (a node drained, the pod evicted or deleted
// by a rolling update: the StatefulSet makes it again under the same name within seconds), the EtcdCluster must stay
// held: the MySQLCluster still exists and wants `db-mysql-0`. Otherwise the EtcdCluster creates its own member
// `db-mysql-0` in that window, the StatefulSet can no longer make the primary (the name is taken), and the database
// loses its primary to an etcd member. (A PodSet or an EtcdCluster holding the name is remembered and judged by its
// own object, test/podset/pod-names-held-while-gone.test.ts; a StatefulSet's pod names its StatefulSet, not the
// MySQLCluster.) Here the MySQLCluster has one member, so the window is the whole cluster's; with more members the
// same happens when every member pod is gone at once (their nodes lost, `kubectl delete pods -l ...`).
import t, { type Test } from 'tap';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import type { EtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { etcdParent } from '../fixtures/etcd.js';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (status: unknown) =>
  ((status as { conditions?: Array<{ type: string }> }).conditions ?? []).find((c) => c.type === 'Ready') as
    { status: string; reason: string; message: string } | undefined;

/** An etcd client that fails the test if the hook changes membership (no member is reachable: a new cluster). */
function watchedEtcd(t: Test): EtcdClient {
  return {
    memberList: async () => ({ members: [] }),
    health: async () => ({ healthy: false, error: 'down' }),
    memberAdd: async () => t.fail('no member is added') as never,
    memberRemove: async () => t.fail('no member is removed') as never,
    memberPromote: async () => t.fail('no member is promoted') as never,
  };
}

/** MySQLCluster db in namespace shop, of `size` members. */
function mysqlDb(size = 3): ParentObject {
  const parent = request('mysqlcluster', { size, version: '8.0' }).parent;
  parent.metadata = { ...parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
  return parent;
}

/** Member `i` of MySQLCluster db, as its StatefulSet `db-mysql` makes it. */
function member(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `db-mysql-${i}`,
      namespace: 'shop',
      uid: `uid-db-mysql-${i}`,
      labels: {
        'app.kubernetes.io/name': 'mysql',
        'app.kubernetes.io/instance': 'db',
        'mysqlcluster.metaops.io/instance': 'db',
        'statefulset.kubernetes.io/pod-name': `db-mysql-${i}`,
      },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db-mysql', uid: 'uid-sts-db-mysql', controller: true },
      ],
    },
  } as KubeObject;
}

/** EtcdCluster db-mysql in namespace shop, of three members, with `status`. */
function etcdDbMysql(status?: Record<string, unknown>): ParentObject {
  const parent = etcdParent({ size: 3 }, status);
  parent.metadata = { ...parent.metadata, name: 'db-mysql', namespace: 'shop', uid: 'uid-etcd-db-mysql' };
  return parent;
}

function etcdRequest(parent: ParentObject, related: KubeObject[]): CompositeSyncRequest {
  return { controller: {}, parent, children: {}, related: objectMap(related) };
}

t.test(
  "EtcdCluster db-mysql held by MySQLCluster db's members stays held while member 0's pod is made again",
  async (t) => {
    // MySQLCluster db runs its one member: the EtcdCluster is held.
    const first = await etcdSync(etcdRequest(etcdDbMysql(), [mysqlDb(1), member(0)]), {
      etcd: watchedEtcd(t),
      now: FIXED_NOW,
    });
    t.match(ready(first.status), { status: 'False', reason: 'PodNameTaken', message: /^Pod db-mysql-0 belongs to/ });
    t.same(first.children, [], 'no member pod, no Service');

    // Member 0's pod is deleted (a node drained) and not yet made again by the StatefulSet; the MySQLCluster exists,
    // with the same uid and size: it still wants db-mysql-0.
    t.comment(`recorded: ${JSON.stringify((first.status as Record<string, unknown>)['heldBy'])}`);
    const again = await etcdSync(etcdRequest(etcdDbMysql(first.status as Record<string, unknown>), [mysqlDb(1)]), {
      etcd: watchedEtcd(t),
      now: FIXED_NOW,
    });
    t.match(
      ready(again.status),
      { status: 'False', reason: 'PodNameTaken', message: /^Pod db-mysql-0 belongs to/ },
      'still held: MySQLCluster db still exists and wants db-mysql-0',
    );
    t.notOk(
      again.children.some((c) => c.kind === 'Pod' && c.metadata.name === 'db-mysql-0'),
      "no etcd member under the name of the database's primary",
    );
  },
);
