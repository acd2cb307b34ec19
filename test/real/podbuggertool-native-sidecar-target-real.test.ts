// `targetContainerName` shares a container's process namespace (kubectl debug --target). The API server takes any
// container of the pod as the target, init containers included, and so native sidecars (init containers with
// `restartPolicy: Always`, the way Istio and others run their proxies now), which run beside the app for the pod's
// whole life and are what one most often wants to debug. The hook takes only `spec.containers`: a tool aimed at a
// sidecar skips every pod as TargetContainerMissing ("spec.targetContainerName is not a container of ..."), which is
// not so, and adds nothing.
import t from 'tap';
import { ephemeralContainer, parser, podState } from '../../hooks/podbuggertool/match.js';
import { HttpKubeApi } from '../../lib/kube.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { startApiServer } from '../fixtures/apiserver.js';

const api = startApiServer(t, 'pbt-sidecar', ['dbg']);
const kubectl = api.kubectl;

t.test('a native sidecar is a target: the API server takes it, and the hook does not skip the pod', async (t) => {
  const kube = new HttpKubeApi(5000, {
    server: `https://127.0.0.1:${api.port()}`,
    insecure: true,
    token: 'admin-token',
  });
  kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'meshed', namespace: 'dbg', labels: { app: 'web' } },
      spec: {
        initContainers: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.31.0', restartPolicy: 'Always' }],
        containers: [{ name: 'app', image: 'nginx:1.27' }],
      },
    }),
  );
  const parsed = parser.parse({ label: 'app=web', image: 'busybox:1.36', targetContainerName: 'proxy' });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed));
  const before = (await kube.get('v1', 'pods', 'dbg', 'meshed')) as KubeObject;
  t.same(
    podState(before, 'a', parsed.spec),
    { state: 'pending' },
    'the pod can take the container: pending, not skipped',
  );
  // What the API server takes: the container the hook adds, aimed at the sidecar.
  const container = ephemeralContainer('a', parsed.spec, before);
  t.equal(container['targetContainerName'], 'proxy', 'the hook aims it at the sidecar');
  await kube.addEphemeralContainers('dbg', 'meshed', [container], {
    uid: before.metadata.uid!,
    resourceVersion: before.metadata.resourceVersion!,
  });
  const after = (await kube.get('v1', 'pods', 'dbg', 'meshed')) as any;
  t.equal(after.spec.ephemeralContainers[0].targetContainerName, 'proxy', 'the API server took the sidecar as target');
  t.same(podState(after, 'a', parsed.spec), { state: 'injected' }, 'and the hook counts it injected, as stored');
});
