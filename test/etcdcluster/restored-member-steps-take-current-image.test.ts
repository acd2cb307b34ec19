// A restored member's pod keeps its restore steps for life (fetch-snapshot, restore-snapshot, place-snapshot): they run
// again whenever its sandbox is recreated (a node reboot, a container runtime restart), and find the member's data
// kept. Two of them run this project's image (METAOPS_IMAGE). After metaops is upgraded and the old tag is gone from the
// registry, such a rerun waited for ever on ImagePullBackOff: the member never came back, with its data on disk. A pod
// whose operator steps wait for their image runs no etcd, so those steps take the image of the moment (an init step's
// image may change, and restarts a pod that runs nothing); a restored member that runs is never restarted only
// because metaops has a new image.
import t from 'tap';
import {
  answeredPod as pod,
  restoredServe,
  restoreStarted,
  running,
  stepImages,
  STEPS_WAIT_FOR_IMAGE,
} from '../fixtures/etcd-loop.js';

t.test(
  'after a metaops upgrade a restored member whose restore steps wait for the old image takes the current one; running ones are kept as they are',
  async (t) => {
    const loop = await running({ size: 3 });
    await restoreStarted(loop);
    const restored = loop.pods();
    t.same(restored, ['e-3', 'e-4', 'e-5'], 'the restored members');
    t.equal(stepImages(pod(loop, 'e-4'))['fetch-snapshot'], 'metaops:test', 'made with the image of restore time');
    restoredServe(loop);
    for (let i = 0; i < 3; i++) await loop.step();
    t.same(loop.pods(), restored, 'the restored members stay');
    t.same(loop.s().members, { ready: restored, unready: [] }, 'the restored members serve');

    // metaops upgraded; the old tag is gone from the registry.
    loop.image = 'metaops:v2';
    const before = structuredClone(loop.children.filter((c) => c.kind === 'Pod'));
    await loop.step();
    t.same(
      loop.children.filter((c) => c.kind === 'Pod'),
      before,
      'running restored members are answered as they were made: none restarted for a new metaops image',
    );

    // e-4's sandbox is recreated on a node that no longer has the old image.
    loop.podStatus.set('e-4', STEPS_WAIT_FOR_IMAGE);
    loop.etcd.up.delete('e-4');
    await loop.step();
    t.same(loop.pods(), restored, 'the same members: e-4 is not replaced');
    t.match(
      stepImages(pod(loop, 'e-4')),
      { 'check-dns': 'busybox:1.28.0-glibc', 'fetch-snapshot': 'metaops:v2', 'place-snapshot': 'metaops:v2' },
      "e-4's operator steps take the current image",
    );
    t.equal(
      stepImages(pod(loop, 'e-4'))['restore-snapshot'],
      stepImages(before.find((p) => p.metadata.name === 'e-4'))['restore-snapshot'],
      'its etcd step is left as it was',
    );
    for (const other of ['e-3', 'e-5'])
      t.equal(stepImages(pod(loop, other))['fetch-snapshot'], 'metaops:test', `${other}, running, is left as it was`);
    t.same(loop.etcd.calls, [], 'no membership change');

    // Its steps run on the new image and the member is back: nothing changes any more.
    loop.podStatus.delete('e-4');
    loop.etcd.up.add('e-4');
    const settled = structuredClone(loop.children.filter((c) => c.kind === 'Pod'));
    await loop.step();
    t.same(
      loop.children.filter((c) => c.kind === 'Pod'),
      settled,
      'quiet at rest',
    );
  },
);

t.test('restored members made after a metaops upgrade run its current image in their restore steps', async (t) => {
  const loop = await running({ size: 3 });
  loop.image = 'metaops:v2';
  await restoreStarted(loop);
  for (const name of loop.pods())
    t.match(stepImages(pod(loop, name)), { 'fetch-snapshot': 'metaops:v2', 'place-snapshot': 'metaops:v2' }, name);
});

t.test(
  'every restored member stuck on the old image at once (a one-node cluster rebooted): all take the current one',
  async (t) => {
    const loop = await running({ size: 3 });
    await restoreStarted(loop);
    restoredServe(loop);
    for (let i = 0; i < 3; i++) await loop.step();
    const restored = loop.pods();
    loop.image = 'metaops:v2';
    // No member answers: etcd is silent (quorum lost while they all wait).
    for (const p of restored) {
      loop.podStatus.set(p, STEPS_WAIT_FOR_IMAGE);
      loop.etcd.up.delete(p);
    }
    await loop.step();
    t.same(loop.pods(), restored, 'the same members');
    for (const name of restored)
      t.match(stepImages(pod(loop, name)), { 'fetch-snapshot': 'metaops:v2', 'place-snapshot': 'metaops:v2' }, name);
    t.same(loop.etcd.calls, [], 'no membership change');
  },
);
