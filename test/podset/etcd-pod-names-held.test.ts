// PodSet `web` names its pods `web-pod-<i>`; EtcdCluster `web-pod` names its members `web-pod-<i>` too. Renaming
// PodSet's pods again would replace every pod of every PodSet (a rollout each), for two parents whose names only
// collide when one is the other's name plus `-pod`. So the names stay, and the collision is detected: whichever of the
// two comes second is held (`PodNameTaken`, naming the first), creates no pod, and changes no etcd membership,
// while the first keeps its pods. (Issue 31: "a child that belongs to another parent is never taken or served".)
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { etcdChildNames } from '../../hooks/etcdcluster/index.js';
import { watchedEtcd } from '../fixtures/etcd.js';
import { etcdSync, podsetPodsSync as podsetSync } from '../fixtures/hooks.js';
import { webPodCluster, webPodMember } from '../fixtures/pod-name-holders.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');

function podset() {
  const req = request('podset', { size: 3 });
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'ns', uid: 'uid-web' };
  return req;
}

t.test('the names: PodSet web and EtcdCluster web-pod want the same pods (the collision detected below)', async (t) => {
  const pods = podsetSync(podset(), FIXED_NOW).children.map((c) => `${c.kind}/${c.metadata.name}`);
  const members = etcdChildNames(webPodCluster()).map((c) => `${c.kind}/${c.name}`);
  t.same(
    pods.filter((p) => members.includes(p)),
    ['Pod/web-pod-0', 'Pod/web-pod-1', 'Pod/web-pod-2'],
  );
});

t.test('PodSet web first: EtcdCluster web-pod is held, creates no pod and changes no membership', async (t) => {
  const first = podsetSync(podset(), FIXED_NOW);
  // Metacontroller makes them with PodSet web as their controller.
  const owner = { apiVersion: 'apps.jicki.cn/v1', kind: 'PodSet', name: 'web', uid: 'uid-web', controller: true };
  const pods = first.children.map((c) => {
    const p = asObserved(c, readyPod) as KubeObject;
    return { ...p, metadata: { ...p.metadata, ownerReferences: [owner] } } as KubeObject;
  });
  t.same(
    pods.map((p) => p.metadata.name),
    ['web-pod-0', 'web-pod-1', 'web-pod-2'],
  );
  const res = await etcdSync(
    { controller: {}, parent: webPodCluster(), children: {}, related: objectMap(pods) },
    { etcd: watchedEtcd(t), now: FIXED_NOW },
  );
  t.match(ready(res) ?? (res.status as any).conditions[0], {
    status: 'False',
    reason: 'PodNameTaken',
    message: /^Pod web-pod-0 belongs to PodSet web \(uid uid-web\)/,
  });
  t.same(res.children, [], 'no pod, no Service: nothing created');
  // PodSet web keeps its pods.
  const again = podsetSync({ ...podset(), children: objectMap(pods), related: objectMap(pods) }, FIXED_NOW);
  t.same(
    again.children.map((c) => c.metadata.name),
    ['web-pod-0', 'web-pod-1', 'web-pod-2'],
    'PodSet web keeps its pods',
  );
  t.not(ready(again).reason, 'PodNameTaken');
});

t.test('EtcdCluster web-pod first: PodSet web is held and creates no pod', async (t) => {
  const req = { ...podset(), related: objectMap([0, 1, 2].map(webPodMember)) };
  const res = podsetSync(req, FIXED_NOW);
  t.match(ready(res), {
    status: 'False',
    reason: 'PodNameTaken',
    message: /^Pod web-pod-0 belongs to EtcdCluster web-pod \(uid uid-web-pod\)/,
  });
  t.same(res.children, [], 'no pod created');
});
