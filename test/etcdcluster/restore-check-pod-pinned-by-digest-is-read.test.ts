// An admission policy that pins images by digest rewrites every pod's images when it is created, the restore's check
// pod's too. The check pod so observed is the one the restore made: its verdict is read (a passed check drops the old
// members and the restored ones start), not taken for a check "with other arguments" and dropped, made again, dropped
// at every other sync until the check's deadline. One that records other images is not taken for the check of the
// images of the moment: it is made again. Each answer is fed back as the next observed state. Three ways of pinning:
//
// - the tag kept (Kyverno verifyImages with mutateDigest, Connaisseur, Ratify): its container `metaops:test` and its
//   steps `quay.io/coreos/etcd:v3.5.0`, `busybox:1.28.0-glibc` are observed as `...@sha256:<64 hex>`, the same images;
// - the tag taken off (Sigstore's policy-controller writes `busybox@sha256:<hex>` for `busybox:1.28.0-glibc`): the pod
//   records the images it was given (spec.pod.busyboxImage edited since it was made is another image);
// - images named without a tag (METAOPS_IMAGE `ghcr.io/example/metaops`, spec.pod.busyboxImage `busybox`: the image
//   at `latest`, as the kubelet pulls it), pinned with the tag resolved written beside the digest, `latest` included
//   (Kyverno's mutateDigest: `ghcr.io/example/metaops:latest@sha256:<hex>`): its passed check is read (lib/images.ts
//   asGiven: no tag is `latest`). One pinned at another tag is another image: not read, the check made again.
import t from 'tap';
import { DIGEST, resolvedToDigest, withDigest } from '../fixtures/etcd-loop.js';
import { passedCheckGoesOn, restoringPinned } from '../fixtures/restore-steps.js';

/** `image` pinned by digest with the tag it resolved to written out (`latest` for an image given without a tag). */
const atTagAndDigest = (tag: string) => (image: string) =>
  /:[^:/@]+$/.test(image) ? `${image}@sha256:${DIGEST}` : `${image}:${tag}@sha256:${DIGEST}`;

t.test('a restore whose check pod is pinned by digest reads its check and goes on', async (t) => {
  const loop = await restoringPinned(withDigest);
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
  t.ok(loop.checkPod(), 'the check pod answered');
  await passedCheckGoesOn(t, loop);
});

t.test('a check pod pinned by digest without its tags reads its passed check and goes on', async (t) => {
  const loop = await restoringPinned(resolvedToDigest);
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
  t.ok(loop.checkPod(), 'the check pod answered');
  await passedCheckGoesOn(t, loop);
});

t.test('a check pod pinned without its tags, made for another busybox image, is made again', async (t) => {
  const loop = await restoringPinned(resolvedToDigest, { pod: { busyboxImage: 'busybox:1.36' } });
  loop.check = 'running';
  await loop.step();
  const made = loop.checkPod() as any;
  t.equal(made?.spec.initContainers[0].image, 'busybox:1.36', 'the check pod starts busybox:1.36');
  // The busybox image edited while the check runs: the pod observed (busybox@sha256:...) proves another image.
  loop.spec = { ...loop.spec, pod: { busyboxImage: 'busybox:1.37' } };
  loop.check = { succeeded: true };
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'its verdict is not read for busybox:1.37');
  t.notOk(loop.pods().includes('e-3'), 'no restored member made');
});

t.test('a check pod of untagged images pinned at latest reads its passed check and goes on', async (t) => {
  const untagged = { pod: { busyboxImage: 'busybox' }, image: 'ghcr.io/example/metaops' };
  const loop = await restoringPinned(atTagAndDigest('latest'), untagged);
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
  const made = loop.checkPod() as any;
  t.equal(made?.spec.containers[0].image, 'ghcr.io/example/metaops', 'the check is made on the image given');
  await passedCheckGoesOn(t, loop);
});

t.test('a check pod of untagged images pinned at another tag is another check', async (t) => {
  const untagged = { pod: { busyboxImage: 'busybox' }, image: 'ghcr.io/example/metaops' };
  const loop = await restoringPinned(atTagAndDigest('1.36'), untagged);
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'its verdict is not read for the images given');
  t.notOk(loop.pods().includes('e-3'), 'no restored member made');
});
