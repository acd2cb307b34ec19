// Issue 31: "A child that belongs to another parent is never taken or served". A parent held because another owner
// holds the name of its Service (Ready=False ServiceNameTaken) must not advertise that Service in its status: clients
// and tools read status.writeService / status.readService (MySQLCluster) and status.serviceName (Memcached) to find
// where to connect, and that name reaches the other owner's pods.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { memcachedSync, mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

function theirs(kind: string, apiVersion: string, name: string, owner: string): KubeObject {
  const obj = {
    apiVersion,
    kind,
    metadata: {
      name,
      namespace: 'shop',
      uid: `uid-${name}`,
      ownerReferences: [{ apiVersion: 'x/v1', kind: owner, name, uid: `uid-owner-${name}`, controller: true }],
    },
  };
  return obj as unknown as KubeObject;
}

t.test('MySQLCluster held by a write Service another owner holds does not name it as its write Service', async (t) => {
  const req = request('mysqlcluster', { size: 3, version: '8.0' });
  req.parent.metadata = { ...req.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
  // EtcdCluster db-mysql's peer Service is db-mysql.
  req.related = objectMap([theirs('Service', 'v1', 'db-mysql', 'EtcdCluster')]);
  const res = mysqlSync(req, FIXED_NOW);
  t.match(ready(res), { status: 'False', reason: 'ServiceNameTaken' });
  const status = res.status as Record<string, unknown>;
  t.not(status['writeService'], 'db-mysql', `status.writeService does not send clients to EtcdCluster db-mysql's pods`);
});

t.test('Memcached held by a Service another owner holds does not name it as its Service', async (t) => {
  const req = request('memcached', { size: 1 });
  req.parent.metadata = { ...req.parent.metadata, name: 'x', namespace: 'shop', uid: 'uid-x' };
  // EtcdCluster x-memcached's peer Service is x-memcached.
  req.related = objectMap([theirs('Service', 'v1', 'x-memcached', 'EtcdCluster')]);
  const res = memcachedSync(req, FIXED_NOW);
  t.match(ready(res), { status: 'False', reason: 'ServiceNameTaken' });
  const status = res.status as Record<string, unknown>;
  t.not(
    status['serviceName'],
    'x-memcached',
    `status.serviceName does not send clients to EtcdCluster x-memcached's pods`,
  );
});

t.test('MySQLCluster held by a read Service another owner holds names neither it nor keeps a stale one', async (t) => {
  const req = request('mysqlcluster', { size: 3, version: '8.0' });
  req.parent.metadata = { ...req.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
  // The status from before the other owner made its Service (a status that names it must not survive either).
  req.parent.status = { writeService: 'db-mysql', readService: 'db-mysql-read' };
  req.related = objectMap([theirs('Service', 'v1', 'db-mysql-read', 'MySQLCluster')]);
  const res = mysqlSync(req, FIXED_NOW);
  t.match(ready(res), { status: 'False', reason: 'ServiceNameTaken', message: /db-mysql-read/ });
  const status = res.status as Record<string, unknown>;
  t.not(status['readService'], 'db-mysql-read', 'status.readService does not name the other owner\u2019s Service');
  t.equal(status['writeService'], 'db-mysql', 'the write Service, which is free, is still named');
});
