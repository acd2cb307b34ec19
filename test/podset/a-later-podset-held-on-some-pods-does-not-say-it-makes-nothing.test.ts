// EtcdCluster `web-pod` (made first) runs members web-pod-0..2. PodSet `web`, made an hour later with size 6, wants
// pods web-pod-0..5: 0..2 are the cluster's, so it is held (PodNameTaken), but its pods are independent children
// (hooks/podset/index.ts independentChildren): it makes web-pod-3..5 at once. Its Ready message says the first carries
// on and that the PodSet takes none of those names (lib/ownership.ts keepsNote), never that it makes nothing: a user
// told so would look for no pods of it.
import t from 'tap';
import '../../main/operators.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { podsetPodsSync as podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => (res.status.conditions as any[]).find((c) => c.type === 'Ready');

t.test('a later PodSet held on some pod names does not say it makes nothing while it makes the others', async (t) => {
  const etcd = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: {
      name: 'web-pod',
      namespace: 'ns',
      uid: 'uid-web-pod',
      generation: 1,
      creationTimestamp: '2020-01-01T00:00:00Z',
    },
    spec: { size: 3, repository: 'quay.io/coreos/etcd', version: '3.5.0' },
    status: {
      phase: 'Running',
      lastMemberIndex: 2,
      memberList: [0, 1, 2].map((i) => ({ name: `web-pod-${i}` })),
      conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }],
    },
  } as unknown as KubeObject;
  const member = (i: number) =>
    ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `web-pod-${i}`,
        namespace: 'ns',
        uid: `uid-member-${i}`,
        ownerReferences: [
          {
            apiVersion: 'etcd.database.coreos.com/v1beta2',
            kind: 'EtcdCluster',
            name: 'web-pod',
            uid: 'uid-web-pod',
            controller: true,
          },
        ],
      },
    }) as KubeObject;
  const req = request('podset', { size: 6 });
  req.parent.metadata = {
    ...req.parent.metadata,
    name: 'web',
    namespace: 'ns',
    uid: 'uid-web',
    creationTimestamp: '2020-01-01T01:00:00Z',
  } as never;
  const res = podsetSync({ ...req, related: objectMap([etcd, ...[0, 1, 2].map(member)]) }, FIXED_NOW);
  const pods = res.children.filter((c) => c.kind === 'Pod').map((c) => c.metadata.name);
  t.comment(`answered pods: ${pods.join(', ')}; Ready: ${ready(res).reason}: ${ready(res).message}`);
  t.match(ready(res), { status: 'False', reason: 'PodNameTaken' }, 'held on web-pod-0..2');
  t.ok(pods.length > 0, 'it answers the pods whose names are free');
  t.notMatch(
    ready(res).message,
    /makes nothing/,
    'its status does not say it makes nothing while its answer makes pods',
  );
});
