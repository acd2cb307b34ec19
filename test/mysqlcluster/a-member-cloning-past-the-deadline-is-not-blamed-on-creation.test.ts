// A MySQLCluster's StatefulSet made before podManagementPolicy Parallel (docs/mysqlcluster.md) makes its members one at
// a time (OrderedReady): member k+1 is not even asked for until member k is Ready, and a new replica is Ready only once it has cloned the primary's data. A clone of a large
// database takes longer than PROGRESS_DEADLINE_SECONDS (600 s: ~60 GB at 100 MB/s), and a new member that crash-loops
// is never Ready. In both cases the next member's creation was never tried, yet past the deadline the status says
// Ready=False and Progressing=False ProgressDeadlineExceeded "creating the others fails (Pod Security admission, a
// quota, an object too large); kubectl get events and Metacontroller's log say why": no event and no log says
// anything of the kind. The member the StatefulSet waits for (my-mysql-mysql-1, not Ready) is never named. With
// Parallel (every cluster made since), the missing member was asked for: its creation may be blamed, and the member
// not Ready is named beside it.
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
/** Member `i`: Ready, or (`cloning`) its server up and its replication sidecar not Ready (copying the primary). */
function member(i: number, stsUid: string, cloning: boolean): KubeObject {
  return clusterMember('my-mysql', i, {
    image: 'mysql:8.0',
    owner: stsUid,
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: cloning ? 'False' : 'True' }],
      containerStatuses: [
        { name: 'mysql', ready: true, restartCount: 0, state: { running: started } },
        { name: 'replication', ready: !cloning, restartCount: 0, state: { running: started } },
      ],
    },
  });
}

function scaledUp(ordered: boolean) {
  const spec = { size: 3, version: '8.0' };
  const first = mysqlSync(request('mysqlcluster', { size: 1, version: '8.0' }), FIXED_NOW);
  const others = first.children.filter((c) => c.kind !== 'StatefulSet').map((c) => asObserved(c));
  const wanted = mysqlSync(request('mysqlcluster', spec), FIXED_NOW).children.find((c) => c.kind === 'StatefulSet')!;
  let status: any = first.status;
  for (const at of [10, 20, 300, PROGRESS_DEADLINE_SECONDS + 100, 900]) {
    // The StatefulSet as its controller reports it: members 0 and 1 made, 1 Ready; member 2 waits (OrderedReady).
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
  'scaled 1 -> 3 (OrderedReady), member 1 cloning for 15 minutes: member 2 never asked for, and not blamed',
  async (t) => {
    const said = scaledUp(true);
    for (const type of ['Ready', 'Progressing'])
      t.notMatch(
        said(type).message,
        /creating the others fails|Pod Security admission|a quota/,
        `${type} does not blame the creation of a member never asked for: ${said(type).reason}: ${said(type).message}`,
      );
    t.match(
      `${said('Progressing').message} ${said('Ready').message}`,
      /my-mysql-mysql-1/,
      'names the member the StatefulSet waits for',
    );
  },
);

t.test('scaled 1 -> 3 (Parallel), member 1 cloning for 15 minutes: the member not Ready is named', async (t) => {
  const said = scaledUp(false);
  t.match(said('Progressing'), { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'past the deadline');
  t.match(said('Progressing').message, /my-mysql-mysql-1 is not Ready/, 'names the member not Ready');
});
