// The allowlist decides on the image as the hook resolves it (match.ts parseImage: a reference without a registry is
// Docker Hub's, `busybox` is docker.io/library/busybox). The container runtime must then pull that very image: the
// container the hook adds names it fully (registry and repository), not as the tool wrote it. A short name is
// resolved by the node, not by the hook: CRI-O and Podman (containers-registries.conf `unqualified-search-registries`,
// e.g. registry.fedoraproject.org, quay.io, docker.io, tried in order) would pull `busybox` from the first registry
// that has it (quay.io/busybox: any Quay user's), an image the allowlist entry `busybox` never allowed.
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { DEFAULT_POLICY, ephemeralContainer, imageAllowed, parser } from '../../hooks/podbuggertool/match.js';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
} as KubeObject;

const spec = (image: string) => {
  const parsed = parser.parse({ label: 'app=web', image });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.spec;
};

for (const [written, resolved] of [
  ['busybox', 'docker.io/library/busybox'],
  ['busybox:1.36', 'docker.io/library/busybox:1.36'],
  ['library/busybox:1.36', 'docker.io/library/busybox:1.36'],
] as const) {
  t.test(`${written}: the container names the image the allowlist allowed (${resolved})`, async (t) => {
    t.ok(imageAllowed(written, DEFAULT_POLICY.allowlist), 'allowed by the default allowlist');
    t.equal(ephemeralContainer('dbg', spec(written), pod)['image'], resolved);
  });
}
