// The progress deadline is a rollout's (as a Deployment's progressDeadlineSeconds: its controller never times out a
// Deployment whose Progressing says the new ReplicaSet is available). A PodSet, Memcached or MySQLCluster whose
// rollout completed (Progressing=False Complete) and one of whose members then crash-loops is not progressing: it is
// Degraded (PodsFailing, naming the member) and not Available, for as long as it lasts; it must not turn
// Progressing=False ProgressDeadlineExceeded (a Warning Event blaming the rollout) 600 s later. A spec change (the
// generation moves: here a scale-up) starts a rollout again, and a new member that never becomes Ready is past the
// deadline as before.
import t from 'tap';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import { memcachedSync, mysqlSync, podsetSync } from '../fixtures/hooks.js';
import { clusterMember } from '../fixtures/mysql-pods.js';
import { asApplied, asObserved, deploymentPod, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const cond = (status: any, type: string) => (status.conditions as any[]).find((c) => c.type === type);
const STEPS = [60, 120, PROGRESS_DEADLINE_SECONDS + 100, 1800, 3600];

const running = { startedAt: '2026-01-02T03:00:00Z' };
/** A pod's status: Ready, or its container `name` crash-looping. */
function podStatus(names: string[], crash: boolean) {
  return {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: crash ? 'False' : 'True', lastTransitionTime: FIXED_NOW.toISOString() }],
    containerStatuses: names.map((name, i) =>
      crash && i === 0
        ? { name, ready: false, restartCount: 9, state: { waiting: { reason: 'CrashLoopBackOff' } } }
        : { name, ready: !crash, restartCount: 0, state: { running } },
    ),
  };
}

/**
 * A kind's world at a size and generation: the request with its children observed, the pods from ordinal `crashFrom`
 * on crash-looping (none when undefined).
 */
type World = (size: number, generation: number, crashFrom: number | undefined) => CompositeSyncRequest;
type Sync = (req: CompositeSyncRequest, now: Date) => CompositeSyncResponse;

const podsetWorld: World = (size, generation, crashFrom) => {
  const spec = { size, image: 'busybox:1.36', command: ['sleep', '3600'] };
  const answer = podsetSync(request('podset', spec), FIXED_NOW);
  const pods = answer.children
    .filter((c) => c.kind === 'Pod')
    .map((p, i) => asObserved(p, podStatus(['busybox'], crashFrom !== undefined && i >= crashFrom)));
  const req = request('podset', spec, { children: objectMap(pods) });
  req.parent.metadata.generation = generation;
  return req;
};

const memcachedWorld: World = (size, generation, crashFrom) => {
  const spec = { size };
  const answer = memcachedSync(request('memcached', spec), FIXED_NOW);
  const ready = crashFrom === undefined ? size : crashFrom;
  const children = answer.children.map((c) => {
    if (c.kind !== 'Deployment') return asObserved(c);
    return asApplied(
      c,
      { observedGeneration: generation, replicas: size, readyReplicas: ready, updatedReplicas: size },
      generation,
    );
  });
  const pods = Array.from({ length: size }, (_, i) =>
    deploymentPod(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `memcached-sample-5d4f-pod${i}`, namespace: 'default', labels: {} },
        status: podStatus(['memcached'], crashFrom !== undefined && i >= crashFrom),
      } as unknown as KubeObject,
      'memcached-sample',
    ),
  );
  const req = request('memcached', spec, { children: objectMap(children), related: objectMap(pods) });
  req.parent.metadata.generation = generation;
  return req;
};

const mysqlWorld: World = (size, generation, crashFrom) => {
  const spec = { size, version: '8.0' };
  const answer = mysqlSync(request('mysqlcluster', spec), FIXED_NOW);
  const ready = crashFrom === undefined ? size : crashFrom;
  let stsUid = '';
  const children = answer.children.map((c) => {
    if (c.kind !== 'StatefulSet') return asObserved(c);
    const sts = asApplied(
      c,
      {
        observedGeneration: generation,
        replicas: size,
        readyReplicas: ready,
        currentReplicas: size,
        updatedReplicas: size,
      },
      generation,
    );
    stsUid = sts.metadata.uid!;
    return sts;
  });
  const pods = Array.from({ length: size }, (_, i) =>
    clusterMember('my-mysql', i, {
      image: 'mysql:8.0',
      owner: stsUid,
      status: podStatus(['mysql', 'replication'], crashFrom !== undefined && i >= crashFrom),
    }),
  );
  const req = request('mysqlcluster', spec, { children: objectMap(children), related: objectMap(pods) });
  req.parent.metadata.generation = generation;
  return req;
};

const kinds: Array<[string, World, Sync]> = [
  ['PodSet', podsetWorld, podsetSync],
  ['Memcached', memcachedWorld, memcachedSync],
  ['MySQLCluster', mysqlWorld, (req, now) => mysqlSync(req, now)],
];

/** Synced at rest (every member Ready) at `generation`, then at each step in `world`: the last status. */
function run(world: World, sync: Sync, steps: Array<[number, CompositeSyncRequest]>, size: number, generation: number) {
  let status: unknown = undefined;
  for (const [s, req] of [[0, world(size, generation, undefined)] as [number, CompositeSyncRequest], ...steps]) {
    req.parent.status = status as never;
    status = sync(req, at(s)).status;
  }
  return status as any;
}

for (const [kind, world, sync] of kinds) {
  t.test(
    `${kind}: a member that crash-loops after the rollout completed is Degraded, never past the deadline`,
    async (t) => {
      const rested = run(world, sync, [[10, world(3, 1, undefined)]], 3, 1);
      t.match(cond(rested, 'Progressing'), { status: 'False', reason: 'Complete' }, 'the rollout completed');
      const status = run(
        world,
        sync,
        [[10, world(3, 1, undefined)], ...STEPS.map((s) => [s, world(3, 1, 2)] as [number, CompositeSyncRequest])],
        3,
        1,
      );
      const p = cond(status, 'Progressing');
      t.notMatch(p, { reason: 'ProgressDeadlineExceeded' }, `no rollout is under way: ${p.reason}: ${p.message}`);
      t.match(p, { status: 'False', reason: 'Complete' }, 'the rollout stays complete');
      t.match(p.message, /2\/3 ready/, `says how many are Ready now: ${p.message}`);
      t.match(
        cond(status, 'Degraded'),
        { status: 'True', reason: 'PodsFailing', message: /CrashLoopBackOff/ },
        'Degraded',
      );
      t.match(cond(status, 'Available'), { status: 'False' }, 'not Available');
      t.notMatch(cond(status, 'Ready'), { reason: 'ProgressDeadlineExceeded' }, 'Ready blames no rollout');
    },
  );

  t.test(`${kind}: scaled up after the rollout completed, a new member never Ready is past the deadline`, async (t) => {
    const status = run(
      world,
      sync,
      [[10, world(3, 1, undefined)], ...STEPS.map((s) => [s, world(4, 2, 3)] as [number, CompositeSyncRequest])],
      3,
      1,
    );
    const p = cond(status, 'Progressing');
    t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' }, `the scale-up is a rollout: ${p.message}`);
  });
}
