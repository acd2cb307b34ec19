// A member moved in place to another image (a change of spec.repository, or of spec.version) has moved only once its
// etcd container runs that image (plan/view.ts runsItsImage): its status reports the image (as a runtime may spell
// it: docker.io/ and library/ left out), or its running container is another than the one it ran at the move (its
// restartCount, containerID, imageID and image recorded then: no time stamped by its node's clock is compared with
// the hook's). Until then its old container may still answer, with the version it ran.
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

t.test(
  'a moved member runs its image once its status says so, or its container is another than at the move',
  async (t) => {
    const img = 'mirror.example.com/etcd:v3.5.0';
    t.ok(runsItsImage(pod(img, etcd({ image: img, state: { running: {} } }))), 'the image reported');
    t.notOk(
      runsItsImage(pod(img, etcd({ image: 'quay.io/coreos/etcd:v3.5.0', state: { running: {} } }))),
      'the old one',
    );
    t.notOk(runsItsImage(pod(img, etcd({ state: { waiting: { reason: 'ImagePullBackOff' } } }))), 'waiting on it');
    t.ok(runsItsImage(pod('etcd:v3.5.0', etcd({ image: 'docker.io/library/etcd:v3.5.0' }))), "Docker Hub's spelling");
    // Its image reported by digest: another container than the one it ran at the move (its restartCount, containerID,
    // imageID as recorded then) runs it; the same one does not; the times the kubelet stamps are not read.
    const running = (s: Record<string, unknown>) =>
      etcd({ image: 'sha256:abc', state: { running: { startedAt: '2026-01-02T03:04:04Z' } }, ...s });
    const marked = (mark: string, status: Record<string, unknown>) => {
      const p = pod(img, status);
      p.metadata.annotations['etcd.metaops.io/upgraded-container'] = mark;
      return p;
    };
    t.ok(runsItsImage(marked('', running({ restartCount: 0 }))), 'no container at the move: any running since');
    t.ok(
      runsItsImage(marked('0|c1||quay.io/coreos/etcd:v3.5.0', running({ restartCount: 1, containerID: 'c2' }))),
      'restarted since the move',
    );
    t.notOk(
      runsItsImage(
        marked('0|c1|sha256:abc|sha256:abc', running({ restartCount: 0, containerID: 'c1', imageID: 'sha256:abc' })),
      ),
      'the same container as at the move',
    );
    t.notOk(
      runsItsImage(marked('', etcd({ image: 'sha256:abc', state: { waiting: { reason: 'ContainerCreating' } } }))),
      'none running',
    );
    t.ok(
      runsItsImage(pod(img, { containerStatuses: [{ name: 'other' }] })),
      'nothing said of etcd: its answer decides',
    );
    t.ok(runsItsImage(pod(img)), 'no status: its answer decides');
    t.ok(
      runsItsImage(pod(img, etcd({ image: 'quay.io/coreos/etcd:v3.5.0' }), false)),
      'not moved: nothing to wait for',
    );
  },
);
