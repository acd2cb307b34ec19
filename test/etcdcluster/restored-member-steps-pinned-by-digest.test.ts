// A restored member's restore steps run again whenever its sandbox is recreated; one waiting for its image takes the
// image of the moment (restored-member-steps-take-current-image.test.ts). Under an admission policy that pins images
// by digest (Kyverno's mutateDigest: `metaops:test` is held as `docker.io/library/metaops:test@sha256:<hex>`), a step
// on the pinned image of the moment is on that image: a pod whose steps wait for it (a registry briefly down) is
// answered as it is, not given the same image again at every sync (which the policy pins again). A step on an older
// image still takes the current one. Each answer is fed back as the next observed state.
import t from 'tap';
import {
  answeredPod as pod,
  DIGEST,
  pinAll,
  restoredServe,
  restoreStarted,
  running,
  stepImages,
  STEPS_WAIT_FOR_IMAGE,
  type Loop,
} from '../fixtures/etcd-loop.js';

/** `image` as Kyverno's mutateDigest holds it: a Docker Hub image's name in full, at a digest. */
const pinnedInFull = (image: string) =>
  `${image.split('/')[0]!.includes('.') ? '' : 'docker.io/library/'}${image}@sha256:${DIGEST}`;

async function restoredAndPinned(): Promise<Loop> {
  const loop = await running({ size: 3 });
  pinAll(loop, pinnedInFull, true);
  await restoreStarted(loop);
  restoredServe(loop);
  for (let i = 0; i < 3; i++) await loop.step();
  return loop;
}

t.test('restore steps pinned to the image of the moment, waiting for it, are answered as they are', async (t) => {
  const loop = await restoredAndPinned();
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members');
  loop.podStatus.set('e-4', STEPS_WAIT_FOR_IMAGE);
  loop.etcd.up.delete('e-4');
  const pinned = stepImages(loop.observed().find((o) => o.metadata.name === 'e-4'));
  t.match(pinned, { 'fetch-snapshot': `docker.io/library/metaops:test@sha256:${DIGEST}` }, 'observed pinned');
  for (let i = 0; i < 2; i++) {
    await loop.step();
    t.same(stepImages(pod(loop, 'e-4')), pinned, `sync ${i}: its steps answered as observed`);
  }
  t.same(loop.etcd.calls, [], 'no membership change');
});

t.test('restore steps pinned to an older metaops image, waiting for it, take the current one', async (t) => {
  const loop = await restoredAndPinned();
  loop.image = 'metaops:v2';
  loop.podStatus.set('e-4', STEPS_WAIT_FOR_IMAGE);
  loop.etcd.up.delete('e-4');
  await loop.step();
  t.match(
    stepImages(pod(loop, 'e-4')),
    { 'fetch-snapshot': 'metaops:v2', 'place-snapshot': 'metaops:v2' },
    "e-4's operator steps take the current image",
  );
});
