// A MySQLCluster `mysql` made in a namespace where a Helm release `mysql` of a MySQL chart runs (`helm install mysql
// bitnami/mysql`: the chart's full name is the release's when the release name holds the chart's, so its StatefulSet
// is `mysql`, its Services `mysql` and `mysql-headless`, its claims `data-mysql-<i>`, labelled
// app.kubernetes.io/name=mysql and app.kubernetes.io/instance=mysql, as a StatefulSet of a MySQLCluster of the names
// before the `-mysql` suffix labels them). The cluster's own names (`mysql-mysql...`) are free: it is a new cluster,
// never made before the suffix (no child, no status), and the claims are the running release's, not volumes it left.
// It makes its StatefulSet `mysql-mysql` and Services `mysql-mysql`, `-read`, `-headless` (issue 31: child names that
// do not collide, an upgrade path that applies to clusters made before, not to another owner's objects), rather than
// taking the names before the suffix, being held for the release's StatefulSet and claims for good, and advising to
// delete or adopt the release's live data volume.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { shopPod } from '../fixtures/mysql-pods.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => ((res.status.conditions ?? []) as any[]).find((c) => c.type === 'Ready');

/** The labels the chart gives its objects (its claims and pods carry the selector's three). */
const selector = {
  'app.kubernetes.io/name': 'mysql',
  'app.kubernetes.io/instance': 'mysql',
  'app.kubernetes.io/component': 'primary',
};
const helm = { ...selector, 'app.kubernetes.io/managed-by': 'Helm', 'helm.sh/chart': 'mysql-12.3.1' };

/** Helm release `mysql`: its StatefulSet, Services, pod and bound data claim, none with a controller of metaops. */
function release(): KubeObject[] {
  const sts = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'mysql', namespace: 'shop', uid: 'uid-helm-sts', labels: helm },
    spec: { replicas: 1, serviceName: 'mysql-headless', selector: { matchLabels: selector } },
    status: { replicas: 1, readyReplicas: 1 },
  };
  const service = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'shop', uid: `uid-helm-svc-${name}`, labels: helm },
    spec: { selector },
  });
  const claim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data-mysql-0', namespace: 'shop', uid: 'uid-helm-pvc-0', labels: selector },
    spec: { accessModes: ['ReadWriteOnce'], volumeName: 'pvc-helm-0' },
    status: { phase: 'Bound' },
  };
  const pod = shopPod('mysql-0', {
    image: 'docker.io/bitnami/mysql:8.4.3',
    labels: selector,
    owner: { kind: 'StatefulSet', name: 'mysql', uid: 'uid-helm-sts' },
  });
  return [sts, service('mysql'), service('mysql-headless'), claim, pod] as unknown as KubeObject[];
}

t.test(
  "a new MySQLCluster named like a Helm release's MySQL takes its own -mysql names, not the release's",
  async (t) => {
    const r = request('mysqlcluster', { size: 1, version: '8.0.40' });
    r.parent.metadata = {
      ...r.parent.metadata,
      name: 'mysql',
      namespace: 'shop',
      uid: 'uid-mysqlcluster-mysql',
      creationTimestamp: '2026-01-01T00:00:00Z',
    };
    r.related = objectMap(release());
    const res = mysqlSync(r, FIXED_NOW);
    const names = res.children.map((c: any) => `${c.kind}/${c.metadata.name}`).sort();
    t.notMatch(
      String(ready(res)?.reason),
      /NameTaken$/,
      `its own names are free: not held (${ready(res)?.reason}: ${ready(res)?.message})`,
    );
    t.ok(names.includes('StatefulSet/mysql-mysql'), `its StatefulSet is mysql-mysql (answered: ${names.join(', ')})`);
    t.ok(names.includes('Service/mysql-mysql'), 'its write Service is mysql-mysql');
    t.notOk(
      names.some((n) => n === 'StatefulSet/mysql' || n === 'Service/mysql' || n === 'Service/mysql-headless'),
      "it answers none of the release's names",
    );
    t.equal((res.status as any).writeService, 'mysql-mysql', 'status.writeService names its own write Service');
    t.notMatch(
      String(ready(res)?.message),
      /delete pvc data-mysql-0/,
      "nothing advises deleting the release's live data volume",
    );
  },
);
