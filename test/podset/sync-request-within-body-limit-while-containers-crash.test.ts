// A PodSet's request bound (hooks/podset/sync.ts answerBudget.request, storedOverhead) counts ~4 KiB a pod for what
// the API server and the kubelet add to a pod that runs, and the pods it makes are counted so
// (podsThatFit): what the kubelet reports of its own container is not measured (measure.ts counts only what others
// added). A container that crashes and restarts carries more: `lastState.terminated` (its exit, the container's ID)
// and `state.waiting` CrashLoopBackOff with the kubelet's message naming the pod, and the termination message the
// container wrote to /dev/termination-log (the default terminationMessagePath: up to 4096 bytes, which the spec's own
// command writes), in `lastState.terminated.message` and, between restarts, `state.terminated.message`: each `<`, `>`
// or `&` six bytes as Metacontroller (Go) writes JSON. When every pod crashes, each sync must stay within the body
// limit (past it every sync is refused, 413: no status written, not even Degraded, nothing saying why).
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { podsetRounds, podsetSyncRequest, sentBytes, storedPod } from '../fixtures/stored-objects.js';

const CREATED = '2026-01-02T03:00:00Z';

function podsetRequest(size: number, command: string[]) {
  const req = request('podset', { size, image: 'busybox:1.36', command });
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop' };
  return req;
}

/** The pod crash-looping, as its kubelet reports it: restarted, its last exit `message` (if any), backing off. */
function crashing(pod: KubeObject, message?: string): KubeObject {
  const p = structuredClone(pod) as any;
  const uid = String(p.metadata.uid);
  p.status.conditions = p.status.conditions.map((c: Record<string, unknown>) =>
    c['type'] === 'Ready' || c['type'] === 'ContainersReady'
      ? { ...c, status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [busybox]' }
      : c,
  );
  for (const s of p.status.containerStatuses) {
    s.ready = false;
    s.started = false;
    s.restartCount = 5;
    s.lastState = {
      terminated: {
        containerID: s.containerID,
        exitCode: 1,
        finishedAt: CREATED,
        ...(message === undefined ? {} : { message }),
        reason: 'Error',
        startedAt: CREATED,
      },
    };
    s.state = {
      waiting: {
        message: `back-off 2m40s restarting failed container=busybox pod=${p.metadata.name}_${p.metadata.namespace}(${uid})`,
        reason: 'CrashLoopBackOff',
      },
    };
  }
  return p as KubeObject;
}

/** The largest of the sync requests with these pods, whatever status the customize answer kept was asked with. */
function largestRequest(parent: ParentObject, pods: KubeObject[]): number {
  const lost = { ...parent, status: {} } as ParentObject;
  return Math.max(
    ...[
      [parent, parent],
      [lost, lost],
      [lost, parent],
    ].map(([asked, now]) => sentBytes(podsetSyncRequest(asked!, now!, pods).body)),
  );
}

t.test(
  'every pod of a 1000-pod PodSet crash-looping with a 2 KiB termination message: each sync within the body limit',
  async (t) => {
    // An application that writes why it exits to /dev/termination-log (2048 characters of plain text).
    const req = podsetRequest(1000, ['/app/server', '--config', '/etc/app/config.yaml']);
    const last = podsetRounds(req, FIXED_NOW, storedPod).at(-1)!;
    t.equal(last.pods.length, 1000);
    const pods = last.pods.map((p) => crashing(p, 'panic: config: '.padEnd(2048, 'x')));
    const nodes = last.pods.map((p) => p.metadata.name!);
    const listing = { ...last.parent, status: { ...(last.parent.status as object), nodes } } as ParentObject;
    const settled = sentBytes(podsetSyncRequest(listing, listing, pods).body);
    t.ok(settled <= DEFAULT_BODY_LIMIT, `every pod listed: the request ${settled} bytes, within ${DEFAULT_BODY_LIMIT}`);
    const bytes = largestRequest(last.parent, pods);
    t.ok(
      bytes <= DEFAULT_BODY_LIMIT,
      `whatever the status: the largest request ${bytes} bytes, within ${DEFAULT_BODY_LIMIT}`,
    );
  },
);

t.test(
  'every pod of a PodSet crashing with the termination message its command wrote: each sync within the body limit',
  async (t) => {
    // The command writes 4096 `<` to /dev/termination-log and exits: a script of 61 characters.
    const script = 'printf "%4096s" | tr " " "<" > /dev/termination-log; exit 1';
    for (const size of [100, 300]) {
      const req = podsetRequest(size, ['sh', '-c', script]);
      const last = podsetRounds(req, FIXED_NOW, storedPod).at(-1)!;
      t.equal(last.pods.length, size);
      const pods = last.pods.map((p) => crashing(p, '<'.repeat(4096)));
      const bytes = largestRequest(last.parent, pods);
      t.ok(
        bytes <= DEFAULT_BODY_LIMIT,
        `${size} pods crashing: the largest request ${bytes} bytes, within ${DEFAULT_BODY_LIMIT}`,
      );
    }
  },
);
