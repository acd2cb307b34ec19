// The progress deadline (lib/replicas.ts memberStatus, shared with PodSet and Memcached) is for members missing: it
// counts from the last progress or from when members started missing, whichever is later. A MySQLCluster of 3 whose
// 3rd member never turns Ready (Progressing=True WaitingForReady) for half an hour, then scaled to 4: the sync that
// first sees the 4th member missing is not past the deadline; one that sees it still missing 600 s later is.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const progressing = (status: unknown) => (status as any).conditions.find((c: any) => c.type === 'Progressing');

/** The StatefulSet as the API server holds it once Metacontroller applied `desired`, with this status. */
function applied(desired: KubeObject, status: Record<string, unknown>): KubeObject {
  const obj = asObserved(desired, { ...status, observedGeneration: 1 });
  obj.metadata.generation = 1;
  obj.metadata.annotations = { [LAST_APPLIED]: JSON.stringify(desired) };
  return obj;
}

function syncAt(size: number, status: Record<string, unknown>, s: number, others: KubeObject[]) {
  const spec = { size, version: '8.0' };
  const wanted = mysqlSync(request('mysqlcluster', spec), FIXED_NOW).children.find((c) => c.kind === 'StatefulSet')!;
  const sts = applied(wanted, { replicas: 3, readyReplicas: 2, updatedReplicas: 3 });
  const parent = { ...request('mysqlcluster', spec).parent, status };
  return mysqlSync(request('mysqlcluster', spec, { parent, children: objectMap([sts, ...others]) }), at(s))
    .status as Record<string, unknown>;
}

t.test('a MySQLCluster scaled up after a long WaitingForReady starts its deadline then', async (t) => {
  const first = mysqlSync(request('mysqlcluster', { size: 3, version: '8.0' }), FIXED_NOW);
  const others = first.children.filter((c) => c.kind !== 'StatefulSet').map((c) => asObserved(c));
  let status = first.status as Record<string, unknown>;
  for (const s of [10, 60, 1800]) status = syncAt(3, status, s, others);
  t.match(
    progressing(status),
    { status: 'False', reason: 'ProgressDeadlineExceeded', message: /2 of 3 members are Ready/ },
    'waiting for the 3rd member, past the deadline',
  );
  const scaled = syncAt(4, status, 1805, others);
  t.match(progressing(scaled), { status: 'True', reason: 'ScalingUp' }, 'the 4th member missing for 0 s');
  t.match(progressing(syncAt(4, scaled, 1805 + PROGRESS_DEADLINE_SECONDS - 5, others)), { status: 'True' }, 'not yet');
  t.match(
    progressing(syncAt(4, scaled, 1805 + PROGRESS_DEADLINE_SECONDS + 5, others)),
    { status: 'False', reason: 'ProgressDeadlineExceeded', message: /3 of 4 members exist/ },
    'never made: said 600 s after it started missing',
  );
});
