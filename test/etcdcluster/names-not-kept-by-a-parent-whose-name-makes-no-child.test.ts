// A MySQLCluster whose name is too long for its children (47 characters: StatefulSet `<name>-mysql` is past the 52 a
// StatefulSet's pods allow) is refused `InvalidSpec` and makes nothing, for good: a name cannot be changed. An
// EtcdCluster `<name>-mysql` (53 characters: its members, peer and client Services fit) made after it wants the peer
// Service and member pods such a cluster would have made. Nothing ever makes them but the EtcdCluster: held for the
// MySQLCluster (lib/ownership.ts wantedByEarlier), it would wait for good for names nobody can make.
import t from 'tap';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import '../../main/operators.js';
import { etcdFirstSync, etcdRelated, laterEtcdCluster, NS } from '../fixtures/held-names.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';

const longName = 'orders-archive-eu-west-replica-primary-cluster1';

t.test('an EtcdCluster takes names a MySQLCluster made before it can never make', async (t) => {
  t.equal(longName.length, 47);
  // The MySQLCluster as its own hook answers it: refused for its name, nothing made.
  const req = request('mysqlcluster', { size: 3, version: '8.0.36' });
  req.parent.metadata = {
    ...req.parent.metadata,
    name: longName,
    namespace: NS,
    uid: 'uid-mysql-long',
    creationTimestamp: '2020-01-01T00:00:00Z',
  } as never;
  const own = await runHook(mysqlcluster, 'sync', req, { now: FIXED_NOW });
  const refused = (own.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.match(
    refused,
    { status: 'False', reason: 'InvalidSpec', message: /metadata\.name/ },
    'the MySQLCluster is refused',
  );
  t.same(own.children, [], 'and makes nothing');
  const mysql = { ...req.parent, status: own.status } as unknown as KubeObject;

  const parent = laterEtcdCluster(`${longName}-mysql`, 3, 'uid-etcd-long');
  const related = etcdRelated(parent, [mysql]);
  t.ok(Object.keys(related ?? {}).length > 0, 'customize asks for the MySQLCluster');
  const res = await etcdFirstSync(t, parent, related);
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.notMatch(ready, { reason: /NameTaken$/ }, `not held (${ready?.reason}: ${ready?.message?.slice(0, 200)})`);
  t.ok(
    res.children.some((c) => c.kind === 'Service' && c.metadata.name === `${longName}-mysql`),
    `its peer Service answered (answered: ${res.children.map((c) => `${c.kind} ${c.metadata.name}`).join(', ')})`,
  );
});
