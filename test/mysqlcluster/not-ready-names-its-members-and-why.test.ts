// A MySQLCluster that is not Ready says which members do not serve and why, in Ready's (and Available's) message:
// missing, being deleted (stuck Terminating), their own container failing (the kubelet's waiting reason), starting,
// or a replica whose server runs and does not replicate yet. At most three named, "and N more". Before, Ready said
// only "1/3 ready".
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { clusterMember } from '../fixtures/mysql-pods.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const started = { startedAt: '2026-01-02T03:00:00Z' };
const condition = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === type);

function applied(desired: KubeObject, status: Record<string, unknown>): KubeObject {
  const obj = asObserved(desired, { ...status, observedGeneration: 1 });
  obj.metadata.generation = 1;
  obj.metadata.annotations = { [LAST_APPLIED]: JSON.stringify(desired) };
  return obj;
}

type State = 'ready' | 'pulling' | 'copying' | 'terminating';
function member(i: number, owner: string, state: State): KubeObject {
  const pod = clusterMember('my-mysql', i, {
    image: 'mysql:8.0',
    owner,
    status: {
      phase: state === 'pulling' ? 'Pending' : 'Running',
      conditions: [{ type: 'Ready', status: state === 'ready' ? 'True' : 'False' }],
      containerStatuses: [
        state === 'pulling'
          ? { name: 'mysql', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } }
          : { name: 'mysql', ready: true, restartCount: 0, state: { running: started } },
        { name: 'replication', ready: state === 'ready', restartCount: 0, state: { running: started } },
      ],
    },
  });
  if (state === 'terminating') pod.metadata.deletionTimestamp = FIXED_NOW.toISOString();
  return pod;
}

function cluster(states: Array<State | 'missing'>) {
  const spec = { size: states.length, version: '8.0' };
  const first = mysqlSync(request('mysqlcluster', spec), FIXED_NOW);
  const wanted = first.children.find((c) => c.kind === 'StatefulSet')!;
  const live = states.filter((s) => s !== 'missing' && s !== 'terminating');
  const sts = applied(wanted, {
    replicas: states.filter((s) => s !== 'missing').length,
    readyReplicas: live.filter((s) => s === 'ready').length,
    currentReplicas: live.length,
    updatedReplicas: live.length,
  });
  const others = first.children.filter((c) => c.kind !== 'StatefulSet').map((c) => asObserved(c));
  const pods = states.flatMap((s, i) => (s === 'missing' ? [] : [member(i, sts.metadata.uid!, s)]));
  const parent = { ...request('mysqlcluster', spec).parent, status: first.status };
  return mysqlSync(
    request('mysqlcluster', spec, { parent, children: objectMap([sts, ...others]), related: objectMap(pods) }),
    new Date(FIXED_NOW.getTime() + 10_000),
  );
}

t.test('members missing, failing and copying are named with why', async (t) => {
  const res = cluster(['ready', 'pulling', 'copying', 'missing']);
  const ready = condition(res, 'Ready');
  t.match(ready, { status: 'False', reason: 'NotAvailable' });
  t.match(ready.message, /^1\/4 ready: /);
  t.match(ready.message, /my-mysql-mysql-1 not Ready: ImagePullBackOff/);
  t.match(ready.message, /my-mysql-mysql-2 not replicating, or still copying the primary's data/);
  t.match(ready.message, /my-mysql-mysql-3 missing/);
  t.notMatch(ready.message, /my-mysql-mysql-0/, 'the member that serves is not named');
  t.equal(condition(res, 'Available').message, ready.message, 'Available says the same');
});

t.test('a member stuck Terminating is named, and the list is bounded', async (t) => {
  const res = cluster(['ready', 'terminating', 'pulling', 'pulling', 'missing']);
  const message = condition(res, 'Ready').message as string;
  t.match(message, /my-mysql-mysql-1 being deleted \(stuck Terminating/);
  t.match(message, / and 1 more$/, message);
  t.notMatch(message, /my-mysql-mysql-4/, 'at most three named');
});

t.test('a cluster whose members all serve says nothing more', async (t) => {
  const res = cluster(['ready', 'ready']);
  t.match(condition(res, 'Ready'), { status: 'True', message: '2/2 ready' });
});

t.test('the same observed state gives the same message', async (t) => {
  const a = cluster(['ready', 'pulling', 'missing']);
  const b = cluster(['ready', 'pulling', 'missing']);
  t.equal(condition(a, 'Ready').message, condition(b, 'Ready').message);
});
