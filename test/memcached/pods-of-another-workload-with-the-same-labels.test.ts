// Two workloads side by side in one namespace that carry the same recommended labels: a Memcached `memcached-sample`
// and, say, a Helm chart's memcached installed as release `memcached-sample` (its pods labelled
// app.kubernetes.io/name=memcached, app.kubernetes.io/instance=memcached-sample, owned by its own StatefulSet or
// ReplicaSet). Those pods are not the Memcached's: they are not members, they do not make it Degraded, and its
// Service does not send its clients to them (issue 31: "no Service selects the other's pods").
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const cond = (res: any, type: string) => res.status.conditions.find((c: any) => c.type === type);
const LABELS = { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'memcached-sample' };

function pod(name: string, owner: { kind: string; name: string; uid: string }, status: Record<string, unknown>) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      labels: { ...LABELS, ...(owner.kind === 'ReplicaSet' ? { 'pod-template-hash': '5d4f' } : {}) },
      ownerReferences: [{ apiVersion: 'apps/v1', ...owner, controller: true }],
    },
    status,
  } as unknown as KubeObject;
}

function settled() {
  const first = memcachedSync(request('memcached', { size: 2 }), FIXED_NOW);
  const children = first.children.map((c) =>
    c.kind === 'Deployment'
      ? {
          ...asObserved(c, { observedGeneration: 1, replicas: 2, readyReplicas: 2, updatedReplicas: 2 }),
          metadata: { ...asObserved(c).metadata, generation: 1 },
        }
      : asObserved(c),
  );
  return children;
}

const mine = { kind: 'ReplicaSet', name: 'memcached-sample-5d4f', uid: 'rs' };
const theirs = { kind: 'StatefulSet', name: 'memcached-sample-helm', uid: 'helm-sts' };
const crashing = {
  phase: 'Running',
  containerStatuses: [{ name: 'memcached', ready: false, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
};

t.test('pods of another workload carrying the same labels are not members and do not make it Degraded', async (t) => {
  const children = settled();
  const related = objectMap([
    pod('memcached-sample-5d4f-aaaaa', mine, readyPod),
    pod('memcached-sample-5d4f-bbbbb', mine, readyPod),
    pod('memcached-sample-helm-0', theirs, readyPod),
    pod('memcached-sample-helm-1', theirs, crashing),
  ]);
  const res = memcachedSync(request('memcached', { size: 2 }, { children: objectMap(children), related }), FIXED_NOW);
  t.same(
    (res.status as any).nodes,
    ['memcached-sample-5d4f-aaaaa', 'memcached-sample-5d4f-bbbbb'],
    'status.nodes lists only the pods of its own Deployment',
  );
  t.match(
    cond(res, 'Degraded'),
    { status: 'False' },
    `another workload's crashing pod does not make this Memcached Degraded (${cond(res, 'Degraded')?.message})`,
  );
});

t.test('the Service does not select pods that only carry the recommended name/instance labels', async (t) => {
  const res = memcachedSync(request('memcached', { size: 2 }, { children: objectMap(settled()) }), FIXED_NOW);
  const svc = res.children.find((c) => c.kind === 'Service') as any;
  const selector = svc.spec.selector as Record<string, string>;
  const selectsForeign = Object.entries(selector).every(([k, v]) => (LABELS as Record<string, string>)[k] === v);
  t.notOk(
    selectsForeign,
    `Service selector ${JSON.stringify(selector)} also selects another workload's pods labelled ${JSON.stringify(LABELS)}`,
  );
});
