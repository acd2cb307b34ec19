// A PodSet held for pod names an EtcdCluster's members hold (PodSet `web`, EtcdCluster `web-pod`: `web-pod-<i>`)
// remembers the holder in status.heldBy and stays held while a member's pod is gone for a moment
// (test/podset/pod-names-held-while-gone.test.ts). The holder is sent by customize whatever the PodSet's status
// (lib/podholders.ts podHolderRules asks for EtcdCluster `web-pod` by the PodSet's own name), and its status lists the
// member: the PodSet can judge it without its own record. A status is lost now and then (the PodSet restored from a
// Kubernetes backup, which keeps no status; a status written over): a member pod evicted after that must not be
// made again by the PodSet as a busybox pod under the member's name (the etcd member's peer name would reach it, and
// the cluster could no longer make its member again).
import t from 'tap';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import { etcdParent } from '../fixtures/etcd.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
const PODSET_API = 'apps.jicki.cn/v1alpha1';
const ETCD_API = 'etcd.database.coreos.com/v1beta2';
const ETCD_OWNER = { apiVersion: ETCD_API, kind: 'EtcdCluster', name: 'web-pod', uid: 'uid-web-pod' };

function podsetRequest(related: KubeObject[], status?: Record<string, unknown>): CompositeSyncRequest {
  const req = request('podset', { size: 3 });
  req.parent = {
    apiVersion: PODSET_API,
    kind: 'PodSet',
    metadata: {
      name: 'web',
      namespace: 'ns',
      uid: 'uid-web',
      generation: 1,
      creationTimestamp: '2020-01-01T01:00:00Z',
    },
    spec: { size: 3, image: 'busybox', command: ['sleep', '3600'] },
    ...(status ? { status } : {}),
  } as ParentObject;
  req.related = objectMap(related);
  return req;
}

/** EtcdCluster web-pod, made an hour before the PodSet, serving with members web-pod-0..2. */
function etcdWebPod(): ParentObject {
  const parent = etcdParent(
    { size: 3 },
    {
      memberList: [0, 1, 2].map((i) => ({ name: `web-pod-${i}`, healthy: true })),
      conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }],
    },
  );
  parent.metadata = {
    ...parent.metadata,
    name: 'web-pod',
    uid: 'uid-web-pod',
    creationTimestamp: '2020-01-01T00:00:00Z',
  } as never;
  return parent;
}

function member(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-pod-${i}`,
      namespace: 'ns',
      uid: `uid-web-pod-${i}`,
      ownerReferences: [{ ...ETCD_OWNER, controller: true }],
    },
  } as KubeObject;
}

t.test(
  'a PodSet held for an EtcdCluster`s member names, its status lost, does not make a pod under a member name while the member`s pod is gone for a moment',
  async (t) => {
    const held = podsetSync(podsetRequest([etcdWebPod(), member(0), member(1), member(2)]), FIXED_NOW);
    t.match(ready(held), { status: 'False', reason: 'PodNameTaken' }, 'held while the members run');

    // The status is lost; then member web-pod-0 is evicted (its node drained). EtcdCluster web-pod still lists it and
    // makes it again at its next sync; the PodSet's next sync comes first:
    const res = podsetSync(podsetRequest([etcdWebPod(), member(1), member(2)]), FIXED_NOW);
    const pods = res.children.filter((c) => c.kind === 'Pod').map((c) => c.metadata.name);
    t.notOk(
      pods.includes('web-pod-0'),
      `the PodSet does not answer pod web-pod-0 while EtcdCluster web-pod, made before it, exists and lists that member (answered: ${pods.join(', ')})`,
    );
  },
);
