// A running MySQLCluster held for a child name another owner holds (here its read Service `<name>-mysql-read`) keeps
// its StatefulSet as observed: scaled 2 -> 3 while held, nothing gives the StatefulSet the new spec. Its status must
// then not say Progressing=True Updating "StatefulSet ... is given the new spec" (nothing gives it, for as long as the
// name is held), nor Complete: it says the hold. A StatefulSet still taking a spec it was given before the hold
// (its controller has not observed its generation yet) is progressing, and says so.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { clusterMember } from '../fixtures/mysql-pods.js';
import { asApplied, asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === type);
const running = { startedAt: '2026-01-02T03:00:00Z' };

function heldAt(size: number, o: { generationSeen?: number } = {}) {
  const first = mysqlSync(request('mysqlcluster', { size: 2, version: '8.0' }), FIXED_NOW);
  const wanted = first.children.find((c) => c.kind === 'StatefulSet')!;
  const sts = asApplied(wanted, {
    replicas: 2,
    readyReplicas: 2,
    currentReplicas: 2,
    updatedReplicas: 2,
    observedGeneration: o.generationSeen ?? 1,
  });
  const others = first.children
    .filter((c) => c.kind !== 'StatefulSet' && !(c.kind === 'Service' && /-read$/.test(c.metadata.name!)))
    .map((c) => asObserved(c));
  const pod = (i: number) =>
    clusterMember('my-mysql', i, {
      image: 'mysql:8.0',
      owner: sts.metadata.uid!,
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          { name: 'mysql', ready: true, restartCount: 0, state: { running } },
          { name: 'replication', ready: true, restartCount: 0, state: { running } },
        ],
      },
    });
  const readOther: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'my-mysql-mysql-read', namespace: 'default', uid: 'uid-x' },
    spec: {},
  };
  const spec = { size, version: '8.0' };
  const parent = { ...request('mysqlcluster', spec).parent, status: first.status };
  return mysqlSync(
    request('mysqlcluster', spec, {
      parent,
      children: objectMap([sts, ...others]),
      related: objectMap([pod(0), pod(1), readOther]),
    }),
    new Date(FIXED_NOW.getTime() + 60_000),
  );
}

t.test('a held MySQLCluster scaled 2 -> 3 does not say its StatefulSet is given the new spec', async (t) => {
  const res = heldAt(3);
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'ServiceNameTaken' }, 'held');
  const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
  t.equal(sts.spec.replicas, 2, 'the StatefulSet is kept as observed (2 replicas)');
  const p = condition(res, 'Progressing');
  t.notMatch(p, { status: 'True', reason: 'Updating' }, `Progressing: ${JSON.stringify(p)}`);
  t.notMatch(p.message, /is given the new spec/, 'nothing gives it the new spec');
  t.notMatch(p, { reason: 'Complete' }, 'not complete either');
  t.match(p, { status: 'False', reason: 'ServiceNameTaken' }, 'says the hold');
});

t.test('a held MySQLCluster whose StatefulSet still takes a spec it was given says it progresses', async (t) => {
  const res = heldAt(2, { generationSeen: 0 });
  const p = condition(res, 'Progressing');
  t.match(p, { status: 'True', reason: 'Updating', message: /has not observed generation 1/ }, JSON.stringify(p));
});
