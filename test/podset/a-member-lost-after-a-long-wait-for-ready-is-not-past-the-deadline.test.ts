// The progress deadline (lib/replicas.ts) is for members that have been missing (Creating, ScalingUp) for
// PROGRESS_DEADLINE_SECONDS without progress: "creating the others fails (Pod Security admission, a quota...)".
// A PodSet whose members all exist but one of which crash-loops (Progressing=True WaitingForReady, past the deadline
// since minute 10, naming that pod) for half an hour, and which then loses a member (its node drained, the pod deleted), has had a member missing for seconds: it must
// not say ProgressDeadlineExceeded (a Warning Event naming admission and quotas) before its missing pod was even
// asked for again. Same when the user scales it up by one then.
import t from 'tap';
import { podset } from '../../hooks/podset/index.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

async function told(req: CompositeSyncRequest, now: Date) {
  const events: EventSpec[] = [];
  const res = await runHook(podset, 'sync', req, {
    now,
    services: { events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
  return { res, events };
}
const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const ready = (desired: KubeObject) =>
  asObserved(desired, {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: FIXED_NOW.toISOString() }],
    containerStatuses: [{ name: 'busybox', ready: true, restartCount: 0, state: { running: {} } }],
  });
const crashing = (desired: KubeObject) =>
  asObserved(desired, {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'False' }],
    containerStatuses: [
      { name: 'busybox', ready: false, restartCount: 9, state: { waiting: { reason: 'CrashLoopBackOff' } } },
    ],
  });
const progressing = (status: unknown) => (status as any).conditions.find((c: any) => c.type === 'Progressing');

/** A PodSet of 3 whose pod 2 crash-loops, synced for `wait` seconds: its pods and last status. */
async function waitingForReady(wait: number) {
  const spec = { size: 3, image: 'busybox:1.36', command: ['sleep', '3600'] };
  const first = await told(request('podset', spec), at(0));
  const desired = first.res.children.filter((c) => c.kind === 'Pod');
  const pods = desired.map((p, i) => (i === 2 ? crashing(p) : ready(p)));
  let status = first.res.status;
  for (const s of [10, 60, wait]) {
    const req = request('podset', spec, { children: objectMap(pods) });
    req.parent.status = status as never;
    status = (await told(req, at(s))).res.status;
  }
  // Past the deadline waiting for it (a Deployment's would be too), naming it: no creation blamed.
  t.match(
    progressing(status),
    {
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
      message: /podset-sample-pod-2 \(CrashLoopBackOff\) is not Ready$/,
    },
    'waiting for pod 2 to be Ready, past the deadline',
  );
  return { spec, pods, status };
}

t.test('a member deleted after a long WaitingForReady is not ProgressDeadlineExceeded at once', async (t) => {
  const { spec, pods, status } = await waitingForReady(1800);
  // Pod 0 is deleted (a node drained): the next sync sees it terminating.
  const gone = { ...pods[0]!, metadata: { ...pods[0]!.metadata, deletionTimestamp: at(1805).toISOString() } };
  const req = request('podset', spec, { children: objectMap([gone, pods[1]!, pods[2]!]) });
  req.parent.status = status as never;
  const { res, events } = await told(req, at(1805));
  t.notMatch(
    progressing(res.status),
    { reason: 'ProgressDeadlineExceeded' },
    `a member missing for 0 s: ${JSON.stringify(progressing(res.status))}`,
  );
  t.notOk(
    events.some((e) => e.reason === 'ProgressDeadlineExceeded'),
    `no Warning; told: ${JSON.stringify(events.map((e) => `${e.type} ${e.reason}: ${e.note}`))}`,
  );
});

t.test('a scale-up after a long WaitingForReady is not ProgressDeadlineExceeded at once', async (t) => {
  const { spec, pods, status } = await waitingForReady(1800);
  const bigger = { ...spec, size: 4 };
  const req = request('podset', bigger, { children: objectMap(pods) });
  req.parent.status = status as never;
  const { res, events } = await told(req, at(1805));
  t.notMatch(
    progressing(res.status),
    { reason: 'ProgressDeadlineExceeded' },
    `the 4th member asked for in this very answer: ${JSON.stringify(progressing(res.status))}`,
  );
  t.notOk(
    events.some((e) => e.reason === 'ProgressDeadlineExceeded'),
    `no Warning; told: ${JSON.stringify(events.map((e) => `${e.type} ${e.reason}: ${e.note}`))}`,
  );
});
