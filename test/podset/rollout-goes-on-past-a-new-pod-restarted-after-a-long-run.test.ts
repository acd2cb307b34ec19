// A PodSet rollout goes on past a pod on the new template that restarted after a long run (docs/podset.md, Rollouts):
// a PodSet's pods run `sleep 3600` by default
// (hooks/podset/schema.ts DEFAULT_COMMAND) under restartPolicy Always, so every pod's container ends after an hour
// (exit 0, Completed) and the kubelet starts it again: restartCount 1, then 2, one more each hour, for every pod, as
// designed. The rollout (hooks/podset/rollout.ts planRollout) held while any pod on the new template "has restarted"
// (restartCount above 0, whatever the exit and however long ago, even after the pod proved itself): "which
// restarted: delete it to try the template again". So any rollout in which a pod made from the new template is more
// than an hour old before the last old pod is replaced stops for good. At the defaults a step is the old pod's
// deletion (`sleep` as PID 1 ignores SIGTERM: the 30 s grace period), the new pod made and started, 10 s Ready
// (minReadySeconds) and a sync: ~45 s, so a PodSet of ~80 pods or more (an estimate; ~250 even at 15 s a step) never
// finishes a rollout; a PodSet of 3 with minReadySeconds 1800 neither (its first new pod restarts at 3600 s, before
// the third is replaced); nor any rollout that waited an hour on
// one step. Deleting the restarted pods by hand does not help for long: the next hour restarts the next ones.
// Here the rule the restart check exists for (a command that crashes seconds after it starts proves nothing,
// test/podset/rollout-stops-on-a-command-that-crashes-after-it-starts.test.ts) does not apply: the new pod stayed
// Ready an hour, its command completed, and it is Ready again.
// Expected: the rollout goes on (the next outdated pod replaced), and the status does not ask to delete a healthy pod.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { podsetSync, withPodsetPolicy } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { conditionOf, podsetRequest, podsOf, rolledOut } from './syncs.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000).toISOString();

/** A pod as the kubelet reports it: Ready since `readySince`, its busybox container restarted `restarts` times. */
function running(pod: KubeObject, made: string, readySince: string, restarts: number): KubeObject {
  const observed = asObserved(pod, {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }],
    containerStatuses: [
      {
        name: 'busybox',
        ready: true,
        restartCount: restarts,
        state: { running: { startedAt: readySince } },
        ...(restarts > 0
          ? { lastState: { terminated: { exitCode: 0, reason: 'Completed', startedAt: made, finishedAt: readySince } } }
          : {}),
      },
    ],
  });
  observed.metadata.creationTimestamp = made;
  return observed;
}

/** PodSet web of 3 rolled from busybox:1.36 to 1.37, web-pod-2 replaced first (at 0 s), synced at 3700 s. */
function rollout(restarts: number, readySince: number) {
  const old = { size: 3, image: 'busybox:1.36', command: ['sleep', '3600'] };
  const next = { ...old, image: 'busybox:1.37' };
  const before = podsetRequest(old);
  const oldPods = podsOf(podsetSync(withPodsetPolicy(before), FIXED_NOW));
  const parent = rolledOut(before.parent, next);
  const newPods = podsOf(podsetSync(withPodsetPolicy({ ...before, parent }), FIXED_NOW));
  const pod = (pods: KubeObject[], name: string) => pods.find((p) => p.metadata.name === name)!;
  // web-pod-2, replaced first at 0 s, proved itself (Ready from 5 s, minReadySeconds 10); web-pod-1 would have been
  // next, but the rollout waited (a slow step, a large PodSet). Its sleep ended at 3605 s and the kubelet started it
  // again (Ready from 3607 s). At 3700 s web-pod-0 and web-pod-1 still run the old template.
  const observed = [
    running(pod(oldPods, 'web-pod-0'), at(-86400), at(-86395), 24),
    running(pod(oldPods, 'web-pod-1'), at(-86400), at(-86395), 24),
    running(pod(newPods, 'web-pod-2'), at(0), at(readySince), restarts),
  ];
  return podsetSync(
    withPodsetPolicy({ ...before, parent, children: objectMap(observed) }),
    new Date(FIXED_NOW.getTime() + 3700_000),
  );
}

/** Whether the answer replaces one of the two outdated pods (leaves it out: Metacontroller deletes it). */
const replacesOne = (res: ReturnType<typeof rollout>) =>
  podsOf(res).filter((p) => ['web-pod-0', 'web-pod-1'].includes(p.metadata.name!)).length === 1;

t.test('control: the same rollout, the new pod never restarted, goes on', async (t) => {
  t.ok(replacesOne(rollout(0, 5)), 'web-pod-1 is replaced');
});

t.test('a rollout goes on past a new-template pod whose `sleep 3600` ended and was restarted', async (t) => {
  const res = rollout(1, 3607);
  const updated = conditionOf(res, 'Updated');
  t.comment(`Updated: ${updated?.['reason']}: ${updated?.['message']}`);
  t.notMatch(
    String(updated?.['message']),
    /restarted: delete it/,
    'a healthy pod whose command completed and was restarted is not one to delete by hand',
  );
  t.ok(replacesOne(res), 'the next outdated pod is replaced, as when the new pod never restarted');
});
