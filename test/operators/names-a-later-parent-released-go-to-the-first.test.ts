// Two parents made together whose children want the same names (MySQLCluster `shop`: write Service `shop-mysql`, its
// StatefulSet's pods `shop-mysql-<i>`; EtcdCluster `shop-mysql`: peer Service `shop-mysql`, member pods
// `shop-mysql-<i>`), made in the same second (one `kubectl apply` of a List), run to the end: each hook's answer
// applied as Metacontroller applies it (a child answered and free is created, one held by another owner is not,
// an observed child left out of the answer is deleted), the StatefulSet's controller making the pod it may, the
// statuses written, round after round. The one made second never served, so it yields: it releases what the first
// wants. Then the first must take the released names: the name is free, and its status.heldBy still records the
// second as their holder, which still exists and still wants them (its kind's names), but says it yields them to
// the first (its own status.heldBy[].yieldsTo). Measured on the real control plane (e2e "Parents made together",
// Metacontroller v4.17.2): the MySQLCluster released Service shop-mysql, and the EtcdCluster made first stayed
// `ServiceNameTaken` "..., which still exists and wants it (the Service is gone for a moment: it makes it again)"
// for good: both held. Whatever the order in which Metacontroller gets to the two answers, exactly one keeps working
// (the one made first) and the other says why.
import t from 'tap';
import type { ParentObject } from '../../lib/metacontroller.js';
import { etcdParent, quietEtcd } from '../fixtures/etcd.js';
import { etcdSync, mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { appliedWorld, controllerUid, key } from '../fixtures/applied-world.js';

const NS = 'shop';
const now = FIXED_NOW;
const CREATED = '2026-01-02T03:00:00Z';

const ready = (p: ParentObject) =>
  ((p.status as any)?.conditions ?? []).find((c: any) => c.type === 'Ready') as
    { status: string; reason: string; message: string } | undefined;
const held = (p: ParentObject) => /Name(Taken|Releasing)$/.test(ready(p)?.reason ?? '');

type Actor = 'mysql' | 'etcd' | 'statefulset';

/** The namespace as the API server holds it, and the two parents; `order`: who acts first in each round. */
async function run(opts: { mysqlUid: string; etcdUid: string; order: Actor[]; rounds?: number }) {
  const etcd = etcdParent({ size: 3 });
  etcd.metadata = {
    ...etcd.metadata,
    name: 'shop-mysql',
    namespace: NS,
    uid: opts.etcdUid,
    creationTimestamp: CREATED,
  };
  const mysql = request('mysqlcluster', { size: 1, version: '8.0' }).parent;
  mysql.metadata = { ...mysql.metadata, name: 'shop', namespace: NS, uid: opts.mysqlUid, creationTimestamp: CREATED };
  const parents: Record<'mysql' | 'etcd', ParentObject> = { mysql, etcd };

  const { world, make, apply, requestOf: request_ } = appliedWorld(NS, () => [mysql, etcd]);
  const act = async (who: Actor) => {
    if (who === 'etcd') {
      const answer = await etcdSync(request_(etcd, mysql), { etcd: quietEtcd, now });
      apply(etcd, answer);
    } else if (who === 'mysql') {
      const req = request('mysqlcluster', { size: 1, version: '8.0' });
      Object.assign(req, request_(mysql, etcd));
      apply(mysql, mysqlSync(req, now));
    } else {
      // The StatefulSet controller: the pods below its replicas whose names are free (none Ready here: no kubelet).
      const sts = world.get(key('StatefulSet', 'shop-mysql'));
      if (!sts || controllerUid(sts) !== mysql.metadata.uid) return;
      const replicas = ((sts as any).spec?.replicas as number | undefined) ?? 1;
      for (let i = 0; i < replicas; i++) {
        const k = key('Pod', `shop-mysql-${i}`);
        if (!world.has(k))
          world.set(k, make({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `shop-mysql-${i}` } }, sts));
        break; // OrderedReady: one at a time, and the pod never becomes Ready here
      }
    }
  };
  for (let round = 0; round < (opts.rounds ?? 6); round++) for (const who of opts.order) await act(who);
  const service = world.get(key('Service', 'shop-mysql'));
  const pod0 = world.get(key('Pod', 'shop-mysql-0'));
  return { parents, world, service, pod0, controllerUid };
}

const orders: Actor[][] = [
  ['mysql', 'etcd', 'statefulset'],
  ['etcd', 'mysql', 'statefulset'],
  ['mysql', 'statefulset', 'etcd'],
  ['statefulset', 'etcd', 'mysql'],
];

for (const order of orders) {
  t.test(
    `made in the same second, the EtcdCluster's uid the lower, hooks in the order ${order.join(', ')}: the EtcdCluster works, the MySQLCluster says why`,
    async (t) => {
      const r = await run({ mysqlUid: 'uid-mysql-shop', etcdUid: 'uid-etcd-shop-mysql', order });
      const { mysql, etcd } = r.parents;
      t.comment(`EtcdCluster: ${JSON.stringify(ready(etcd))}`);
      t.comment(`MySQLCluster: ${JSON.stringify(ready(mysql))}`);
      t.notOk(held(etcd), 'the EtcdCluster, made first, is not held');
      t.ok(held(mysql), 'the MySQLCluster, made second, is held');
      t.match(ready(mysql)?.message, /EtcdCluster shop-mysql \(uid uid-etcd-shop-mysql\)/, 'and names the EtcdCluster');
      t.equal(r.service && r.controllerUid(r.service), etcd.metadata.uid, 'Service shop-mysql is the EtcdCluster`s');
      t.equal(r.pod0 && r.controllerUid(r.pod0), etcd.metadata.uid, 'pod shop-mysql-0 is the EtcdCluster`s');
    },
  );

  t.test(
    `made in the same second, the MySQLCluster's uid the lower, hooks in the order ${order.join(', ')}: the MySQLCluster works, the EtcdCluster says why`,
    async (t) => {
      const r = await run({ mysqlUid: 'uid-a-mysql-shop', etcdUid: 'uid-etcd-shop-mysql', order });
      const { mysql, etcd } = r.parents;
      t.comment(`EtcdCluster: ${JSON.stringify(ready(etcd))}`);
      t.comment(`MySQLCluster: ${JSON.stringify(ready(mysql))}`);
      t.notOk(held(mysql), 'the MySQLCluster, made first, is not held');
      t.ok(held(etcd), 'the EtcdCluster, made second, is held');
      t.match(ready(etcd)?.message, /MySQLCluster shop \(uid uid-a-mysql-shop\)/, 'and names the MySQLCluster');
      t.equal(r.service && r.controllerUid(r.service), mysql.metadata.uid, 'Service shop-mysql is the MySQLCluster`s');
      const sts = r.world.get('StatefulSet/shop-mysql')!;
      t.equal(
        r.pod0 && r.controllerUid(r.pod0),
        sts.metadata.uid,
        'pod shop-mysql-0 is the MySQLCluster`s StatefulSet`s',
      );
    },
  );
}
