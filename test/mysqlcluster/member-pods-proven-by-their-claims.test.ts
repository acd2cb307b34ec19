// Which pods named as members of MySQLCluster `my-mysql` are its members (hooks/mysqlcluster/sync.ts
// madeByStatefulSet) when the controller reference does not say: a pod whose owner references the garbage collector
// removed (its StatefulSet deleted with --cascade=orphan) is the cluster's when it carries the cluster's instance
// label and runs on a claim marked with the cluster's uid, also once the StatefulSet is made again and has not adopted
// it yet (the cluster is not held for its own members); a pod without a controller whose claim is marked with another
// uid, or that mounts no claim of the cluster's, is not (copied labels are no ownership); a pod of a StatefulSet of the
// cluster's name that is gone, on a claim that says nothing, made before the cluster was, is a namesake's (no floor).
import t from 'tap';
import { memberPods, namesOf } from '../../hooks/mysqlcluster/sync.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { memberClaim, memberPod } from '../fixtures/mysql-pods.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => ((res.status.conditions ?? []) as any[]).find((c) => c.type === 'Ready');
const spec = { size: 2, version: '8.0.40' };

t.test('orphaned members on their own claims, the StatefulSet made again and not yet adopting them', async (t) => {
  const first = mysqlSync(request('mysqlcluster', spec), FIXED_NOW);
  const again = request('mysqlcluster', spec);
  const name = again.parent.metadata.name!;
  const uid = again.parent.metadata.uid!;
  again.parent.status = {
    ...(first.status as Record<string, unknown>),
    secretName: `${name}-mysql`,
    version: '8.0.40',
  };
  again.children = objectMap(first.children.map((c) => asObserved(c)));
  again.related = objectMap(
    [0, 1].flatMap((i) => [
      memberPod(name, i, { controller: false, image: 'mysql:8.0.40' }),
      memberClaim(name, i, uid),
    ]),
  );
  t.equal(memberPods(again, namesOf(name)).length, 2, 'both are members');
  const res = mysqlSync(again, FIXED_NOW);
  t.notMatch(
    String(ready(res)?.reason),
    /NameTaken$/,
    `not held for its own members (${ready(res)?.reason}: ${ready(res)?.message})`,
  );
  t.ok(
    res.children.some((c) => c.kind === 'StatefulSet'),
    'its StatefulSet is kept',
  );
});

t.test('pods without a controller that are not proven the cluster by a claim are not members', async (t) => {
  const r = request('mysqlcluster', spec);
  const name = r.parent.metadata.name!;
  r.related = objectMap([
    memberPod(name, 0, { controller: false }),
    memberClaim(name, 0, 'uid-of-a-cluster-deleted'),
    memberPod(name, 1, { controller: false, mounts: false }),
  ]);
  t.same(memberPods(r, namesOf(name)), [], 'neither is a member');
  const res = mysqlSync(r, FIXED_NOW);
  t.not((res.status as any).version, '8.4.3', 'their version is not recorded');
});

t.test("a gone StatefulSet's pod on a claim that says nothing, made before the cluster, is no member", async (t) => {
  const r = request('mysqlcluster', spec);
  const name = r.parent.metadata.name!;
  r.parent.metadata = { ...r.parent.metadata, creationTimestamp: '2026-01-02T03:04:00Z' };
  const before = memberPod(name, 0, { controller: true, mounts: false, created: '2025-06-01T00:00:00Z' });
  const since = memberPod(name, 1, { controller: true, mounts: false, created: '2026-01-02T03:04:00Z' });
  r.related = objectMap([before, since]);
  t.same(
    memberPods(r, namesOf(name)).map((p) => p.metadata.name),
    [`${name}-mysql-1`],
    'only the pod made since the cluster was (its StatefulSet deleted, its pods not yet)',
  );
});
