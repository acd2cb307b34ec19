// EtcdCluster `web-pod` (made first) runs members web-pod-0..2. PodSet `web`, made an hour later with size 6, wants
// pods web-pod-0..5: 0..2 are the cluster's, so it is held (PodNameTaken), but its pods are independent children
// (hooks/podset/index.ts independentChildren): it makes web-pod-3..5 at once. Its Ready message says the first carries
// on and that the PodSet takes none of those names (lib/ownership.ts keepsNote), never that it makes nothing: a user
// told so would look for no pods of it.
import t from 'tap';
import '../../main/operators.js';
import { podsetPodsSync as podsetSync } from '../fixtures/hooks.js';
import { webPodCluster, webPodMember } from '../fixtures/pod-name-holders.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => (res.status.conditions as any[]).find((c) => c.type === 'Ready');

t.test('a later PodSet held on some pod names does not say it makes nothing while it makes the others', async (t) => {
  const etcd = webPodCluster({
    created: '2020-01-01T00:00:00Z',
    status: {
      phase: 'Running',
      lastMemberIndex: 2,
      memberList: [0, 1, 2].map((i) => ({ name: `web-pod-${i}` })),
      conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }],
    },
  });
  const req = request('podset', { size: 6 });
  req.parent.metadata = {
    ...req.parent.metadata,
    name: 'web',
    namespace: 'ns',
    uid: 'uid-web',
    creationTimestamp: '2020-01-01T01:00:00Z',
  } as never;
  const res = podsetSync({ ...req, related: objectMap([etcd, ...[0, 1, 2].map(webPodMember)]) }, FIXED_NOW);
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
