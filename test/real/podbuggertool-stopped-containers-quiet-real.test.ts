// Quiet at rest (the guide: "after convergence nothing changes"), and "a pod that has the container is left alone"
// (docs/podbuggertool.md). A pod carrying the containers of two tools of its namespace, both stopped (each ran and
// exited with an error: ContainerExited, counted `failed` by each tool's status), is taken by the injector for two
// tools still wanting it: it PATCHes the container the pod carries (the real API server takes the same container
// again as a no-op: the PATCH succeeds, the resourceVersion does not move), and since two are "due", asks to be
// called again a second later, where the same happens again: a PATCH and a call every second, for as long as the
// pod lives.
import t from 'tap';
import { containerName, ephemeralContainer, parser } from '../../hooks/podbuggertool/match.js';
import type { KubeApi } from '../../lib/kube.js';
import { startApiServer } from '../fixtures/apiserver.js';
import { FakeApi, inject, tool } from '../fixtures/pbt.js';

const api = startApiServer(t, 'pbt-stopped', ['dbg']);

t.test('a pod whose two debug containers exited is left alone: no PATCH, no call back a second later', async (t) => {
  const spec = { label: 'app=web', image: 'busybox' };
  const parsed = parser.parse(spec);
  if (!parsed.ok) throw new Error('spec');
  api.kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-1', namespace: 'dbg', labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    }),
  );
  const real = api.kube();
  for (const name of ['a', 'b']) {
    const p = (await real.get('v1', 'pods', 'dbg', 'web-1'))!;
    await real.addEphemeralContainers('dbg', 'web-1', [ephemeralContainer(name, parsed.spec, p)], {
      uid: p.metadata.uid!,
      resourceVersion: p.metadata.resourceVersion!,
    });
  }
  // The kubelet's report: both ran and exited with an error.
  const exited = (name: string) => ({
    name: containerName(name),
    image: 'busybox',
    imageID: '',
    ready: false,
    restartCount: 0,
    state: { terminated: { exitCode: 1, reason: 'Error', startedAt: null, finishedAt: null } },
    lastState: {},
  });
  api.kubectl([
    'patch',
    'pod',
    'web-1',
    '-n',
    'dbg',
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status: { phase: 'Running', ephemeralContainerStatuses: [exited('a'), exited('b')] } }),
  ]);
  // The tools, their author and the policy: the fake's; the pod and its PATCHes: the real API server's.
  const fake = new FakeApi().put(tool('a', spec)).put(tool('b', spec));
  const patches: string[] = [];
  const kube: KubeApi = {
    get: (v, r, ns, n) => (r === 'pods' ? real.get(v, r, ns, n) : fake.get(v, r, ns, n)),
    create: fake.create.bind(fake),
    addEphemeralContainers: async (ns, pod, containers, precondition) => {
      patches.push(containers.map((c) => c['name']).join(','));
      await real.addEphemeralContainers(ns, pod, containers, precondition);
    },
  };
  const answers: unknown[] = [];
  for (let call = 0; call < 3; call++) {
    const object = (await real.get('v1', 'pods', 'dbg', 'web-1'))!;
    const request = {
      controller: {},
      object,
      attachments: {},
      related: {
        'PodBuggerTool.debug.metaops.dev/v1alpha1': Object.fromEntries(
          ['a', 'b'].map((n) => [n, fake.stored('PodBuggerTool', 'dbg', n)]),
        ),
      },
    };
    answers.push(await inject(kube as unknown as FakeApi, ['dbg', 'web-1'], {}, request as never));
  }
  t.same(patches, [], 'no PATCH of containers the pod carries');
  t.same(
    answers.map((a) => (a as { resyncAfterSeconds?: number }).resyncAfterSeconds),
    [undefined, undefined, undefined],
    `not called back every second (answers: ${JSON.stringify(answers)})`,
  );
});
