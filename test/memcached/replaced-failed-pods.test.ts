// Memcached's Degraded (issue 31: "a Degraded condition as the current Operator SDK sample has, when pods fail") and
// status.nodes in the field: a node drained under memory pressure or shut down gracefully leaves the pods it ran as
// objects in phase Failed (reason Evicted, or Terminated/NodeShutdown), which the API server keeps until the pod
// garbage collector's threshold (12 500 terminated pods) or a person deletes them. The Deployment replaced them long
// ago: every replica is Ready. Such a leftover is no pod failing now, and no member of the cache.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const cond = (res: any, type: string) => res.status.conditions.find((c: any) => c.type === type);

function pod(name: string, status: Record<string, unknown>): KubeObject {
  const obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      labels: {
        'app.kubernetes.io/name': 'memcached',
        'app.kubernetes.io/instance': 'memcached-sample',
        'pod-template-hash': '5d4f',
      },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'memcached-sample-5d4f', uid: 'rs', controller: true },
      ],
    },
    status,
  };
  return obj as unknown as KubeObject;
}

for (const [why, leftover] of [
  [
    'evicted under node pressure',
    { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' },
  ],
  [
    'stopped by a graceful node shutdown',
    { phase: 'Failed', reason: 'Terminated', message: 'Pod was terminated in response to imminent node shutdown.' },
  ],
] as const) {
  t.test(`a pod ${why} and replaced long ago: not Degraded, not a member`, async (t) => {
    const first = memcachedSync(request('memcached', { size: 2 }), FIXED_NOW);
    const children = first.children.map((c) =>
      c.kind === 'Deployment'
        ? {
            ...asObserved(c, { observedGeneration: 1, replicas: 2, readyReplicas: 2, updatedReplicas: 2 }),
            metadata: { ...asObserved(c).metadata, generation: 1 },
          }
        : asObserved(c),
    );
    const related = objectMap([
      pod('memcached-sample-5d4f-aaaaa', readyPod),
      pod('memcached-sample-5d4f-bbbbb', readyPod),
      pod('memcached-sample-5d4f-old00', leftover),
    ]);
    const res = memcachedSync(request('memcached', { size: 2 }, { children: objectMap(children), related }), FIXED_NOW);
    t.match(cond(res, 'Ready'), { status: 'True' }, 'every replica is Ready');
    t.match(
      cond(res, 'Degraded'),
      { status: 'False' },
      `no pod is failing now (Degraded: ${cond(res, 'Degraded')?.reason}: ${cond(res, 'Degraded')?.message})`,
    );
    t.same(
      (res.status as any).nodes,
      ['memcached-sample-5d4f-aaaaa', 'memcached-sample-5d4f-bbbbb'],
      'status.nodes lists the pods that serve',
    );
  });
}

t.test('a Failed pod the Deployment has not replaced yet is still Degraded, and not a member', async (t) => {
  const first = memcachedSync(request('memcached', { size: 2 }), FIXED_NOW);
  const children = first.children.map((c) =>
    c.kind === 'Deployment'
      ? {
          ...asObserved(c, { observedGeneration: 1, replicas: 2, readyReplicas: 1, updatedReplicas: 2 }),
          metadata: { ...asObserved(c).metadata, generation: 1 },
        }
      : asObserved(c),
  );
  const related = objectMap([
    pod('memcached-sample-5d4f-aaaaa', readyPod),
    pod('memcached-sample-5d4f-old00', { phase: 'Failed', reason: 'Evicted', message: 'The node was low on memory.' }),
  ]);
  const res = memcachedSync(request('memcached', { size: 2 }, { children: objectMap(children), related }), FIXED_NOW);
  t.match(cond(res, 'Degraded'), { status: 'True', reason: 'PodsFailing', message: /old00: Failed/ });
  t.same((res.status as any).nodes, ['memcached-sample-5d4f-aaaaa'], 'an ended pod serves nothing');
});
