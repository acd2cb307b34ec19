// EtcdCluster `web-pod` (made first) runs members web-pod-0..2. PodSet `web`, made an hour later with size 6, wants
// pods web-pod-0..5: 0..2 are the cluster's, so it is held (PodNameTaken), but its pods are independent children
// (hooks/podset/index.ts independentChildren): it makes web-pod-3..5 at once. Its Ready message says what it does:
// the pods it makes meanwhile, named (lib/ownership.ts heldForTakenNames makesText), whichever way it is held (a
// later PodSet that never ran a pod, one that did, one held by a pod no parent judges, one held for every pod it
// wants). Before, it said only that it was held, that the first carries on and that it takes none of those names
// (earlier still, that it made nothing): a user told so looks for no pods of it, while three of them run beside a
// cluster whose next member names they may take.
import t from 'tap';
import '../../main/operators.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { podsetPodsSync as podsetSync } from '../fixtures/hooks.js';
import { webPodCluster, webPodMember } from '../fixtures/pod-name-holders.js';
import { asObserved, controllerRef, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
const podsOf = (res: CompositeSyncResponse) => res.children.filter((c) => c.kind === 'Pod').map((c) => c.metadata.name);

const etcd = webPodCluster({
  created: '2020-01-01T00:00:00Z',
  status: {
    phase: 'Running',
    lastMemberIndex: 2,
    memberList: [0, 1, 2].map((i) => ({ name: `web-pod-${i}` })),
    conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }],
  },
});
const member = webPodMember;

function podset(size: number) {
  const req = request('podset', { size });
  req.parent.metadata = {
    ...req.parent.metadata,
    name: 'web',
    namespace: 'ns',
    uid: 'uid-web',
    creationTimestamp: '2020-01-01T01:00:00Z',
  } as never;
  return req;
}

t.test('a later PodSet held on some pod names names the pods it makes while held', async (t) => {
  const req = podset(6);
  const res = podsetSync({ ...req, related: objectMap([etcd, ...[0, 1, 2].map(member)]) }, FIXED_NOW);
  const pods = podsOf(res);
  t.comment(`answered pods: ${pods.join(', ')}; Ready: ${ready(res).reason}: ${ready(res).message}`);
  t.match(ready(res), { status: 'False', reason: 'PodNameTaken' }, 'held on web-pod-0..2');
  t.same(pods, ['web-pod-3', 'web-pod-4', 'web-pod-5'], 'it answers the pods whose names are free');
  t.notMatch(ready(res).message, /makes nothing/, 'its status does not say it makes nothing');
  t.match(
    ready(res).message,
    /makes its other Pods meanwhile, whose names are free: web-pod-3, web-pod-4, web-pod-5/,
    'its status names the pods it makes',
  );
  t.match(ready(res).message, /EtcdCluster web-pod \(uid uid-web-pod\)/, 'and the first, which carries on');
});

t.test('a later PodSet that ran pods, held on some pod names, names the pods it makes', async (t) => {
  const req = podset(6);
  const running = {
    ...asObserved({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-pod-3', namespace: 'ns' } } as KubeObject),
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'podset', ready: true, restartCount: 0, state: { running: {} } }],
    },
  } as KubeObject;
  (running.metadata as Record<string, unknown>)['ownerReferences'] = [controllerRef(req.parent)];
  const res = podsetSync(
    { ...req, children: objectMap([running]), related: objectMap([etcd, ...[0, 1, 2].map(member)]) },
    FIXED_NOW,
  );
  t.comment(`Ready: ${ready(res).reason}: ${ready(res).message}`);
  t.match(ready(res), { status: 'False', reason: 'PodNameTaken' });
  t.match(ready(res).message, /holds none of them/, 'it holds none of the names the first wants');
  t.match(
    ready(res).message,
    /makes its other Pods meanwhile, whose names are free: web-pod-3, web-pod-4, web-pod-5/,
    'and names the pods it makes',
  );
});

t.test('a PodSet held on a pod no parent makes names the pods it makes', async (t) => {
  const req = podset(2);
  const byHand = asObserved({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-pod-0', namespace: 'ns' },
  } as KubeObject);
  const res = podsetSync({ ...req, related: objectMap([byHand]) }, FIXED_NOW);
  t.comment(`Ready: ${ready(res).reason}: ${ready(res).message}`);
  t.same(podsOf(res), ['web-pod-1']);
  t.match(ready(res), { status: 'False', reason: 'PodNameTaken' });
  t.match(ready(res).message, /makes its other Pods meanwhile, whose names are free: web-pod-1$/);
});

t.test('a PodSet held for every pod it wants says it makes none', async (t) => {
  const req = podset(3);
  const res = podsetSync({ ...req, related: objectMap([etcd, ...[0, 1, 2].map(member)]) }, FIXED_NOW);
  t.comment(`Ready: ${ready(res).reason}: ${ready(res).message}`);
  t.same(podsOf(res), []);
  t.match(ready(res).message, /This PodSet makes no Pod meanwhile/);
});
