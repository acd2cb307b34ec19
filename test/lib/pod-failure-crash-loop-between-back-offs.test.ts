// lib/replicas.ts podFailure: a container in a crash loop is failing between its back-offs too. The kubelet says
// `CrashLoopBackOff` only while it waits to restart it; between two waits the container runs (not Ready, its restart
// count grown, its last run ended) or has just ended again. Read as failing only while it waits, the Degraded
// condition every workload builds from it (Memcached, PodSet, MySQLCluster) turned False and True at each restart,
// and each turn to True was a new Warning (test/memcached/crash-looping-pod-stays-degraded-and-is-told-once.test.ts).
// A container that restarts after a long run (a PodSet's `sleep 3600` that ended, a cache killed after a day) is no
// crash loop; nor is one that never restarted. The kubelet's two words for an image it cannot pull are said as one.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { CRASH_LOOP_RESET_SECONDS, failureWord, podFailure, podsFailing } from '../../lib/replicas.js';

const T0 = Date.parse('2026-01-02T03:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function pod(container: Record<string, unknown>, name = 'app'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    status: { phase: 'Running', containerStatuses: [{ name, ...container }] },
  };
}

/** A container `restarts` restarts in, running again (Ready or not) after a last run of `ran` seconds. */
const between = (ran: number | undefined, ready = false, restarts = 3) => ({
  ready,
  restartCount: restarts,
  state: { running: { startedAt: at(ran ?? 0) } },
  lastState: {
    terminated:
      ran === undefined
        ? { exitCode: 137, reason: 'OOMKilled' }
        : { exitCode: 1, startedAt: at(0), finishedAt: at(ran) },
  },
});

t.test('a crash-looping container is failing while it runs between back-offs, as while it waits', async (t) => {
  t.equal(podFailure(pod(between(30))), 'CrashLoopBackOff', 'running again after a 30 s run, not Ready');
  t.equal(podFailure(pod(between(undefined))), 'CrashLoopBackOff', 'a last run of no length that reads: a crash');
  t.equal(podFailure(pod(between(CRASH_LOOP_RESET_SECONDS - 1))), 'CrashLoopBackOff', 'just short of the reset');
  const ended = {
    ready: false,
    restartCount: 2,
    state: { terminated: { exitCode: 1, startedAt: at(0), finishedAt: at(5) } },
  };
  t.equal(podFailure(pod(ended)), 'CrashLoopBackOff', 'just ended again after 5 s, before the kubelet waits');
  const waiting = { ...between(30), state: { waiting: { reason: 'CrashLoopBackOff' } } };
  t.equal(podFailure(pod(waiting)), 'CrashLoopBackOff', 'waiting: the same word');
  t.match(podsFailing([pod(between(30))]), {
    status: true,
    reason: 'PodsFailing',
    message: '1 pod failing: p: CrashLoopBackOff',
  });
});

t.test('no crash loop: a restart after a long run, a Ready container, none restarted, a sidecar', async (t) => {
  t.equal(podFailure(pod(between(3600))), undefined, 'a `sleep 3600` that ended, not Ready yet again');
  t.equal(podFailure(pod(between(CRASH_LOOP_RESET_SECONDS))), undefined, 'a run as long as the reset');
  t.equal(podFailure(pod(between(30, true))), undefined, 'Ready again: not failing now');
  t.equal(podFailure(pod(between(30, false, 0))), undefined, 'never restarted: starting');
  t.equal(podFailure(pod({ ...between(30), restartCount: '3' })), undefined, 'a count that is not a number');
  t.equal(podFailure(pod({ ...between(30), state: { waiting: { reason: 'ContainerCreating' } } })), undefined);
  t.equal(podFailure(pod({ ...between(30), state: {} })), undefined, 'neither running nor ended');
  t.equal(
    podFailure(pod({ ...between(3600), state: { terminated: { startedAt: at(0), finishedAt: at(3600) } } })),
    undefined,
    'just ended after an hour',
  );
  t.equal(podFailure(pod(between(30), 'istio-proxy'), new Set(['app'])), undefined, 'a sidecar is not read');
  const initPod = (container: Record<string, unknown>): KubeObject => ({
    ...pod({}),
    status: { phase: 'Running', initContainerStatuses: [{ name: 'app', ...container }] },
  });
  const stepDone = {
    ready: false,
    restartCount: 1,
    state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: at(0), finishedAt: at(2) } },
  };
  t.equal(podFailure(initPod(stepDone)), undefined, 'an init container that ended after a retry has done its step');
  t.equal(podFailure(initPod(between(30))), 'CrashLoopBackOff', 'one that runs again after a short run is looping');
  t.equal(podFailure(pod(between(30)), new Set(['app'])), 'CrashLoopBackOff', 'its own container is');
});

t.test("the kubelet's two words for an image it cannot pull are one", async (t) => {
  t.equal(failureWord('ErrImagePull'), 'ImagePullBackOff');
  t.equal(failureWord('ImagePullBackOff'), 'ImagePullBackOff');
  t.equal(failureWord('CrashLoopBackOff'), 'CrashLoopBackOff');
  const waiting = (reason: string) => pod({ ready: false, restartCount: 0, state: { waiting: { reason } } });
  t.equal(podFailure(waiting('ErrImagePull')), podFailure(waiting('ImagePullBackOff')));
  t.equal(podFailure(waiting('InvalidImageName')), 'InvalidImageName', 'another reason stays as said');
});
