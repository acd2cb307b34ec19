// The progress deadline (lib/replicas.ts) is only said by a sync that runs after it: PodSet asks to be called again
// every 60 s while pods are missing (hooks/podset/sync.ts resyncAfter: "so that the progress deadline is noticed
// without an unrelated event"). A MySQLCluster has no resync period (hooks/mysqlcluster/index.ts) and its answer asks
// for none, and its StatefulSet reports nothing when the API server refuses a member's pod or claim (a ResourceQuota on
// pods or requests.storage: the StatefulSet controller retries with its back-off, its status unchanged, unlike a
// Deployment's ReplicaFailure): no child changes, so no sync runs after the one that first saw members missing. The
// status then says Progressing=True ScalingUp for as long as nothing else happens (until Metacontroller's cache
// flush, 30 minutes by default), never ProgressDeadlineExceeded, which docs/failure-modes.md promises "after 10 min
// of members missing without progress" (its test feeds a sync every 10 s, which Metacontroller does not).
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

function applied(desired: KubeObject, status: Record<string, unknown>): KubeObject {
  const obj = asObserved(desired, { ...status, observedGeneration: 1 });
  obj.metadata.generation = 1;
  obj.metadata.annotations = { [LAST_APPLIED]: JSON.stringify(desired) };
  return obj;
}

t.test('a MySQLCluster whose new member is refused asks to be synced again within the deadline', async (t) => {
  const spec = { size: 3, version: '8.0' };
  const first = mysqlSync(request('mysqlcluster', { size: 1, version: '8.0' }), FIXED_NOW);
  const others = first.children.filter((c) => c.kind !== 'StatefulSet').map((c) => asObserved(c));
  const wanted = mysqlSync(request('mysqlcluster', spec), FIXED_NOW).children.find((c) => c.kind === 'StatefulSet')!;
  // Member 1's pod refused by a quota: the StatefulSet stays at the one member it has.
  const sts = applied(wanted, { replicas: 1, readyReplicas: 1, currentReplicas: 1, updatedReplicas: 1 });
  const parent = { ...request('mysqlcluster', spec).parent, status: first.status };
  const res = mysqlSync(
    request('mysqlcluster', spec, { parent, children: objectMap([sts, ...others]) }),
    new Date(FIXED_NOW.getTime() + 10_000),
  );
  const progressing = (res.status as any).conditions.find((c: any) => c.type === 'Progressing');
  t.match(progressing, { status: 'True', reason: 'ScalingUp' }, 'members missing');
  t.ok(
    typeof res.resyncAfterSeconds === 'number' && res.resyncAfterSeconds <= PROGRESS_DEADLINE_SECONDS,
    `asks to be synced again before the deadline could be said (resyncAfterSeconds: ${res.resyncAfterSeconds})`,
  );
});
