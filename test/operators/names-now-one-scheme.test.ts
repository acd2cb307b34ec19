// A kind that renamed its children asks customize for both schemes (childNames), but makes one at a time: namesNow
// gives the one its status records (Memcached status.serviceName, MySQLCluster status.writeService), else today's.
// lib/ownership.ts wantedByEarlier keeps a free name from a later parent only when an earlier one makes it now
// (lib/holders.ts holderWantsNow), so a Memcached serving under `<name>-memcached` keeps no Service `<name>`.
import t from 'tap';
import { holderWants, holderWantsNow } from '../../lib/holders.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import '../../main/operators.js';
import { request } from '../fixtures/requests.js';

const names = (list: ReadonlyArray<{ kind: string; name: string }> | undefined) =>
  (list ?? []).filter((c) => c.kind !== 'Pod' && c.kind !== 'PersistentVolumeClaim').map((c) => `${c.kind}/${c.name}`);

function parentOf(kind: 'memcached' | 'mysqlcluster', status?: Record<string, unknown>): KubeObject {
  const parent = request(kind, kind === 'memcached' ? { size: 1 } : { size: 1, version: '8.0' }).parent;
  parent.metadata = { ...parent.metadata, name: 'x' };
  if (status) parent.status = status;
  return parent as KubeObject;
}

t.test('Memcached: the Service it makes now, by the name its status records', async (t) => {
  t.same(names(holderWantsNow(parentOf('memcached'))), ['Deployment/x', 'Service/x-memcached'], 'no status: today`s');
  t.same(
    names(holderWantsNow(parentOf('memcached', { serviceName: 'x' }))),
    ['Deployment/x', 'Service/x'],
    'a Memcached from before the suffix',
  );
  t.same(
    names(holderWantsNow(parentOf('memcached', { serviceName: 'elsewhere' }))),
    ['Deployment/x', 'Service/x-memcached'],
    'a status naming neither: today`s',
  );
  t.same(
    names(holderWants(parentOf('memcached'))),
    ['Deployment/x', 'Service/x-memcached', 'Service/x'],
    'every name it may take (customize asks for both)',
  );
});

t.test('MySQLCluster: one scheme, by the write Service its status records, and its Secret', async (t) => {
  t.same(
    names(holderWantsNow(parentOf('mysqlcluster'))),
    ['StatefulSet/x-mysql', 'Service/x-mysql-headless', 'Service/x-mysql', 'Service/x-mysql-read', 'Secret/x-mysql'],
    'no status: today`s',
  );
  t.same(
    names(holderWantsNow(parentOf('mysqlcluster', { writeService: 'x' }))),
    ['StatefulSet/x', 'Service/x-headless', 'Service/x', 'Service/x-read', 'Secret/x-mysql'],
    'a cluster from before the suffix',
  );
  const claims = (holderWantsNow(parentOf('mysqlcluster')) ?? []).filter((c) => c.kind === 'PersistentVolumeClaim');
  t.ok(claims.length > 0 && claims.every((c) => c.name.startsWith('data-x-mysql-')), 'its data volumes, one scheme');
});
