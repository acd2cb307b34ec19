// Which names a MySQLCluster `my-mysql` takes (hooks/mysqlcluster/sync.ts legacyNames) when claims
// `data-my-mysql-<i>` labelled as its StatefulSet of the names before the `-mysql` suffix would label them exist: they
// are a sign of this cluster's past (a cluster from before the suffix, deleted and made again over its volumes) only
// when no other owner's StatefulSet `my-mysql` stands beside them. A Helm release `my-mysql` of a MySQL chart (its
// StatefulSet `my-mysql`, managed by Helm) or a StatefulSet another controller owns keeps its claims live: the new
// cluster takes its own `-mysql` names. A StatefulSet `my-mysql` that a MySQLCluster of this name left (kubectl delete
// mysqlcluster --cascade=orphan: no controller, metaops' labels, the old controller-uid) is its past: the names before
// the suffix are kept (and the cluster is held, told how to let Metacontroller adopt it), as they were.
import t from 'tap';
import { legacyNames } from '../../hooks/mysqlcluster/sync.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { objectMap, request } from '../fixtures/requests.js';

const claim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {
    name: 'data-my-mysql-0',
    namespace: 'default',
    uid: 'uid-claim-0',
    labels: { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'my-mysql' },
  },
  spec: { accessModes: ['ReadWriteOnce'], volumeName: 'pv-0' },
  status: { phase: 'Bound' },
} as unknown as KubeObject;

function statefulSet(labels: Record<string, string>, controller?: { kind: string; name: string }): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: 'my-mysql',
      namespace: 'default',
      uid: 'uid-sts-my-mysql',
      labels,
      ...(controller
        ? { ownerReferences: [{ apiVersion: 'example.com/v1', ...controller, uid: 'uid-owner', controller: true }] }
        : {}),
    },
    spec: { replicas: 1, selector: { matchLabels: { 'app.kubernetes.io/name': 'mysql' } } },
  } as unknown as KubeObject;
}

const metaops = {
  'app.kubernetes.io/name': 'mysql',
  'app.kubernetes.io/instance': 'my-mysql',
  'app.kubernetes.io/managed-by': 'metaops',
};

function legacy(related: KubeObject[]): boolean {
  const r = request('mysqlcluster', { size: 1, version: '8.0.40' });
  r.parent.metadata = { ...r.parent.metadata, name: 'my-mysql', namespace: 'default', uid: 'uid-my-mysql' };
  r.related = objectMap(related);
  return legacyNames(r);
}

t.test(
  "claims of the names before the suffix: this cluster's past only without another owner beside them",
  async (t) => {
    t.equal(legacy([claim]), true, 'claims alone (a cluster from before the suffix, made again over them): kept');
    t.equal(
      legacy([claim, statefulSet({ ...metaops, 'controller-uid': 'uid-my-mysql-before' })]),
      true,
      'beside a StatefulSet a MySQLCluster of this name left (--cascade=orphan): kept',
    );
    t.equal(
      legacy([
        claim,
        statefulSet({
          'app.kubernetes.io/name': 'mysql',
          'app.kubernetes.io/instance': 'my-mysql',
          'app.kubernetes.io/managed-by': 'Helm',
        }),
      ]),
      false,
      "beside a Helm release's StatefulSet of that name: its own names",
    );
    t.equal(
      legacy([claim, statefulSet(metaops, { kind: 'Workload', name: 'someone' })]),
      false,
      "beside a StatefulSet of that name another controller owns (metaops' labels copied): its own names",
    );
  },
);
