// A PodBuggerTool deleted and created again under its name (or its spec edited) with the same image but another
// security profile, target or command: the pods keep the container the earlier tool added (ephemeral containers
// cannot be changed or removed), under the same container name. That container is not the one this tool would add:
// the tool's status must not count it as injected (it is what `outdated` says for an older image).
import t from 'tap';
import { ephemeralContainer, parser, podState } from '../../hooks/podbuggertool/match.js';
import type { KubeObject } from '../../lib/metacontroller.js';

const spec = (s: Record<string, unknown>) => {
  const parsed = parser.parse({ label: 'app=web', image: 'busybox:1.36', ...s });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.spec;
};
const bare: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'app', image: 'nginx' },
      { name: 'sidecar', image: 'envoy' },
    ],
  },
};
/** The pod after an earlier tool named `a` with spec `earlier` added its container. */
const carrying = (earlier: ReturnType<typeof spec>): KubeObject => ({
  ...bare,
  spec: { ...(bare['spec'] as object), ephemeralContainers: [ephemeralContainer('a', earlier, bare)] },
});

t.test('a privileged container of an earlier sysadmin tool is not injected for a restricted tool', async (t) => {
  const pod = carrying(spec({ securityProfile: 'sysadmin' }));
  const now = spec({ securityProfile: 'restricted', runAsUser: 1000 });
  t.not(podState(pod, 'a', now).state, 'injected', JSON.stringify(podState(pod, 'a', now)));
});

t.test('a container aimed at another target container is not injected for this target', async (t) => {
  const pod = carrying(spec({ targetContainerName: 'app' }));
  const now = spec({ targetContainerName: 'sidecar' });
  t.not(podState(pod, 'a', now).state, 'injected', JSON.stringify(podState(pod, 'a', now)));
});

t.test('a container running another command is not injected for this command', async (t) => {
  const pod = carrying(spec({ command: ['sleep', 'infinity'] }));
  const now = spec({ command: ['tcpdump', '-i', 'any'] });
  t.not(podState(pod, 'a', now).state, 'injected', JSON.stringify(podState(pod, 'a', now)));
});

t.test(
  'the same spec is injected; each field that differs is named, and the injector adds nothing over it',
  async (t) => {
    const same = spec({
      securityProfile: 'restricted',
      runAsUser: 1000,
      targetContainerName: 'app',
      env: [{ name: 'A', value: '1' }],
    });
    t.same(podState(carrying(same), 'a', same), { state: 'injected' });
    // The API server returns the object with its keys in its own order: not a difference.
    const reordered = carrying(same);
    const c = (reordered['spec'] as any).ephemeralContainers[0];
    c.securityContext = Object.fromEntries(Object.entries(c.securityContext).reverse());
    t.same(podState(reordered, 'a', same), { state: 'injected' });
    t.same(podState(carrying(spec({ args: ['-x'] })), 'a', spec({ args: ['-y'] })), {
      state: 'outdated',
      image: 'docker.io/library/busybox:1.36',
      differs: ['args'],
    });
    t.same(podState(carrying(spec({ env: [{ name: 'A', value: '1' }] })), 'a', spec({})), {
      state: 'outdated',
      image: 'docker.io/library/busybox:1.36',
      differs: ['env'],
    });
    t.same(podState(carrying(spec({ securityProfile: 'sysadmin' })), 'a', spec({ securityProfile: 'general' })), {
      state: 'outdated',
      image: 'docker.io/library/busybox:1.36',
      differs: ['securityContext'],
    });
    const { decidedAgain } = await import('../../hooks/podbuggertool/inject.js');
    const { DEFAULT_POLICY } = await import('../../hooks/podbuggertool/match.js');
    const now = spec({ securityProfile: 'restricted', runAsUser: 1000 });
    const toolObject: KubeObject = {
      apiVersion: 'debug.metaops.dev/v1alpha1',
      kind: 'PodBuggerTool',
      metadata: { name: 'a', namespace: 'ns' },
      spec: now,
    };
    t.equal(
      decidedAgain(
        'ns',
        carrying(spec({ securityProfile: 'sysadmin' })),
        toolObject,
        { name: 'a', uid: undefined, spec: now },
        DEFAULT_POLICY,
      ),
      undefined,
      'an outdated pod gets no PATCH (a second container of that name would be refused)',
    );
  },
);
