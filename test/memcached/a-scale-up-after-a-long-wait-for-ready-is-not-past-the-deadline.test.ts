// The progress deadline (lib/replicas.ts) is for members that have been missing (Creating, ScalingUp) for
// PROGRESS_DEADLINE_SECONDS without progress. A Memcached whose pods all exist but one of which crash-loops
// (Progressing=True WaitingForReady) for half an hour, then scaled up by one: the sync that sees its Deployment at the
// new generation before the ReplicaSet made the pod (status.replicas still 3 of 4, as the Deployment controller writes
// it after scaling the ReplicaSet) must not say ProgressDeadlineExceeded: the 4th pod was missing for 0 s.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { memcachedSync as sync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const progressing = (res: CompositeSyncResponse) =>
  (res.status as any).conditions.find((c: any) => c.type === 'Progressing');

function observed(res: CompositeSyncResponse, generation: number, status: Record<string, unknown>): KubeObject[] {
  return res.children.map((c) => {
    const o = asObserved(c, c.kind === 'Deployment' ? { observedGeneration: generation, ...status } : undefined);
    if (c.kind === 'Deployment') o.metadata.generation = generation;
    return o;
  });
}

t.test('a scale-up after a long WaitingForReady is not ProgressDeadlineExceeded at once', async (t) => {
  const first = sync(request('memcached', { size: 3 }), at(0));
  const waiting = { replicas: 3, readyReplicas: 2, updatedReplicas: 3 };
  let status = first.status;
  let res = first;
  for (const s of [10, 1800]) {
    const req = request('memcached', { size: 3 }, { children: objectMap(observed(first, 1, waiting)) });
    req.parent.status = status as never;
    res = sync(req, at(s));
    status = res.status;
  }
  t.match(
    progressing(res),
    { status: 'False', reason: 'ProgressDeadlineExceeded', message: /2 of 3 members are Ready/ },
    'waiting for one pod to be Ready, past the deadline',
  );
  const bigger = sync(request('memcached', { size: 4 }), at(1805));
  const req = request('memcached', { size: 4 }, { children: objectMap(observed(bigger, 2, waiting)) });
  req.parent.status = status as never;
  const next = sync(req, at(1805));
  t.notMatch(
    progressing(next),
    { reason: 'ProgressDeadlineExceeded' },
    `the 4th pod missing for 0 s: ${JSON.stringify(progressing(next))}`,
  );
});
