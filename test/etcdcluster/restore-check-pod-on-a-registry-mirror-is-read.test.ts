// An admission webhook that points images at a registry mirror (Kyverno's "replace image registry", an air-gapped
// cluster's rewriter) rewrites the restore's check pod's images too, keeping their tags: `metaops:test`,
// `busybox:1.28.0-glibc` and `quay.io/coreos/etcd:v3.5.0` are observed as `mirror.example.com/...` at the same tags.
// The check pod records the images it was given (`etcd.metaops.io/check-images`): so observed, it is the check the
// restore made, and its verdict is read, not taken for a check of other images and made again until its deadline.
// One pointed at another tag is another image: not read. Each answer is fed back as the next observed state.
import t from 'tap';
import { passedCheckGoesOn, restoringPinned } from '../fixtures/restore-steps.js';

/** `image` as the webhook rewrites it: the mirror's registry, Docker Hub's `library/` spelled out; `tag` another. */
const mirrored =
  (tag?: string) =>
  (image: string): string => {
    const [first, ...rest] = image.split('/');
    const path = rest.length === 0 ? `library/${image}` : first!.includes('.') ? rest.join('/') : image;
    return `mirror.example.com/${tag ? path.replace(/:[^:/]+$/, `:${tag}`) : path}`;
  };

t.test('a restore whose check pod a mirror webhook rewrote reads its passed check and goes on', async (t) => {
  const loop = await restoringPinned(mirrored());
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
  const check = loop.observed().find((p) => p.metadata.name === 'e-restore-check') as any;
  t.match(check?.spec.initContainers[0].image, /^mirror\.example\.com\//, 'observed on the mirror');
  await passedCheckGoesOn(t, loop);
});

t.test('a check pod rewritten to other tags is not read as the check of the images given', async (t) => {
  const loop = await restoringPinned(mirrored('other'));
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' });
  for (let i = 0; i < 3; i++) await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'its verdict is not read');
  t.notOk(loop.pods().includes('e-3'), 'no restored member made');
});
