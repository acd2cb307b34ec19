// The allowlist decides on the image as the hook resolves it (match.ts parseImage: a reference without a registry is
// Docker Hub's, `busybox` is docker.io/library/busybox). The container runtime must then pull that very image: the
// container the hook adds names it fully (registry and repository), not as the tool wrote it. A short name is
// resolved by the node, not by the hook: CRI-O and Podman (containers-registries.conf `unqualified-search-registries`,
// e.g. registry.fedoraproject.org, quay.io, docker.io, tried in order) would pull `busybox` from the first registry
// that has it (quay.io/busybox: any Quay user's), an image the allowlist entry `busybox` never allowed.
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { DEFAULT_POLICY, ephemeralContainer, imageAllowed } from '../../hooks/podbuggertool/match.js';
import { toolSpec } from '../fixtures/pbt.js';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
} as KubeObject;

for (const [written, resolved] of [
  ['busybox', 'docker.io/library/busybox'],
  ['busybox:1.36', 'docker.io/library/busybox:1.36'],
  ['library/busybox:1.36', 'docker.io/library/busybox:1.36'],
] as const) {
  t.test(`${written}: the container names the image the allowlist allowed (${resolved})`, async (t) => {
    t.ok(imageAllowed(written, DEFAULT_POLICY.allowlist), 'allowed by the default allowlist');
    t.equal(ephemeralContainer('dbg', toolSpec({ image: written }), pod)['image'], resolved);
  });
}

// A registry host of one label in capitals (`Registry/tool`: a host to the kubelet's grammar, lib/images.ts) is that
// host, allowed by an entry naming it, and the container names it as a host still: written in lower case,
// `registry/tool` would be Docker Hub's registry/tool, an image no entry allowed.
t.test('Registry/tool: allowed by Registry/*, never by Docker Hub entries, sent as a host', async (t) => {
  t.ok(imageAllowed('Registry/tool:1', ['Registry/*']), 'the host entry allows it');
  t.ok(imageAllowed('Registry/tool:1', ['Registry/tool:1']));
  t.notOk(imageAllowed('Registry/tool:1', ['registry/*']), "Docker Hub's registry/* is another place");
  t.notOk(imageAllowed('registry/tool:1', ['Registry/*']), "Docker Hub's registry/tool is not host Registry's");
  t.notOk(imageAllowed('Registry/tool:1', ['docker.io/*']));
  t.equal(ephemeralContainer('dbg', toolSpec({ image: 'Registry/tool:1' }), pod)['image'], 'Registry/tool:1');
});
