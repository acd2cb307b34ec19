// A MySQLCluster deleted with `kubectl delete --cascade=orphan` (the usual way to re-create a parent without touching
// what runs) and created again under the same name: its Secret stays, without owner, with this cluster's labels and
// the old parent's controller-uid (so Metacontroller does not adopt it), holding the only copy of the root password the
// data volumes were made with. Issue 31: "status names the case and what the user can do". The status must not say the
// Secret does not exist, nor tell the user to `kubectl create` it (refused: AlreadyExists, and a user who deletes it to
// follow the advice loses the password); the way that works is the label that lets Metacontroller adopt it.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

/** MySQLCluster shop/db made again (uid uid-new) after the one of its name (uid uid-old) was deleted orphaning. */
function recreated() {
  const req = request('mysqlcluster', { size: 1, version: '8.0' });
  req.parent.metadata = { ...req.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-new' };
  return req;
}

/** The labels of what the old cluster left: this cluster's, and the old parent's controller-uid. */
const labels = {
  'app.kubernetes.io/name': 'mysql',
  'app.kubernetes.io/instance': 'db',
  'app.kubernetes.io/managed-by': 'metaops',
  'controller-uid': 'uid-old',
};

/** A child the old cluster left behind, without owner: its kind, apiVersion and name, and `extra` fields. */
const left = (kind: string, apiVersion: string, name: string, extra: Record<string, unknown> = {}) =>
  ({ apiVersion, kind, metadata: { name, namespace: 'shop', uid: `uid-${name}`, labels }, ...extra }) as KubeObject;

t.test(
  'a Secret left without a controller under the cluster\u2019s name is not reported missing; the advice adopts it',
  async (t) => {
    const req = recreated();
    const secret = left('Secret', 'v1', 'db-mysql', {
      data: { 'root-password': Buffer.from('the-password').toString('base64') },
    });
    // The claim its StatefulSet made carries the uid of the cluster before: not mounted until the user adopts it.
    const claim = (uid: string) => {
      const c = left('PersistentVolumeClaim', 'v1', 'data-db-mysql-0');
      c.metadata.labels = { ...c.metadata.labels, 'mysqlcluster.metaops.io/uid': uid };
      return c;
    };
    req.related = objectMap([secret, claim('uid-old')]);
    const held = mysqlSync(req, FIXED_NOW);
    const heldReady = ((held.status as any).conditions as any[]).find((c) => c.type === 'Ready');
    t.match(
      heldReady.message,
      /kubectl -n shop label pvc data-db-mysql-0 mysqlcluster.metaops.io\/uid=uid-new --overwrite/,
    );
    t.same(held.children, [], 'nothing mounts the claim before it is adopted');
    req.related = objectMap([secret, claim('uid-new')]);
    const res = mysqlSync(req, FIXED_NOW);
    const said = ((res.status as any).conditions as any[]).map((c) => `${c.type} ${c.reason}: ${c.message}`).join('\n');
    t.notMatch(said, /Secret db-mysql does not exist/, 'the Secret, which exists, is not said to be missing');
    t.notMatch(said, /create secret generic db-mysql/, 'no advice to create a Secret that exists (AlreadyExists)');
    t.match(
      said,
      /label secret db-mysql controller-uid=uid-new/,
      'the advice that works: the label Metacontroller adopts by',
    );
    t.comment(said);
  },
);

t.test(
  'a StatefulSet and Services left behind (--cascade=orphan) are held, named as left behind, with the label that adopts them',
  async (t) => {
    const req = recreated();
    // A Service made by hand with the same name but another instance's labels is not offered for adoption.
    const other = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'db-mysql-read', namespace: 'shop', labels: { 'app.kubernetes.io/instance': 'other' } },
    } as KubeObject;
    req.related = objectMap([
      left('StatefulSet', 'apps/v1', 'db-mysql'),
      left('Service', 'v1', 'db-mysql'),
      left('Service', 'v1', 'db-mysql-headless'),
      other,
      left('Secret', 'v1', 'db-mysql'),
    ]);
    const res = mysqlSync(req, FIXED_NOW);
    const ready = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: /NameTaken$/ });
    t.match(ready.message, /left behind by a MySQLCluster of this name deleted with --cascade=orphan/);
    t.match(ready.message, /kubectl -n shop label statefulsets db-mysql controller-uid=uid-new --overwrite/);
    t.match(
      ready.message,
      /kubectl -n shop label services db-mysql db-mysql-headless controller-uid=uid-new --overwrite/,
    );
    t.notMatch(ready.message, /label services db-mysql-read/, 'not what another instance made');
    t.same(res.children, [], 'nothing is created or changed');
    t.comment(ready.message);
  },
);
