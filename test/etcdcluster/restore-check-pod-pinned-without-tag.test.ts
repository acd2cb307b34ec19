// A restore's check pod whose images an admission policy resolved to digests and whose tags it took off (Sigstore's
// policy-controller writes `busybox@sha256:<hex>` for `busybox:1.28.0-glibc`) is the one the restore made: the pod
// records the images it was given, so its passed check is read and the restore goes on. One that records other
// images (spec.pod.busyboxImage edited since it was made) is not taken for the check of the images of the moment: it
// is made again. Each answer is fed back as the next observed state.
import t from 'tap';
import { pinAll, resolvedToDigest, restoreObject, running } from '../fixtures/etcd-loop.js';

t.test('a check pod pinned by digest without its tags reads its passed check and goes on', async (t) => {
  const loop = await running({ size: 3 });
  pinAll(loop, resolvedToDigest, true);
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
  t.ok(loop.checkPod(), 'the check pod answered');
  await loop.step();
  t.not(loop.s().restore?.phase, 'Checking', 'the passed check is read at the next sync');
  await loop.step();
  await loop.step();
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members are made');
});

t.test('a check pod pinned without its tags, made for another busybox image, is made again', async (t) => {
  const loop = await running({ size: 3, pod: { busyboxImage: 'busybox:1.36' } });
  pinAll(loop, resolvedToDigest, true);
  loop.check = 'running';
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
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
