// A pod whose own securityContext says runAsNonRoot (and names no user) cannot run a debug container whose user is
// not known to be non-root, whatever the tool's profile: an ephemeral container inherits the pod's securityContext,
// runAsNonRoot included, and the kubelet refuses to start an image whose user is root (busybox's) under it
// (CreateContainerConfigError, "container has runAsNonRoot and image will run as root"). The restricted profile's
// runAsNonRoot is already skipped up front (RunsAsRoot); the pod's own is the same refusal, and an ephemeral
// container once added can be neither removed nor replaced: the pod must be skipped, with that reason, not patched.
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { podState, wantsContainer } from '../../hooks/podbuggertool/match.js';
import { toolSpec } from '../fixtures/pbt.js';

const pod = (securityContext: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', uid: 'u1', labels: { app: 'web' } },
    spec: { securityContext, containers: [{ name: 'app', image: 'nginx' }] },
    status: { phase: 'Running' },
  }) as KubeObject;

for (const profile of ['baseline', 'general', 'netadmin'] as const) {
  t.test(
    `${profile}: a pod that runs as non-root with no user named is skipped (RunsAsRoot), not patched`,
    async (t) => {
      const nonRoot = pod({ runAsNonRoot: true });
      const s = toolSpec({ securityProfile: profile });
      t.same(podState(nonRoot, 'dbg', s), { state: 'skipped', reason: 'RunsAsRoot' });
      t.equal(wantsContainer(nonRoot, 'dbg', s), false, 'no PATCH is sent for it');
    },
  );
}

t.test('the same pod with a user named by the pod or the tool still takes the container', async (t) => {
  t.same(podState(pod({ runAsNonRoot: true, runAsUser: 1000 }), 'dbg', toolSpec({})), { state: 'pending' });
  t.same(podState(pod({ runAsNonRoot: true }), 'dbg', toolSpec({ runAsUser: 1000 })), { state: 'pending' });
  t.same(podState(pod({}), 'dbg', toolSpec({})), { state: 'pending' }, 'a pod that does not ask for non-root');
});
