// The restore check pod `<cluster>-restore-check` starts the tenant's images first: spec.pod.busyboxImage
// (`/bin/sh -c true`: whatever the image's /bin/sh is) and `<spec.repository>:v<spec.version>` (its
// /usr/local/bin/etcd and etcdctl). Issue 29 took the namespace's default ServiceAccount token out of every other pod
// metaops makes that runs a tenant's image or command (members, PodSet, Memcached: `automountServiceAccountToken:
// false`, "the spec's image calls no Kubernetes API"); the check pod still mounts it in every container, init steps
// included, so tenant A's image holds the token of a ServiceAccount it was never granted (whatever rights the
// namespace's administrator bound to `default`, e.g. for a CI tool).
//
// Must hold: the check pod, like the members, mounts no ServiceAccount token.
import t from 'tap';
import { restoreCheckPod } from '../../hooks/etcdcluster/restore.js';

t.test('the restore check pod mounts no ServiceAccount token', async (t) => {
  const parent: any = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'a', namespace: 'tenant-a', uid: 'u-a' },
    spec: {},
  };
  const spec: any = {
    size: 3,
    version: '3.5.17',
    repository: 'attacker.example/etcd',
    pod: { busyboxImage: 'attacker.example/busybox:1' },
  };
  const pod: any = restoreCheckPod(
    parent,
    spec,
    { s3: { path: 'bucket/tenant-a/snap.db', awsSecret: 'aws' }, image: 'metaops:test' },
    'restore-uid',
  );
  const images = [...pod.spec.initContainers, ...pod.spec.containers].map((c: any) => c.image);
  t.ok(images.includes('attacker.example/busybox:1'), `runs the tenant's images (${images.join(', ')})`);
  t.equal(pod.spec.automountServiceAccountToken, false, 'automountServiceAccountToken: false');
});
