// targetContainerName names the container whose process namespace the debug container shares. A native sidecar (an
// init container with `restartPolicy: Always`, as service-mesh proxies run now) runs beside the app for the pod's
// whole life and is a target the API server takes; an init container that runs to completion is not.
import t from 'tap';
import { ephemeralContainer, parser, podState } from '../../hooks/podbuggertool/match.js';
import { FakeApi, injectAll, pod, tool } from '../fixtures/pbt.js';

const spec = (target: string) => {
  const parsed = parser.parse({ label: 'app=web', image: 'busybox', targetContainerName: target });
  if (!parsed.ok) throw new Error('invalid');
  return parsed.spec;
};
const meshed = pod(
  'meshed',
  { app: 'web' },
  {
    initContainers: [
      { name: 'setup', image: 'busybox' },
      { name: 'proxy', image: 'envoy', restartPolicy: 'Always' },
    ],
  },
);

t.test('a native sidecar is a target; an init container that completes is not', async (t) => {
  t.same(podState(meshed, 'a', spec('proxy')), { state: 'pending' });
  t.equal(ephemeralContainer('a', spec('proxy'), meshed)['targetContainerName'], 'proxy');
  t.same(podState(meshed, 'a', spec('app')), { state: 'pending' }, 'a container, as before');
  t.same(podState(meshed, 'a', spec('setup')), { state: 'skipped', reason: 'TargetContainerMissing' });
  t.equal(ephemeralContainer('a', spec('setup'), meshed)['targetContainerName'], undefined);
  const odd = pod('odd', { app: 'web' }, { initContainers: [null, { restartPolicy: 'Always' }, 'x'] });
  t.same(podState(odd, 'a', spec('proxy')), { state: 'skipped', reason: 'TargetContainerMissing' }, 'malformed');
});

t.test('the injector adds a container aimed at the sidecar, and counts it injected', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox', targetContainerName: 'proxy' }));
  api.put(meshed);
  await injectAll(api, 'dbg');
  const added = api.stored('Pod', 'dbg', 'meshed').spec.ephemeralContainers as any[];
  t.equal(added.length, 1);
  t.equal(added[0].targetContainerName, 'proxy');
  t.same(podState(api.stored('Pod', 'dbg', 'meshed'), 'a', spec('proxy')), { state: 'injected' });
});
