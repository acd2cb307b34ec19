// A PodSet's rollout replaces one pod at a time, each once the last one made has stayed Ready for minReadySeconds: a
// rollout of 20 pods, each deleted with busybox's 30 s grace period (sleep ignores SIGTERM) and proven for 10 s,
// takes longer than PROGRESS_DEADLINE_SECONDS (600 s) while every pod is made at once and every step goes as it
// should. Progressing=False ProgressDeadlineExceeded (a Warning event: "creating the others fails (Pod Security
// admission, a quota, an object too large)") is for members that cannot be created; a rollout that progresses must
// never say it. Metacontroller and the kubelet played as in rollout-stops-on-a-command-that-crashes-after-it-starts
// (OnDelete: the answer's missing pods created, those left out deleted), 5 s a round, the status fed back.
import t from 'tap';
import { podsetSync as sync } from '../fixtures/hooks.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const image = (pod: KubeObject) => (pod as any).spec.containers[0].image as string;
const ROUND_MS = 5000;
/** Rounds a deleted pod stays terminating: busybox's sleep ignores SIGTERM, killed at its 30 s grace period. */
const GRACE_ROUNDS = 6;

t.test('a 20-pod rollout that goes as it should never says its progress deadline was exceeded', async (t) => {
  const pods = new Map<string, KubeObject>();
  const readyAt = new Map<string, number>();
  const going = new Map<string, number>();
  let status: Record<string, unknown> | undefined;
  let spec: Record<string, unknown> = { size: 20 };
  let clock = FIXED_NOW.getTime();
  const stalls: string[] = [];
  for (let r = 0; r < 600; r++) {
    if (r === 10) spec = { size: 20, image: 'app:3' };
    clock += ROUND_MS;
    const now = new Date(clock);
    for (const [n, at] of going)
      if (r - at >= GRACE_ROUNDS) {
        pods.delete(n);
        going.delete(n);
      }
    const parent = { ...request('podset', spec).parent, status };
    const res = sync(request('podset', spec, { parent, children: objectMap([...pods.values()], 'v2') }), now);
    status = res.status ?? undefined;
    const progressing = (status as any).conditions.find((c: any) => c.type === 'Progressing');
    if (progressing.reason === 'ProgressDeadlineExceeded')
      stalls.push(`${(clock - FIXED_NOW.getTime()) / 1000 - 50} s into the rollout: ${progressing.message}`);
    const wanted = new Map(res.children.map((c) => [c.metadata.name!, c]));
    for (const name of [...pods.keys()])
      if (!wanted.has(name) && !going.has(name)) {
        going.set(name, r);
        const p = pods.get(name)!;
        pods.set(name, { ...p, metadata: { ...p.metadata, deletionTimestamp: now.toISOString() } });
      }
    for (const [name, desired] of wanted)
      if (!pods.has(name)) {
        const pod = asObserved(desired, { phase: 'Pending' });
        pod.metadata.creationTimestamp = now.toISOString();
        pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LAST_APPLIED]: JSON.stringify(desired) };
        pods.set(name, pod);
        readyAt.delete(name);
      }
    // The kubelet: every pod, either image, runs and is Ready from the round after it is made.
    for (const [name, pod] of pods) {
      if (going.has(name)) continue;
      if (!readyAt.has(name)) readyAt.set(name, clock);
      const since = new Date(readyAt.get(name)!).toISOString();
      pods.set(name, {
        ...pod,
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since }],
          containerStatuses: [{ name: 'busybox', ready: true, restartCount: 0, state: { running: {} } }],
        },
      });
    }
    if (r > 10 && [...pods.values()].every((p) => image(p) === 'app:3') && pods.size === 20 && going.size === 0) break;
  }
  const images = [...pods.values()].map(image);
  t.equal(images.filter((i) => i === 'app:3').length, 20, 'the rollout finishes: 20 pods on app:3');
  t.same(stalls.slice(0, 3), [], `never ProgressDeadlineExceeded (${stalls.length} syncs said it)`);
});
