// spec.progressDeadlineSeconds, as PodSet's (and a Deployment's): Memcached and MySQLCluster take it too, 600 s when
// left out. A member that never becomes Ready while the parent is being created is past the deadline only after it:
// not at 20 s of a 30 s deadline, at 45 s; and a MySQLCluster with members missing looks again just past a deadline
// shorter than its minute.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { memcachedSync, mysqlSync } from '../fixtures/hooks.js';
import { clusterMember } from '../fixtures/mysql-pods.js';
import { TWO_MADE_ONE_READY } from '../fixtures/mysql-scale-up.js';
import { asApplied, asObserved, deploymentPod, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const cond = (status: any, type: string) => (status.conditions as any[]).find((c) => c.type === type);
const running = { startedAt: '2026-01-02T03:00:00Z' };
const pulling = (names: string[], stuck: boolean) => ({
  phase: stuck ? 'Pending' : 'Running',
  conditions: [{ type: 'Ready', status: stuck ? 'False' : 'True' }],
  containerStatuses: names.map((name, i) =>
    stuck && i === 0
      ? { name, ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } }
      : { name, ready: !stuck, restartCount: 0, state: { running } },
  ),
});

function memcachedWorld(spec: Record<string, unknown>): CompositeSyncRequest {
  const answer = memcachedSync(request('memcached', spec), FIXED_NOW);
  const children = answer.children.map((c) => {
    if (c.kind !== 'Deployment') return asObserved(c);
    return asApplied(c, { observedGeneration: 1, replicas: 2, readyReplicas: 1, updatedReplicas: 2 });
  });
  const pods = [0, 1].map((i) =>
    deploymentPod(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `memcached-sample-5d4f-pod${i}`, namespace: 'default', labels: {} },
        status: pulling(['memcached'], i === 1),
      } as unknown as KubeObject,
      'memcached-sample',
    ),
  );
  return request('memcached', spec, { children: objectMap(children), related: objectMap(pods) });
}

function mysqlWorld(spec: Record<string, unknown>): CompositeSyncRequest {
  const answer = mysqlSync(request('mysqlcluster', spec), FIXED_NOW);
  let uid = '';
  const children = answer.children.map((c) => {
    if (c.kind !== 'StatefulSet') return asObserved(c);
    const sts = asApplied(c, TWO_MADE_ONE_READY);
    uid = sts.metadata.uid!;
    return sts;
  });
  const pods = [0, 1].map((i) =>
    clusterMember('my-mysql', i, {
      image: 'mysql:8.0',
      owner: uid,
      status: pulling(['mysql', 'replication'], i === 1),
    }),
  );
  return request('mysqlcluster', spec, { children: objectMap(children), related: objectMap(pods) });
}

const kinds: Array<
  [string, Record<string, unknown>, typeof memcachedWorld, (r: CompositeSyncRequest, n: Date) => CompositeSyncResponse]
> = [
  ['Memcached', { size: 2 }, memcachedWorld, (r, n) => memcachedSync(r, n)],
  ['MySQLCluster', { size: 2, version: '8.0' }, mysqlWorld, (r, n) => mysqlSync(r, n)],
];

for (const [kind, base, world, sync] of kinds) {
  t.test(`${kind}: spec.progressDeadlineSeconds 30 is the deadline`, async (t) => {
    const spec = { ...base, progressDeadlineSeconds: 30 };
    let status: unknown = sync(request(kind === 'Memcached' ? 'memcached' : 'mysqlcluster', spec), at(0)).status;
    let res!: CompositeSyncResponse;
    const said: Record<number, any> = {};
    for (const s of [5, 20, 45]) {
      const req = world(spec);
      req.parent.status = status as never;
      res = sync(req, at(s));
      status = res.status;
      said[s] = cond(status, 'Progressing');
    }
    t.notMatch(said[20], { reason: 'ProgressDeadlineExceeded' }, `not before 30 s: ${said[20].reason}`);
    t.match(said[45], { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'past 30 s');
    t.match(said[45].message, /after more than 30 s without progress/, said[45].message);
    if (kind === 'MySQLCluster') t.equal(res.resyncAfterSeconds, 31, 'looks again just past the deadline');
  });

  t.test(`${kind}: without spec.progressDeadlineSeconds the deadline is 600 s`, async (t) => {
    let status: unknown = sync(request(kind === 'Memcached' ? 'memcached' : 'mysqlcluster', base), at(0)).status;
    const said: Record<number, any> = {};
    for (const s of [5, 45, 500, 700]) {
      const req = world(base);
      req.parent.status = status as never;
      status = sync(req, at(s)).status;
      said[s] = cond(status, 'Progressing');
    }
    t.notMatch(said[500], { reason: 'ProgressDeadlineExceeded' }, `not before 600 s: ${said[500].reason}`);
    t.match(said[700], { status: 'False', reason: 'ProgressDeadlineExceeded', message: /more than 600 s/ });
  });
}

t.test('the CRDs carry the field, 600 by default, 1 to 86400', async (t) => {
  for (const op of [memcached, mysqlcluster]) {
    const field = (op.resource.spec as any).properties.progressDeadlineSeconds;
    t.match(field, { type: 'integer', minimum: 1, maximum: 86400, default: 600 }, op.resource.kind);
  }
});
