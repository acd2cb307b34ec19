// Only pods that can take the container (issue 32): a pod that already has a regular container named as a
// tool's ephemeral container (`debug-<tool>`: a tool `shell` and a pod with a `debug-shell` sidecar). The API server
// refuses such a PATCH (422 Invalid: container names are unique across containers, init and ephemeral containers);
// retrying would PATCH it every RETRY_SECONDS.failure for as long as the pod lives. The pod is skipped and reported
// (ContainerNameTaken, as TargetContainerMissing is), with no PATCH at all.
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, injectAndApply, pod, tool } from '../fixtures/pbt.js';

t.test('a pod whose regular container already has the tool container name: no PATCH loop', async (t) => {
  const api = new FakeApi();
  api.put(tool('shell', { selector: { matchLabels: { app: 'web' } }, image: 'busybox' }));
  api.put(
    pod(
      'web-1',
      { app: 'web' },
      {
        containers: [
          { name: 'app', image: 'nginx' },
          { name: 'debug-shell', image: 'alpine' },
        ],
      },
    ),
  );
  // What the API server says to an ephemeral container whose name a container of the pod already has.
  api.failPatch = new KubeError(422, 'spec.ephemeralContainers[0].name: Duplicate value: "debug-shell"', 'Invalid');
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await injectAndApply(api, ['dbg', 'web-1']));
  t.equal(api.patches.length, 0, `PATCHes sent: ${api.patches.length} over 5 calls`);
  t.notOk(answers.at(-1)!.resyncAfterSeconds, 'no retry scheduled for a pod that cannot take the container');
});
