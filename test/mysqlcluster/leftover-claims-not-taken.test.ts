// A new MySQLCluster `db` in a namespace where another MySQL left data volumes under the names its StatefulSet would
// mount (`data-db-mysql-<i>`): a Helm chart's MySQL released as `db` (its claims labelled
// app.kubernetes.io/name=mysql, instance=db, as the StatefulSet's), a claim made by hand, or a MySQLCluster `db` that
// was deleted. The StatefulSet would mount them as they are: another database's data, under this cluster's Services.
// The cluster holds instead (Ready=False naming the claim and the ways out: delete it, or adopt it with the label the
// docs describe) and creates nothing. Claims its StatefulSet makes carry the cluster's uid
// (mysqlcluster.metaops.io/uid), through the claim template; a cluster made by an earlier metaops keeps the claims
// its StatefulSet already made, without a hold.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { CLAIM_UID_LABEL } from '../../hooks/mysqlcluster/sync.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const UID = 'uid-db';
const NAME_LABELS = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'db' };

function base(size = 1) {
  const r = request('mysqlcluster', { size, version: '8.0' });
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'shop', uid: UID };
  return r;
}

function claim(name: string, labels: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, labels },
    spec: { volumeName: `pv-${name}` },
    status: { phase: 'Bound' },
  } as unknown as KubeObject;
}

const ready = (res: any) => (res.status.conditions as any[]).find((c) => c.type === 'Ready');

t.test("a new cluster's claim template marks the claims with the cluster's uid", async (t) => {
  const res = mysqlSync(base(), FIXED_NOW);
  const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
  t.equal(sts.spec.volumeClaimTemplates[0].metadata.labels[CLAIM_UID_LABEL], UID);
});

for (const [what, labels] of [
  ["another release's claim (name/instance labels, no mark)", NAME_LABELS],
  ['a claim of a deleted MySQLCluster of this name (another uid)', { ...NAME_LABELS, [CLAIM_UID_LABEL]: 'uid-old' }],
  ['a claim made by hand', {}],
] as const) {
  t.test(`${what} is not taken: the cluster holds and says how out`, async (t) => {
    const req = base(2);
    req.related = objectMap([claim('data-db-mysql-1', labels)]);
    const res = mysqlSync(req, FIXED_NOW);
    t.same(res.children, [], 'no StatefulSet (nothing would mount the claim), no Secret, no Service');
    const r = ready(res);
    t.match(r, { status: 'False' });
    t.match(r.message, /data-db-mysql-1/, 'names the claim');
    t.match(r.message, /kubectl -n shop delete pvc data-db-mysql-1/, 'way out: delete it');
    t.match(
      r.message,
      new RegExp(`kubectl -n shop label pvc data-db-mysql-1 ${CLAIM_UID_LABEL}=${UID} --overwrite`),
      'way out: adopt it',
    );
    t.comment(r.message);
  });
}

t.test(
  'a claim the user adopted (marked with this uid) is this cluster\u2019s data: no hold, no new password',
  async (t) => {
    const req = base(1);
    req.related = objectMap([claim('data-db-mysql-0', { ...NAME_LABELS, [CLAIM_UID_LABEL]: UID })]);
    const res = mysqlSync(req, FIXED_NOW);
    const r = ready(res);
    t.not(r.reason, 'PersistentVolumeClaimNameTaken');
    t.notOk(
      res.children.some((c) => c.kind === 'Secret'),
      'volumes with data: no new root password',
    );
    t.ok(res.children.some((c) => c.kind === 'StatefulSet'));
  },
);

t.test('a cluster made by an earlier metaops keeps the unmarked claims its StatefulSet made', async (t) => {
  const first = mysqlSync(base(3), FIXED_NOW);
  const children = first.children.map((c) => {
    const copy = structuredClone(c) as any;
    if (c.kind === 'StatefulSet') delete copy.spec.volumeClaimTemplates[0].metadata.labels;
    return asObserved(copy, c.kind === 'StatefulSet' ? { replicas: 3, readyReplicas: 3 } : undefined);
  });
  const req = base(3);
  req.children = objectMap(children);
  req.related = objectMap([0, 1, 2].map((i) => claim(`data-db-mysql-${i}`, NAME_LABELS)));
  req.parent.status = structuredClone(first.status) as Record<string, unknown>;
  const res = mysqlSync(req, FIXED_NOW);
  t.not(ready(res).reason, 'PersistentVolumeClaimNameTaken', ready(res).message);
  const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
  t.ok(sts, 'the StatefulSet is answered');
  t.notOk(sts.spec.volumeClaimTemplates[0].metadata.labels, 'its stored claim template is kept as it is');
});

t.test('claims marked by the StatefulSet this cluster adopted (its lineage) are its own', async (t) => {
  const first = mysqlSync(base(2), FIXED_NOW);
  const children = first.children.map((c) => {
    const copy = structuredClone(c) as any;
    if (c.kind === 'StatefulSet') copy.spec.volumeClaimTemplates[0].metadata.labels[CLAIM_UID_LABEL] = 'uid-before';
    return asObserved(copy, c.kind === 'StatefulSet' ? { replicas: 2, readyReplicas: 2 } : undefined);
  });
  const req = base(2);
  req.children = objectMap(children);
  req.related = objectMap(
    [0, 1].map((i) => claim(`data-db-mysql-${i}`, { ...NAME_LABELS, [CLAIM_UID_LABEL]: 'uid-before' })),
  );
  const res = mysqlSync(req, FIXED_NOW);
  t.not(ready(res).reason, 'PersistentVolumeClaimNameTaken', ready(res).message);
});
