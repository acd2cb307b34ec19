// Issue 31: a child that belongs to another parent is never taken or served. EtcdCluster `data-db-mysql` (its
// members' claims are `<member>` = `data-db-mysql-<i>`) runs in namespace `shop`; MySQLCluster `db` is made after it:
// its StatefulSet would mount `data-db-mysql-<i>`. The cluster is held, naming the EtcdCluster; and what it tells the
// user to do must not be to hand it the EtcdCluster's live data volume.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { CLAIM_UID_LABEL } from '../../hooks/mysqlcluster/sync.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => (res.status.conditions as any[]).find((c) => c.type === 'Ready');

const etcdClaim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {
    name: 'data-db-mysql-0',
    namespace: 'shop',
    uid: 'uid-claim-etcd-0',
    labels: { app: 'etcd', etcd_cluster: 'data-db-mysql', 'etcdcluster.metaops.io/instance': 'data-db-mysql' },
    ownerReferences: [
      {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdCluster',
        name: 'data-db-mysql',
        uid: 'uid-etcd',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  },
  spec: { volumeName: 'pv-etcd-0', accessModes: ['ReadWriteOnce'] },
  status: { phase: 'Bound' },
} as unknown as KubeObject;

t.test("an EtcdCluster's member claim under the cluster's volume name: held naming it, never adopted", async (t) => {
  const r = request('mysqlcluster', { size: 1, version: '8.0.40' });
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
  r.related = objectMap([etcdClaim]);
  const res = mysqlSync(r, FIXED_NOW);
  t.notOk(
    res.children.some((c) => c.kind === 'StatefulSet'),
    'no StatefulSet mounts the claim',
  );
  const c = ready(res);
  t.match(c, { status: 'False' });
  t.match(c.message, /EtcdCluster data-db-mysql/, `names the owner: ${c.message}`);
  t.notMatch(
    c.message,
    new RegExp(`label pvc data-db-mysql-0 ${CLAIM_UID_LABEL}`),
    "does not tell the user to adopt another parent's live claim",
  );
});

t.test("the EtcdCluster's claim labelled as the hold said: still another parent's, never mounted", async (t) => {
  const r = request('mysqlcluster', { size: 1, version: '8.0.40' });
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
  const labelled = structuredClone(etcdClaim);
  labelled.metadata.labels = { ...labelled.metadata.labels, [CLAIM_UID_LABEL]: 'uid-db' };
  r.related = objectMap([labelled]);
  const res = mysqlSync(r, FIXED_NOW);
  const c = ready(res);
  t.notOk(
    res.children.some((c) => c.kind === 'StatefulSet'),
    `no StatefulSet that mounts EtcdCluster data-db-mysql's member volume (Ready: ${c?.reason}: ${c?.message})`,
  );
  t.match(c, { status: 'False', message: /EtcdCluster data-db-mysql/ });
});
