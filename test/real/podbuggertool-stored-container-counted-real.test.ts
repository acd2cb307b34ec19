// A PodBuggerTool's container counts as injected when the one on the pod is the one its spec adds (match.ts
// podState: image, command, args, env, target, securityContext compared as JSON). The pod compared is the API
// server's, which stores what it was sent as Go values: empty lists (`command: []`, `args: []`, `env: []`) and an
// empty env value (`value: ""`) are `omitempty` fields, and come back absent. A tool whose spec has any of them (the
// CRD accepts each: a templated `args: []`, an env variable set to the empty string) is counted `outdated` on every
// pod it was just added to, never `injected`: the status says "0 of N matching pods carry it; N carry it as an
// earlier spec made it ... delete those pods to have the current one", and deleting them changes nothing.
import t from 'tap';
import { ephemeralContainer, parser, podState } from '../../hooks/podbuggertool/match.js';
import { HttpKubeApi } from '../../lib/kube.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { startApiServer } from '../fixtures/apiserver.js';

const api = startApiServer(t, 'pbt-stored', ['dbg']);
const kubectl = api.kubectl;

const cases: Array<[string, Record<string, unknown>]> = [
  ['command: []', { command: [] }],
  ['args: []', { args: [] }],
  ['env: []', { env: [] }],
  ['an env variable set to the empty string', { env: [{ name: 'DEBUG', value: '' }] }],
];

t.test(
  'a container just added for a spec is counted injected for that spec, as the API server stores it',
  async (t) => {
    const kube = new HttpKubeApi(5000, {
      server: `https://127.0.0.1:${api.port()}`,
      insecure: true,
      token: 'admin-token',
    });
    let i = 0;
    for (const [what, extra] of cases) {
      const name = `web-${i++}`;
      const parsed = parser.parse({ label: 'app=web', image: 'busybox:1.36', ...extra });
      if (!parsed.ok) throw new Error(`${what}: ${JSON.stringify(parsed)}`);
      kubectl(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: 'dbg', labels: { app: 'web' } },
          spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
        }),
      );
      const before = (await kube.get('v1', 'pods', 'dbg', name)) as KubeObject;
      t.same(podState(before, 'a', parsed.spec), { state: 'pending' }, `${what}: pending before`);
      await kube.addEphemeralContainers('dbg', name, [ephemeralContainer('a', parsed.spec, before)], {
        uid: before.metadata.uid!,
        resourceVersion: before.metadata.resourceVersion!,
      });
      const after = (await kube.get('v1', 'pods', 'dbg', name)) as KubeObject;
      t.same(podState(after, 'a', parsed.spec), { state: 'injected' }, `${what}: injected once added`);
    }
  },
);
