// A MySQLCluster `db` deleted (kubectl delete: background cascade) and created again under the same name, a new uid,
// with spec.version 8.0.40, as a script or a GitOps tool's replace does at once. The garbage collector deletes the old
// cluster's StatefulSet `db-mysql` first, then its pods: the new cluster's first sync can see the old members still
// running 8.4.3, their controller a StatefulSet of its name that no longer exists (not its own: it has made none), on
// claims marked with the old cluster's uid (mysqlcluster.metaops.io/uid), which it is held for and does not mount.
// Those pods hold none of its data (issue 31: member pods proven the cluster's own; status.version records the
// versions ITS members ran): their version is not recorded in its status.version, so once they and their claims are
// gone (the old data not wanted) the new cluster, none of whose members ever ran, is made on its spec.version, not
// refused for good as a downgrade advising to "restore a backup into a new cluster instead" (it is one).
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { memberClaim, shopPod } from '../fixtures/mysql-pods.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => ((res.status.conditions ?? []) as any[]).find((c) => c.type === 'Ready');

const OLD_UID = 'uid-db-before';
const labels = {
  'app.kubernetes.io/name': 'mysql',
  'app.kubernetes.io/instance': 'db',
  'mysqlcluster.metaops.io/instance': 'db',
};

/** The old cluster's members, running 8.4.3: made by its StatefulSet db-mysql (deleted already: not sent). */
const oldPods = [0, 1].map((i) => {
  const pod = shopPod(`db-mysql-${i}`, {
    image: 'mysql:8.4.3',
    labels,
    owner: { kind: 'StatefulSet', name: 'db-mysql', uid: 'uid-sts-db-mysql-before' },
  });
  pod.metadata.creationTimestamp = '2025-06-01T00:00:00Z';
  (pod['spec'] as Record<string, unknown>)['volumes'] = [
    { name: 'data', persistentVolumeClaim: { claimName: `data-db-mysql-${i}` } },
  ];
  return pod;
});
/** Their data volumes, marked with the old cluster's uid by its claim template. */
const oldClaims = [0, 1].map((i) => memberClaim('db', i, OLD_UID, { namespace: 'shop', uid: `uid-claim-${i}-before` }));

function cluster(related: KubeObject[], status?: Record<string, unknown>) {
  const r = request('mysqlcluster', { size: 2, version: '8.0.40' });
  r.parent.metadata = {
    ...r.parent.metadata,
    name: 'db',
    namespace: 'shop',
    uid: 'uid-db-again',
    creationTimestamp: '2026-01-02T03:04:00Z',
  };
  if (status) r.parent.status = status;
  r.related = objectMap(related);
  return r;
}

t.test(
  "a cluster made again under its name: the old cluster's members still running are no floor and no record",
  async (t) => {
    const first = mysqlSync(cluster([...oldPods, ...oldClaims]), FIXED_NOW);
    t.not(
      (first.status as any).version,
      '8.4.3',
      "status.version does not record the old cluster's members' version (none of this cluster's members ran)",
    );
    // The garbage collector deletes the old pods; the old claims stay, and the cluster is held for them.
    const held = mysqlSync(
      cluster([...oldClaims], structuredClone(first.status) as Record<string, unknown>),
      FIXED_NOW,
    );
    // Their data is not wanted: the user deletes the claims, as the condition says.
    const freed = mysqlSync(cluster([], structuredClone(held.status) as Record<string, unknown>), FIXED_NOW);
    t.not(
      ready(freed)?.reason,
      'InvalidSpec',
      `a new cluster none of whose members ran is not refused as a downgrade (${ready(freed)?.reason}: ${ready(freed)?.message})`,
    );
    t.ok(
      freed.children.some((c: any) => c.kind === 'StatefulSet' && c.metadata.name === 'db-mysql'),
      'its StatefulSet is made on spec.version',
    );
  },
);
