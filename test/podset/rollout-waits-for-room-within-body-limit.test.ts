// A PodSet counts each pod as the sync requests carry it (hooks/podset/sync.ts podsWithin, measure.ts): a rollout
// replaces a pod only when its replacement will be made (it fits within the body limit beside the pods that remain),
// else it keeps the running pod and says why (Updated=False RolloutWaiting); a replacement lighter than the pod it
// replaces frees room, and the rollout goes on. The pods the hook's own container's status makes heavier (a restart's
// termination message, escaped as Go writes JSON) are measured too.
import t from 'tap';
import { FIRST_BATCH } from '../../hooks/podset/sync.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { largestPodsetRequest, podsetRounds, podsetSyncsFrom, storedPod } from '../fixtures/stored-objects.js';
import { BUSYBOX, conditionOf, injected, podsetRequest, podsOf, rolledOut } from './syncs.js';

const CREATED = '2026-01-02T03:00:00Z';

/** Syncs as Metacontroller would: pods left out deleted, new ones stored by `store`, the status written. */
function syncs(
  parent: ParentObject,
  pods: KubeObject[],
  most: number,
  store: (pod: KubeObject, parent: ParentObject, i: number) => KubeObject,
) {
  const rounds = podsetSyncsFrom(podsetRequest({}), parent, pods, FIXED_NOW, most, store);
  const last = rounds.at(-1)!;
  return { answers: rounds.map((r) => r.res), stored: last.pods, parent: last.parent };
}

t.test('every member made, a webhook since makes them weigh more than fits: a rollout keeps them all', async (t) => {
  // 400 of 400 pods exist (made before Istio's injector was installed, then made again by it one by one): no member is
  // missing, yet fewer than 400 fit. A new image: replacing any pod would leave its replacement unmade.
  const spec = { size: 400, ...BUSYBOX };
  const req = podsetRequest(spec);
  const made = podsOf(podsetRounds(req, FIXED_NOW).at(-1)!.res);
  const pods = made.map((p, i) => injected(p, req.parent, i));
  t.equal(pods.length, 400);
  const held = podsetSync({ ...req, children: objectMap(pods) }, FIXED_NOW);
  const parent = rolledOut(req.parent, { ...spec, image: 'busybox:1.37' }, held.status);
  const { answers, stored } = syncs(parent, pods, 5, injected);
  t.equal(stored.length, 400, 'every pod kept');
  for (const res of answers) t.equal(podsOf(res).length, 400, 'each answer names all 400');
  t.match(conditionOf(answers.at(-1)!, 'Updated'), {
    status: 'False',
    reason: 'RolloutWaiting',
    message:
      /next to replace: web-pod-399; not replaced: its replacement, ~\d+ KiB in every sync request, would not fit .* beside the 399 other pods \(RequestTooLarge\): the running pod is kept/,
  });
  t.same(answers.at(-1), answers.at(-2), 'the same observed state, the same answer');
});

t.test('a rollout to pods lighter than those they replace goes on, each sync within the body limit', async (t) => {
  // Held at what fits with Istio's sidecar; the injection turned off and the image bumped: each plain replacement
  // frees room.
  const spec = { size: 900, ...BUSYBOX };
  const last = podsetRounds(podsetRequest(spec), FIXED_NOW, injected).at(-1)!;
  const before = last.pods.length;
  const parent = rolledOut(last.parent, { ...spec, image: 'busybox:1.37' });
  const { answers, stored, parent: after } = syncs(parent, last.pods, 16, storedPod);
  const updated = (answers.at(-1)!.status as any).updatedReplicas as number;
  t.ok(updated >= 4, `${updated} pods replaced in 16 syncs`);
  t.ok(stored.length >= before, `${stored.length} pods, as many as before (${before}) or more`);
  t.ok(largestPodsetRequest(after, stored) <= DEFAULT_BODY_LIMIT, 'the last sync within the body limit');
});

/** The pod crash-looping as its kubelet reports it, its last exit's termination message `message`. */
function crashing(pod: KubeObject, message: string): KubeObject {
  const p = structuredClone(pod) as any;
  for (const s of p.status.containerStatuses) {
    s.ready = false;
    s.restartCount = 5;
    s.lastState = {
      terminated: {
        containerID: s.containerID,
        exitCode: 1,
        finishedAt: CREATED,
        message,
        reason: 'Error',
        startedAt: CREATED,
      },
    };
    s.state = {
      waiting: { message: `back-off 2m40s restarting failed container=busybox`, reason: 'CrashLoopBackOff' },
    };
  }
  return p as KubeObject;
}

t.test('pods of the first batch crashing with a long termination message: the rest made as they fit', async (t) => {
  // The command writes 4096 `<` to /dev/termination-log and exits: 24 KiB in each pod's status as sent.
  const script = 'printf "%4096s" | tr " " "<" > /dev/termination-log; exit 1';
  const req = podsetRequest({ size: 900, image: 'busybox:1.36', command: ['sh', '-c', script] });
  const rounds = podsetRounds(req, FIXED_NOW, (p, parent, i) => crashing(storedPod(p, parent, i), '<'.repeat(4096)));
  t.equal(rounds[0]!.made, FIRST_BATCH, 'the first batch');
  const last = rounds.at(-1)!;
  t.ok(last.pods.length < 500, `held at ${last.pods.length} pods`);
  t.match(conditionOf(last.res, 'Ready'), { status: 'False', reason: 'RequestTooLarge' });
  for (const [i, round] of rounds.entries()) {
    const bytes = largestPodsetRequest(round.parent, round.pods);
    t.ok(bytes <= DEFAULT_BODY_LIMIT, `sync ${i + 2}: ${round.pods.length} pods, the largest request ${bytes} bytes`);
  }
});
