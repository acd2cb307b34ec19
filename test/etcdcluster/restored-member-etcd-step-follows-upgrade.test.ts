// A restored member keeps its restore steps for life; they run again whenever its sandbox is recreated (a node
// reboot, a container runtime restart) and find the member's data kept. Its `restore-snapshot` step runs the etcd
// image of restore time. After an upgrade (a new version, a mirror in spec.repository) the old image may be gone
// from the registry or the nodes may no longer reach it: a rerun of that step waits for ever (ImagePullBackOff),
// and the member, its data on disk, never comes back. A pod whose etcd step waits for its image runs no etcd, so the
// step takes the member's current etcd image; a running member is never restarted for it.
import t from 'tap';
import { FIXED_NOW } from '../fixtures/requests.js';
import {
  images,
  answeredPod as pod,
  restoredServe,
  restoreStarted,
  running,
  stepImages,
  versionsFromImages,
} from '../fixtures/etcd-loop.js';

/** The sandbox recreated on a node that cannot pull the etcd image of restore time: its etcd step waits for it. */
const etcdStepWaitsForImage = {
  phase: 'Pending',
  initContainerStatuses: [
    { name: 'check-dns', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
    { name: 'fetch-snapshot', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
    { name: 'restore-snapshot', state: { waiting: { reason: 'ImagePullBackOff' } } },
    { name: 'place-snapshot', state: { waiting: { reason: 'PodInitializing' } } },
  ],
  containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'PodInitializing' } } }],
};

t.test(
  "after an upgrade to a mirror, a restored member whose etcd step waits for the old image takes the member's current one",
  async (t) => {
    const loop = await running({ size: 3 });
    await restoreStarted(loop);
    restoredServe(loop);
    for (let i = 0; i < 3; i++) await loop.step();
    const restored = loop.pods();
    const oldImage = stepImages(pod(loop, restored[1]!))['restore-snapshot'];
    t.equal(oldImage, 'quay.io/coreos/etcd:v3.5.0', 'the etcd step runs the image of restore time');

    versionsFromImages(loop);
    loop.spec = { ...loop.spec, repository: 'mirror.example/etcd', version: '3.5.1' };
    for (let i = 0; i < 30 && !Object.values(images(loop)).every((img) => img === 'mirror.example/etcd:v3.5.1'); i++) {
      loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
      await loop.step();
    }
    t.ok(
      Object.values(images(loop)).every((img) => img === 'mirror.example/etcd:v3.5.1'),
      'every member runs the mirror',
    );
    for (let i = 0; i < 3; i++) await loop.step();
    t.same(loop.pods(), restored, 'the same members');
    const running_ = structuredClone(loop.children.filter((c) => c.kind === 'Pod'));
    t.equal(
      stepImages(pod(loop, restored[1]!))['restore-snapshot'],
      oldImage,
      'a running member is left as it was made',
    );

    // The old repository is gone; one member's sandbox is recreated and its etcd step cannot get the old image.
    const victim = restored[1]!;
    loop.podStatus.set(victim, etcdStepWaitsForImage);
    loop.etcd.up.delete(victim);
    await loop.step();
    t.same(loop.pods(), restored, 'the member is not replaced');
    t.equal(
      stepImages(pod(loop, victim))['restore-snapshot'],
      'mirror.example/etcd:v3.5.1',
      "its etcd step takes the member's current etcd image",
    );
    for (const other of restored.filter((n) => n !== victim))
      t.same(
        pod(loop, other),
        running_.find((p) => p.metadata.name === other),
        `${other}, running, is left as it was`,
      );
    t.same(loop.etcd.calls, [], 'no membership change');

    loop.podStatus.delete(victim);
    loop.etcd.up.add(victim);
    await loop.step();
    const settled = structuredClone(loop.children.filter((c) => c.kind === 'Pod'));
    await loop.step();
    t.same(
      loop.children.filter((c) => c.kind === 'Pod'),
      settled,
      'quiet at rest',
    );
  },
);
