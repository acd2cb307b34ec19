// The status names at most MAX_LISTED (20) pods in `skips`, the first by name, but counts them all (`skipped`).
// Ready must follow what is counted, not what happens to be listed: a pod skipped for a reason its author can fix
// (RunsAsRoot, TargetContainerMissing, ContainerNameTaken) keeps the tool from Ready=True Injected however many pods
// skipped for a reason nothing can fix (a completed pod, PodCompleted) sort before it. A tool selecting the pods of a
// Deployment and of a Job (`app=web` on both) is exactly this: twenty completed `web-job-...` pods come first.
import t from 'tap';
import { MAX_LISTED } from '../../hooks/podbuggertool/sync.js';
import { FakeApi, injectAll, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const readyOf = (res: { status?: Record<string, unknown> | null }) =>
  (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');

/** MAX_LISTED completed pods whose names sort first, and `web-z` beside them. */
function namespaceWithCompletedPods(api: FakeApi): void {
  for (let i = 0; i < MAX_LISTED; i++) {
    const p = pod(`web-a${String(i).padStart(2, '0')}`, { app: 'web' });
    p.status.phase = 'Succeeded';
    api.put(p);
  }
}

t.test('a pod skipped RunsAsRoot beyond the listed skips keeps Ready False RunsAsRoot', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  namespaceWithCompletedPods(api);
  // The pod's securityContext says runAsNonRoot and names no user: busybox's root would be refused by the kubelet.
  api.put(pod('web-z', { app: 'web' }, { securityContext: { runAsNonRoot: true } }));
  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', 'web-z'), [], 'nothing added to web-z (it cannot take the container)');
  const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
  t.match(res.status, { matched: MAX_LISTED + 1, skipped: MAX_LISTED + 1, injected: 0 }, 'every pod counted');
  const ready = readyOf(res);
  t.not(ready.status, 'True', `not Ready=True while web-z is skipped RunsAsRoot (${ready.reason}: ${ready.message})`);
  t.equal(ready.reason, 'RunsAsRoot', 'Ready says why, as it does with fewer completed pods');
});

t.test('a pod skipped TargetContainerMissing beyond the listed skips keeps Ready False', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox', targetContainerName: 'sidecar' }));
  namespaceWithCompletedPods(api);
  api.put(pod('web-z', { app: 'web' }));
  await injectAll(api, 'dbg');
  const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
  t.match(res.status, { matched: MAX_LISTED + 1, skipped: MAX_LISTED + 1 });
  const ready = readyOf(res);
  t.equal(ready.reason, 'TargetContainerMissing', `Ready says why (${ready.status} ${ready.reason}: ${ready.message})`);
});

t.test(
  'with one completed pod fewer, the same pod is RunsAsRoot (the reason does not depend on the listing)',
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
    namespaceWithCompletedPods(api);
    api.remove('Pod', 'dbg', 'web-a00');
    api.put(pod('web-z', { app: 'web' }, { securityContext: { runAsNonRoot: true } }));
    await injectAll(api, 'dbg');
    const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
    t.match(readyOf(res), { status: 'False', reason: 'RunsAsRoot' });
  },
);
