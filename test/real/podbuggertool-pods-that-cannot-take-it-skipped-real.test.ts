// "Only pods that can take the container: skip (and report)" (issue 32). Pods the API server refuses any ephemeral
// container, or the container a profile makes, are the tool's failures now, retried every hour. A static pod's
// mirror (the API server's copy of a pod a kubelet runs from a file, annotated kubernetes.io/config.mirror) cannot
// take an ephemeral container: the API server refuses the PATCH. A tool that selects one (`component=etcd`,
// `tier=control-plane`, a node agent run as a static pod) sends that PATCH, records the refusal as the tool's
// failure, retries it every hour for as long as the pod exists, and keeps the tool Ready=False, InjectionFailed: a
// pod it should have skipped, with a reason.
import t from 'tap';
import { ephemeralContainer, parser, podState } from '../../hooks/podbuggertool/match.js';
import { KubeError } from '../../lib/kube.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { startApiServer } from '../fixtures/apiserver.js';

const api = startApiServer(t, 'b-pbt-mirror', ['dbg']);

t.test('a mirror pod, which the API server refuses a container, is skipped, not tried', async (t) => {
  const kube = api.kube();
  api.kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'agent-node1',
        namespace: 'dbg',
        labels: { app: 'agent' },
        annotations: { 'kubernetes.io/config.mirror': 'abc', 'kubernetes.io/config.source': 'file' },
      },
      spec: { nodeName: 'node1', containers: [{ name: 'app', image: 'nginx:1.27' }] },
    }),
  );
  const parsed = parser.parse({ label: 'app=agent', image: 'busybox:1.36' });
  if (!parsed.ok) throw new Error('spec');
  const mirror = (await kube.get('v1', 'pods', 'dbg', 'agent-node1')) as KubeObject;
  const refused = await kube
    .addEphemeralContainers('dbg', 'agent-node1', [ephemeralContainer('a', parsed.spec, mirror)], {
      uid: mirror.metadata.uid!,
      resourceVersion: mirror.metadata.resourceVersion!,
    })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  t.comment(`the API server: ${refused instanceof KubeError ? refused.message : 'took it'}`);
  const state = podState(mirror, 'a', parsed.spec);
  t.ok(
    refused === undefined || state.state === 'skipped',
    `the API server ${refused === undefined ? 'takes' : 'refuses'} the container; the pod is ${JSON.stringify(state)}`,
  );
});

// A Windows pod (spec.os.name: windows) takes no container with a Linux securityContext: the API server refuses the
// capabilities of general and netadmin, the seccomp profile and capabilities of restricted, and runAsUser. A tool of
// any profile but a plain baseline that selects a Windows pod fails on it every hour, as the tool's failure.
t.test('a Windows pod, which the API server refuses a Linux securityContext, is skipped, not tried', async (t) => {
  const kube = api.kube();
  let i = 0;
  for (const extra of [
    { securityProfile: 'restricted', runAsUser: 1000 },
    { securityProfile: 'general' },
    { securityProfile: 'netadmin' },
    { securityProfile: 'baseline', runAsUser: 1000 },
    { securityProfile: 'sysadmin' },
  ]) {
    const name = `win-${i++}`;
    api.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'dbg', labels: { app: 'win' } },
        spec: {
          os: { name: 'windows' },
          containers: [{ name: 'app', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' }],
        },
      }),
    );
    const parsed = parser.parse({ label: 'app=win', image: 'busybox:1.36', ...extra });
    if (!parsed.ok) throw new Error('spec');
    const win = (await kube.get('v1', 'pods', 'dbg', name)) as KubeObject;
    const refused = await kube
      .addEphemeralContainers('dbg', name, [ephemeralContainer('a', parsed.spec, win)], {
        uid: win.metadata.uid!,
        resourceVersion: win.metadata.resourceVersion!,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const state = podState(win, 'a', parsed.spec);
    t.ok(
      refused === undefined || state.state === 'skipped',
      `${JSON.stringify(extra)}: the API server ${refused instanceof KubeError ? `refuses the container (${refused.status} ${refused.reason})` : 'takes it'}; the pod is ${JSON.stringify(state)}`,
    );
  }
});

// The neighbour that must not be skipped: a plain baseline container (no securityContext) on a Windows pod is taken by
// the API server, so the pod is not skipped for it (pending: the injector tries it).
t.test('a Windows pod takes a baseline container without a securityContext: not skipped', async (t) => {
  const kube = api.kube();
  api.kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'win-plain', namespace: 'dbg', labels: { app: 'win' } },
      spec: {
        os: { name: 'windows' },
        containers: [{ name: 'app', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' }],
      },
    }),
  );
  const parsed = parser.parse({ label: 'app=win', image: 'busybox:1.36' });
  if (!parsed.ok) throw new Error('spec');
  const win = (await kube.get('v1', 'pods', 'dbg', 'win-plain')) as KubeObject;
  t.same(podState(win, 'a', parsed.spec), { state: 'pending' }, 'pending: the injector tries it');
  await kube.addEphemeralContainers('dbg', 'win-plain', [ephemeralContainer('a', parsed.spec, win)], {
    uid: win.metadata.uid!,
    resourceVersion: win.metadata.resourceVersion!,
  });
  const after = (await kube.get('v1', 'pods', 'dbg', 'win-plain')) as KubeObject;
  t.same(podState(after, 'a', parsed.spec), { state: 'injected' }, 'the API server took it');
});
