// MySQLCluster downgrades while its StatefulSet is gone for a moment (issue 31, 5: "a downgrade is not guarded";
// data that vanishes under a running member). A cluster that ran mysql:8.4 (its status says so: status.version 8.4)
// keeps its data volumes, bound and marked with its uid, when its StatefulSet is deleted (`kubectl delete sts`, to
// change a field a StatefulSet cannot change; the pods go with it). If spec.version is set to 8.0.36 before the next
// sync, nothing the downgrade guard reads (the StatefulSet's template, the member pods) is there: the hook makes a
// StatefulSet of mysql:8.0.36 that mounts the 8.4 data directories, which MySQL 8.0 cannot open (every member
// crash-loops) and which no revert repairs once 8.0 has touched them. status.version and the volumes still say what
// ran there.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { CLAIM_UID_LABEL } from '../../hooks/mysqlcluster/sync.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const UID = 'uid-db';
const NAME_LABELS = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'db' };

function claim(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, labels: { ...NAME_LABELS, [CLAIM_UID_LABEL]: UID } },
    spec: { volumeName: `pv-${name}` },
    status: { phase: 'Bound' },
  } as unknown as KubeObject;
}

const ready = (res: any) => (res.status.conditions as any[]).find((c) => c.type === 'Ready');
const image = (res: any) =>
  res.children.find((c: any) => c.kind === 'StatefulSet')?.spec.template.spec.containers[0].image;

t.test('a cluster that ran 8.4 is not given 8.0.36 while its StatefulSet and pods are gone', async (t) => {
  const r = request('mysqlcluster', { size: 3, version: '8.0.36' });
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'shop', uid: UID, generation: 2 };
  r.parent.status = {
    observedGeneration: 1,
    version: '8.4',
    secretName: 'db-mysql',
    writeService: 'db-mysql',
    readService: 'db-mysql-read',
    replicas: 3,
    readyReplicas: 3,
  };
  r.related = objectMap([claim('data-db-mysql-0'), claim('data-db-mysql-1'), claim('data-db-mysql-2')]);
  // The Secret is kept (only the StatefulSet was deleted).
  r.children = objectMap([
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db-mysql', namespace: 'shop', uid: 'uid-secret', labels: { 'controller-uid': UID } },
      data: {
        'root-password': Buffer.from('pw').toString('base64'),
        'replication-password': Buffer.from('rp').toString('base64'),
      },
    } as unknown as KubeObject,
  ]);
  const res = mysqlSync(r, FIXED_NOW);
  t.comment(`Ready: ${JSON.stringify(ready(res))}`);
  t.comment(`StatefulSet image: ${String(image(res))}`);
  t.not(image(res), 'mysql:8.0.36', 'no StatefulSet of mysql:8.0.36 mounts the data volumes 8.4 wrote');
  t.match(
    ready(res),
    { status: 'False', reason: 'InvalidSpec' },
    'refused as a downgrade, as with the StatefulSet there',
  );
  t.match(ready(res)?.message ?? '', /8\.4/, 'names the version that ran');
});
