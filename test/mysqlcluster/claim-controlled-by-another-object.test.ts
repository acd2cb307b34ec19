// A data volume whose controller (ownerReference with controller: true) is another object is that object's data: the
// cluster is held naming it, whatever the claim's labels (CLAIM_UID_LABEL with this cluster's uid included), and the
// hold offers no command that would hand it over (no adoption label, no delete). A claim without a controller keeps
// the delete and adopt commands. Issue 31.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { CLAIM_UID_LABEL, namesOf, volumeOurs } from '../../hooks/mysqlcluster/sync.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { memberClaim, shopPod } from '../fixtures/mysql-pods.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => (res.status.conditions as any[]).find((c) => c.type === 'Ready');
const n = namesOf('db');

/**
 * Claim `data-db-mysql-<i>` in namespace shop, labelled as this cluster's StatefulSet labels its claims and marked with
 * its uid (CLAIM_UID_LABEL uid-db); controlled by `owner` where given.
 */
function claim(i: number, owner?: Record<string, unknown>): KubeObject {
  const c = memberClaim('db', i, 'uid-db', { namespace: 'shop' });
  if (owner) (c.metadata as any).ownerReferences = [{ controller: true, blockOwnerDeletion: true, ...owner }];
  return c;
}

function sync(related: KubeObject[], size = 1) {
  const r = request('mysqlcluster', { size, version: '8.0.40' });
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
  r.related = objectMap(related);
  return { r, res: mysqlSync(r, FIXED_NOW) };
}

const otherMySQL = { apiVersion: 'metaops.io/v1alpha1', kind: 'MySQLCluster', name: 'db-old', uid: 'uid-other' };
const widget = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'keeper', uid: 'uid-widget' };

for (const [what, owner, named] of [
  ['another MySQLCluster (another uid)', otherMySQL, /MySQLCluster db-old \(uid uid-other\)/],
  ['an object of any kind', widget, /Widget keeper \(uid uid-widget\)/],
  ['a controller reference without a uid', { apiVersion: 'v1', kind: 'Thing', name: 'x' }, /Thing x/],
] as const) {
  t.test(
    `a claim marked with this cluster's uid but controlled by ${what}: held naming it, never mounted`,
    async (t) => {
      const { res } = sync([claim(0, owner)]);
      const c = ready(res);
      t.notOk(
        res.children.some((ch) => ch.kind === 'StatefulSet'),
        `no StatefulSet mounts it (Ready: ${c.reason}: ${c.message})`,
      );
      t.match(c, { status: 'False', reason: 'PersistentVolumeClaimNameTaken' });
      t.match(c.message, named, 'names the owner');
      t.match(c.message, /PersistentVolumeClaims data-db-mysql-0 are the data of their controller/);
      t.notMatch(c.message, /label pvc/, 'no adoption command');
      t.notMatch(c.message, /delete pvc/, "no command deleting another owner's data");
      t.notMatch(c.message, /\.\./, 'no doubled full stop');
    },
  );
}

t.test('the hold and the claim advice are two sentences', async (t) => {
  const { res } = sync([claim(0, widget)]);
  t.match(ready(res).message, /what holds the name\. The PersistentVolumeClaims data-db-mysql-0 are the data/);
  const loose = sync([{ ...claim(0), metadata: { ...claim(0).metadata, labels: {} } } as KubeObject]);
  t.match(ready(loose.res).message, /what holds the name\. The PersistentVolumeClaims data-db-mysql-0 were not made/);
});

t.test(
  'a claim without a controller keeps the delete and adopt commands; an owned one beside it does not',
  async (t) => {
    const unmarked = claim(1);
    unmarked.metadata.labels = {};
    const { res } = sync([claim(0, otherMySQL), unmarked], 2);
    const m: string = ready(res).message;
    t.match(m, /PersistentVolumeClaims data-db-mysql-0 are the data of their controller \(MySQLCluster db-old/);
    t.match(m, /kubectl -n shop delete pvc data-db-mysql-1\./);
    t.match(m, new RegExp(`kubectl -n shop label pvc data-db-mysql-1 ${CLAIM_UID_LABEL}=uid-db --overwrite`));
    t.notMatch(m, /pvc data-db-mysql-0/, 'no command names the owned claim');
    t.match(m, /have no controller: made by hand/);
  },
);

t.test(
  'more than three owned claims: the first three listed, the count of the rest, the first one owner',
  async (t) => {
    const { res } = sync(
      [0, 1, 2, 3, 4].map((i) => claim(i, { ...widget, name: `keeper-${i}`, uid: `uid-w${i}` })),
      5,
    );
    const m: string = ready(res).message;
    t.match(
      m,
      'The PersistentVolumeClaims data-db-mysql-0 data-db-mysql-1 data-db-mysql-2 (and 2 more: the same for each) are the data of their controller (Widget keeper-0 (uid uid-w0), for the first)',
    );
  },
);

t.test('volumeOurs: a controller reference decides before any label', async (t) => {
  const r = request('mysqlcluster', { size: 1, version: '8.0.40' });
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
  t.equal(volumeOurs(r, n, claim(0)), true, 'marked with its uid, no controller: ours');
  t.equal(volumeOurs(r, n, claim(0, widget)), false, 'marked with its uid, another controller: not ours');
  t.equal(volumeOurs(r, n, claim(0, { ...widget, uid: '' })), false, 'a controller with an empty uid: not ours');
  t.equal(volumeOurs(r, n, claim(0, { ...widget, uid: 7 })), false, 'a controller uid not a string: not ours');
  t.equal(volumeOurs(r, n, claim(0, { ...widget, uid: 'uid-db' })), true, 'controlled by the cluster itself: ours');
  const sts = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db-mysql', namespace: 'shop', uid: 'uid-sts' },
    spec: { replicas: 1 },
  } as unknown as KubeObject;
  r.children = objectMap([sts]);
  const bySts = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db-mysql', uid: 'uid-sts' };
  t.equal(volumeOurs(r, n, claim(0, bySts)), true, "controlled by its own StatefulSet (a retention policy's): ours");
  t.equal(volumeOurs(r, n, claim(0, { ...bySts, uid: 'uid-sts-2' })), false, 'another StatefulSet of that name');
  const notController = claim(0, widget);
  (notController.metadata as any).ownerReferences[0].controller = false;
  t.equal(volumeOurs(r, n, notController), true, 'an owner reference that is not a controller decides nothing');
});

t.test('three owned claims: all three listed, no count of more', async (t) => {
  const { res } = sync(
    [0, 1, 2].map((i) => claim(i, widget)),
    3,
  );
  const m: string = ready(res).message;
  t.match(m, 'The PersistentVolumeClaims data-db-mysql-0 data-db-mysql-1 data-db-mysql-2 are the data of');
  t.notMatch(m, /more: the same for each/);
});

t.test("a taken member pod's name is no claim: no claim advice for it", async (t) => {
  const pod = shopPod('db-mysql-0');
  // A claim that happens to carry the pod's name (not a member's claim name) changes nothing.
  const odd = { ...claim(0), metadata: { ...claim(0).metadata, name: 'db-mysql-0', labels: {} } } as KubeObject;
  const { res } = sync([pod, odd]);
  const m: string = ready(res).message;
  t.match(m, /Pod db-mysql-0 belongs to no controller/);
  t.notMatch(m, /PersistentVolumeClaims/, 'no claim advice');
  t.notMatch(m, /pvc/);
});
