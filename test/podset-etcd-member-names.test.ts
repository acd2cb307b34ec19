// Issue 31: "Choose child names that do not collide between kinds you ship (a suffix per role)". PodSet chose
// `<name>-pod-<ordinal>` so that its pods stay apart from the members of an EtcdCluster of the same name
// (`<name>-<ordinal>`). But an EtcdCluster's members are `<its name>-<ordinal>`, whatever its name: EtcdCluster
// `web-pod` wants pods `web-pod-0`, `web-pod-1`, ..., exactly PodSet `web`'s pods. Two parents of kinds metaops ships,
// side by side in one namespace, with plain names, want the same pods; whichever comes second is held forever
// (PodNameTaken), and a PodSet scaled up into the names of an EtcdCluster's members stops there. A PodSet suffix that
// no `<anything>-<ordinal>` can spell (`<name>-pod<ordinal>`, for instance) would keep them apart.
import t from 'tap';
import { etcdChildNames } from '../hooks/etcdcluster/index.js';
import { etcdParent } from './fixtures/etcd.js';
import { podsetSync } from './fixtures/hooks.js';
import { FIXED_NOW, request } from './fixtures/requests.js';

t.test('PodSet web and EtcdCluster web-pod, side by side, want no common pod', async (t) => {
  const req = request('podset', { size: 3 });
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'ns', uid: 'uid-web' };
  const pods = podsetSync(req, FIXED_NOW).children.map((c) => `${c.kind}/${c.metadata.name}`);
  const etcd = etcdParent({ size: 3 });
  etcd.metadata = { ...etcd.metadata, name: 'web-pod' };
  const members = etcdChildNames(etcd).map((c) => `${c.kind}/${c.name}`);
  t.same(
    pods.filter((p) => members.includes(p)),
    [],
    'no pod of PodSet web is a member name of EtcdCluster web-pod',
  );
});
