// An admission webhook that points images at a registry mirror (Kyverno's "replace image registry", an air-gapped
// cluster's rewriter) rewrites the restore's check pod's images too, keeping their tags: `metaops:test`,
// `busybox:1.28.0-glibc` and `quay.io/coreos/etcd:v3.5.0` are observed as `mirror.example.com/...` at the same tags.
// The check pod records the images it was given (`etcd.metaops.io/check-images`): so observed, it is the check the
// restore made, and its verdict is read, not taken for a check of other images and made again until its deadline.
// One pointed at another tag is another image: not read. Each answer is fed back as the next observed state.
import t from 'tap';
import { pinAll, restoreObject, running } from '../fixtures/etcd-loop.js';

/** `image` as the webhook rewrites it: the mirror's registry, Docker Hub's `library/` spelled out; `tag` another. */
const mirrored =
  (tag?: string) =>
  (image: string): string => {
    const [first, ...rest] = image.split('/');
    const path = rest.length === 0 ? `library/${image}` : first!.includes('.') ? rest.join('/') : image;
    return `mirror.example.com/${tag ? path.replace(/:[^:/]+$/, `:${tag}`) : path}`;
  };

async function restoring(pin: (image: string) => string) {
  const loop = await running({ size: 3 });
  pinAll(loop, pin, true);
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  return loop;
}

t.test('a restore whose check pod a mirror webhook rewrote reads its passed check and goes on', async (t) => {
  const loop = await restoring(mirrored());
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
  const check = loop.observed().find((p) => p.metadata.name === 'e-restore-check') as any;
  t.match(check?.spec.initContainers[0].image, /^mirror\.example\.com\//, 'observed on the mirror');
  const phases: string[] = [];
  for (let i = 0; i < 3; i++) {
    await loop.step();
    phases.push(String(loop.s().restore?.phase));
  }
  t.not(phases[0], 'Checking', `the passed check is read at the next sync (phases ${phases.join(', ')})`);
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members are made');
});

t.test('a check pod rewritten to other tags is not read as the check of the images given', async (t) => {
  const loop = await restoring(mirrored('other'));
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' });
  for (let i = 0; i < 3; i++) await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'its verdict is not read');
  t.notOk(loop.pods().includes('e-3'), 'no restored member made');
});
