// A pod whose name looks like a member of a MySQLCluster beyond its size, but which the cluster's StatefulSet did not
// make (issue 31: "a child that belongs to another parent is never taken or served"): customize asks for the pods
// `<name>-mysql-0..8` by name (lib/ownership.ts), so such a pod reaches the hook whoever made it (a client pod
// `kubectl run db-mysql-7 --image=mysql:9.1 -- mysql -h db-mysql ...`, another controller's pod). It is not a member:
// it holds none of the cluster's data. It must neither be listed in status.members nor decide the version the
// members run (the downgrade guard would then refuse the cluster's own spec as InvalidSpec and freeze it).
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { shopPod, type PodOwner } from '../fixtures/mysql-pods.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const labels = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'db' };

/** A pod with the cluster's labels where made by `owner`, its server container running `image`. */
const pod = (name: string, image: string, owner?: PodOwner): KubeObject =>
  shopPod(name, {
    image,
    ...(owner ? { labels, owner } : {}),
    containerStatuses: [
      {
        name: 'mysql',
        ready: true,
        restartCount: 0,
        image,
        imageID: `x@sha256:${'b'.repeat(64)}`,
        state: { running: {} },
      },
    ],
  });

t.test(
  'a pod named like member 7 that the StatefulSet did not make is no member and runs no version of it',
  async (t) => {
    const base = () => {
      const r = request('mysqlcluster', { size: 1, version: '8.0' });
      r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
      return r;
    };
    const first = mysqlSync(base(), FIXED_NOW);
    const children = objectMap(first.children.map((c) => asObserved(c)));
    const sts = { kind: 'StatefulSet', name: 'db-mysql', uid: 'uid-StatefulSet-db-mysql' };
    const req = {
      ...base(),
      children,
      related: objectMap([pod('db-mysql-0', 'mysql:8.0', sts), pod('db-mysql-7', 'mysql:9.1')]),
    };
    req.parent.status = structuredClone(first.status) as Record<string, unknown>;
    const res = mysqlSync(req, FIXED_NOW);
    const ready = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
    t.not(ready.reason, 'InvalidSpec', `the cluster's own version is not refused (${ready.reason}: ${ready.message})`);
    const members = ((res.status as any).members ?? []).map((m: any) => m.name);
    t.same(members, ['db-mysql-0'], 'status.members lists only the pods the StatefulSet made');
  },
);
