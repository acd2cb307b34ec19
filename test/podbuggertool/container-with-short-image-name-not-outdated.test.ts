// The container a tool adds names its image fully (`docker.io/library/busybox:1.36` for `busybox:1.36`: the image
// the allowlist allowed). Containers added before it did carry the image as the tool wrote it (`busybox:1.36`): they
// are the same image, so the same container, injected and not outdated (an ephemeral container cannot be replaced:
// an outdated one only says "delete those pods"). The image is compared as the runtime resolves it, and so is the
// tag pinned by a digest that admission added (`busybox:1.36@sha256:...`: Kyverno's mutateDigest pins the image the
// tag named, as far as the tool's author can tell the same image); an image without a tag is the one at `latest`, as
// the allowlist and the kubelet read it. Nothing else compares equal: another tag, another
// registry or repository, a tag taken off for a digest, another digest than the one a tool pinned.
import t from 'tap';
import { containerDiffers, ephemeralContainer, podState } from '../../hooks/podbuggertool/match.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { FakeApi, pod, statusAndApply, tool, toolSpec } from '../fixtures/pbt.js';

const carrying = (image: string): KubeObject =>
  pod(
    'p',
    { app: 'web' },
    { ephemeralContainers: [{ ...ephemeralContainer('a', toolSpec({ image: 'busybox' }), pod('p', {})), image }] },
  );

t.test('a container added with the image as the tool wrote it is the one the tool adds', async (t) => {
  for (const [written, stored] of [
    ['busybox:1.36', 'busybox:1.36'],
    ['busybox:1.36', 'library/busybox:1.36'],
    ['busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['busybox:1.36', 'index.docker.io/library/busybox:1.36'],
    ['busybox', 'busybox'],
    ['docker.io/library/busybox', 'busybox'],
    ['busybox', 'busybox:latest'],
    ['busybox', `docker.io/library/busybox:latest@sha256:${'a'.repeat(64)}`],
    ['ghcr.io/org/debug:1', 'ghcr.io/org/debug:1'],
    ['busybox:1.36', `busybox:1.36@sha256:${'a'.repeat(64)}`],
    ['busybox:1.36', `docker.io/library/busybox:1.36@sha256:${'a'.repeat(64)}`],
    [`busybox:1.36@sha256:${'a'.repeat(64)}`, `busybox:1.36@sha256:${'a'.repeat(64)}`],
    [`busybox@sha256:${'a'.repeat(64)}`, `busybox@sha256:${'a'.repeat(64)}`],
  ] as const) {
    t.same(
      podState(carrying(stored), 'a', toolSpec({ image: written })),
      { state: 'injected' },
      `${stored} for ${written}`,
    );
  }
});

t.test('another image is still another image: outdated', async (t) => {
  for (const [written, stored] of [
    ['busybox:1.36', 'busybox:1.35'],
    ['busybox:1.36', 'busybox'],
    ['busybox:1.36', 'quay.io/busybox:1.36'],
    ['busybox:1.36', `busybox:1.35@sha256:${'a'.repeat(64)}`],
    ['busybox:1.36', `quay.io/busybox:1.36@sha256:${'a'.repeat(64)}`],
    ['busybox:1.36', `library/other:1.36@sha256:${'a'.repeat(64)}`],
    ['busybox:1.36', `busybox@sha256:${'a'.repeat(64)}`],
    ['busybox', `busybox@sha256:${'a'.repeat(64)}`],
    [`busybox:1.36@sha256:${'a'.repeat(64)}`, `busybox:1.36@sha256:${'b'.repeat(64)}`],
    [`busybox:1.36@sha256:${'a'.repeat(64)}`, 'busybox:1.36'],
    ['busybox:1.36', 'not a reference'],
  ] as const) {
    t.match(
      podState(carrying(stored), 'a', toolSpec({ image: written })),
      { state: 'outdated', image: stored, differs: ['image'] },
      `${stored} for ${written}`,
    );
  }
  t.same(containerDiffers({ image: 'Busybox' }, { image: 'busybox' }), ['image'], 'not a reference: as text');
});

t.test("a tool's status counts a pod with the short name injected", async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox:1.36' }))
    .put(pod('old', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox:1.36' }] }))
    .put(pod('other', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox:1.35' }] }));
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.match(res.status, { matched: 2, injected: 1, outdated: 1 });
});
