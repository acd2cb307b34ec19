// PodSet pods made by a metaops from before the template hash are current when their container runs the spec's
// image and command (rollout.ts isCurrent). An admission policy that pins images by digest rewrote the image when
// each pod was made (Kyverno's mutateDigest: `busybox:1.36` held as `docker.io/library/busybox:1.36@sha256:<hex>`):
// such a pod runs the spec's image, and an upgrade of metaops replaces none of them. A pod whose tag the policy took
// off (`busybox@sha256:<hex>`) names no version and carries no record of one: it is not known to be current.
import t from 'tap';
import { isCurrent } from '../../hooks/podset/rollout.js';
import type { KubeObject } from '../../lib/index.js';

const HEX = `ab${'12'.repeat(31)}`;
const spec = { image: 'busybox:1.36', command: ['sleep', '3600'] };
const legacy = (img: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'podset-sample-0', namespace: 'default', labels: { app: 'podset-sample' } },
  spec: { containers: [{ name: 'busybox', image: img, command: ['sleep', '3600'] }] },
});

t.test('a pod from before the hash pinned by digest runs the spec image', async (t) => {
  t.ok(isCurrent(legacy(`docker.io/library/busybox:1.36@sha256:${HEX}`), 'abc', spec), 'the tag kept');
  t.ok(isCurrent(legacy('docker.io/library/busybox:1.36'), 'abc', spec), 'the registry spelled out');
  t.notOk(isCurrent(legacy(`docker.io/library/busybox:1.35@sha256:${HEX}`), 'abc', spec), 'another tag');
  t.notOk(isCurrent(legacy(`busybox@sha256:${HEX}`), 'abc', spec), 'the tag taken off: not known');
});

t.test('a pod from before the hash of an untagged image, pinned at latest, runs the spec image', async (t) => {
  // `busybox` is the image at `latest`: a policy that writes the tag it resolved beside the digest spells it out.
  const untagged = { image: 'busybox', command: ['sleep', '3600'] };
  t.ok(isCurrent(legacy(`docker.io/library/busybox:latest@sha256:${HEX}`), 'abc', untagged), 'latest spelled out');
  t.ok(isCurrent(legacy('busybox:latest'), 'abc', untagged), 'latest, no digest');
  t.notOk(isCurrent(legacy(`docker.io/library/busybox:1.36@sha256:${HEX}`), 'abc', untagged), 'another tag');
});
