// A debug container that is on the pod and does not run (the kubelet cannot pull its image, refused it as root, or it
// exited with an error) is never added again (test/podbuggertool/stopped-container-left-alone.test.ts): the tool's
// status says so, and does not promise a retry that never comes.
import t from 'tap';
import { containerName, ephemeralContainer, FAILURES_ANNOTATION, parser } from '../../hooks/podbuggertool/match.js';
import { FakeApi, inject, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const spec = { label: 'app=web', image: 'busybox', securityProfile: 'restricted', runAsUser: 1000 };
const rootRefusal = {
  waiting: { reason: 'CreateContainerConfigError', message: 'container has runAsNonRoot and image will run as root' },
};

/** A pod carrying tool a's container, in the state the kubelet reports. */
function carrying(name: string, state: Record<string, unknown>) {
  const parsed = parser.parse(spec);
  if (!parsed.ok) throw new Error('spec');
  const p = pod(name, { app: 'web' });
  p.spec.ephemeralContainers = [ephemeralContainer('a', parsed.spec, p)];
  p.status = { phase: 'Running', ephemeralContainerStatuses: [{ name: containerName('a'), state, ready: false }] };
  return p;
}
const readyOf = (res: { status?: Record<string, unknown> | null }) =>
  (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');

t.test('a container the kubelet refused as root: ContainerNotRunning, not "could not be added; retried"', async (t) => {
  const api = new FakeApi().put(tool('a', spec)).put(carrying('p1', rootRefusal));
  const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
  t.match(res.status, { matched: 1, injected: 0, failed: 1, failures: [{ pod: 'p1', reason: 'RunsAsRoot' }] });
  const ready = readyOf(res);
  t.match(ready, { status: 'False', reason: 'ContainerNotRunning' });
  t.match(ready.message, /RunsAsRoot: the kubelet refused to run it as root/);
  t.notMatch(ready.message, /retried/, 'no retry promised: the pod carries the container');
  t.equal(res.resyncAfterSeconds, undefined, 'nothing to retry: counted again at the resync, not every 30 s');
});

t.test('failures of both kinds: the message says which are retried and which are not', async (t) => {
  const api = new FakeApi().put(tool('a', spec)).put(carrying('p1', { terminated: { exitCode: 2 } }));
  const p2 = pod('p2', { app: 'web' });
  p2.metadata.annotations = { [FAILURES_ANNOTATION]: JSON.stringify({ [containerName('a')]: 'Forbidden' }) };
  api.put(p2);
  const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
  const ready = readyOf(res);
  t.match(ready, { status: 'False', reason: 'InjectionFailed' });
  t.match(ready.message, /p1 \(ContainerExited\), p2 \(Forbidden\); retried from 30s/);
  t.match(ready.message, /those with ImagePullFailed, ContainerExited or RunsAsRoot carry it .*not retried/);
  t.equal(res.resyncAfterSeconds, 30, 'counted again when the PATCH is retried');
});

t.test(
  'a failure recorded for a container the pod now carries (added meanwhile) is dropped, not retried',
  async (t) => {
    const api = new FakeApi().put(tool('a', spec));
    const p = carrying('p1', { terminated: { exitCode: 1 } });
    p.metadata.annotations = { [FAILURES_ANNOTATION]: JSON.stringify({ [containerName('a')]: 'Forbidden' }) };
    api.put(p);
    const res = await inject(api, ['dbg', 'p1']);
    t.equal(api.patches.length, 0, 'no PATCH');
    t.same(api.gets, [], 'no API call');
    t.same(res.annotations, { [FAILURES_ANNOTATION]: null }, 'the stale record removed');
    t.equal(res.resyncAfterSeconds, undefined, 'no call back');
  },
);

t.test('a pod carrying the container of an earlier spec that exited is left alone too', async (t) => {
  const api = new FakeApi().put(tool('a', { ...spec, image: 'busybox:1.37' }));
  api.put(carrying('p1', { terminated: { exitCode: 1 } }));
  const res = await inject(api, ['dbg', 'p1']);
  t.equal(api.patches.length, 0, 'no PATCH');
  t.equal(res.resyncAfterSeconds, undefined, 'no call back');
});
