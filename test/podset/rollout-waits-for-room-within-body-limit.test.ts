// A PodSet counts each pod as the sync requests carry it (hooks/podset/sync.ts podsWithin, measure.ts): a rollout
// replaces a pod only when its replacement will be made (it fits within the body limit beside the pods that remain),
// else it keeps the running pod and says why (Updated=False RolloutWaiting); a replacement lighter than the pod it
// replaces frees room, and the rollout goes on. The pods the hook's own container's status makes heavier (a restart's
// termination message, escaped as Go writes JSON) are measured too.
import t from 'tap';
import { FIRST_BATCH } from '../../hooks/podset/sync.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { withIstioSidecar } from '../fixtures/sidecars.js';
import { podsetRounds, podsetSyncRequest, sentBytes, storedPod } from '../fixtures/stored-objects.js';

const CREATED = '2026-01-02T03:00:00Z';
const BUSYBOX = { image: 'busybox:1.36', command: ['sleep', '3600'] };
const injected = (pod: KubeObject, parent: ParentObject, i: number) => withIstioSidecar(storedPod(pod, parent, i));
const podsOf = (res: CompositeSyncResponse) => res.children.filter((c) => c.kind === 'Pod');
const conditionOf = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as Array<Record<string, unknown>>).find((c) => c['type'] === type);

function podsetRequest(spec: Record<string, unknown>) {
  const req = request('podset', spec);
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop' };
  return req;
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

/** Syncs as Metacontroller would: pods left out deleted, new ones stored by `store`, the status written. */
function syncs(
  parent: ParentObject,
  pods: KubeObject[],
  most: number,
  store: (pod: KubeObject, parent: ParentObject, i: number) => KubeObject,
) {
  const req = podsetRequest({});
  const stored = new Map(pods.map((p) => [p.metadata.name!, p]));
  const answers: CompositeSyncResponse[] = [];
  for (let round = 0; round < most; round++) {
    const res = podsetSync({ ...req, parent, children: objectMap([...stored.values()]) }, FIXED_NOW);
    const answered = new Set<string>();
    for (const p of podsOf(res)) {
      const name = p.metadata.name!;
      answered.add(name);
      if (!stored.has(name)) stored.set(name, store(p, parent, Number(name.slice(name.lastIndexOf('-') + 1))));
    }
    for (const name of [...stored.keys()]) if (!answered.has(name)) stored.delete(name);
    parent = { ...parent, status: res.status } as ParentObject;
    answers.push(res);
  }
  return { answers, stored, parent };
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
  const parent = {
    ...req.parent,
    metadata: { ...req.parent.metadata, generation: 2 },
    spec: { ...spec, image: 'busybox:1.37' },
    status: held.status,
  } as ParentObject;
  const { answers, stored } = syncs(parent, pods, 5, injected);
  t.equal(stored.size, 400, 'every pod kept');
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
  const spec = { size: 1000, ...BUSYBOX };
  const last = podsetRounds(podsetRequest(spec), FIXED_NOW, injected).at(-1)!;
  const before = last.pods.length;
  const parent = {
    ...last.parent,
    metadata: { ...last.parent.metadata, generation: 2 },
    spec: { ...spec, image: 'busybox:1.37' },
  } as ParentObject;
  const { answers, stored, parent: after } = syncs(parent, last.pods, 16, storedPod);
  const updated = (answers.at(-1)!.status as any).updatedReplicas as number;
  t.ok(updated >= 4, `${updated} pods replaced in 16 syncs`);
  t.ok(stored.size >= before, `${stored.size} pods, as many as before (${before}) or more`);
  t.ok(largestRequest(after, [...stored.values()]) <= DEFAULT_BODY_LIMIT, 'the last sync within the body limit');
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
  const req = podsetRequest({ size: 1000, image: 'busybox:1.36', command: ['sh', '-c', script] });
  const rounds = podsetRounds(req, FIXED_NOW, (p, parent, i) => crashing(storedPod(p, parent, i), '<'.repeat(4096)));
  t.equal(rounds[0]!.made, FIRST_BATCH, 'the first batch');
  const last = rounds.at(-1)!;
  t.ok(last.pods.length < 500, `held at ${last.pods.length} pods`);
  t.match(conditionOf(last.res, 'Ready'), { status: 'False', reason: 'RequestTooLarge' });
  for (const [i, round] of rounds.entries()) {
    const bytes = largestRequest(round.parent, round.pods);
    t.ok(bytes <= DEFAULT_BODY_LIMIT, `sync ${i + 2}: ${round.pods.length} pods, the largest request ${bytes} bytes`);
  }
});
