// When a PodSet asks to be synced again (docs/podset.md, the intro): after a minute while fewer pods are live than
// spec.size (missing, being deleted, finished), after 30 s while a rollout has outdated pods, and never once every pod
// runs the current template (the controller sets no resyncPeriodSeconds: a PodSet at rest is synced on a change).
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const SPEC = { size: 3, image: 'busybox:1.36', command: ['sleep', '3600'] };

function synced(spec: Record<string, unknown>, pods: KubeObject[], status: unknown) {
  const req = request('podset', spec, { children: objectMap(pods) });
  req.parent.status = status as never;
  return podsetSync(req, FIXED_NOW);
}

t.test('a PodSet asks to be synced again only while pods are missing or outdated', async (t) => {
  const first = podsetSync(request('podset', SPEC), FIXED_NOW);
  t.equal(first.resyncAfterSeconds, 60, 'nothing exists yet: again in a minute');
  const running = first.children.map((p) => asObserved(p, readyPod));
  const rest = synced(SPEC, running, first.status);
  t.equal(rest.resyncAfterSeconds, undefined, 'every pod runs: no resync asked');
  const going = running.map((p, i) =>
    i === 1 ? ({ ...p, metadata: { ...p.metadata, deletionTimestamp: '2026-01-02T03:04:00Z' } } as KubeObject) : p,
  );
  t.equal(synced(SPEC, going, rest.status).resyncAfterSeconds, 60, 'a pod being deleted: again in a minute');
  const finished = running.map((p, i) => (i === 2 ? asObserved(p, { phase: 'Failed', reason: 'Evicted' }) : p));
  t.equal(synced(SPEC, finished, rest.status).resyncAfterSeconds, 60, 'a pod finished: again in a minute');
  const outdated = synced({ ...SPEC, command: ['sleep', '7200'] }, running, rest.status);
  t.equal(outdated.resyncAfterSeconds, 30, 'a rollout with outdated pods: again in 30 s');
});
