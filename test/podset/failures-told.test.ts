// Issue 31, item 4: a PodSet whose pods the API server refuses "is refused by the API server and nothing says why", and
// "every kind visible in kubectl describe". The values the hook copies are checked now, but pods are still refused for
// reasons the spec does not carry (a ResourceQuota that wants limits, an admission webhook, a LimitRange), and pods
// that are created still fail (an image tag that does not exist: ImagePullBackOff; a command that exits:
// CrashLoopBackOff). The PodSet's status reaches Progressing=False ProgressDeadlineExceeded after ten minutes, and its
// Updated condition names a replacement's waiting reason, but PodSet tells neither as an Event: its Event rules name
// only PodNameTaken and InvalidSpec (hooks/podset/index.ts). Memcached and MySQLCluster tell ProgressDeadlineExceeded;
// Memcached tells failing pods (Degraded PodsFailing). `kubectl describe podset` shows no Event for either.
import t from 'tap';
import { podset } from '../../hooks/podset/index.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

async function told(req: CompositeSyncRequest, now: Date) {
  const events: EventSpec[] = [];
  const res = await runHook(podset, 'sync', req, {
    now,
    services: { events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
  return { res, events };
}

const text = (events: EventSpec[]) => events.map((e) => `${e.type} ${e.reason}: ${e.note}`);

t.test('a PodSet whose pods cannot be created past the progress deadline says so in a Warning Event', async (t) => {
  const spec = { size: 2, image: 'busybox:1.36', command: ['sleep', '3600'] };
  // The first sync: nothing exists; Metacontroller's creates are refused (a quota that wants limits), so the next
  // syncs observe no pod.
  const first = await told(request('podset', spec), FIXED_NOW);
  let status = first.res.status;
  let events: EventSpec[] = [...first.events];
  const later = new Date(FIXED_NOW.getTime() + (PROGRESS_DEADLINE_SECONDS + 60) * 1000);
  for (const now of [new Date(FIXED_NOW.getTime() + 60_000), later]) {
    const req = request('podset', spec);
    req.parent.status = status as never;
    const next = await told(req, now);
    status = next.res.status;
    events = [...events, ...next.events];
  }
  const progressing = (status as any).conditions.find((c: any) => c.type === 'Progressing');
  t.match(progressing, { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'the status says it');
  t.ok(
    events.some((e) => e.type === 'Warning' && e.reason === 'ProgressDeadlineExceeded'),
    `a Warning Event says it; told: ${JSON.stringify(text(events))}`,
  );
});

/** Pod `name` of PodSet my-podset as observed, its container waiting with `reason`. */
function failingPod(desired: KubeObject, reason: string): KubeObject {
  return asObserved(desired, {
    phase: 'Pending',
    conditions: [{ type: 'Ready', status: 'False' }],
    containerStatuses: [
      {
        name: 'busybox',
        ready: false,
        restartCount: 0,
        image: 'busybox:1.99',
        imageID: '',
        state: { waiting: { reason, message: 'Back-off pulling image "busybox:1.99"' } },
      },
    ],
  });
}

t.test('a PodSet whose pods fail (their image cannot be pulled) says so in a Warning Event naming them', async (t) => {
  const spec = { size: 2, image: 'busybox:1.99', command: ['sleep', '3600'] };
  const first = await told(request('podset', spec), FIXED_NOW);
  const pods = first.res.children.map((c) => failingPod(c, 'ImagePullBackOff'));
  const req = request('podset', spec, { children: objectMap(pods) });
  req.parent.status = first.res.status as never;
  const after = await told(req, new Date(FIXED_NOW.getTime() + 120_000));
  const names = pods.map((p) => p.metadata.name!);
  t.ok(
    after.events.some(
      (e) => e.type === 'Warning' && e.note.includes('ImagePullBackOff') && names.some((n) => e.note.includes(n)),
    ),
    `a Warning Event names a failing pod and ImagePullBackOff; told: ${JSON.stringify(text([...first.events, ...after.events]))}`,
  );
});
