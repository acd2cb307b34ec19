// docs/podset.md, Rollouts: "a new image that cannot be pulled (or a command that crashes) takes down one pod and
// stops there". A command that crashes a few seconds after it starts (an application that reads its configuration,
// or dials its database, once it runs) is Ready between its crashes: busybox has no readiness probe, so the kubelet
// reports the container Ready as soon as it runs, then CrashLoopBackOff (not Ready), then Ready again at the next
// restart, and so on. Each change of the pod syncs the PodSet. The pod on the new template has restarted (its
// restartCount, its lastState.terminated): it has not proved itself, and no other Ready pod may be replaced for it.
// Metacontroller and the kubelet are played as in rollout.test.ts (OnDelete: the answer's missing pods created, the
// pods it leaves out deleted), each pod's change followed by a sync.
import t, { type Test } from 'tap';
import { podsetPodsSync as sync } from '../fixtures/hooks.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

type Spec = Record<string, unknown>;
const image = (pod: KubeObject) => (pod as any).spec.containers[0].image as string;

/**
 * The kubelet's report of a container that crashes seconds after it starts, `restarts` restarts in; its Ready
 * condition turned at `at` (each report here is a turn: Ready, crashed, Ready again).
 */
function crashing(restarts: number, running: boolean, at: string): Record<string, unknown> {
  const lastState =
    restarts > 0 ? { terminated: { exitCode: 1, reason: 'Error', startedAt: 'x', finishedAt: 'x' } } : {};
  return running
    ? {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }],
        containerStatuses: [
          { name: 'busybox', ready: true, restartCount: restarts, state: { running: { startedAt: 'x' } }, lastState },
        ],
      }
    : {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: at }],
        containerStatuses: [
          {
            name: 'busybox',
            ready: false,
            restartCount: restarts,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState,
          },
        ],
      };
}

/**
 * A PodSet of 3 settled on busybox, then its image changed to one whose command crashes after it starts; 20 syncs,
 * each 5 s of the cluster's time. The kubelet writes its times `nodeSkewMs` off the hook's (a pod's creationTimestamp
 * is the API server's, in time). The pods' images after it.
 */
function rolloutOntoCrashingCommand(t: Test, nodeSkewMs: number): string[] {
  const pods = new Map<string, KubeObject>();
  /** For each pod on the new image: how many kubelet reports it has had. */
  const age = new Map<string, number>();
  let status: Record<string, unknown> | undefined;
  let spec: Spec = { size: 3 };
  let clock = FIXED_NOW.getTime();
  const round = () => {
    clock += 5000;
    const now = new Date(clock);
    const parent = { ...request('podset', spec).parent, status };
    const res = sync(request('podset', spec, { parent, children: objectMap([...pods.values()], 'v2') }), now);
    status = res.status ?? undefined;
    const wanted = new Map(res.children.map((c) => [c.metadata.name!, c]));
    for (const name of [...pods.keys()]) if (!wanted.has(name)) pods.delete(name);
    for (const [name, desired] of wanted)
      if (!pods.has(name)) {
        const pod = asObserved(desired, { phase: 'Pending' });
        pod.metadata.creationTimestamp = now.toISOString();
        pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LAST_APPLIED]: JSON.stringify(desired) };
        pods.set(name, pod);
        age.delete(name);
      }
    // The kubelet: the old image runs; the new one is Ready, crashes, is Ready again after a restart, ...
    const at = new Date(clock + nodeSkewMs).toISOString();
    for (const [name, pod] of pods) {
      if (image(pod) !== 'app:2') {
        pods.set(name, { ...pod, status: readyPod });
        continue;
      }
      const n = age.get(name) ?? 0;
      age.set(name, n + 1);
      pods.set(name, { ...pod, status: crashing(Math.floor(n / 2), n % 2 === 0, at) });
    }
  };
  for (let i = 0; i < 4; i++) round();
  t.same([...pods.values()].map(image), ['busybox', 'busybox', 'busybox'], 'settled on busybox');
  spec = { size: 3, image: 'app:2' };
  for (let i = 0; i < 20; i++) round();
  return [...pods.values()].map(image);
}

for (const [clocks, skew] of [
  ['its node and the hook agreeing', 0],
  // A node behind writes every Ready time early: a crash loop would look Ready for a minute the moment it starts.
  ['its node 60 s behind', -60_000],
  ['its node 60 s ahead', 60_000],
] as const)
  t.test(
    `a command that crashes after it starts, ${clocks}: the rollout replaces one Ready pod and stops`,
    async (t) => {
      const images = rolloutOntoCrashingCommand(t, skew);
      const stillServing = images.filter((i) => i === 'busybox').length;
      t.ok(
        stillServing >= 1,
        `not every pod is replaced by one on a template that crashes (pods after 20 syncs: ${images.join(', ')})`,
      );
      t.equal(stillServing, 2, 'as docs/podset.md says: one pod taken down, the rollout stopped there');
    },
  );
