// A PodSet rollout reads only the restarts of the container it made (docs/podset.md, Rollouts; pods with injected
// sidecars, which the PodSet docs support). Before, the
// rollout holds while a pod on the new template "has restarted", read as any container status with restartCount
// above 0 (hooks/podset/rollout.ts, before crashedRun). That includes containers the PodSet never made: Istio's
// istio-proxy, a Vault agent, a log shipper an admission webhook injected. Such a sidecar restarting once (it often
// does at start, before the mesh answers it, or when its own limits are hit) stops the rollout for good at that pod:
// "which restarted: delete it to try the template again, or change the template", though the busybox container the
// template runs never restarted and the pod is Ready. The rest of the PodSet reads only its own container for the
// same kind of question (lib/replicas.ts podFailure with CONTAINERS; test/operators/degraded-reads-own-containers-not-
// sidecars.test.ts), and the restart rule exists for the template's own command crashing
// (test/podset/rollout-stops-on-a-command-that-crashes-after-it-starts.test.ts).
// Expected: a restart of a container the PodSet did not make holds no rollout.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { podsetSync, withPodsetPolicy } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { conditionOf, podsetRequest, podsOf, rolledOut } from './syncs.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000).toISOString();

/** A pod Ready since `readySince`, with an injected istio-proxy container that restarted `proxyRestarts` times. */
function running(pod: KubeObject, made: string, readySince: string, proxyRestarts: number): KubeObject {
  const observed = asObserved(pod, {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }],
    containerStatuses: [
      { name: 'busybox', ready: true, restartCount: 0, state: { running: { startedAt: made } } },
      {
        name: 'istio-proxy',
        ready: true,
        restartCount: proxyRestarts,
        state: { running: { startedAt: readySince } },
        ...(proxyRestarts > 0 ? { lastState: { terminated: { exitCode: 255, reason: 'Error' } } } : {}),
      },
    ],
  });
  observed.metadata.creationTimestamp = made;
  const spec = observed['spec'] as { containers: Array<Record<string, unknown>> };
  spec.containers = [...spec.containers, { name: 'istio-proxy', image: 'docker.io/istio/proxyv2:1.24.2' }];
  return observed;
}

/** PodSet web of 3 rolled from busybox:1.36 to 1.37, web-pod-2 replaced first (at 0 s), synced at 60 s. */
function rollout(proxyRestarts: number) {
  const old = { size: 3, image: 'busybox:1.36', command: ['sleep', '3600'] };
  const before = podsetRequest(old);
  const oldPods = podsOf(podsetSync(withPodsetPolicy(before), FIXED_NOW));
  const parent = rolledOut(before.parent, { ...old, image: 'busybox:1.37' });
  const newPods = podsOf(podsetSync(withPodsetPolicy({ ...before, parent }), FIXED_NOW));
  const pod = (pods: KubeObject[], name: string) => pods.find((p) => p.metadata.name === name)!;
  const observed = [
    running(pod(oldPods, 'web-pod-0'), at(-86400), at(-86395), 0),
    running(pod(oldPods, 'web-pod-1'), at(-86400), at(-86395), 0),
    // The new pod: its istio-proxy crashed once at start (the mesh not ready yet), then ran; Ready from 20 s.
    running(pod(newPods, 'web-pod-2'), at(0), at(20), proxyRestarts),
  ];
  return podsetSync(
    withPodsetPolicy({ ...before, parent, children: objectMap(observed) }),
    new Date(FIXED_NOW.getTime() + 60_000),
  );
}

const replacesOne = (res: ReturnType<typeof rollout>) =>
  podsOf(res).filter((p) => ['web-pod-0', 'web-pod-1'].includes(p.metadata.name!)).length === 1;

t.test('control: the sidecar never restarted, the rollout goes on', async (t) => {
  t.ok(replacesOne(rollout(0)), 'the next outdated pod is replaced');
});

t.test('a restart of an injected sidecar holds no PodSet rollout', async (t) => {
  const res = rollout(1);
  const updated = conditionOf(res, 'Updated');
  t.comment(`Updated: ${updated?.['reason']}: ${updated?.['message']}`);
  t.ok(replacesOne(res), 'the next outdated pod is replaced, as when the sidecar never restarted');
  t.notMatch(String(updated?.['message']), /restarted/, 'the busybox container never restarted: nothing to delete');
});
