// A PodSet whose pods, as stored, weigh more than its syncs have room for (an admission webhook's sidecar: 400 pods
// made before the hook measured them, a webhook installed since) keeps every pod that exists and makes no more
// (Ready=False RequestTooLarge). A rollout (a new image) replaces pods one at a time: a pod it deletes is one it makes
// again from the new template. When that replacement would not fit, the rollout must not delete the running pod:
// deleting it and leaving its name unmade loses a running member at each step.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { withIstioSidecar } from '../fixtures/sidecars.js';
import { podsetRounds, storedPod } from '../fixtures/stored-objects.js';

const injected = (pod: KubeObject, parent: ParentObject, i: number) => withIstioSidecar(storedPod(pod, parent, i));
const podsOf = (res: CompositeSyncResponse) => res.children.filter((c) => c.kind === 'Pod');
const conditionOf = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as Array<Record<string, unknown>>).find((c) => c['type'] === type);

function podsetRequest(spec: Record<string, unknown>) {
  const req = request('podset', spec);
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop' };
  return req;
}

/**
 * Syncs as Metacontroller and the API server would: pods the answer leaves out deleted, new ones stored (injected),
 * the status written; `most` syncs. The live pod count after each.
 */
function syncs(parent: ParentObject, pods: KubeObject[], most: number) {
  const req = podsetRequest({});
  const stored = new Map(pods.map((p) => [p.metadata.name!, p]));
  const counts: number[] = [];
  let res: CompositeSyncResponse | undefined;
  for (let round = 0; round < most; round++) {
    res = podsetSync({ ...req, parent, children: objectMap([...stored.values()]) }, FIXED_NOW);
    const answered = new Set<string>();
    for (const p of podsOf(res)) {
      const name = p.metadata.name!;
      answered.add(name);
      if (!stored.has(name)) stored.set(name, injected(p, parent, Number(name.slice(name.lastIndexOf('-') + 1))));
    }
    for (const name of [...stored.keys()]) if (!answered.has(name)) stored.delete(name);
    parent = { ...parent, status: res.status } as ParentObject;
    counts.push(stored.size);
  }
  return { counts, res: res!, stored };
}

t.test('a rollout of a PodSet held past what fits deletes no pod it cannot make again', async (t) => {
  const spec = { size: 1000, image: 'busybox:1.36', command: ['sleep', '3600'] };
  const req = podsetRequest(spec);
  const made = podsOf(podsetRounds(podsetRequest({ ...spec, size: 400 }), FIXED_NOW).at(-1)!.res);
  const pods = made.map((p, i) => injected(p, req.parent, i));
  const held = podsetSync({ ...req, children: objectMap(pods) }, FIXED_NOW);
  t.equal(podsOf(held).length, 400, 'the 400 that exist are kept');
  t.equal(conditionOf(held, 'Ready')?.['reason'], 'RequestTooLarge');

  // The image is bumped: a rollout.
  const parent = {
    ...req.parent,
    metadata: { ...req.parent.metadata, generation: 2 },
    spec: { ...spec, image: 'busybox:1.37' },
    status: held.status,
  } as ParentObject;
  const { counts } = syncs(parent, pods, 20);
  t.same(
    counts.filter((n) => n < 400),
    [],
    `no running pod lost to the rollout (pods after each sync: ${counts.join(', ')})`,
  );
});

t.test('a rollout to a longer command of a PodSet held at what fits deletes no pod it cannot make again', async (t) => {
  // Made as the hook makes it with Istio's sidecar: held at what fits (RequestTooLarge). The command then grows
  // by 300 characters (accepted: within the bound for plain pods): each new pod weighs more, so fewer fit than exist.
  const spec = { size: 1000, image: 'busybox:1.36', command: ['sleep', '3600'] };
  const req = podsetRequest(spec);
  const last = podsetRounds(req, FIXED_NOW, injected).at(-1)!;
  const existing = last.pods.length;
  t.equal(conditionOf(last.res, 'Ready')?.['reason'], 'RequestTooLarge', `held at ${existing} pods`);
  const parent = {
    ...last.parent,
    metadata: { ...last.parent.metadata, generation: 2 },
    spec: { ...spec, command: ['sh', '-c', `echo ${'x'.repeat(300)}; sleep 3600`] },
  } as ParentObject;
  const first = podsetSync({ ...req, parent, children: objectMap(last.pods) }, FIXED_NOW);
  t.not(conditionOf(first, 'Ready')?.['reason'], 'InvalidSpec', 'the longer command is accepted');
  const { counts } = syncs(parent, last.pods, 20);
  t.same(
    counts.filter((n) => n < existing),
    [],
    `no running pod lost to the rollout (pods after each sync: ${counts.join(', ')})`,
  );
});
