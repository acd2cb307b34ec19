// A tool may name its image without a tag (`image: busybox`, which the default allowlist `busybox` allows): the
// injector sends `docker.io/library/busybox`, the image at `latest` (the allowlist reads it so: "an image without a
// tag is `:latest`", and so does the kubelet). Kyverno's verifyImages with `mutateDigest` writes the tag it resolved
// beside the digest it pins, `latest` included (`docker.io/library/busybox:latest@sha256:<hex>`, as it writes
// `docker.io/nginx:latest@sha256:...` for `nginx`), and older Kyverno releases and "add a tag" policies spell out
// `:latest`. The container stored is then the one the tool's spec added, at the tag the spec names: counted injected,
// as a tagged image pinned the same way is (container-changed-by-admission-counted-injected.test.ts), not `outdated`
// for ever ("delete those pods to have the current one": a pod made again gets the same pinned container).
import t from 'tap';
import { admitting, injectAll, pod, statusAndApply, tool } from '../fixtures/pbt.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

/** The API server with a mutating admission that rewrites each ephemeral container's image as it is added. */
const admitted = (image: (given: string) => string) =>
  admitting((c) => {
    c['image'] = image(c['image'] as string);
  });

for (const [how, image] of [
  ['pinned by digest with its tag spelled out (Kyverno mutateDigest)', (given: string) => `${given}:latest@${DIGEST}`],
  ['with its tag spelled out', (given: string) => `${given}:latest`],
] as const) {
  t.test(`a debug container of an untagged image, ${how}, is counted injected`, async (t) => {
    const api = admitted(image)
      .put(tool('a', { label: 'app=web', image: 'busybox' }))
      .put(pod('web-1', { app: 'web' }))
      .put(pod('web-2', { app: 'web' }));
    await injectAll(api, 'dbg');
    t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a'], 'the injector added it');
    t.equal(api.stored('Pod', 'dbg', 'web-1').spec.ephemeralContainers[0].image, image('docker.io/library/busybox'));
    const res = await statusAndApply(api, ['dbg', 'a']);
    t.match(res.status, { matched: 2, injected: 2, outdated: 0 });
    t.match(
      (res.status as any).conditions.find((c: any) => c.type === 'Ready'),
      { status: 'True', reason: 'Injected' },
    );
  });
}

t.test('another tag pinned for an untagged image stays another image', async (t) => {
  const api = admitted((given) => `${given}:1.36@${DIGEST}`)
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('web-1', { app: 'web' }));
  await injectAll(api, 'dbg');
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.match(res.status, { matched: 1, injected: 0, outdated: 1 });
});
