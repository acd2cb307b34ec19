// A cluster made by an earlier metaops (its StatefulSet's claim template carries no mark) keeps the unmarked claims
// its StatefulSet already uses: ordinals 0 .. replicas-1. A claim under the next ordinal's name (`data-db-mysql-3`
// beside a StatefulSet of 3 replicas) is not one it uses: when the cluster scales up, the StatefulSet would mount it
// as it is, so the cluster holds and names it, unless the claim was made since the StatefulSet was.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const NAME_LABELS = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'db' };

function base(size: number) {
  const r = request('mysqlcluster', { size, version: '8.0' });
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
  return r;
}

function claim(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, labels: NAME_LABELS },
    spec: { volumeName: `pv-${name}` },
    status: { phase: 'Bound' },
  } as unknown as KubeObject;
}

const ready = (res: any) => (res.status.conditions as any[]).find((c) => c.type === 'Ready');

/** A cluster of 3 made by an earlier metaops, now asked for `size`, with unmarked claims of these ordinals. */
function scaled(size: number, ordinals: number[]) {
  const first = mysqlSync(base(3), FIXED_NOW);
  const children = first.children.map((c) => {
    const copy = structuredClone(c) as any;
    if (c.kind === 'StatefulSet') delete copy.spec.volumeClaimTemplates[0].metadata.labels;
    return asObserved(copy, c.kind === 'StatefulSet' ? { replicas: 3, readyReplicas: 3 } : undefined);
  });
  const req = base(size);
  req.children = objectMap(children);
  req.related = objectMap(ordinals.map((i) => claim(`data-db-mysql-${i}`)));
  req.parent.status = structuredClone(first.status) as Record<string, unknown>;
  return mysqlSync(req, FIXED_NOW);
}

t.test('the unmarked claims of ordinals 0..2 beside a StatefulSet of 3 are the cluster\u2019s own', async (t) => {
  const res = scaled(4, [0, 1, 2]);
  t.not(ready(res).reason, 'PersistentVolumeClaimNameTaken', ready(res).message);
});

t.test('an unmarked claim of ordinal 3 beside a StatefulSet of 3 is not taken on scale-up', async (t) => {
  const res = scaled(4, [0, 1, 2, 3]);
  const r = ready(res);
  t.equal(r.reason, 'PersistentVolumeClaimNameTaken', r.message);
  t.match(r.message, /data-db-mysql-3/, 'names the claim');
  t.notMatch(r.message, /data-db-mysql-2\b/, 'not the claims it uses');
});
