// A PodSet member whose pod is stuck being deleted (its node lost: the kubelet never confirms, the pod stays
// Terminating until someone forces it) is made again only once that pod is gone (hooks/podset/sync.ts: `going`).
// Past the progress deadline the PodSet says ProgressDeadlineExceeded; its message must name that pod and that it is
// being deleted (what the user must do: kubectl delete --force), not that "creating the others fails (Pod Security
// admission, a quota, an object too large)" with "kubectl get events and Metacontroller's log say why": nothing was
// refused and neither says anything.
import t from 'tap';
import { podset } from '../../hooks/podset/index.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { runPure } from '../../lib/operator.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const settings = podset.settings!({ env: {} } as any);
const sync = (req: any, now: Date) => runPure(podset, 'sync', req, { now, settings }) as CompositeSyncResponse;
const running = (desired: KubeObject) =>
  asObserved(desired, {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [{ name: 'busybox', ready: true, restartCount: 0, state: { running: {} } }],
  });
const progressing = (res: CompositeSyncResponse) =>
  (res.status as any).conditions.find((c: any) => c.type === 'Progressing');

t.test('a pod stuck Terminating past the deadline is named, not blamed on creation', async (t) => {
  const spec = { size: 2, image: 'busybox:1.36', command: ['sleep', '3600'] };
  const first = sync(request('podset', spec), at(0));
  const pods = first.children.filter((c) => c.kind === 'Pod').map(running);
  const [p0, p1] = pods as [KubeObject, KubeObject];
  let status = sync(
    {
      ...request('podset', spec, { children: objectMap(pods) }),
      parent: { ...request('podset', spec).parent, status: first.status },
    },
    at(10),
  ).status;
  // Its node is lost: pod 1 is deleted (evicted by the node controller) and stays Terminating.
  const stuck = { ...p1, metadata: { ...p1.metadata, deletionTimestamp: at(20).toISOString() } };
  let res!: CompositeSyncResponse;
  for (const s of [20, 60, PROGRESS_DEADLINE_SECONDS + 120]) {
    const req = request('podset', spec, { children: objectMap([p0, stuck]) });
    req.parent.status = status as never;
    res = sync(req, at(s));
    status = res.status;
  }
  const p = progressing(res);
  t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'past the deadline');
  t.match(p.message, new RegExp(stuck.metadata.name!), `names the pod being deleted: ${p.message}`);
  t.notMatch(p.message, /creating the others fails/, 'does not blame its creation');
});
