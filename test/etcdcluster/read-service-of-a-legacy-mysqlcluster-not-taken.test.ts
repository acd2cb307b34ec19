// A MySQLCluster `shop` made by a metaops from before the suffixes serves under StatefulSet `shop` and Services
// `shop`, `shop-read` and `shop-headless` (its observed StatefulSet says so: hooks/mysqlcluster/sync.ts legacyNames,
// whatever its status). Its status is lost (a restore from a backup, written over): status.writeService no longer
// records the scheme. Its read Service is deleted by hand for a moment (to change its type); the cluster makes it
// again at its next sync. An EtcdCluster `shop-read` made after the cluster, whose peer Service is `shop-read`, must
// not take the name meanwhile: the cluster's read clients would reach etcd, and the cluster be the one held. The
// cluster's status says nothing of its scheme, so a name of either scheme is one it may make now.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import '../../main/operators.js';
import { etcdFirstSync, etcdRelated, laterEtcdCluster, NS } from '../fixtures/held-names.js';

/** MySQLCluster `shop` from before the suffixes, made before the EtcdCluster, its status lost. */
const legacyShop = {
  apiVersion: 'database.example.com/v1alpha1',
  kind: 'MySQLCluster',
  metadata: {
    name: 'shop',
    namespace: NS,
    uid: 'uid-mysql-shop',
    generation: 1,
    creationTimestamp: '2020-01-01T00:00:00Z',
  },
  spec: { size: 3, version: '8.0.36' },
} as unknown as KubeObject;

t.test(
  'an EtcdCluster does not take a Service name a MySQLCluster made before it, its status lost, may serve under',
  async (t) => {
    const parent = laterEtcdCluster('shop-read', 3, 'uid-etcd-shop-read');
    const related = etcdRelated(parent, [legacyShop]);
    t.ok(Object.keys(related ?? {}).length > 0, 'customize asks for MySQLCluster shop');
    const res = await etcdFirstSync(t, parent, related);
    t.notOk(
      res.children.some((c) => c.kind === 'Service' && c.metadata.name === 'shop-read'),
      `Service shop-read not answered (answered: ${res.children.map((c) => `${c.kind} ${c.metadata.name}`).join(', ')})`,
    );
  },
);
