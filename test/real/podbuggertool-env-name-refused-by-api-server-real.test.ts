// A PodBuggerTool's `env` names are checked by the CRD for length only (1 to 256 characters). The API server refuses
// a container whose environment variable name has `=` in it, or a character that is not printable ASCII (Kubernetes
// 1.34 and later; a C identifier before): such a tool is accepted, counted, and its container is refused (422
// Invalid) on every pod it selects, once an hour each, for as long as it exists; its status says "could not be
// added ... Invalid" pod by pod, and nothing says which field is wrong. "Clear errors" (GUIDE), and a spec refused
// as InvalidSpec naming the field, as the other bounds are (docs/podbuggertool.md, Bounds).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ephemeralContainer, parser } from '../../hooks/podbuggertool/match.js';
import { KubeError } from '../../lib/kube.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { startApiServer } from '../fixtures/apiserver.js';
import { root } from '../fixtures/requests.js';

const api = startApiServer(t, 'b-pbt-env', ['dbg']);

t.test('an env name the API server refuses in a container is refused by the spec, not on every pod', async (t) => {
  api.kubectl(
    ['apply', '-f', '-'],
    readFileSync(join(root, 'manifests/crds/podbuggertools.debug.metaops.dev.yaml'), 'utf8'),
  );
  await new Promise((r) => setTimeout(r, 3000));
  const kube = api.kube();
  let i = 0;
  for (const name of ['A=B', 'DÉBUG', 'TAB\tHERE']) {
    const n = i++;
    const spec = { label: 'app=web', image: 'busybox:1.36', env: [{ name, value: '1' }] };
    let created = true;
    try {
      api.kubectl(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'debug.metaops.dev/v1alpha1',
          kind: 'PodBuggerTool',
          metadata: { name: `t${n}`, namespace: 'dbg' },
          spec,
        }),
      );
    } catch {
      created = false;
    }
    const parsed = parser.parse(spec);
    api.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `web-${n}`, namespace: 'dbg', labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      }),
    );
    const pod = (await kube.get('v1', 'pods', 'dbg', `web-${n}`)) as KubeObject;
    const refused = parsed.ok
      ? await kube
          .addEphemeralContainers('dbg', `web-${n}`, [ephemeralContainer(`t${n}`, parsed.spec, pod)], {
            uid: pod.metadata.uid!,
            resourceVersion: pod.metadata.resourceVersion!,
          })
          .then(
            () => undefined,
            (e: unknown) => e,
          )
      : undefined;
    const said = refused instanceof KubeError ? `${refused.status} ${refused.reason}` : String(refused);
    // Stricter: the spec and the CRD both refuse it, and the API server does refuse such a container (sent as the
    // injector would send it, past the spec's check), so the rule is the API server's and not a guess.
    t.notOk(created, `env name ${JSON.stringify(name)}: the CRD refuses the tool`);
    t.notOk(parsed.ok, `env name ${JSON.stringify(name)}: the spec is InvalidSpec`);
    const valid = parser.parse({ ...spec, env: [{ name: 'X', value: '1' }] });
    if (!valid.ok) throw new Error('spec');
    const container = { ...ephemeralContainer(`t${n}`, valid.spec, pod), env: [{ name, value: '1' }] };
    const direct = await kube
      .addEphemeralContainers('dbg', `web-${n}`, [container], {
        uid: pod.metadata.uid!,
        resourceVersion: pod.metadata.resourceVersion!,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    t.match(direct, { status: 422 }, `env name ${JSON.stringify(name)}: the API server refuses the container (422)`);
    t.ok(
      refused === undefined || (!created && !parsed.ok),
      `env name ${JSON.stringify(name)}: the CRD ${created ? 'accepts' : 'refuses'} the tool, its spec is ${
        parsed.ok ? 'valid' : 'InvalidSpec'
      }, and the API server ${refused === undefined ? 'takes the container' : `refuses it (${said})`}`,
    );
  }
});

// The names the API server takes are taken by the spec and the CRD too: printable ASCII but '=' (a dot, a dash, a
// space, a leading digit: Kubernetes 1.34's relaxed rule), and each gets its container.
t.test('an env name the API server takes is taken by the CRD and the spec', async (t) => {
  const kube = api.kube();
  let i = 0;
  for (const name of ['my.var-1', '1ST', 'WITH SPACE', '~!@#$%^&*()']) {
    const n = `ok${i++}`;
    const spec = { label: 'app=web', image: 'busybox:1.36', env: [{ name, value: '1' }] };
    t.doesNotThrow(() =>
      api.kubectl(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'debug.metaops.dev/v1alpha1',
          kind: 'PodBuggerTool',
          metadata: { name: n, namespace: 'dbg' },
          spec,
        }),
      ),
    );
    const parsed = parser.parse(spec);
    t.ok(parsed.ok, `env name ${JSON.stringify(name)}: a valid spec`);
    if (!parsed.ok) continue;
    api.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `web-${n}`, namespace: 'dbg', labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      }),
    );
    const pod = (await kube.get('v1', 'pods', 'dbg', `web-${n}`)) as KubeObject;
    await kube.addEphemeralContainers('dbg', `web-${n}`, [ephemeralContainer(n, parsed.spec, pod)], {
      uid: pod.metadata.uid!,
      resourceVersion: pod.metadata.resourceVersion!,
    });
    t.pass(`env name ${JSON.stringify(name)}: the API server takes the container`);
  }
});
