// A Memcached or a PodSet made in the same second as a parent that wants its names, made after it (the higher uid),
// that got the names first: it yields them only when it never served (hooks/memcached/sync.ts served,
// hooks/podset/sync.ts served), judged from its status and, the status lost, from its children. A Memcached served
// once one of its pods was Ready (its clients reach it through the Service): its Deployment's counts or a Ready pod
// of its own say so. A PodSet served once one of its pods ran (the spec's command may have done work). One that
// served keeps what it holds and carries on; the first stays held naming it (as an EtcdCluster or a MySQLCluster
// that served does). The contrast: the same parent that never served releases the names to the first.
import t from 'tap';
import '../../main/operators.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { named } from '../fixtures/applied-world.js';
import {
  asApplied,
  asObserved,
  controllerRef,
  deploymentPod,
  FIXED_NOW,
  objectMap,
  request,
} from '../fixtures/requests.js';

const CREATED = '2026-01-02T03:00:00Z';
const ETCD = 'etcd.database.coreos.com/v1beta2';

/** EtcdCluster `name`, made first, held for `child` by `holder` (its status.heldBy). */
function firstEtcd(name: string, child: { kind: string; name: string }, holder: ParentObject): KubeObject {
  return {
    apiVersion: ETCD,
    kind: 'EtcdCluster',
    metadata: { name, namespace: 'ns', uid: 'uid-a-etcd', generation: 1, creationTimestamp: CREATED },
    spec: { size: 3, repository: 'quay.io/coreos/etcd', version: '3.5.0' },
    status: {
      observedGeneration: 1,
      lastMemberIndex: 2,
      memberList: [0, 1, 2].map((i) => ({ name: `${name}-${i}` })),
      conditions: [{ type: 'Ready', status: 'False', reason: `${child.kind}NameTaken`, message: 'held' }],
      heldBy: [
        {
          child: { apiVersion: 'v1', kind: child.kind, name: child.name },
          holder: {
            apiVersion: holder.apiVersion,
            kind: holder.kind,
            name: holder.metadata.name,
            uid: holder.metadata.uid,
          },
        },
      ],
    },
  } as unknown as KubeObject;
}

const names = (res: CompositeSyncResponse) => res.children.map((c) => `${c.kind}/${c.metadata.name}`);
const heldBy = (res: CompositeSyncResponse) => ((res.status as any).heldBy ?? []) as Array<{ yieldsTo?: unknown }>;

function memcached(deploymentStatus: Record<string, unknown>, podStatus?: Record<string, unknown>) {
  const req = request('memcached', { size: 2 });
  named(req.parent, { name: 'a', namespace: 'ns', uid: 'uid-b-memcached', creationTimestamp: CREATED });
  // Its first answer, made (its status lost: what it served is read from its children).
  const first = memcachedSync({ ...req, children: {}, related: {} }, FIXED_NOW);
  const made = (c: KubeObject, status?: Record<string, unknown>) => {
    const o = status ? asApplied(c, status) : asObserved(c);
    (o.metadata as Record<string, unknown>)['namespace'] = 'ns';
    (o.metadata as Record<string, unknown>)['ownerReferences'] = [controllerRef(req.parent)];
    return o;
  };
  const children = first.children.map((c) => (c.kind === 'Deployment' ? made(c, deploymentStatus) : made(c)));
  const dep = first.children.find((c) => c.kind === 'Deployment')!;
  const pods = podStatus
    ? [
        deploymentPod(
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: {
              name: 'a-5d4f-abcde',
              namespace: 'ns',
              uid: 'uid-pod',
              labels: (dep as any).spec.template.metadata.labels,
            },
            spec: (dep as any).spec.template.spec,
            status: podStatus,
          } as unknown as KubeObject,
          'a',
        ),
      ]
    : [];
  const etcd = firstEtcd('a-memcached', { kind: 'Service', name: 'a-memcached' }, req.parent);
  return memcachedSync({ ...req, children: objectMap(children), related: objectMap([etcd, ...pods]) }, FIXED_NOW);
}

t.test('a Memcached made second whose Deployment counts a Ready pod keeps its Service', async (t) => {
  const res = memcached({ observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 1 });
  t.ok(names(res).includes('Service/a-memcached'), 'its Service is kept');
  t.same(
    heldBy(res).filter((r) => r.yieldsTo),
    [],
    'it yields to nothing',
  );
});

t.test('a Memcached made second with a Ready pod of its own keeps its Service', async (t) => {
  const res = memcached(
    { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 0 },
    { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  );
  t.ok(names(res).includes('Service/a-memcached'), 'its Service is kept');
});

t.test('a Memcached made second none of whose pods was Ready releases its Service to the first', async (t) => {
  const res = memcached(
    { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 0 },
    { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] },
  );
  const ready = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
  t.notOk(names(res).includes('Service/a-memcached'), 'its Service is released');
  t.ok(names(res).includes('Deployment/a'), 'its Deployment is kept');
  t.match(ready, { status: 'False', reason: 'ServiceNameTaken', message: /never served, so it yields/ });
  t.match(heldBy(res), [{ yieldsTo: { kind: 'EtcdCluster', name: 'a-memcached' } }], 'it records yieldsTo');
});

function podset(podStatus: Record<string, unknown>) {
  const req = request('podset', { size: 3 });
  named(req.parent, { name: 'web', namespace: 'ns', uid: 'uid-b-podset', creationTimestamp: CREATED });
  const first = podsetSync({ ...req, children: {}, related: {} }, FIXED_NOW);
  const children = first.children.map((c) => {
    const o = asObserved(c);
    (o.metadata as Record<string, unknown>)['namespace'] = 'ns';
    (o.metadata as Record<string, unknown>)['ownerReferences'] = [controllerRef(req.parent)];
    if (c.kind === 'Pod') (o as Record<string, unknown>)['status'] = podStatus;
    return o;
  });
  const etcd = firstEtcd('web-pod', { kind: 'Pod', name: 'web-pod-0' }, req.parent);
  return podsetSync({ ...req, children: objectMap(children), related: objectMap([etcd]) }, FIXED_NOW);
}

t.test('a PodSet made second whose pod ran keeps its pods', async (t) => {
  const res = podset({
    phase: 'Running',
    containerStatuses: [{ name: 'podset', ready: false, restartCount: 0, state: { running: {} } }],
  });
  t.same(
    names(res).filter((n) => n.startsWith('Pod/')),
    ['Pod/web-pod-0', 'Pod/web-pod-1', 'Pod/web-pod-2'],
    'its pods are kept',
  );
});

t.test('a PodSet made second none of whose pods ran releases the pods the first wants', async (t) => {
  const res = podset({ phase: 'Pending' });
  const ready = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
  t.same(
    names(res).filter((n) => n.startsWith('Pod/')),
    [],
    'every pod the first wants is released',
  );
  t.match(ready, {
    status: 'False',
    reason: 'PodNameTaken',
    message: /never served, so it yields: it releases Pod web-pod-0/,
  });
  t.match(ready.message, /makes no Pod meanwhile/, 'and says it makes none');
});
