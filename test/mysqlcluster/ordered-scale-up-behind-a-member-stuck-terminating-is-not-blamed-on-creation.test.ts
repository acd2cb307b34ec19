// A MySQLCluster whose StatefulSet was made before podManagementPolicy Parallel (OrderedReady, docs/mysqlcluster.md)
// makes its members one at a time: member k+1 only once member k is Ready, and none while a member is being deleted.
// Scaled 2 -> 3 while member 1's pod is stuck Terminating (its node lost), member 2 is never asked for; past the
// progress deadline the status must name the stuck member and not blame a creation nobody tried ("creating the others
// fails (Pod Security admission, a quota ...)"). With Parallel the missing member was asked for: its creation may be
// blamed beside the stuck one.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { clusterMember } from '../fixtures/mysql-pods.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

function applied(desired: KubeObject, status: Record<string, unknown>): KubeObject {
  const obj = asObserved(desired, { ...status, observedGeneration: 1 });
  obj.metadata.generation = 1;
  obj.metadata.annotations = { [LAST_APPLIED]: JSON.stringify(desired) };
  return obj;
}

const started = { startedAt: '2026-01-02T03:00:00Z' };
function member(i: number, stsUid: string, stuck: boolean): KubeObject {
  const pod = clusterMember('my-mysql', i, {
    image: 'mysql:8.0',
    owner: stsUid,
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: stuck ? 'False' : 'True' }],
      containerStatuses: [
        { name: 'mysql', ready: !stuck, restartCount: 0, state: { running: started } },
        { name: 'replication', ready: !stuck, restartCount: 0, state: { running: started } },
      ],
    },
  });
  if (stuck) pod.metadata.deletionTimestamp = FIXED_NOW.toISOString();
  return pod;
}

function scaledUp(ordered: boolean) {
  const spec = { size: 3, version: '8.0' };
  const first = mysqlSync(request('mysqlcluster', { size: 2, version: '8.0' }), FIXED_NOW);
  const others = first.children.filter((c) => c.kind !== 'StatefulSet').map((c) => asObserved(c));
  const wanted = mysqlSync(request('mysqlcluster', spec), FIXED_NOW).children.find((c) => c.kind === 'StatefulSet')!;
  let status: any = first.status;
  for (const at of [10, 20, 300, PROGRESS_DEADLINE_SECONDS + 100, 900]) {
    // Members 0 and 1 made (the StatefulSet counts the pod being deleted), member 1 stuck Terminating.
    const sts = applied(wanted, { replicas: 2, readyReplicas: 1, currentReplicas: 2, updatedReplicas: 2 });
    if (ordered) delete (sts['spec'] as Record<string, unknown>)['podManagementPolicy'];
    const pods = [member(0, sts.metadata.uid!, false), member(1, sts.metadata.uid!, true)];
    const parent = { ...request('mysqlcluster', spec).parent, status };
    const res = mysqlSync(
      request('mysqlcluster', spec, { parent, children: objectMap([sts, ...others]), related: objectMap(pods) }),
      new Date(FIXED_NOW.getTime() + at * 1000),
    );
    status = res.status;
  }
  return (type: string) => (status.conditions as any[]).find((c) => c.type === type);
}

t.test(
  'scaled 2 -> 3 (OrderedReady) behind member 1 stuck Terminating: the stuck member is named, no creation blamed',
  async (t) => {
    const said = scaledUp(true);
    const p = said('Progressing');
    t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'past the deadline');
    t.notMatch(
      p.message,
      /creating the others fails|Pod Security admission|a quota/,
      `no creation blamed: ${p.message}`,
    );
    t.match(p.message, /my-mysql-mysql-1[^;]*being deleted/, 'names the stuck member');
  },
);

t.test('scaled 2 -> 3 (Parallel) behind member 1 stuck Terminating: the missing member was asked for', async (t) => {
  const said = scaledUp(false);
  const p = said('Progressing');
  t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'past the deadline');
  t.match(p.message, /my-mysql-mysql-1[^;]*being deleted/, 'names the stuck member');
  t.match(p.message, /creating the others fails/, 'the missing member was asked for: its creation may be blamed');
});
