// A restore's check pod runs this project's image (METAOPS_IMAGE) and spec.pod.busyboxImage, either of which may be
// named without a tag (`ghcr.io/example/metaops`, `busybox`: the image at `latest`, as the kubelet pulls it). An
// admission policy that pins images by digest writes the tag it resolved beside the digest, `latest` included
// (Kyverno's mutateDigest: `ghcr.io/example/metaops:latest@sha256:<hex>`): the check pod so observed is the one the
// restore made, and its passed check is read (lib/images.ts asGiven: no tag is `latest`). One pinned at another tag
// is another image: not read, the check made again. Each answer is fed back as the next observed state.
import t from 'tap';
import { DIGEST, pinAll, restoreObject, running } from '../fixtures/etcd-loop.js';

/** `image` pinned by digest with the tag it resolved to written out (`latest` for an image given without a tag). */
const atTagAndDigest = (tag: string) => (image: string) =>
  /:[^:/@]+$/.test(image) ? `${image}@sha256:${DIGEST}` : `${image}:${tag}@sha256:${DIGEST}`;

t.test('a check pod of untagged images pinned at latest reads its passed check and goes on', async (t) => {
  const loop = await running({ size: 3, pod: { busyboxImage: 'busybox' } });
  loop.image = 'ghcr.io/example/metaops';
  pinAll(loop, atTagAndDigest('latest'), true);
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
  const made = loop.checkPod() as any;
  t.equal(made?.spec.containers[0].image, 'ghcr.io/example/metaops', 'the check is made on the image given');
  await loop.step();
  t.not(loop.s().restore?.phase, 'Checking', 'the passed check is read at the next sync');
  await loop.step();
  await loop.step();
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members are made');
});

t.test('a check pod of untagged images pinned at another tag is another check', async (t) => {
  const loop = await running({ size: 3, pod: { busyboxImage: 'busybox' } });
  loop.image = 'ghcr.io/example/metaops';
  pinAll(loop, atTagAndDigest('1.36'), true);
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'its verdict is not read for the images given');
  t.notOk(loop.pods().includes('e-3'), 'no restored member made');
});
