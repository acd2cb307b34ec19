// Pods made that never become Ready (an image that does not exist: ErrImagePull; a command that crashes) are past
// the progress deadline as a Deployment's are: Progressing=False ProgressDeadlineExceeded naming the pods and their
// reason, spec.progressDeadlineSeconds after the last progress (600 s unless the spec says), no creation blamed; the
// image fixed, Progressing is True again at once. A pod that turns Ready is progress.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const condition = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === type);
const pulling = {
  phase: 'Pending',
  conditions: [{ type: 'Ready', status: 'False' }],
  containerStatuses: [
    { name: 'busybox', ready: false, restartCount: 0, state: { waiting: { reason: 'ErrImagePull' } } },
  ],
};

/** A PodSet of `spec` synced at `steps` (seconds) with its pods made and in `state`: the last answer. */
function run(
  spec: Record<string, unknown>,
  steps: number[],
  state: (p: KubeObject, i: number) => Record<string, unknown>,
) {
  const first = podsetSync(request('podset', spec), at(0));
  const pods = first.children.filter((c) => c.kind === 'Pod').map((p, i) => asObserved(p, state(p, i)));
  let res = first;
  for (const s of steps) {
    const req = request('podset', spec, { children: objectMap(pods) });
    req.parent.status = res.status as never;
    res = podsetSync(req, at(s));
  }
  return { res, pods };
}

t.test('pods waiting on ErrImagePull past the default deadline', async (t) => {
  const spec = { size: 2, image: 'busybox:no-such-tag' };
  const before = run(spec, [5, 300, 590], () => pulling).res;
  t.match(condition(before, 'Progressing'), { status: 'True', reason: 'WaitingForReady' }, 'not before 600 s');
  t.ok(before.resyncAfterSeconds !== undefined && before.resyncAfterSeconds <= 60, 'looked at again meanwhile');
  const { res } = run(spec, [5, 300, 590, 610], () => pulling);
  const p = condition(res, 'Progressing');
  t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' });
  t.match(p.message, /0 of 2 members are Ready after more than 600 s without progress/);
  t.match(
    p.message,
    /pods podset-sample-pod-0 \(ImagePullBackOff\), podset-sample-pod-1 \(ImagePullBackOff\) are not Ready/,
  );
  t.notMatch(p.message, /creating the others fails/, 'nothing refused: no creation blamed');
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'ProgressDeadlineExceeded' });
});

t.test('spec.progressDeadlineSeconds sets the deadline, and the fixed image is Progressing again', async (t) => {
  const spec = { size: 2, image: 'busybox:no-such-tag', progressDeadlineSeconds: 15 };
  const early = run(spec, [5, 14], () => pulling).res;
  t.match(condition(early, 'Progressing'), { status: 'True', reason: 'WaitingForReady' });
  t.ok(early.resyncAfterSeconds! <= 16, `looked at again by the deadline: ${early.resyncAfterSeconds}`);
  const { res, pods } = run(spec, [5, 21], () => pulling);
  t.match(condition(res, 'Progressing'), { status: 'False', reason: 'ProgressDeadlineExceeded' });
  t.match(condition(res, 'Progressing').message, /more than 15 s without progress/);
  // The image fixed: a rollout, Progressing=True at once.
  const fixed = { ...spec, image: 'busybox:1.36' };
  const req = request('podset', fixed, { children: objectMap(pods) });
  req.parent.status = res.status as never;
  t.match(condition(podsetSync(req, at(30)), 'Progressing'), { status: 'True' });
});

t.test('a pod that turns Ready is progress: the deadline counts from it', async (t) => {
  const spec = { size: 2, image: 'busybox:1.36' };
  const first = podsetSync(request('podset', spec), at(0));
  const made = first.children.filter((c) => c.kind === 'Pod');
  let res = first;
  const sync = (s: number, pods: KubeObject[]) => {
    const req = request('podset', spec, { children: objectMap(pods) });
    req.parent.status = res.status as never;
    res = podsetSync(req, at(s));
  };
  sync(
    5,
    made.map((p) => asObserved(p, pulling)),
  );
  sync(500, [asObserved(made[0]!, readyPod), asObserved(made[1]!, pulling)]);
  sync(1000, [asObserved(made[0]!, readyPod), asObserved(made[1]!, pulling)]);
  t.match(
    condition(res, 'Progressing'),
    { status: 'True', reason: 'WaitingForReady' },
    '500 s after pod 0 turned Ready',
  );
  sync(1110, [asObserved(made[0]!, readyPod), asObserved(made[1]!, pulling)]);
  t.match(condition(res, 'Progressing'), { status: 'False', reason: 'ProgressDeadlineExceeded' }, '610 s after it');
  t.match(condition(res, 'Progressing').message, /1 of 2 members are Ready/);
});

t.test('a spec.progressDeadlineSeconds out of range is refused', async (t) => {
  for (const v of [0, 86401, 'x']) {
    const res = podsetSync(request('podset', { size: 1, progressDeadlineSeconds: v }), at(0));
    t.match(condition(res, 'Ready'), { status: 'False', reason: 'InvalidSpec' }, JSON.stringify(v));
  }
});
