// A member moved in place to another image (a change of spec.repository, or of spec.version) has moved only once its
// etcd container runs that image (plan/view.ts runsItsImage): its status reports the image (as a runtime may spell
// it: docker.io/ and library/ left out), or the container started at or after the move. Until then its old
// container may still answer, with the version it ran.
import t from 'tap';
import { runsItsImage } from '../../hooks/etcdcluster/plan/view.js';

const pod = (image: string, status?: Record<string, unknown>, moved = true): any => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'e-1',
    annotations: moved
      ? {
          'etcd.metaops.io/upgraded-from-image': 'quay.io/coreos/etcd:v3.5.0',
          'etcd.metaops.io/upgraded-at': '2026-01-02T03:04:05Z',
        }
      : {},
  },
  spec: { containers: [{ name: 'etcd', image }] },
  ...(status ? { status } : {}),
});
const etcd = (s: Record<string, unknown>) => ({ containerStatuses: [{ name: 'etcd', ...s }] });

t.test('a moved member runs its image once its status says so, or its container started after the move', async (t) => {
  const img = 'mirror.example.com/etcd:v3.5.0';
  t.ok(runsItsImage(pod(img, etcd({ image: img, state: { running: {} } }))), 'the image reported');
  t.notOk(runsItsImage(pod(img, etcd({ image: 'quay.io/coreos/etcd:v3.5.0', state: { running: {} } }))), 'the old one');
  t.notOk(runsItsImage(pod(img, etcd({ state: { waiting: { reason: 'ImagePullBackOff' } } }))), 'waiting on it');
  t.ok(runsItsImage(pod('etcd:v3.5.0', etcd({ image: 'docker.io/library/etcd:v3.5.0' }))), "Docker Hub's spelling");
  const started = (at: string) => etcd({ image: 'sha256:abc', state: { running: { startedAt: at } } });
  t.ok(runsItsImage(pod(img, started('2026-01-02T03:04:05Z'))), 'started at the move');
  t.ok(runsItsImage(pod(img, started('2026-01-02T03:05:00Z'))), 'started after it');
  t.notOk(runsItsImage(pod(img, started('2026-01-02T03:04:04Z'))), 'started before it: the old container');
  t.ok(runsItsImage(pod(img, { containerStatuses: [{ name: 'other' }] })), 'nothing said of etcd: its answer decides');
  t.ok(runsItsImage(pod(img)), 'no status: its answer decides');
  t.ok(runsItsImage(pod(img, etcd({ image: 'quay.io/coreos/etcd:v3.5.0' }), false)), 'not moved: nothing to wait for');
});
