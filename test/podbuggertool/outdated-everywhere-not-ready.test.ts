// The tool's status "stays honest" (issue 32), and Ready=True, Injected, means "every matching pod carries the
// container, and it runs or starts" (docs/podbuggertool.md, the Ready table). An author who narrows a tool (a
// `sysadmin` tool made `restricted`, an image with a known hole replaced) finds every pod still carrying the old,
// privileged container: ephemeral containers cannot be changed, so none carries the one the spec now adds. The
// status says `injected: 0, outdated: N`, and Ready=True, Injected: `kubectl get pbt -o wide` and every tool that
// waits on Ready (kubectl wait --for=condition=Ready) read "done" while no pod has the container the spec asks for.
import t from 'tap';
import { ANY, FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

t.test('a tool whose every pod carries an earlier, privileged container is not Ready, Injected', async (t) => {
  const api = new FakeApi().put(
    tool('a', { label: 'app=web', image: 'busybox', securityProfile: 'restricted', runAsUser: 65534 }),
  );
  for (const name of ['web-1', 'web-2'])
    api.put(
      pod(
        name,
        { app: 'web' },
        {
          ephemeralContainers: [{ name: 'debug-a', image: 'busybox', securityContext: { privileged: true } }],
        },
      ),
    );
  const res = await statusAndApply(api, ['dbg', 'a'], {
    policy: { ...ANY, profiles: ['baseline', 'restricted', 'sysadmin'] },
  });
  t.match(res.status, { matched: 2, injected: 0, outdated: 2, pending: 0 });
  t.not(
    `${ready(res).status} ${ready(res).reason}`,
    'True Injected',
    `no pod carries the container the spec adds (said: ${ready(res).message})`,
  );
});
